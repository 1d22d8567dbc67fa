// Tables (language.md §12–§13, runtime.md §1–§2) lowered onto the store's C
// ABI (runtime/include/wo_db.h): the schema as constant data booted before
// `main`, rows as their ids, field reads and writes as store calls, queries
// as loops over id lists, and `transaction { }` as begin/commit with an abort
// on the unwind path.
#include <algorithm>
#include <cstdint>
#include <functional>

#include "codegen/emitter.h"

namespace wo::codegen {

using ast::ExprKind;

namespace {
enum : uint32_t { DB_INT = 1, DB_BOOL, DB_FLOAT, DB_TEXT, DB_BYTES, DB_TIMESTAMP, DB_ID, DB_REF, DB_MULTI, DB_MAP };
enum : uint32_t { DB_TABLE = 1, DB_VOLATILE = 2, DB_RESIDENT_KEYS = 4 };
enum : uint32_t { DB_LO = 1, DB_LO_OPEN = 2, DB_HI = 4, DB_HI_OPEN = 8, DB_DESC = 16 };

bool is_row(const Type* t) { return t->kind == TypeKind::Class && t->cls->is_table; }

// A call or a statement body somewhere inside `e`: code whose run time is
// not bounded by the rows a query visits.
bool runs_code(const ast::Expr& e) {
  switch (e.kind) {
    case ExprKind::Call: case ExprKind::Spawn: case ExprKind::Insert: case ExprKind::Delete:
    case ExprKind::Switch: case ExprKind::Try: case ExprKind::Query: case ExprKind::Ctor:
      return true;
    default: break;
  }
  if (e.lhs && runs_code(*e.lhs)) return true;
  if (e.rhs && runs_code(*e.rhs)) return true;
  for (auto& a : e.args)
    if (runs_code(*a)) return true;
  return false;
}

uint32_t db_kind(const Type* t) {
  switch (t->kind) {
    case TypeKind::Bool: return DB_BOOL;
    case TypeKind::Float: return DB_FLOAT;
    case TypeKind::Text: return DB_TEXT;
    case TypeKind::Bytes: return DB_BYTES;
    case TypeKind::Timestamp: return DB_TIMESTAMP;
    case TypeKind::Id: return DB_ID;
    case TypeKind::Class: return DB_REF;
    case TypeKind::List: return DB_MULTI;
    case TypeKind::Map: return DB_MAP;
    default: return DB_INT;
  }
}
}  // namespace

llvm::Value* Emitter::db_word(llvm::Value* v, const Type* t) {
  const Type* b = t->base();
  if (t->is_nullable() && is_row(b))  // the store's nil of `?ref` is id 0
    return b_.CreateSelect(is_nil(v, t), b_.getInt64(0), v);
  return to_slot(v, b);
}

llvm::Value* Emitter::from_db_word(llvm::Value* w, const Type* t) {
  const Type* b = t->base();
  if (t->is_nullable() && is_row(b)) return b_.CreateSelect(b_.CreateICmpEQ(w, b_.getInt64(0)), nil_of(t), w);
  if (t->is_nullable() && !b->is_heap()) {
    if (b->kind == TypeKind::Float) return b_.CreateBitCast(w, f64_);
    return w;  // ?Int / ?Bool keep the sentinel word
  }
  return from_slot(w, b);
}

void Emitter::emit_schema_boot() {
  std::vector<const ClassInfo*> tables;  // in schema order (db_index)
  for (auto& c : prog_.classes)
    if (c->db_index >= 0) tables.push_back(c.get());
  if (tables.empty()) return;
  std::sort(tables.begin(), tables.end(), [](auto* a, auto* b) { return a->db_index < b->db_index; });
  auto* i32 = b_.getInt32Ty();
  auto* field_ty = llvm::StructType::get(ctx_, {ptr_, i32, i32, i32, i32, i32});
  auto* index_ty = llvm::StructType::get(ctx_, {i32, i32, ptr_});
  auto* class_ty = llvm::StructType::get(ctx_, {ptr_, i32, i32, ptr_, i32, ptr_});
  auto* schema_ty = llvm::StructType::get(ctx_, {i32, ptr_});
  auto global = [&](llvm::Constant* init, const std::string& name) {
    return new llvm::GlobalVariable(*mod_, init->getType(), true, llvm::GlobalValue::PrivateLinkage, init, name);
  };
  std::vector<llvm::Constant*> classes;
  for (const ClassInfo* c : tables) {
    std::vector<llvm::Constant*> fields, indexes;
    for (auto& f : c->fields) {
      if (f.column < 0) continue;
      const Type* b = f.type->base();
      // A container's element kinds (a map: key, then value).
      uint32_t elem = b->kind == TypeKind::List || b->kind == TypeKind::Map ? db_kind(b->elem) : 0;
      uint32_t value = b->kind == TypeKind::Map ? db_kind(b->value) : 0;
      fields.push_back(llvm::ConstantStruct::get(
          field_ty, {c_string(f.name), b_.getInt32(db_kind(b)), b_.getInt32(f.type->is_nullable() ? 1 : 0),
                     b_.getInt32(is_row(b) ? b->cls->db_index : -1), b_.getInt32(elem), b_.getInt32(value)}));
    }
    auto add_index = [&](uint32_t flags, const std::vector<int>& field_indexes) {
      std::vector<llvm::Constant*> cols;
      for (int fi : field_indexes) cols.push_back(b_.getInt32(c->fields[fi].column));
      auto* arr = llvm::ConstantArray::get(llvm::ArrayType::get(i32, cols.size()), cols);
      indexes.push_back(llvm::ConstantStruct::get(
          index_ty, {b_.getInt32(flags), b_.getInt32((uint32_t)cols.size()), global(arr, "db.cols." + c->name)}));
    };
    for (size_t i = 0; i < c->fields.size(); ++i)
      if (c->fields[i].unique && c->fields[i].column >= 0) add_index(1, {(int)i});
    for (auto& idx : c->indexes) add_index(0, idx);
    auto* farr = llvm::ConstantArray::get(llvm::ArrayType::get(field_ty, fields.size()), fields);
    auto* iarr = llvm::ConstantArray::get(llvm::ArrayType::get(index_ty, indexes.size()), indexes);
    // A plain class used with `insert` is RAM-only engine storage (no TABLE flag).
    uint32_t flags = !c->is_table ? 0u : uint32_t(DB_TABLE) | (c->durable ? 0u : uint32_t(DB_VOLATILE)) | (c->resident_keys ? uint32_t(DB_RESIDENT_KEYS) : 0u);
    classes.push_back(llvm::ConstantStruct::get(
        class_ty, {c_string(c->is_table ? c->table_name : c->name), b_.getInt32(flags), b_.getInt32((uint32_t)fields.size()),
                   global(farr, "db.fields." + c->name), b_.getInt32((uint32_t)indexes.size()),
                   global(iarr, "db.indexes." + c->name)}));
  }
  auto* carr = llvm::ConstantArray::get(llvm::ArrayType::get(class_ty, classes.size()), classes);
  auto* schema = global(llvm::ConstantStruct::get(schema_ty, {b_.getInt32((uint32_t)classes.size()), global(carr, "db.classes")}),
                        "db.schema");
  b_.CreateCall(rt("wo_db_boot"), {schema});
}

Val Emitter::emit_insert(const ast::Expr& e) {
  const ast::Expr& ctor = *e.lhs;
  const ClassInfo* cls = ctor.sym->cls;
  // The store copies what it keeps: the values are only lent.
  std::vector<Val> vals = ctor_field_values(ctor, cls);
  int ncols = 0;
  for (auto& f : cls->fields) ncols += f.column >= 0;
  auto* arr_ty = llvm::ArrayType::get(i64_, std::max(ncols, 1));
  llvm::AllocaInst* arr = entry_alloca(arr_ty, "row.values");
  for (size_t i = 0; i < cls->fields.size(); ++i) {
    const sema::FieldInfo& fi = cls->fields[i];
    if (fi.column >= 0) b_.CreateStore(db_word(vals[i].v, fi.type), b_.CreateConstGEP2_64(arr_ty, arr, 0, fi.column));
  }
  return Val{call(rt("wo_db_insert"), {b_.getInt32(cls->db_index), arr, site(e.span.begin.line)}, "row")};
}

// `T.get(id)`: the id when such a row exists (wo_db_exists routes to the
// PostgreSQL store too), else the nil of `?T`.
Val Emitter::emit_row_get(const ast::Expr& e) {
  const ClassInfo* cls = e.sym->cls;
  const ast::Expr& arg = *e.args[0];
  llvm::Value* id = emit_expr(arg).v;  // an Int, Id or another row: one i64 word
  llvm::Value* there = call(rt("wo_db_exists"), {b_.getInt32(cls->db_index), id});
  return Val{from_db_word(b_.CreateSelect(there, id, b_.getInt64(0)), e.type)};
}

Val Emitter::emit_row_field(const ast::Expr& e, llvm::Value* row) {
  const sema::FieldInfo& f = e.sym->cls->fields[e.sym->field_index];
  llvm::Constant* where = site(e.span.begin.line);
  if (f.backlink_cls) {
    // The rows of C whose f refers to this one: a probe of C.f.
    const sema::FieldInfo& ref = f.backlink_cls->fields[f.backlink_field];
    return own_temp(call(rt("wo_db_probe"), {b_.getInt32(f.backlink_cls->db_index), b_.getInt32(ref.column), row, where}));
  }
  llvm::Value* w = call(rt("wo_db_get"), {b_.getInt32(e.sym->cls->db_index), row, b_.getInt32(f.column), where}, e.text);
  llvm::Value* v = from_db_word(w, f.type);
  if (f.type->is_heap()) return own_temp(v);  // a fresh copy of the stored Text/Bytes
  return Val{v};
}

void Emitter::emit_row_store(const ast::Expr& target, llvm::Value* row, const Val& value) {
  const sema::FieldInfo& f = target.sym->cls->fields[target.sym->field_index];
  call(rt("wo_db_set"), {b_.getInt32(target.sym->cls->db_index), row, b_.getInt32(f.column), db_word(value.v, f.type),
                         site(target.span.begin.line)});
}

Val Emitter::emit_delete(const ast::Expr& e) {
  Val row = emit_expr(*e.lhs);
  call(rt("wo_db_delete"), {b_.getInt32(e.lhs->type->cls->db_index), row.v, site(e.span.begin.line)});
  return Val{b_.getInt64(1)};
}

Val Emitter::emit_query(const ast::Expr& e) {
  const ast::Expr& src = *e.lhs;
  const Type* row_t = e.sym->type;
  // Rows (a table, a backlink, a `multi` of rows) are walked as their ids;
  // any other `multi` as the positions of its elements (docs/decisions/0089).
  const bool rows = is_row(row_t);
  const ClassInfo* cls = rows ? row_t->cls : nullptr;
  llvm::Value* db = rows ? b_.getInt32(cls->db_index) : nullptr;
  llvm::Constant* where_site = site(e.span.begin.line);
  std::vector<const ast::QueryClause*> clauses;
  std::vector<const ast::QueryClause*> order_keys;  // the last `order by a, b desc, …`
  const ast::QueryClause* take = nullptr;
  for (auto& c : e.clauses) {
    if (c.kind == ast::QueryClause::Where) clauses.push_back(&c);
    if (c.kind == ast::QueryClause::OrderBy) {
      if (!c.then_by) order_keys.clear();
      order_keys.push_back(&c);
    }
    if (c.kind == ast::QueryClause::Take) take = &c;
  }
  // The store's ordered walks answer one key; several keys sort after.
  const ast::QueryClause* order = order_keys.size() == 1 ? order_keys[0] : nullptr;
  // Every `where` as its conjuncts, in source order: `a and b` evaluates a
  // then b with a short circuit either way, so a conjunct the store answers
  // (a bound of an ordered range) can be taken out of the filter.
  std::vector<const ast::Expr*> wheres;
  std::function<void(const ast::Expr&)> conjuncts = [&](const ast::Expr& x) {
    if (x.kind == ExprKind::Binary && x.binary_op == ast::BinaryOp::And) {
      conjuncts(*x.lhs);
      conjuncts(*x.rhs);
    } else {
      wheres.push_back(&x);
    }
  };
  for (auto* c : clauses) conjuncts(*c->expr);
  auto column_of = [&](const ast::Expr& m) { return cls->fields[m.sym->field_index].column; };
  auto is_var_field = [&](const ast::Expr& x) {
    return rows && x.kind == ExprKind::Member && x.lhs->kind == ExprKind::Name && x.lhs->sym == e.sym && x.sym &&
           x.sym->kind == sema::SymKind::Field && column_of(x) >= 0;
  };
  std::function<bool(const ast::Expr&)> mentions_var = [&](const ast::Expr& x) -> bool {
    if (x.kind == ExprKind::Name && x.sym == e.sym) return true;
    if (x.lhs && mentions_var(*x.lhs)) return true;
    if (x.rhs && mentions_var(*x.rhs)) return true;
    for (auto& a : x.args)
      if (mentions_var(*a)) return true;
    return false;
  };
  // A range bound is evaluated once, before the walk, instead of once per
  // row: only for expressions that cannot trap or act (locals, literals,
  // wrapping + - *), so hoisting is unobservable even over an empty table.
  std::function<bool(const ast::Expr&)> plain_int = [&](const ast::Expr& x) -> bool {
    if (!x.type || x.type->kind != TypeKind::Int) return false;
    switch (x.kind) {
      case ExprKind::IntLit: return true;
      case ExprKind::Name: return x.sym != e.sym && x.sym && x.sym->kind == sema::SymKind::Local;
      case ExprKind::Unary: return x.unary_op == ast::UnaryOp::Neg && plain_int(*x.lhs);
      case ExprKind::Binary:
        return (x.binary_op == ast::BinaryOp::Add || x.binary_op == ast::BinaryOp::Sub ||
                x.binary_op == ast::BinaryOp::Mul) &&
               plain_int(*x.lhs) && plain_int(*x.rhs);
      default: return false;
    }
  };
  llvm::Value* limit = take ? emit_expr(*take->expr).v : nullptr;
  Val ids;
  bool ordered = false, limited = false;
  if (src.kind == ExprKind::Name && src.sym && src.sym->kind == sema::SymKind::Class) {
    // An equality on a stored column is a probe (an index lookup when indexed).
    const ast::Expr* probe_field = nullptr;
    const ast::Expr* probe_key = nullptr;
    size_t probe_at = 0;
    for (size_t wi = 0; wi < wheres.size() && !probe_field; ++wi) {
      const ast::Expr& c = *wheres[wi];
      if (c.kind != ExprKind::Binary || c.binary_op != ast::BinaryOp::Eq) continue;
      if (is_var_field(*c.lhs) && !mentions_var(*c.rhs) && c.lhs->type->base() == c.lhs->type) {
        probe_field = c.lhs.get();
        probe_key = c.rhs.get();
      } else if (is_var_field(*c.rhs) && !mentions_var(*c.lhs) && c.rhs->type->base() == c.rhs->type) {
        probe_field = c.rhs.get();
        probe_key = c.lhs.get();
      }
      probe_at = wi;
    }
    // `order by x.f` with bounds `x.f >= a`, `x.f < b` (Int columns): an
    // ordered walk of the range, the other conditions filtering it in order.
    const ast::Expr* lo = nullptr;
    const ast::Expr* hi = nullptr;
    uint32_t bound_flags = 0;
    std::vector<const ast::Expr*> rest;
    if (!probe_field && order && is_var_field(*order->expr) && order->expr->type->kind == TypeKind::Int) {
      int col = column_of(*order->expr);
      for (const ast::Expr* w : wheres) {
        const ast::Expr& c = *w;
        bool cmp = c.kind == ExprKind::Binary &&
                   (c.binary_op == ast::BinaryOp::Lt || c.binary_op == ast::BinaryOp::Le ||
                    c.binary_op == ast::BinaryOp::Gt || c.binary_op == ast::BinaryOp::Ge);
        const ast::Expr* bound = nullptr;
        ast::BinaryOp op = c.binary_op;
        if (cmp && is_var_field(*c.lhs) && column_of(*c.lhs) == col && plain_int(*c.rhs)) {
          bound = c.rhs.get();
        } else if (cmp && is_var_field(*c.rhs) && column_of(*c.rhs) == col && plain_int(*c.lhs)) {
          bound = c.lhs.get();  // `a <= x.f` is `x.f >= a`
          op = op == ast::BinaryOp::Lt ? ast::BinaryOp::Gt : op == ast::BinaryOp::Le ? ast::BinaryOp::Ge
             : op == ast::BinaryOp::Gt ? ast::BinaryOp::Lt : ast::BinaryOp::Le;
        }
        bool lower = op == ast::BinaryOp::Gt || op == ast::BinaryOp::Ge;
        if (bound && lower && !lo) {
          lo = bound;
          bound_flags |= DB_LO | (op == ast::BinaryOp::Gt ? uint32_t(DB_LO_OPEN) : 0u);
        } else if (bound && !lower && !hi) {
          hi = bound;
          bound_flags |= DB_HI | (op == ast::BinaryOp::Lt ? uint32_t(DB_HI_OPEN) : 0u);
        } else {
          rest.push_back(w);
        }
      }
    }
    if (probe_field) {
      const Type* ft = cls->fields[probe_field->sym->field_index].type;
      // The probe answers the equality exactly, except for Float, where the
      // index's key equality (-0.0 is 0.0, NaN is NaN) is not `==`.
      if (ft->kind != TypeKind::Float) wheres.erase(wheres.begin() + static_cast<std::ptrdiff_t>(probe_at));
      Val k = coerce(emit_expr(*probe_key), probe_key->type, ft);
      ids = own_temp(call(rt("wo_db_probe"), {db, b_.getInt32(column_of(*probe_field)), db_word(k.v, ft), where_site}));
    } else if (order && is_var_field(*order->expr) && (wheres.empty() || bound_flags)) {
      llvm::Value* lo_v = lo ? emit_expr(*lo).v : b_.getInt64(0);
      llvm::Value* hi_v = hi ? emit_expr(*hi).v : b_.getInt64(0);
      uint32_t flags = bound_flags | (order->descending ? uint32_t(DB_DESC) : 0u);
      wheres = rest;
      limited = limit != nullptr && wheres.empty();
      ids = own_temp(call(rt("wo_db_range"), {db, b_.getInt32(column_of(*order->expr)), lo_v, hi_v, b_.getInt32(flags),
                                              limited ? limit : b_.getInt64(-1), where_site}));
      ordered = true;
    } else {
      ids = own_temp(call(rt("wo_db_scan"), {db, where_site}));
    }
  } else {
    // A backlink (already the referring rows) or a list of rows: held while
    // the clauses and the select run, which may replace the list it came
    // from (docs/decisions/0078).
    uint8_t later = e.rhs ? may_write(*e.rhs) : 0;
    for (auto& c : e.clauses)
      if (c.expr) later |= may_write(*c.expr);
    ids = keep(emit_expr(src), src, later);
  }
  // `for (i = 0; i < n(); ++i) body(i)`, the bound re-read at each test
  // (a list's length); `preempt`: the back edge takes the loop budget.
  auto count_up = [&](const char* name, const std::function<llvm::Value*()>& n,
                      const std::function<void(llvm::Value*)>& body, bool preempt) {
    llvm::AllocaInst* idx = entry_alloca(i64_, name);
    b_.CreateStore(b_.getInt64(0), idx);
    llvm::BasicBlock* cond_bb = new_block("q.cond");
    llvm::BasicBlock* body_bb = new_block("q.body");
    llvm::BasicBlock* end_bb = new_block("q.end");
    b_.CreateBr(cond_bb);
    b_.SetInsertPoint(cond_bb);
    llvm::Value* i = b_.CreateLoad(i64_, idx);
    b_.CreateCondBr(b_.CreateICmpSLT(i, n()), body_bb, end_bb);
    b_.SetInsertPoint(body_bb);
    body(i);
    b_.CreateStore(b_.CreateAdd(b_.CreateLoad(i64_, idx), b_.getInt64(1)), idx);
    if (preempt) emit_preempt_check();
    b_.CreateBr(cond_bb);
    b_.SetInsertPoint(end_bb);
  };
  // Elements: the walk is over positions 0..len-1 of the held list, each
  // element bound like a `for` variable (its own reference) while a clause
  // or the select runs.
  Val elems{};
  if (!rows) {
    elems = ids;
    llvm::Value* n = inline_len(elems.v);
    Val positions = own_temp(call(rt("wo_list_new"), {b_.getInt64(0), n}));
    count_up("q.pos", [&] { return n; }, [&](llvm::Value* i) { call(rt("wo_list_push"), {positions.v, i}); }, false);
    ids = positions;
  }
  llvm::AllocaInst* var = rows ? local_slot(e.sym) : nullptr;
  // Loops over an id list: `body` runs with the query variable bound.
  // A loop that calls user code (a `where`, a key, a `select` with a call)
  // takes the back-edge budget like any loop (runtime.md §3.3); one that only
  // reads fields is bounded by the rows and stays a plain scan.
  bool user_code = e.rhs && runs_code(*e.rhs);
  for (auto& c : e.clauses) user_code |= c.expr && runs_code(*c.expr);
  auto each_row = [&](llvm::Value* list, const std::function<void(llvm::Value* word)>& body) {
    count_up("q.i", [&] { return inline_len(list); }, [&](llvm::Value* i) {
      llvm::Value* word = inline_list_get(list, i, e.span.begin.line);
      if (rows) {
        b_.CreateStore(word, var);
      } else {
        push_scope();
        bind_loop_var(e.sym, from_slot(inline_list_get(elems.v, word, e.span.begin.line), row_t));
      }
      body(word);
      if (!rows) pop_scope();
    }, user_code);
  };
  if (!wheres.empty()) {
    Val kept = own_temp(call(rt("wo_list_new"), {b_.getInt64(0), b_.getInt64(0)}));
    each_row(ids.v, [&](llvm::Value* word) {
      llvm::BasicBlock* keep_bb = new_block("q.keep");
      llvm::BasicBlock* next_bb = new_block("q.next");
      for (const ast::Expr* w : wheres) {
        llvm::Value* ok = emit_cond(*w);
        llvm::BasicBlock* more = new_block("q.where");
        b_.CreateCondBr(ok, more, next_bb);
        b_.SetInsertPoint(more);
      }
      b_.CreateBr(keep_bb);
      b_.SetInsertPoint(keep_bb);
      call(rt("wo_list_push"), {kept.v, word});
      b_.CreateBr(next_bb);
      b_.SetInsertPoint(next_bb);
    });
    ids = kept;
  }
  if (!order_keys.empty() && !ordered) {
    // Sorting is in place: a navigation source without `where` is the
    // program's own list (a `multi` of rows), which must not be reordered.
    if (rows && wheres.empty() && !(src.kind == ExprKind::Name && src.sym && src.sym->kind == sema::SymKind::Class))
      ids = own_temp(call(rt("wo_list_slice"), {ids.v, b_.getInt64(0), b_.getInt64(INT64_MAX), where_site}));
    // Several keys: one stable sort per key, the last key first, so each
    // earlier key decides and the later ones order its ties.
    for (auto it = order_keys.rbegin(); it != order_keys.rend(); ++it) {
      const ast::QueryClause& key = **it;
      if (order && is_var_field(*key.expr)) {
        call(rt("wo_db_sort"), {db, ids.v, b_.getInt32(column_of(*key.expr)), b_.getInt1(key.descending), where_site});
        continue;
      }
      // A computed key (§13.1): evaluated once per row, then a stable sort
      // of the ids by the store's key order.
      const Type* kt = key.expr->type;
      const Type* kb = kt->base();
      Val keys = own_temp(call(rt("wo_list_new"), {b_.getInt64(elem_kind(kb)), b_.getInt64(0)}));
      each_row(ids.v, [&](llvm::Value*) {
        push_temps();
        Val k = emit_expr(*key.expr);
        llvm::Value* w = kt->is_nullable() && is_row(kb) ? db_word(k.v, kt) : to_slot(take_owned(k, kt), kb);
        call(rt("wo_list_push"), {keys.v, w});
        pop_temps();
      });
      call(rt("wo_db_sort_keys"), {ids.v, keys.v, b_.getInt32(db_kind(kb)), b_.getInt1(kt->is_nullable() && !is_row(kb)),
                                   b_.getInt1(key.descending), where_site});
    }
  }
  if (limit && !limited)
    ids = own_temp(call(rt("wo_list_slice"), {ids.v, b_.getInt64(0), limit, where_site}));
  if (rows && (!e.rhs || (e.rhs->kind == ExprKind::Name && e.rhs->sym == e.sym))) return ids;  // `select x`: the ids
  const Type* sel = e.type->elem;
  Val out = own_temp(call(rt("wo_list_new"), {b_.getInt64(elem_kind(sel)), b_.getInt64(0)}));
  each_row(ids.v, [&](llvm::Value*) {
    push_temps();
    Val v = coerce(emit_expr(*e.rhs), e.rhs->type, sel);
    call(rt("wo_list_push"), {out.v, to_slot(take_owned(v, sel), sel)});
    pop_temps();
  });
  return out;
}

void Emitter::emit_transaction(const ast::Stmt& s) {
  // A program without stored classes has no store to begin, commit or undo:
  // the block just runs (it trapped 5 "database engine not initialized").
  bool any_stored = false;
  for (auto& c : prog_.classes) any_stored |= c->db_index >= 0;
  if (!any_stored) {
    emit_block(*s.body);
    return;
  }
  llvm::Constant* where = site(s.span.begin.line);
  call(rt("wo_tx_begin"), {where});
  Region tx;
  tx.kind = Region::Transaction;
  regions_.push_back(&tx);
  emit_block(*s.body);
  if (!terminated()) call(rt("wo_tx_commit"), {where});  // a failing commit still aborts
  regions_.pop_back();
  if (tx.pad) {
    // A trap leaving the block: undo the block's writes, then keep unwinding.
    llvm::BasicBlock* resume_at = b_.GetInsertBlock();
    b_.SetInsertPoint(tx.dispatch);
    b_.CreateCall(rt("wo_tx_abort"), {});
    forward_unwind(tx);
    b_.SetInsertPoint(resume_at);
  }
}

}  // namespace wo::codegen
