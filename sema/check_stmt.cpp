// Statements, blocks, function bodies and the entry point.
#include <algorithm>

#include "sema/checker.h"

namespace wo::sema {

namespace {
Loc at(const Span& s) { return s.begin; }
}  // namespace

Symbol* Checker::declare_local(const std::string& name, const Type* t, Loc loc, SymKind kind) {
  auto sym = std::make_unique<Symbol>(Symbol{kind, name, t, loc});
  Symbol* raw = sym.get();
  if (fn_)
    fn_->locals.push_back(std::move(sym));
  else
    info_.extra_symbols.push_back(std::move(sym));
  bind_local(name, raw);
  return raw;
}

void Checker::bind_local(const std::string& name, Symbol* sym) {
  auto [it, fresh] = scopes_.back().insert_or_assign(name, sym);
  auto& stack = visible_[name];
  if (fresh)
    stack.push_back(sym);
  else
    stack.back() = sym;  // redeclared in the same scope: the innermost binding is this scope's
}

void Checker::pop_scope() {
  for (auto& [name, sym] : scopes_.back()) {
    auto it = visible_.find(name);
    it->second.pop_back();
    if (it->second.empty()) visible_.erase(it);
  }
  scopes_.pop_back();
}

Symbol* Checker::lookup_local(const std::string& name) {
  auto it = visible_.find(name);
  return it == visible_.end() ? nullptr : it->second.back();
}

const Type* Checker::mismatch(Loc loc, const std::string& what, const Type* want, const Type* got) {
  if (want->is_poison() || got->is_poison()) return types_.poison();
  std::string w = type_name(want), g = type_name(got);
  Diagnostic& d = error(DiagCode::E201, loc, what + ": expected " + w + ", found " + g);
  // "expected Error, found Error": a program's class named like a
  // predeclared record is another type than the record catch (e) binds.
  // (Two of the program's own types never share a name past WO-E214.)
  if (w == g)
    d.hint("two types are named `" + type_name(want->base()) + "`: the predeclared record (what `catch (e)` and "
           "the builtins give) and this program's class; rename the program's class (language.md §7.11)");
  return types_.poison();
}

bool Checker::check_flow(const Type* to, const Type* from, Loc loc, const std::string& what, Flow site) {
  if (!to || !from || to->is_poison() || from->is_poison()) return true;
  if (assignable(to, from)) return true;
  const Type* tb = to->base();
  const Type* fb = from->base();
  // An interface value holds an object; a table row is an id (codegen crashed
  // on it at run time). Not implemented until interface values can carry one.
  if (tb->kind == TypeKind::Interface && fb->kind == TypeKind::Class && fb->cls->is_table) {
    error(DiagCode::E403, loc, what + ": a row of the @table class `" + fb->cls->name +
                                   "` cannot be used as an interface value yet in woc; pass the row as `" +
                                   fb->cls->name + "`");
    return false;
  }
  // nil / ?T into a plain slot (language.md §8.2): E211 for `return`, E212 for stores.
  bool from_maybe_nil = from->kind == TypeKind::Nil || from->is_nullable();
  if (from_maybe_nil && !to->is_nullable()) {
    std::string unused;  // an unsatisfied interface is reported below (E205)
    bool base_fits = from->kind == TypeKind::Nil || assignable(to, fb) ||
                     (tb->kind == TypeKind::Interface && fb->kind == TypeKind::Class &&
                      satisfies(*fb->cls, *tb->iface, &unused));
    if (base_fits) {
      if (site == Flow::Arg && from->kind != TypeKind::Nil) return true;  // accepted, as the reference does
      if (site == Flow::Return) {
        error(DiagCode::E211, loc, what + ": a possibly-nil " + type_name(from) + " cannot be returned as " +
                                       type_name(to) + " (check it against nil first)");
      } else {
        error(DiagCode::E212, loc, what + ": " + (from->kind == TypeKind::Nil ? std::string("nil") : "a possibly-nil " + type_name(from)) +
                                       " cannot be stored in a slot of type " + type_name(to));
      }
      return false;
    }
  }
  if (tb->kind == TypeKind::Interface && fb->kind == TypeKind::Class) {
    std::string why;
    if (satisfies(*fb->cls, *tb->iface, &why)) return true;
    error(DiagCode::E205, loc, what + ": " + why);
    return false;
  }
  mismatch(loc, what, to, from);
  return false;
}

void Checker::check_fn(FnInfo& fn) {
  fn_ = &fn;
  facts_cache_.clear();
  returns_cache_.clear();
  exits_cache_.clear();
  tx_depth_ = 0;
  tx_loop_base_.clear();
  cur_module_ = fn.module;
  cur_file_ = fn.file;
  loop_depth_ = 0;
  scopes_.clear();
  visible_.clear();
  push_scope();
  for (Symbol* p : fn.params) bind_local(p->name, p);
  if (fn.decl->body) {
    check_block(*fn.decl->body);
    if (fn.ret->kind != TypeKind::Void && !fn.ret->is_poison() && !block_returns(*fn.decl->body))
      error(DiagCode::E403, at(fn.decl->sig.span),
            "`" + fn.name + "` is declared `-> " + type_name(fn.ret) + "` but can reach its end without returning a value");
  }
  pop_scope();
  fn_ = nullptr;
}

void Checker::check_block(ast::Block& b) {
  push_scope();
  narrow_.emplace_back();
  check_stmts(b.stmts);
  narrow_.pop_back();
  pop_scope();
}

bool Checker::is_narrowed(const Symbol* s) const {
  for (auto& frame : narrow_)
    for (auto* x : frame)
      if (x == s) return true;
  return false;
}

void Checker::kill_narrow(const Symbol* s) {
  for (auto& frame : narrow_) std::erase(frame, s);
}

// What a condition proves about plain nullable locals (language.md §8.3).
// The facts of `and`/`or`/`not` are cached per node: check_binary asks for
// the facts of every left operand of a chain, and recomputing them each time
// would make `a or b or c ...` quadratic.
Checker::Facts Checker::cond_facts(const ast::Expr& e) {
  bool logical = (e.kind == ast::ExprKind::Binary && (e.binary_op == ast::BinaryOp::And || e.binary_op == ast::BinaryOp::Or)) ||
                 (e.kind == ast::ExprKind::Unary && e.unary_op == ast::UnaryOp::Not);
  if (logical) {
    auto it = facts_cache_.find(&e);
    if (it != facts_cache_.end()) return it->second;
  }
  Facts f;
  if (e.kind == ast::ExprKind::Binary) {
    auto op = e.binary_op;
    if (op == ast::BinaryOp::Eq || op == ast::BinaryOp::Ne) {
      const ast::Expr* var = nullptr;
      if (e.rhs->kind == ast::ExprKind::NilLit) var = e.lhs.get();
      if (e.lhs->kind == ast::ExprKind::NilLit) var = e.rhs.get();
      if (var && var->kind == ast::ExprKind::Name && var->sym &&
          (var->sym->kind == SymKind::Local || var->sym->kind == SymKind::Param) && var->sym->type->is_nullable()) {
        (op == ast::BinaryOp::Ne ? f.when_true : f.when_false).push_back(var->sym);
      }
      return f;
    }
    // A symbol proved twice is kept once, so a long chain's facts stay as
    // small as the number of locals it tests.
    auto join = [](std::vector<Symbol*> a, const std::vector<Symbol*>& b) {
      for (Symbol* s : b)
        if (std::find(a.begin(), a.end(), s) == a.end()) a.push_back(s);
      return a;
    };
    if (op == ast::BinaryOp::And) f.when_true = join(cond_facts(*e.lhs).when_true, cond_facts(*e.rhs).when_true);
    if (op == ast::BinaryOp::Or) f.when_false = join(cond_facts(*e.lhs).when_false, cond_facts(*e.rhs).when_false);
  }
  if (e.kind == ast::ExprKind::Unary && e.unary_op == ast::UnaryOp::Not) {
    f = cond_facts(*e.lhs);
    std::swap(f.when_true, f.when_false);
  }
  if (logical) facts_cache_.emplace(&e, f);
  return f;
}

// Whether control never leaves the block at its end (return, break, continue).
bool Checker::block_exits(const ast::Block& b) {
  auto [it, fresh] = exits_cache_.emplace(&b, false);
  if (fresh) it->second = block_exits_now(b);  // cached like block_returns
  return it->second;
}

bool Checker::block_exits_now(const ast::Block& b) {
  if (block_returns(b)) return true;
  if (b.stmts.empty()) return false;
  const ast::Stmt& last = *b.stmts.back();
  if (last.kind == ast::StmtKind::Break || last.kind == ast::StmtKind::Continue) return true;
  if (last.kind == ast::StmtKind::If && last.else_body) return block_exits(*last.body) && block_exits(*last.else_body);
  return false;
}

void Checker::check_stmts(std::vector<ast::StmtPtr>& stmts) {
  for (auto& s : stmts) check_stmt(*s);
}

bool Checker::is_place(const ast::Expr& e) {
  switch (e.kind) {
    case ast::ExprKind::Name:
      return e.sym && (e.sym->kind == SymKind::Local || e.sym->kind == SymKind::Param);
    case ast::ExprKind::Member:
      return e.sym && e.sym->kind == SymKind::Field;
    case ast::ExprKind::Index:
      return e.lhs && e.lhs->type && (e.lhs->type->kind == TypeKind::List || e.lhs->type->kind == TypeKind::Map);
    default:
      return false;
  }
}

void Checker::check_assign(ast::Stmt& s) {
  const Type* tt = check_expr(*s.target);
  const Type* read = tt;  // what `t` reads as on the right of `t op= e`
  if (tt->is_poison()) {
    check_expr(*s.expr);
    return;
  }
  if (!is_place(*s.target)) {
    error(DiagCode::E403, at(s.target->span), "the left side of an assignment must be a variable, a field or an element");
    check_expr(*s.expr);
    return;
  }
  if (s.target->kind == ast::ExprKind::Name && s.target->sym->kind == SymKind::Param) s.target->sym->assigned = true;
  if (s.target->kind == ast::ExprKind::Index || s.target->kind == ast::ExprKind::Member)
    refuse_row_copy_change(*s.target->lhs, "this assignment");
  if (s.target->kind == ast::ExprKind::Index && s.target->lhs->type->kind == TypeKind::Map) {
    // `m[k] = v` stores a V (the read `m[k]` is ?V).
    tt = s.target->lhs->type->value;
    s.target->type = tt;
  }
  if (s.target->kind == ast::ExprKind::Name) {
    // The slot takes its declared type again; narrowing ends once the value is stored.
    tt = s.target->sym->type;
    s.target->type = tt;
  }
  if (s.target->kind == ast::ExprKind::Member) {
    const Symbol* f = s.target->sym;
    const FieldInfo& fi = f->cls->fields[f->field_index];
    if (fi.backlink_cls)
      error(DiagCode::E403, at(s.target->span), "`" + fi.name + "` is a backlink: it is computed from `" +
                                                    fi.backlink_cls->name + "`, not assigned");
    if (fi.pub_read && !(fn_ && fn_->owner == f->cls))
      error(DiagCode::E219, at(s.target->span),
            "field `" + fi.name + "` is pub(read): only methods of `" + f->cls->name + "` may write it");
  }
  const Type* vt = check_expr(*s.expr, tt);
  if (s.target->kind == ast::ExprKind::Name) kill_narrow(s.target->sym);
  if (s.assign_op == ast::AssignOp::Assign) {
    check_flow(tt, vt, at(s.expr->span), "assignment", Flow::Assign);
    return;
  }
  // Compound assignment: t op= e means t = t op e (language.md §9.3), so both
  // the target as read (a narrowed local reads as T, `m[k]` as ?V) and the
  // value are arithmetic operands: possibly nil is E211 (§8.2).
  if ((read->is_nullable() || vt->is_nullable() || vt->kind == TypeKind::Nil) && !vt->is_poison()) {
    const Type* culprit = read->is_nullable() ? read : vt;
    error(DiagCode::E211, at(read->is_nullable() ? s.target->span : s.expr->span),
          "compound assignment on a possibly-nil value (" + type_name(culprit) + "): check it against nil first");
    return;
  }
  tt = read;
  bool ok = (tt->is_int_like() && vt->is_int_like()) || (tt->kind == TypeKind::Float && vt->kind == TypeKind::Float);
  if (!ok && !vt->is_poison()) {
    Diagnostic& d = error(DiagCode::E201, s.op_span.len ? s.op_span.begin : at(s.span),
                          "compound assignment needs two Int or two Float operands, found " + type_name(tt) + " and " +
                              type_name(vt))
                        .with_span(s.span);
    if (s.assign_op == ast::AssignOp::Add && (tt->kind == TypeKind::Text || vt->kind == TypeKind::Text))
      d.hint("`+=` only adds numbers; Text is extended with `..`: `s = s .. t`");
  }
}

void Checker::check_stmt(ast::Stmt& s) {
  switch (s.kind) {
    case ast::StmtKind::Let: {
      const Type* declared = s.declared_type ? resolve_type(s.declared_type.get()) : nullptr;
      const Type* t = check_expr(*s.expr, declared);
      if (t->kind == TypeKind::Void) {
        error(DiagCode::E403, at(s.expr->span), "this expression has no value to bind to `" + s.name + "`");
        t = types_.poison();
      }
      if (t->kind == TypeKind::Nil && !declared) {
        error(DiagCode::E403, at(s.expr->span), "`let " + s.name + " = nil` needs a declared type, e.g. `let " + s.name + ": ?Int = nil`");
        t = types_.poison();
      }
      if (declared) {
        check_flow(declared, t, at(s.expr->span), "initialiser of `" + s.name + "`", Flow::Let);
        t = declared;
      }
      s.sym = declare_local(s.name, t, at(s.name_span));
      return;
    }
    case ast::StmtKind::Assign:
      check_assign(s);
      return;
    case ast::StmtKind::Expr:
      check_expr(*s.expr);
      return;
    case ast::StmtKind::If: {
      check_cond(*s.expr);
      Facts f = cond_facts(*s.expr);
      push_narrow(f.when_true);
      check_block(*s.body);
      pop_narrow();
      if (s.else_body) {
        push_narrow(f.when_false);
        check_block(*s.else_body);
        pop_narrow();
      }
      // `if x == nil { return }`: x is non-nil for the rest of the block.
      if (!narrow_.empty()) {
        if (block_exits(*s.body)) add_narrow(f.when_false);
        if (s.else_body && block_exits(*s.else_body)) add_narrow(f.when_true);
      }
      return;
    }
    case ast::StmtKind::While: {
      check_cond(*s.expr);
      Facts f = cond_facts(*s.expr);
      push_narrow(f.when_true);
      ++loop_depth_;
      check_block(*s.body);
      --loop_depth_;
      pop_narrow();
      return;
    }
    case ast::StmtKind::DoWhile:
      ++loop_depth_;
      check_block(*s.body);
      --loop_depth_;
      check_cond(*s.expr);
      return;
    case ast::StmtKind::For: {
      const Type* it = check_expr(*s.expr);
      const Type* elem = types_.poison();
      if (it->is_nullable()) {
        error(DiagCode::E211, at(s.expr->span), "`for` over a possibly-nil " + type_name(it) + ": check it against nil first");
      } else if (it->kind == TypeKind::List && s.second_name.empty()) {
        elem = it->elem;
      } else if (it->kind == TypeKind::Map && !s.second_name.empty()) {
        elem = it->elem;
      } else if (it->kind == TypeKind::Map) {
        error(DiagCode::E201, at(s.expr->span), "`for` over a map binds two names: `for k, v in m`");
      } else if (it->kind == TypeKind::List) {
        error(DiagCode::E201, at(s.expr->span), "`for k, v in` iterates over a map, found " + type_name(it));
      } else if (!it->is_poison()) {
        error(DiagCode::E201, at(s.expr->span), "`for` iterates over a multi or a map, found " + type_name(it));
      }
      push_scope();
      s.sym = declare_local(s.name, elem, at(s.name_span));
      if (!s.second_name.empty())
        s.sym2 = declare_local(s.second_name, it->kind == TypeKind::Map ? it->value : types_.poison(), at(s.second_name_span));
      // A query's or a backlink's id list is materialised before the loop:
      // rows inserted into or deleted from its table inside the loop are
      // refused (§13, runtime.md §1.6; cursor_table).
      std::string what;
      const ClassInfo* cursor = cursor_table(*s.expr, &what);
      if (cursor) cursors_.push_back(Cursor{cursor, std::move(what), at(s.expr->span)});
      ++loop_depth_;
      check_block(*s.body);
      --loop_depth_;
      if (cursor) cursors_.pop_back();
      pop_scope();
      return;
    }
    case ast::StmtKind::Return: {
      if (tx_depth_ > 0)
        error(DiagCode::E112, at(s.span), "`return` would leave a `transaction { }` block: only a trap may leave it early");
      const Type* want = fn_ ? fn_->ret : types_.void_();
      if (!s.expr) {
        if (want->kind != TypeKind::Void && !want->is_poison())
          error(DiagCode::E201, at(s.span), "`return` needs a value of type " + type_name(want));
        return;
      }
      const Type* t = check_expr(*s.expr, want);
      if (want->kind == TypeKind::Void) {
        if (!t->is_poison())
          error(DiagCode::E201, at(s.expr->span), "`" + (fn_ ? fn_->name : std::string("?")) +
                                                      "` has no return type, so `return` takes no value");
        return;
      }
      check_flow(want, t, at(s.expr->span), "return value", Flow::Return);
      return;
    }
    case ast::StmtKind::Break:
    case ast::StmtKind::Continue:
      if (!tx_loop_base_.empty() && loop_depth_ == tx_loop_base_.back() && loop_depth_ > 0)
        error(DiagCode::E112, at(s.span), std::string("`") + (s.kind == ast::StmtKind::Break ? "break" : "continue") +
                                              "` would leave a `transaction { }` block: only a trap may leave it early");
      if (loop_depth_ == 0)
        error(DiagCode::E403, at(s.span),
              std::string("`") + (s.kind == ast::StmtKind::Break ? "break" : "continue") + "` outside a loop");
      return;
    case ast::StmtKind::Block:
      check_block(*s.body);
      return;
    case ast::StmtKind::Transaction:
      ++tx_depth_;
      tx_loop_base_.push_back(loop_depth_);
      check_block(*s.body);
      tx_loop_base_.pop_back();
      --tx_depth_;
      return;
  }
}

const Type* Checker::stmts_value_type(std::vector<ast::StmtPtr>& stmts, bool* has_value) {
  *has_value = false;
  if (stmts.empty()) return types_.void_();
  for (size_t i = 0; i + 1 < stmts.size(); ++i) check_stmt(*stmts[i]);
  ast::Stmt& last = *stmts.back();
  if (last.kind != ast::StmtKind::Expr) {
    check_stmt(last);
    return types_.void_();
  }
  *has_value = true;
  return check_expr(*last.expr);
}

// Whether control can never fall off the end (every path returns or loops forever).
bool Checker::stmts_return(const std::vector<ast::StmtPtr>& stmts) {
  for (auto& s : stmts)
    if (stmt_returns(*s)) return true;
  return false;
}

// Cached per block (std::map: the recursion's inserts keep `it` valid): for
// `if … { return } else if … { return } …` every level asks about the whole
// rest of the chain, which made 20,000 `else if`s quadratic.
bool Checker::block_returns(const ast::Block& b) {
  auto [it, fresh] = returns_cache_.emplace(&b, false);
  if (fresh) it->second = stmts_return(b.stmts);
  return it->second;
}

namespace {
bool contains_break(const ast::Block& b);
bool stmt_has_break(const ast::Stmt& s) {
  switch (s.kind) {
    case ast::StmtKind::Break: return true;
    case ast::StmtKind::If: return contains_break(*s.body) || (s.else_body && contains_break(*s.else_body));
    case ast::StmtKind::Block:
    case ast::StmtKind::Transaction: return contains_break(*s.body);
    default: return false;  // breaks inside nested loops belong to those loops
  }
}
bool contains_break(const ast::Block& b) {
  for (auto& s : b.stmts)
    if (stmt_has_break(*s)) return true;
  return false;
}
}  // namespace

bool Checker::stmt_returns(const ast::Stmt& s) {
  switch (s.kind) {
    case ast::StmtKind::Return: return true;
    case ast::StmtKind::If: return s.else_body && block_returns(*s.body) && block_returns(*s.else_body);
    case ast::StmtKind::Block:
    case ast::StmtKind::Transaction: return block_returns(*s.body);
    case ast::StmtKind::While:
      // `while true { ... }` without a break never falls through.
      return s.expr->kind == ast::ExprKind::BoolLit && s.expr->int_value == 1 && !contains_break(*s.body);
    case ast::StmtKind::DoWhile:
      return block_returns(*s.body);
    case ast::StmtKind::Expr:
      if (s.expr->kind == ast::ExprKind::Switch) {
        bool has_default = false;
        for (auto& arm : s.expr->arms) {
          if (arm.is_default) has_default = true;
          if (!stmts_return(arm.body)) return false;
        }
        // Without a default, a union switch is exhaustive (E208 otherwise).
        return has_default || (s.expr->lhs->type && s.expr->lhs->type->kind == TypeKind::Union);
      }
      return false;
    default: return false;
  }
}

void Checker::check_main() {
  FnInfo* entry = find_fn(prog_.entry);
  if (!entry) {
    Loc loc;
    if (!prog_.modules.empty() && !prog_.modules[0]->files.empty()) {
      loc.file = prog_.modules[0]->files[0]->file_id;
      loc.line = 1;
      loc.col = 1;
    }
    error(DiagCode::E403, loc, "the program has no entry point: declare `fn main()`");
    return;
  }
  info_.main = entry;
  check_main_signature(entry);
  // `woc test` starts in its own entry point: the program's `main` is still
  // held to the rules `woc check` applies to it.
  if (prog_.entry != "main")
    if (FnInfo* main = find_fn("main")) check_main_signature(main);
}

void Checker::check_main_signature(FnInfo* main) {
  Loc loc = at(main->decl->sig.span);
  if (main->decl->sig.ret && main->ret->kind != TypeKind::Int && !main->ret->is_poison())
    error(DiagCode::E405, loc, "`main` may only return Int (its value is the exit status), not " + type_name(main->ret));
  auto& ps = main->params;
  bool ok = ps.empty() || (ps.size() == 1 && ps[0]->type->kind == TypeKind::List &&
                           ps[0]->type->elem->kind == TypeKind::Text);
  if (!ok) error(DiagCode::E403, loc, "`main` takes no parameters or one `multi Text` parameter");
}

}  // namespace wo::sema
