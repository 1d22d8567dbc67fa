// Expressions: names, operators, calls (user fns, methods, builtins),
// fields, indexing, list and constructor literals, try/catch, switch.
#include <algorithm>
#include <functional>
#include <set>

#include "common/suggest.h"
#include "sema/checker.h"

namespace wo::sema {

namespace {
Loc at(const Span& s) { return s.begin; }

bool is_int_literal(const ast::Expr& e, int64_t* v) {
  if (e.kind == ast::ExprKind::IntLit) {
    *v = e.int_value;
    return true;
  }
  if (e.kind == ast::ExprKind::Unary && e.unary_op == ast::UnaryOp::Neg && e.lhs->kind == ast::ExprKind::IntLit) {
    *v = -e.lhs->int_value;
    return true;
  }
  return false;
}

// The field-default forms codegen can lower (language.md §6.4), plus Float literals.
bool default_supported(const ast::Expr& e) {
  switch (e.kind) {
    case ast::ExprKind::IntLit:
    case ast::ExprKind::FloatLit:
    case ast::ExprKind::TextLit:
    case ast::ExprKind::BoolLit:
      return true;
    case ast::ExprKind::Unary:
      return e.unary_op == ast::UnaryOp::Neg &&
             (e.lhs->kind == ast::ExprKind::IntLit || e.lhs->kind == ast::ExprKind::FloatLit);
    case ast::ExprKind::ListLit:
      return e.args.empty();
    case ast::ExprKind::EmptyMap:  // `= {}` (language.md §6.4 UNSURE; decision 0025)
      return true;
    case ast::ExprKind::Call:
      return e.args.empty() && e.lhs->kind == ast::ExprKind::Name && e.lhs->text == "now";
    case ast::ExprKind::Name:
      return e.text == "now";
    default:
      return false;
  }
}
}  // namespace

const Type* Checker::not_implemented(ast::Expr& e, const char* what) {
  error(DiagCode::E403, at(e.span), std::string(what) + " not implemented yet in woc");
  return e.type = types_.poison();
}

const Type* Checker::check_cond(ast::Expr& e) {
  const Type* t = check_expr(e);
  if (t->is_nullable() && t->elem->kind == TypeKind::Bool) {
    error(DiagCode::E211, at(e.span), "a possibly-nil ?Bool cannot be a condition: check it against nil first");
    return t;
  }
  if (t->kind != TypeKind::Bool && !t->is_poison())
    error(DiagCode::E201, at(e.span), "a condition must be Bool (there is no truthiness), found " + type_name(t));
  return t;
}

const Type* Checker::check_expr(ast::Expr& e, const Type* expected) {
  const Type* t = types_.poison();
  switch (e.kind) {
    case ast::ExprKind::IntLit: t = types_.int_(); break;
    case ast::ExprKind::FloatLit: t = types_.float_(); break;
    case ast::ExprKind::TextLit: t = types_.text(); break;
    case ast::ExprKind::BoolLit: t = types_.bool_(); break;
    case ast::ExprKind::NilLit: t = types_.nil(); break;
    case ast::ExprKind::Name: t = check_name(e); break;
    case ast::ExprKind::Interp: t = check_interp(e); break;
    case ast::ExprKind::Unary: t = check_unary(e); break;
    case ast::ExprKind::Binary: t = check_binary(e); break;
    case ast::ExprKind::Call: t = check_call(e, expected); break;
    case ast::ExprKind::Member: t = check_member(e); break;
    case ast::ExprKind::Index: t = check_index(e); break;
    case ast::ExprKind::ListLit: t = check_list(e, expected); break;
    case ast::ExprKind::Ctor: t = check_ctor(e, expected); break;
    case ast::ExprKind::Try: t = check_try(e, expected); break;
    case ast::ExprKind::Switch: t = check_switch(e, expected); break;
    case ast::ExprKind::As: t = check_as(e); break;
    case ast::ExprKind::EmptyMap:
      if (!expected || expected->base()->kind != TypeKind::Map) {
        error(DiagCode::E403, at(e.span), "`{}` needs a destination of declared map type, e.g. `let m: map<Text, Int> = {}`");
        return e.type = types_.poison();
      }
      t = expected->base();
      break;
    case ast::ExprKind::Spawn: t = check_spawn(e); break;
    case ast::ExprKind::Insert: {
      inserting_ = true;
      t = check_expr(*e.lhs);
      inserting_ = false;
      if (!t->is_poison() && t->kind == TypeKind::Class && !t->cls->is_table) {
        // A class without @table gets RAM-only engine storage of its own; the
        // insert's value is the row id (language.md §12.3, runtime.md §1.2).
        store_plain_class(*t->cls, e.span);
        t = types_.int_();
      }
      if (t->kind == TypeKind::Class) refuse_in_cursor(t->cls, e.span, "`insert` into", "collect the rows first, then write");
      break;
    }
    case ast::ExprKind::Delete: {
      const Type* r = check_expr(*e.lhs);
      if (!r->is_poison() && !(r->kind == TypeKind::Class && r->cls->is_table))
        error(DiagCode::E201, at(e.lhs->span), "`delete` takes a row of a @table class, found " + type_name(r));
      else if (r->kind == TypeKind::Class)
        refuse_in_cursor(r->cls, e.span, "`delete` from", "collect the rows first, then delete");
      t = types_.int_();  // an opaque success value (language.md §12.5)
      break;
    }
    case ast::ExprKind::Query: t = check_query(e); break;
    case ast::ExprKind::LegacySelect: return not_implemented(e, "the legacy SELECT form is");
  }
  return e.type = t;
}

const Type* Checker::check_name(ast::Expr& e) {
  if (Symbol* s = lookup_local(e.text)) {
    e.sym = s;
    // A narrowed local reads as its base type (codegen unwraps when e.type != sym->type).
    if (s->type->is_nullable() && is_narrowed(s)) return s->type->elem;
    return s->type;
  }
  if (e.text == "self" && fn_ && fn_->self) {
    e.sym = fn_->self.get();
    return e.sym->type;
  }
  if (VariantInfo* v = find_variant(e.text)) {
    e.sym = v->sym.get();
    if (!v->payload.empty()) {
      error(DiagCode::E203, at(e.span), "variant `" + v->name + "` carries a payload of " +
                                            std::to_string(v->payload.size()) + " field(s): write `" + v->name + "(...)`");
      return types_.poison();
    }
    return v->sym->type;
  }
  if (resolve_fn(e.text, at(e.span), false) || is_builtin_name(e.text)) {
    error(DiagCode::E403, at(e.span), "`" + e.text + "` is a function: functions are not values (call it with `()`)");
    return types_.poison();
  }
  if (find_class(e.text)) {
    error(DiagCode::E403, at(e.span), "`" + e.text + "` is a type, not a value");
    return types_.poison();
  }
  error(DiagCode::E403, at(e.span), "unknown name `" + e.text + "`").with_span(e.span).hint(name_help(e.text, false));
  return types_.poison();
}

const Type* Checker::check_interp(ast::Expr& e) {
  const Type* t = check_expr(*e.lhs);
  if (t->is_poison()) return types_.text();
  if (t->is_nullable() || t->kind == TypeKind::Nil) {
    error(DiagCode::E211, at(e.lhs->span), "a possibly-nil " + type_name(t) + " cannot be interpolated: check it against nil first");
    return types_.text();
  }
  if (t->kind != TypeKind::Text && !t->is_int_like() && t->kind != TypeKind::Float)
    error(DiagCode::E403, at(e.lhs->span),
          "a value of type " + type_name(t) + " cannot be interpolated (only Text, Int and Float can)");
  return types_.text();
}

const Type* Checker::check_unary(ast::Expr& e) {
  const Type* t = check_expr(*e.lhs);
  if (t->is_poison()) return t;
  if (t->is_nullable() || t->kind == TypeKind::Nil) {
    error(DiagCode::E211, at(e.lhs->span), "a possibly-nil " + type_name(t) + " used as an operand: check it against nil first");
    return types_.poison();
  }
  if (e.unary_op == ast::UnaryOp::Not) {
    if (t->kind != TypeKind::Bool) return mismatch(at(e.lhs->span), "operand of `not`", types_.bool_(), t);
    return t;
  }
  if (!t->is_numeric()) {
    error(DiagCode::E201, at(e.lhs->span), "unary `-` needs an Int or Float operand, found " + type_name(t));
    return types_.poison();
  }
  return t;
}

const Type* Checker::check_binary(ast::Expr& e) {
  using Op = ast::BinaryOp;
  Op op = e.binary_op;
  const Type* l = check_expr(*e.lhs);
  const Type* r;
  if (op == Op::And || op == Op::Or) {
    // `x != nil and x.f` : the right operand sees what the left one proved (§8.3).
    Facts f = cond_facts(*e.lhs);
    push_narrow(op == Op::And ? f.when_true : f.when_false);
    r = check_expr(*e.rhs);
    pop_narrow();
  } else {
    r = check_expr(*e.rhs, l);
  }
  std::string sp = std::string("`") + ast::binary_op_spelling(op) + "`";
  // The caret goes to the operator, the whole expression is underlined.
  auto err = [&](DiagCode c, std::string msg) -> Diagnostic& { return error(c, point_of(e), std::move(msg)).with_span(e.span); };
  if (op == Op::Eq || op == Op::Ne) {
    // The nil test, and comparisons of a ?T with a T or with another ?T.
    if (l->kind == TypeKind::Nil || r->kind == TypeKind::Nil) {
      const Type* other = l->kind == TypeKind::Nil ? r : l;
      if (!other->is_nullable() && other->kind != TypeKind::Nil && !other->is_poison())
        err(DiagCode::E201, "only a nullable value can be compared with nil, found " + type_name(other));
      return types_.bool_();
    }
    if (l->is_nullable() || r->is_nullable()) {
      if (!l->is_poison() && !r->is_poison() && !assignable(l->base(), r->base()) && !assignable(r->base(), l->base()))
        err(DiagCode::E201, sp + " compares " + type_name(l) + " with " + type_name(r));
      return types_.bool_();
    }
    if (l->kind == TypeKind::Class && l->cls->is_table && l == r) return types_.bool_();  // row identity
    if (l->kind == TypeKind::Union || r->kind == TypeKind::Union) {
      if (l != r && !l->is_poison() && !r->is_poison())
        err(DiagCode::E201, sp + " compares values of two different types: " + type_name(l) + " and " + type_name(r));
      return types_.bool_();
    }
  }
  if ((l->is_nullable() || l->kind == TypeKind::Nil || r->is_nullable() || r->kind == TypeKind::Nil) &&
      !l->is_poison() && !r->is_poison()) {
    err(DiagCode::E211, sp + " on a possibly-nil value (" + type_name(l->is_nullable() || l->kind == TypeKind::Nil ? l : r) +
                                          "): check it against nil first");
    if (op == Op::Or || op == Op::And || (op >= Op::Eq && op <= Op::Ge)) return types_.bool_();
    if (op == Op::Concat) return types_.text();
    return types_.poison();
  }
  if (l->is_poison() || r->is_poison()) {
    if (op == Op::Or || op == Op::And || (op >= Op::Eq && op <= Op::Ge)) return types_.bool_();
    if (op == Op::Concat) return types_.text();
    return types_.poison();
  }
  auto fail = [&](const std::string& need) {
    Diagnostic& d = err(DiagCode::E201, sp + " needs " + need + ", found " + type_name(l) + " and " + type_name(r));
    if (op == Op::Add && (l->kind == TypeKind::Text || r->kind == TypeKind::Text))
      d.hint("`+` only adds numbers; Text is joined with `..` (`a .. b`), or build it with interpolation: \"${a}${b}\"");
    // Where the operands got the types the message names.
    note_declared(d, *e.lhs);
    if (e.rhs->sym != e.lhs->sym) note_declared(d, *e.rhs);  // `x + x`: one note
    return types_.poison();
  };
  auto int_result = [&]() { return l == r ? l : types_.int_(); };
  switch (op) {
    case Op::Or:
    case Op::And:
      if (l->kind != TypeKind::Bool || r->kind != TypeKind::Bool) {
        fail("Bool operands (there is no truthiness)");
        return types_.bool_();
      }
      return types_.bool_();
    case Op::Eq:
    case Op::Ne: {
      bool ok = (l->is_int_like() && r->is_int_like()) ||
                (l == r && (l->kind == TypeKind::Float || l->kind == TypeKind::Bool || l->kind == TypeKind::Text ||
                            l->kind == TypeKind::Actor));  // addresses compare by identity (§7.9)
      if (!ok) fail("two values of the same Int, Float, Bool, Text or actor type");
      return types_.bool_();
    }
    case Op::Lt:
    case Op::Le:
    case Op::Gt:
    case Op::Ge: {
      bool ok = (l->is_int_like() && r->is_int_like()) ||
                (l == r && (l->kind == TypeKind::Float || l->kind == TypeKind::Text));
      if (!ok) fail("two Int, Float or Text operands");
      return types_.bool_();
    }
    case Op::Concat:
      if (l->kind != TypeKind::Text || r->kind != TypeKind::Text) {
        fail("Text operands (convert with int_to_text or interpolation)");
        return types_.text();
      }
      return types_.text();
    case Op::Add:
    case Op::Sub:
    case Op::Mul:
    case Op::Div:
    case Op::Mod:
      if (l->is_int_like() && r->is_int_like()) return int_result();
      if (l->kind == TypeKind::Float && r->kind == TypeKind::Float) return l;
      return fail("two Int or two Float operands (Int and Float never mix)");
    case Op::BitOr:
    case Op::BitXor:
    case Op::BitAnd:
    case Op::Shl:
    case Op::Shr: {
      if (!l->is_int_like() || !r->is_int_like()) return fail("Int operands");
      int64_t count;
      if ((op == Op::Shl || op == Op::Shr) && is_int_literal(*e.rhs, &count) && (count < 0 || count > 63))
        error(DiagCode::E223, at(e.rhs->span),
              "shift count " + std::to_string(count) + " is outside 0..63");
      return int_result();
    }
  }
  return types_.poison();
}

const Type* Checker::check_call(ast::Expr& e, const Type* expected) {
  ast::Expr& callee = *e.lhs;
  if (callee.kind == ast::ExprKind::Name) {
    const std::string& n = callee.text;
    if (lookup_local(n)) {
      error(DiagCode::E403, at(callee.span), "`" + n + "` is a variable, not a function");
      for (auto& a : e.args) check_expr(*a);
      return types_.poison();
    }
    if (FnInfo* fn = resolve_fn(n, at(callee.span), true)) {
      e.sym = fn->sym.get();
      return check_user_call(e, *fn);
    }
    if (VariantInfo* v = find_variant(n)) return check_variant_ctor(e, *v);
    if ((n == "multi_new" || n == "map_new") && e.args.empty()) {
      // The element kinds are baked in at creation: a typed destination is required.
      bool list = n == "multi_new";
      if (!expected || expected->base()->kind != (list ? TypeKind::List : TypeKind::Map)) {
        error(DiagCode::E403, at(e.span), "`" + n + "()` needs a destination of declared type, e.g. `let xs: " +
                                              (list ? "multi Int" : "map<Text, Int>") + " = " + n + "()`");
        return types_.poison();
      }
      return expected->base();
    }
    if (is_builtin_name(n)) return check_builtin_call(e, n, "", nullptr);
    for (auto& a : e.args) check_expr(*a);
    if (find_class(n)) {
      error(DiagCode::E403, at(callee.span), "`" + n + "` is a class: build one with `" + n + " { ... }`");
      return types_.poison();
    }
    error(DiagCode::E403, at(callee.span), "unknown function `" + n + "`").with_span(callee.span).hint(name_help(n, true));
    return types_.poison();
  }
  if (callee.kind == ast::ExprKind::Member) {
    ast::Expr& recv = *callee.lhs;
    const std::string& m = callee.text;
    // `alias.f(...)`: a pub fn of a used module (language.md §5.4).
    if (recv.kind == ast::ExprKind::Name && !lookup_local(recv.text) && recv.text != "self" && !find_class(recv.text)) {
      if (UseEntry* u = find_alias(recv.text)) {
        u->used = true;
        if (u->stdlib) {
          if (!is_ns_member(u->path, m)) {
            for (auto& a : e.args) check_expr(*a);
            error(DiagCode::E406, point_of(callee), "the standard-library namespace `" + u->path + "` has no member `" + m + "`")
                .with_span(callee.span)
                .hint(ns_member_help(u->path, m));
            return types_.poison();
          }
          if (u->path == "json" && m == "decode" && !as_target_) {
            for (auto& a : e.args) check_expr(*a);
            error(DiagCode::E403, at(e.span), "`json.decode(t)` needs a target type: write `json.decode(t) as T`");
            return types_.poison();
          }
          const Type* as_t = as_target_;
          as_target_ = nullptr;
          return check_builtin_call(e, m, u->path, as_t);
        }
        auto& mod = modules_[u->path];
        auto it = mod.fns.find(m);
        if (it == mod.fns.end()) {
          for (auto& a : e.args) check_expr(*a);
          std::vector<std::string> fns;
          for (auto& [fname, f] : mod.fns)
            if (f->decl->is_pub) fns.push_back(fname);
          std::string best = closest_name(m, fns);
          error(DiagCode::E403, point_of(callee), "module `" + u->path + "` has no fn `" + m + "`")
              .with_span(callee.span)
              .hint(best.empty() ? "" : "did you mean `" + best + "`?");
          return types_.poison();
        }
        if (!it->second->decl->is_pub)
          error(DiagCode::E217, at(callee.span), "`" + m + "` in module `" + u->path + "` is not `pub`");
        e.sym = it->second->sym.get();
        return check_user_call(e, *it->second);
      }
    }
    // `C.f(...)`: a static method, when C is not a local.
    if (recv.kind == ast::ExprKind::Name && !lookup_local(recv.text) && recv.text != "self") {
      if (ClassInfo* cls = find_class(recv.text)) {
        FnInfo* fn = cls->method(m);
        // `T.get(id)`: the row of a @table class with that id, or nil
        // (docs/decisions/0088). A class's own `get` takes the name over.
        if (!fn && m == "get" && cls->is_table) return check_row_get(e, *cls);
        if (!fn) {
          error(DiagCode::E403, point_of(callee), "class `" + cls->name + "` has no static fn `" + m + "`")
              .with_span(callee.span);
          for (auto& a : e.args) check_expr(*a);
          return types_.poison();
        }
        if (!fn->is_static) {
          error(DiagCode::E403, at(callee.span),
                "`" + m + "` is an instance method: call it on a value, not through `" + cls->name + "`");
          for (auto& a : e.args) check_expr(*a);
          return types_.poison();
        }
        recv.sym = cls->sym.get();
        e.sym = fn->sym.get();
        return check_user_call(e, *fn);
      }
    }
    const Type* rt = check_expr(recv);
    if (rt->is_poison()) {
      for (auto& a : e.args) check_expr(*a);
      return types_.poison();
    }
    if (rt->is_nullable()) {
      error(DiagCode::E213, point_of(callee), "method `" + m + "` called through a possibly-nil " + type_name(rt) +
                                                  ": check it against nil first")
          .with_span(callee.span);
      for (auto& a : e.args) check_expr(*a);
      return types_.poison();
    }
    if (rt->kind == TypeKind::Interface) return check_iface_call(e, rt);
    bool has_method = rt->kind == TypeKind::Class && rt->cls->method(m);
    if (!has_method) {
      if (FnInfo* ext = find_extension(rt, m)) {
        // `v.m(args)` rewritten to `m(v, args)` (language.md §5.5): the receiver is argument 1.
        e.sym = ext->sym.get();
        if (e.args.size() + 1 != ext->params.size()) {
          error(DiagCode::E403, arity_at(e, ext->params.size() - 1), "`" + m + "` takes " + std::to_string(ext->params.size() - 1) +
                                                " argument(s) after the receiver, but " + std::to_string(e.args.size()) + " were given");
          for (auto& a : e.args) check_expr(*a);
          return ext->ret;
        }
        for (size_t i = 0; i < e.args.size(); ++i)
          check_flow(ext->params[i + 1]->type, check_expr(*e.args[i], ext->params[i + 1]->type), at(e.args[i]->span),
                     "argument " + std::to_string(i + 2) + " of `" + m + "`", Flow::Arg);
        for (size_t i = 0; i < ext->params.size(); ++i) {
          const ast::Expr* arg = i == 0 ? callee.lhs.get() : i - 1 < e.args.size() ? e.args[i - 1].get() : nullptr;
          if (arg && ext->params[i]->conv == ast::ParamConv::Mut)
            refuse_row_copy_change(*arg, "passing it to `mut` parameter `" + ext->params[i]->name + "`");
        }
        return ext->ret;
      }
    }
    if (rt->kind != TypeKind::Class) {
      error(DiagCode::E403, point_of(callee), "a value of type " + type_name(rt) + " has no method `" + m + "`")
          .with_span(callee.span);
      for (auto& a : e.args) check_expr(*a);
      return types_.poison();
    }
    FnInfo* fn = rt->cls->method(m);
    if (!fn || fn->is_static) {
      error(DiagCode::E403, point_of(callee),
            fn ? "`" + m + "` is a static fn: call it as `" + rt->cls->name + "." + m + "(...)`"
               : "class `" + rt->cls->name + "` has no method `" + m + "`")
          .with_span(callee.span)
          .hint(fn ? "" : method_help(*rt->cls, m));
      for (auto& a : e.args) check_expr(*a);
      return types_.poison();
    }
    e.sym = fn->sym.get();
    return check_user_call(e, *fn);
  }
  error(DiagCode::E403, at(callee.span), "this expression cannot be called");
  for (auto& a : e.args) check_expr(*a);
  return types_.poison();
}

void Checker::store_plain_class(ClassInfo& cls, const Span& where) {
  if (cls.db_index >= 0) return;
  cls.db_index = table_count_++;
  int column = 0;
  for (auto& f : cls.fields) {
    std::string why;
    if (!storable(f.type, false, &why))
      error(DiagCode::E403, at(where), "`insert` stores `" + cls.name + "`, but its field `" + f.name + "` of type " +
                                           type_name(f.type) + " cannot be stored: " + why);
    f.column = column++;
  }
}

// The table whose rows a `for` over `src` walks from an id list taken before
// the body runs, or NULL: a query (its row's table) or a backlink field (the
// referring table; codegen reads it with one probe, wo_db_probe, like a
// query's source). A `multi` of rows held in a variable or returned by a call
// is not one: it is the "collect the rows first" the refusal asks for.
const ClassInfo* Checker::cursor_table(const ast::Expr& src, std::string* what) {
  if (src.kind == ast::ExprKind::Query) {
    if (!src.sym || src.sym->type->kind != TypeKind::Class) return nullptr;
    *what = "a query of `" + src.sym->type->cls->name + "`";
    return src.sym->type->cls;
  }
  if (src.kind == ast::ExprKind::Member && src.sym && src.sym->kind == SymKind::Field && src.sym->cls) {
    const FieldInfo& f = src.sym->cls->fields[src.sym->field_index];
    if (f.backlink_cls) {
      *what = "the backlink `" + src.sym->cls->name + "." + f.name + "` (rows of `" + f.backlink_cls->name + "`)";
      return f.backlink_cls;
    }
  }
  return nullptr;
}

// WO-E250 for an `insert` into or a `delete` from `cls` inside a loop that
// walks `cls`'s rows (runtime.md §1.6, "Cursor stability"): the loop's id
// list cannot defend against rows that vanish or appear meanwhile (a row the
// body deletes traps 5 "no such row" when the loop reaches it).
void Checker::refuse_in_cursor(const ClassInfo* cls, const Span& at_span, const char* verb, const char* fix) {
  for (auto it = cursors_.rbegin(); it != cursors_.rend(); ++it) {
    if (it->cls != cls) continue;
    error(DiagCode::E250, at(at_span), std::string(verb) + " `" + cls->name + "` inside a loop over " + it->what + ": " + fix)
        .note(it->source, "the loop walks the rows listed here when it began");
    return;
  }
}

// `from x in Src where … order by x.f [desc] take n select e` (language.md §13):
// a multi of the selected values, evaluated eagerly.
const Type* Checker::check_query(ast::Expr& e) {
  ast::Expr& src = *e.lhs;
  const Type* row = nullptr;
  if (src.kind == ast::ExprKind::Name && !lookup_local(src.text)) {
    ClassInfo* c = find_class(src.text);
    if (!c || !c->is_table) {
      error(DiagCode::E250, at(src.span),
            "a query reads a @table class, a backlink or a `multi` list; `" + src.text + "` is none of them");
      return types_.poison();
    }
    src.sym = c->sym.get();
    src.type = c->type;
    row = c->type;
  } else {
    const Type* st = check_expr(src);
    bool backlink = src.kind == ast::ExprKind::Member && src.sym && src.sym->kind == SymKind::Field &&
                    src.sym->cls->fields[src.sym->field_index].backlink_cls;
    if (st->is_poison()) return st;
    // A backlink or any `multi` (language.md §13.2; docs/decisions/0089):
    // over a list of rows the variable is a row, over any other list it is
    // each element in turn.
    if (!backlink && st->kind != TypeKind::List) {
      error(DiagCode::E250, at(src.span),
            "a query reads a @table class, a backlink or a `multi` list, not " + type_name(st));
      return types_.poison();
    }
    row = st->elem;
  }
  push_scope();
  e.sym = declare_local(e.catch_name, row, at(e.catch_name_span));
  for (auto& c : e.clauses) {
    switch (c.kind) {
      case ast::QueryClause::Where: check_cond(*c.expr); break;
      case ast::QueryClause::OrderBy: {
        // Any key expression (§13.1), of a type the store's key order covers
        // (§13.2: Int signed, Float total order, Text/Bytes bytewise; Bool
        // false first; a nil key first, as for stored columns).
        const Type* k = check_expr(*c.expr);
        const Type* kb = k->base();
        bool orderable = kb->is_int_like() || kb->kind == TypeKind::Bool || kb->kind == TypeKind::Float ||
                         kb->kind == TypeKind::Text || kb->kind == TypeKind::Bytes ||
                         (kb->kind == TypeKind::Class && kb->cls->is_table);
        if (!orderable && !k->is_poison())
          error(DiagCode::E250, at(c.expr->span), "`order by` sorts by an Int, Float, Bool, Text or Bytes key, not " +
                                                      type_name(k));
        break;
      }
      case ast::QueryClause::Take: {
        const Type* n = check_expr(*c.expr);
        if (!n->is_poison() && !n->is_int_like()) mismatch(at(c.expr->span), "`take` count", types_.int_(), n);
        break;
      }
      case ast::QueryClause::GroupBy:
        error(DiagCode::E250, at(c.span),
              "`group … by … into` is not supported; a query takes `where`, `order by` (one or more keys), `take` and `select`");
        break;
    }
  }
  const Type* sel = e.rhs ? check_expr(*e.rhs) : row;
  pop_scope();
  if (sel->is_poison()) return sel;
  if (sel->kind == TypeKind::Void || sel->is_nullable() || sel->kind == TypeKind::List || sel->kind == TypeKind::Map) {
    error(DiagCode::E250, at(e.rhs ? e.rhs->span : e.span),
          "a query selects a value (its variable, a field of it, any non-nil expression), not " + type_name(sel));
    return types_.poison();
  }
  return types_.list_of(sel);
}

// `T.get(id) -> ?T` for a @table class T: one existence probe of the store
// (either backend), nil for an id never used or deleted. The call's symbol
// is the class's, which is how codegen tells it from a static fn.
const Type* Checker::check_row_get(ast::Expr& e, ClassInfo& cls) {
  ast::Expr& callee = *e.lhs;
  callee.lhs->sym = cls.sym.get();
  e.sym = cls.sym.get();
  if (e.args.size() != 1) {
    error(DiagCode::E403, arity_at(e, 1),
          "`" + cls.name + ".get` takes 1 argument (a row id), but " + std::to_string(e.args.size()) + " were given");
    for (auto& a : e.args) check_expr(*a);
    return types_.poison();
  }
  const Type* t = check_expr(*e.args[0], types_.int_());
  if (!t->is_poison() && !assignable(types_.int_(), t)) mismatch(at(e.args[0]->span), "a row id", types_.int_(), t);
  return types_.nullable(cls.type);
}

// `json.decode(t) as T` is the only use of `as` (language.md §10.9): `?T`.
const Type* Checker::check_as(ast::Expr& e) {
  const Type* target = resolve_type(e.as_type.get());
  ast::Expr& inner = *e.lhs;
  bool is_decode = inner.kind == ast::ExprKind::Call && inner.lhs->kind == ast::ExprKind::Member &&
                   inner.lhs->text == "decode" && inner.lhs->lhs->kind == ast::ExprKind::Name &&
                   inner.lhs->lhs->text == "json" && !lookup_local("json");
  if (!is_decode) {
    check_expr(inner);
    error(DiagCode::E403, at(e.span), "`as` only gives `json.decode(t)` its target type; there is no other cast");
    return types_.poison();
  }
  if (target->is_poison()) {
    check_expr(inner);
    return target;
  }
  if (!json_encodable(target) || target->is_nullable()) {
    as_target_ = target;  // the call has its `as T`: only the refusal below is reported
    check_expr(inner);
    as_target_ = nullptr;
    error(DiagCode::E403, at(e.as_type->span), "json.decode cannot build a value of type " + type_name(target));
    return types_.poison();
  }
  as_target_ = target;
  const Type* r = check_expr(inner);
  as_target_ = nullptr;
  return r;
}

const Type* Checker::check_variant_ctor(ast::Expr& e, VariantInfo& v) {
  e.lhs->sym = v.sym.get();
  e.sym = v.sym.get();
  if (e.args.size() != v.payload.size()) {
    error(DiagCode::E203, at(e.span), "variant `" + v.name + "` takes " + std::to_string(v.payload.size()) +
                                          " payload value(s), but " + std::to_string(e.args.size()) + " were given");
    for (auto& a : e.args) check_expr(*a);
    return v.sym->type;
  }
  for (size_t i = 0; i < e.args.size(); ++i) {
    const Type* want = v.payload[i].type;
    check_flow(want, check_expr(*e.args[i], want), at(e.args[i]->span),
               "payload `" + v.payload[i].name + "` of `" + v.name + "`", Flow::Field);
  }
  return v.sym->type;
}

const Type* Checker::check_iface_call(ast::Expr& e, const Type* recv) {
  InterfaceInfo& i = *recv->iface;
  const std::string& m = e.lhs->text;
  int idx = i.method_index(m);
  if (idx < 0) {
    error(DiagCode::E403, point_of(*e.lhs), "interface `" + i.name + "` has no method `" + m + "`").with_span(e.lhs->span);
    for (auto& a : e.args) check_expr(*a);
    return types_.poison();
  }
  IfaceMethodInfo& mi = i.methods[idx];
  e.sym = mi.sym.get();
  if (e.args.size() != mi.params.size()) {
    error(DiagCode::E403, arity_at(e, mi.params.size()), "`" + m + "` takes " + std::to_string(mi.params.size()) + " argument(s), but " +
                                          std::to_string(e.args.size()) + " were given");
    for (auto& a : e.args) check_expr(*a);
    return mi.ret;
  }
  for (size_t k = 0; k < e.args.size(); ++k)
    check_flow(mi.params[k], check_expr(*e.args[k], mi.params[k]), at(e.args[k]->span),
               "argument " + std::to_string(k + 1) + " of `" + m + "`", Flow::Arg);
  return mi.ret;
}

const Type* Checker::check_user_call(ast::Expr& e, FnInfo& fn) {
  if (e.args.size() != fn.params.size()) {
    Diagnostic& d = error(DiagCode::E403, arity_at(e, fn.params.size()), "`" + fn.name + "` takes " + std::to_string(fn.params.size()) +
                                          " argument(s), but " + std::to_string(e.args.size()) + " were given")
                        .with_span(e.span);
    if (fn.decl) d.note(fn.decl->sig.span.begin, "`" + fn.name + "` declared here");
    for (auto& a : e.args) check_expr(*a);
    return fn.ret;
  }
  for (size_t i = 0; i < e.args.size(); ++i) {
    const Type* want = fn.params[i]->type;
    const Type* got = check_expr(*e.args[i], want);
    size_t before = diags_.all().size();
    if (!check_flow(want, got, at(e.args[i]->span), "argument " + std::to_string(i + 1) + " of `" + fn.name + "`", Flow::Arg) &&
        diags_.all().size() > before) {
      // The argument underlined, and the parameter it was meant for.
      Diagnostic& d = diags_.last().with_span(e.args[i]->span);
      if (fn.params[i]->loc.line) d.note(fn.params[i]->loc, "parameter `" + fn.params[i]->name + "` declared here as " + type_name(want));
    }
    if (fn.params[i]->conv == ast::ParamConv::Mut)
      refuse_row_copy_change(*e.args[i], "passing it to `mut` parameter `" + fn.params[i]->name + "`");
  }
  return fn.ret;
}

namespace {
// Does `t` fit builtin parameter class `code` (builtins.def)? `arg0` is the
// type of the first argument (for `e`/`K`/`V`, the element, key or value).
bool fits(char code, const Type* t, const Type* arg0) {
  if (t->is_poison()) return true;
  t = t->base();  // a ?T argument counts as its base type (builtins.md §1.3)
  auto element_fits = [&](const Type* slot) {
    // A class into a container of an interface is checked by check_flow (E205).
    return assignable(slot, t) || (slot->base()->kind == TypeKind::Interface && t->kind == TypeKind::Class);
  };
  switch (code) {
    case 'i': return t->is_int_like() || t->kind == TypeKind::Bool || (t->kind == TypeKind::Class && t->cls->is_table);
    case 'n': return t->is_int_like() || (t->kind == TypeKind::Class && t->cls->is_table);
    case 'b': return t->kind == TypeKind::Bool;
    case 'f': return t->kind == TypeKind::Float;
    case 't': return t->kind == TypeKind::Text;
    case 'y': return t->kind == TypeKind::Bytes;
    case 'S': return t->is_int_like();
    case 'L': return t->kind == TypeKind::List;
    case 'M': return t->kind == TypeKind::Map;
    case 'T': return t->kind == TypeKind::List && t->elem->kind == TypeKind::Text;
    case 'H': return t->kind == TypeKind::Map && t->elem->kind == TypeKind::Text && t->value->kind == TypeKind::Text;
    case 'a': return t->kind != TypeKind::Void && t->kind != TypeKind::Nil;
    case 'c': return t->is_heap();
    case 'e':
      if (!arg0 || arg0->kind != TypeKind::List) return true;
      return element_fits(arg0->elem);
    case 'K':
      if (!arg0 || arg0->kind != TypeKind::Map) return true;
      return assignable(arg0->elem, t);
    case 'V':
      if (!arg0 || arg0->kind != TypeKind::Map) return true;
      return element_fits(arg0->value);
    default: return false;
  }
}
}  // namespace

// The result type of builtin result code `r` (builtins.def), given the arguments.
// language.md §7.11: a program's own class named like a predeclared record
// replaces it, but the runtime fills the record field by field (the C
// structs of wo_runtime.h). A replacement with other fields would have an
// Int read as Text: it must have the predeclared fields' types in the same
// order (methods are its own), else WO-E201 at the call.
const Type* Checker::record_result(const char* name, const std::string& builtin, Loc call) {
  ClassInfo* pre = predeclared_.at(name);
  ClassInfo* own = find_class(name);
  if (own == pre) return pre->type;
  bool same = !own->is_table && own->fields.size() == pre->fields.size();
  for (size_t i = 0; same && i < pre->fields.size(); ++i) same = own->fields[i].type == pre->fields[i].type;
  if (same) return own->type;
  std::string want;
  for (const FieldInfo& f : pre->fields) want += (want.empty() ? "" : ", ") + f.name + ": " + type_name(f.type);
  error(DiagCode::E201, call,
        "`" + builtin + "` fills the predeclared record `" + name + "` field by field, but the program's " +
            "class `" + name + "` replaces it with other fields (language.md §7.11)")
      .hint(std::string("give `") + name + "` exactly these fields, in this order" +
            (own->is_table ? " and no `@table`" : "") + ": " + want + "; or rename the class")
      .related.push_back({own->sym->loc, "the replacing class"});
  return types_.poison();
}

const Type* Checker::builtin_result(std::string_view r, const std::vector<const Type*>& args, const Type* as_type,
                                    const std::string& builtin, Loc call) {
  bool nullable = !r.empty() && r[0] == '?';
  if (nullable) r.remove_prefix(1);
  const Type* arg0 = args.empty() ? nullptr : args[0]->base();  // `slice` of a ?multi is a multi
  const Type* t = types_.poison();
  switch (r.empty() ? 'v' : r[0]) {
    case 'v': return types_.void_();
    case 'i':
    case 'n': t = types_.int_(); break;
    case 'b': t = types_.bool_(); break;
    case 'f': t = types_.float_(); break;
    case 't': t = types_.text(); break;
    case 'y': t = types_.bytes(); break;
    case 'S': t = types_.timestamp(); break;
    case 'T': t = types_.list_of(types_.text()); break;
    case '0': t = arg0 ? arg0 : types_.poison(); break;
    case 'c': t = args.empty() ? types_.poison() : args[0]; break;
    case 'e': t = arg0 && arg0->kind == TypeKind::List ? arg0->elem : types_.poison(); break;
    case 'K': t = arg0 && arg0->kind == TypeKind::Map ? arg0->elem : types_.poison(); break;
    case 'V': t = arg0 && arg0->kind == TypeKind::Map ? arg0->value : types_.poison(); break;
    case 'A': t = record_result("Stat", builtin, call); break;
    case 'D': t = record_result("TimeParts", builtin, call); break;
    case 'P': t = record_result("Proc", builtin, call); break;
    case 'Q': t = record_result("RawRequest", builtin, call); break;
    case 'W': t = record_result("RawResponse", builtin, call); break;
    case 'X': t = as_type ? as_type : types_.poison(); break;
  }
  if (t->is_poison()) return t;
  return nullable ? types_.nullable(t) : t;
}

// The one type a builtin parameter code admits (`H`: map<Text, Text>), as the
// expected type of its argument; null when the code admits several types.
const Type* Checker::fixed_param_type(const std::string& ns, const std::string& name, size_t arity, size_t i) {
  for (const BuiltinSig& b : builtin_table()) {
    if (b.ns != ns || b.name != name || b.params.size() != arity) continue;
    if (b.params[i] == 'H') return types_.map_of(types_.text(), types_.text());
    return nullptr;  // the first entry of that arity decides
  }
  return nullptr;
}

const Type* Checker::check_builtin_call(ast::Expr& e, const std::string& name, const std::string& ns,
                                        const Type* as_type) {
  const auto& table = builtin_table();
  std::string shown = ns.empty() ? name : ns + "." + name;
  for (size_t bi = 0; bi < table.size(); ++bi) {
    const BuiltinSig& b = table[bi];
    if (b.ns != ns || b.name != name) continue;
    if ((b.flags & NO_TX) && tx_depth_ > 0) {
      bool parks = !(b.flags & ACTOR) || name == "call";  // time.sleep, net waits, call
      error(DiagCode::E111, at(e.span), "`" + shown + "` inside a `transaction { }` block: " +
                                            (parks ? "it would park this fiber while it holds the transaction open"
                                                   : "another actor could act on rows that are not durable yet") +
                                            "; do it after the block");
    }
    if (b.flags & ACTOR) return check_actor_call(e, shown, bi);
    break;
  }
  std::vector<const Type*> args;
  // A ?multi / ?map first argument has the element, key and value slots of
  // its base type (builtins.md §1.3); nil is checked at run time (codegen).
  const Type* c0 = nullptr;
  for (size_t i = 0; i < e.args.size(); ++i) {
    const Type* exp = nullptr;
    if (i >= 1 && c0->kind == TypeKind::List) exp = c0->elem;
    if (i >= 1 && c0->kind == TypeKind::Map) exp = i == 1 ? c0->elem : c0->value;
    if (!exp) exp = fixed_param_type(ns, name, e.args.size(), i);  // `{}` / `[]` literals need it
    args.push_back(check_expr(*e.args[i], exp));
    if (i == 0) c0 = args[0]->base();
  }
  int arity_match = -1;
  for (size_t bi = 0; bi < table.size(); ++bi) {
    const BuiltinSig& b = table[bi];
    if (b.ns != ns || b.name != name || b.params.size() != args.size()) continue;
    if (arity_match < 0) arity_match = (int)bi;
    bool ok = true;
    for (size_t i = 0; i < args.size() && ok; ++i) ok = fits(b.params[i], args[i], c0);
    if (!ok) continue;
    for (size_t i = 0; i < args.size(); ++i) {
      char c = b.params[i];
      if (c == 'e' && c0->kind == TypeKind::List)
        check_flow(c0->elem, args[i], at(e.args[i]->span), "element of `" + shown + "`", Flow::Element);
      if (c == 'V' && c0->kind == TypeKind::Map)
        check_flow(c0->value, args[i], at(e.args[i]->span), "value of `" + shown + "`", Flow::Element);
      if (c == 'a' && !json_encodable(args[i]))
        error(DiagCode::E403, at(e.args[i]->span), "a value of type " + type_name(args[i]) + " cannot be encoded as JSON");
      if (c == 'c')
        check_crossing(args[i], at(e.args[i]->span), "the argument of `" + shown + "` (" + type_name(args[i]) + ")", true);
    }
    if ((b.flags & MUTATES) && !e.args.empty()) refuse_row_copy_change(*e.args[0], "`" + shown + "`");
    auto sym = std::make_unique<Symbol>(Symbol{SymKind::Builtin, shown});
    sym->builtin = (int)bi;
    e.sym = sym.get();
    info_.extra_symbols.push_back(std::move(sym));
    return builtin_result(b.result, args, as_type, shown, at(e.span));
  }
  if (arity_match < 0) {
    size_t want = 0;
    for (auto& b : table)
      if (b.ns == ns && b.name == name) want = b.params.size();
    error(DiagCode::E209, arity_at(e, want), "builtin `" + shown + "` takes " + std::to_string(want) + " argument(s), but " +
                                          std::to_string(args.size()) + " were given");
  } else {
    std::string got;
    for (auto* a : args) got += (got.empty() ? "" : ", ") + type_name(a);
    // The caret goes to the first argument no overload of this arity accepts.
    size_t bad = args.size();
    for (size_t i = 0; i < args.size() && bad == args.size(); ++i) {
      bool any = false;
      for (const BuiltinSig& b : table)
        if (b.ns == ns && b.name == name && b.params.size() == args.size()) any = any || fits(b.params[i], args[i], c0);
      if (!any) bad = i;
    }
    Diagnostic& d = bad < args.size()
                        ? error(DiagCode::E209, at(e.args[bad]->span), "builtin `" + shown + "` cannot take (" + got + ")")
                              .with_span(e.args[bad]->span)
                        : error(DiagCode::E209, at(e.span), "builtin `" + shown + "` cannot take (" + got + ")");
    if (ns.empty() && name == "print_int" && args.size() == 1 && args[0]->base()->kind == TypeKind::Text)
      d.hint("`print_int` prints an Int; Text is printed with `print(x)`");
    if (ns.empty() && (name == "print" || name == "print_err") && args.size() == 1) {
      const Type* a = args[0]->base();
      if (a->is_int_like() && name == "print")
        d.hint("`print` takes Text: use `print_int(x)` for an Int, or interpolate: `print(\"${x}\")`");
      else if (a->is_int_like() || a->kind == TypeKind::Float || a->kind == TypeKind::Bool)
        d.hint("`" + name + "` takes Text: interpolate the value, e.g. `" + name + "(\"${x}\")`");
    }
  }
  return types_.poison();
}

// Types json.encode/decode can walk (WoTypeDesc): scalars, Text, Bytes,
// classes and records of such fields, lists, maps and nullables of them.
bool Checker::json_encodable(const Type* t) {
  std::set<const ClassInfo*> seen;
  std::function<bool(const Type*)> ok = [&](const Type* x) -> bool {
    switch (x->kind) {
      case TypeKind::Int: case TypeKind::Timestamp: case TypeKind::Id: case TypeKind::Float:
      case TypeKind::Bool: case TypeKind::Text: case TypeKind::Bytes: case TypeKind::Poison:
      case TypeKind::JsonValue:
        return true;
      case TypeKind::Nullable: return ok(x->elem);
      case TypeKind::List: return ok(x->elem);
      case TypeKind::Map: return ok(x->elem) && ok(x->value);
      case TypeKind::Class:
        if (!seen.insert(x->cls).second) return true;
        for (auto& f : x->cls->fields)
          if (!ok(f.type)) return false;
        return true;
      default: return false;
    }
  };
  return ok(t);
}

const Type* Checker::check_member(ast::Expr& e) {
  const Type* t = check_expr(*e.lhs);
  if (t->is_poison()) return t;
  if (t->is_nullable() || t->kind == TypeKind::Nil) {
    error(DiagCode::E213, point_of(e), "field `" + e.text + "` read through a possibly-nil " + type_name(t) +
                                           ": check it against nil first")
        .with_span(e.span);
    return types_.poison();
  }
  if (t->kind != TypeKind::Class) {
    error(DiagCode::E403, point_of(e), "a value of type " + type_name(t) + " has no field `" + e.text + "`").with_span(e.span);
    return types_.poison();
  }
  const FieldInfo* f = t->cls->field(e.text);
  if (!f) {
    error(DiagCode::E202, point_of(e), "`" + t->cls->name + "` has no field `" + e.text + "`")
        .with_span(e.span)
        .hint(field_help(*t->cls, e.text));
    return types_.poison();
  }
  e.sym = f->sym.get();
  return f->type;
}

const Type* Checker::check_index(ast::Expr& e) {
  const Type* t = check_expr(*e.lhs);
  const Type* i = check_expr(*e.rhs);
  if (t->is_poison()) return t;
  if (t->is_nullable()) {
    error(DiagCode::E213, at(e.span), "indexing through a possibly-nil " + type_name(t) + ": check it against nil first");
    return types_.poison();
  }
  if (t->kind == TypeKind::Map) {
    // `m[k]` is the optional read: ?V (builtins.md §6).
    if (!i->is_poison() && !assignable(t->elem, i)) mismatch(at(e.rhs->span), "map key", t->elem, i);
    return types_.nullable(t->value);
  }
  if (t->kind != TypeKind::List) {
    error(DiagCode::E201, at(e.span), "only a multi or a map can be indexed, found " + type_name(t));
    return types_.poison();
  }
  if (!i->is_int_like() && !i->is_poison()) mismatch(at(e.rhs->span), "list index", types_.int_(), i);
  return t->elem;
}

const Type* Checker::check_list(ast::Expr& e, const Type* expected) {
  const Type* elem = (expected && expected->kind == TypeKind::List) ? expected->elem : nullptr;
  for (auto& item : e.args) {
    const Type* t = check_expr(*item, elem);
    if (t->kind == TypeKind::Void) {
      error(DiagCode::E403, at(item->span), "this expression has no value");
      continue;
    }
    if (!elem) {
      elem = t;
    } else {
      check_flow(elem, t, at(item->span), "list element", Flow::Element);
    }
  }
  // §7.7: containers of containers are not expressible (no type names them);
  // refused rather than made as a value nothing could be declared to hold.
  if (elem && (elem->base()->kind == TypeKind::List || elem->base()->kind == TypeKind::Map) && !e.args.empty()) {
    error(DiagCode::E403, at(e.args[0]->span), "a list of " + type_name(elem) +
                                                   " is not expressible in .wo (language.md §7.7): wrap the inner "
                                                   "container in a class");
    return types_.poison();
  }
  if (!elem) {
    error(DiagCode::E403, at(e.span), "an empty list needs a declared type, e.g. `let xs: multi Int = []`");
    return types_.poison();
  }
  if (elem->is_poison()) return elem;
  return types_.list_of(elem);
}

void Checker::check_field_default(const FieldInfo& f, ClassInfo& cls) {
  ast::Expr& d = *f.decl->default_value;
  if (!default_supported(d)) return;  // reported where a constructor relies on it
  if (d.kind == ast::ExprKind::Name && d.text == "now") {
    d.type = types_.timestamp();
  } else {
    push_scope();
    check_expr(d, f.type);
    pop_scope();
  }
  check_flow(f.type, d.type, at(d.span), "default of field `" + f.name + "`", Flow::Field);
}

const Type* Checker::check_ctor(ast::Expr& e, const Type* expected) {
  ClassInfo* cls = nullptr;
  if (!e.qualifier.empty()) {
    UseEntry* u = find_alias(e.qualifier);
    if (!u || u->stdlib) {
      for (auto& f : e.fields) check_expr(*f.value);
      error(DiagCode::E403, at(e.span), "`" + e.qualifier + "` is not a module used by this file");
      return types_.poison();
    }
    u->used = true;
    auto& mod = modules_[u->path];
    auto it = mod.classes.find(e.text);
    if (it == mod.classes.end()) {
      for (auto& f : e.fields) check_expr(*f.value);
      error(DiagCode::E207, at(e.span), "module `" + u->path + "` declares no type `" + e.text + "`");
      return types_.poison();
    }
    if (!it->second->is_pub)
      error(DiagCode::E217, at(e.span), "`" + e.text + "` in module `" + u->path + "` is not `pub`");
    cls = it->second;
  }
  if (!cls) cls = resolve_ctor_class(e.text, at(e.span));
  if (!cls || cls->predeclared) {
    for (auto& f : e.fields) check_expr(*f.value);
    std::vector<std::string> classes;
    for (auto& [n, c] : classes_by_name_) classes.push_back(n);
    std::string best = closest_name(e.text, classes);
    error(DiagCode::E207, at(e.span), "unknown type `" + e.text + "` in constructor literal")
        .with_span(Span{at(e.span), static_cast<uint32_t>(e.text.size())})
        .hint(best.empty() ? "" : "did you mean `" + best + "`?");
    return types_.poison();
  }
  e.sym = cls->sym.get();
  if (cls->is_table && !inserting_) {
    error(DiagCode::E403, at(e.span), "`" + cls->name + "` is a @table class: make rows with `insert " + cls->name + " { ... }`");
    for (auto& f : e.fields) check_expr(*f.value);
    return types_.poison();
  }
  std::set<std::string> given;
  for (auto& f : e.fields) {
    const FieldInfo* fi = cls->field(f.name);
    if (!fi) {
      error(DiagCode::E202, at(f.name_span), "`" + cls->name + "` has no field `" + f.name + "`")
          .with_span(f.name_span)
          .hint(field_help(*cls, f.name));
      check_expr(*f.value);
      continue;
    }
    if (fi->backlink_cls) {
      error(DiagCode::E202, at(f.name_span), "`" + f.name + "` is a backlink: it is computed, not stored");
      check_expr(*f.value);
      continue;
    }
    if (!given.insert(f.name).second)
      error(DiagCode::E202, at(f.name_span), "field `" + f.name + "` is given twice");
    const Type* t = check_expr(*f.value, fi->type);
    check_flow(fi->type, t, at(f.value->span), "field `" + f.name + "`", Flow::Field);
  }
  for (auto& fi : cls->fields) {
    if (given.count(fi.name) || fi.backlink_cls) continue;
    if (!fi.decl || !fi.decl->default_value) {
      if (fi.type->is_nullable()) continue;  // an omitted ?T field is nil
      error(DiagCode::E206, at(e.span), "constructor of `" + cls->name + "` is missing field `" + fi.name + "`");
    } else if (!default_supported(*fi.decl->default_value)) {
      error(DiagCode::E403, at(e.span),
            "the default of field `" + fi.name + "` cannot be lowered (supported: Int, Float, Text and Bool literals, `now()`, `[]`, `{}`); give the field explicitly");
    }
  }
  return cls->type;
}

const Type* Checker::check_try(ast::Expr& e, const Type* expected) {
  const Type* body = check_expr(*e.lhs, expected);
  push_scope();
  Symbol* var = declare_local(e.catch_name, info_.error_class->type, at(e.catch_name_span));
  (void)var;
  const Type* handler = nullptr;
  bool has_value = true;
  bool diverges = false;
  if (e.handler_block) {
    push_scope();
    handler = stmts_value_type(e.handler_block->stmts, &has_value);
    diverges = !has_value && stmts_return(e.handler_block->stmts);
    pop_scope();
  } else {
    handler = check_expr(*e.rhs, body);
  }
  pop_scope();
  // The catch variable's symbol is what codegen binds the Error record to.
  e.sym = var;
  if (body->is_poison()) return body;
  if (body->kind == TypeKind::Void) return body;  // statement position: handler value is ignored
  if (diverges) return body;
  if (has_value && handler->kind == TypeKind::Nil) return types_.nullable(body);  // `try f() catch (e) nil`
  if (!has_value || handler->kind == TypeKind::Void) {
    error(DiagCode::E201, at(e.span), "the `catch` handler must produce a value of type " + type_name(body));
    return types_.poison();
  }
  if (!assignable(body, handler)) return mismatch(at(e.span), "`catch` handler", body, handler);
  return body;
}

// A `case` over a union subject: variant names, optionally with positional
// payload bindings (language.md §11.1). Returns the covered variant or -1.
int Checker::check_union_pattern(ast::Expr& p, UnionInfo& u, bool shares_arm) {
  ast::Expr* head = &p;
  bool binding = false;
  if (p.kind == ast::ExprKind::Call && p.lhs->kind == ast::ExprKind::Name) {
    head = p.lhs.get();
    binding = true;
  }
  VariantInfo* v = head->kind == ast::ExprKind::Name ? find_variant(head->text) : nullptr;
  if (!v || v->sym->uni != &u) {
    error(DiagCode::E201, at(p.span), v ? "`" + head->text + "` is a variant of `" + v->sym->uni->name + "`, not of `" + u.name + "`"
                                        : "a case over `" + u.name + "` must name one of its variants");
    return -1;
  }
  head->sym = v->sym.get();
  p.sym = v->sym.get();
  p.type = u.type;
  if (!binding) return v->index;
  if (shares_arm) {
    error(DiagCode::E203, at(p.span), "a payload pattern cannot share its `case` with other values");
    return v->index;
  }
  if (p.args.size() != v->payload.size()) {
    error(DiagCode::E203, at(p.span), "variant `" + v->name + "` has " + std::to_string(v->payload.size()) +
                                          " payload field(s); the pattern binds " + std::to_string(p.args.size()));
    return v->index;
  }
  for (size_t i = 0; i < p.args.size(); ++i) {
    ast::Expr& a = *p.args[i];
    if (a.kind != ast::ExprKind::Name) {
      error(DiagCode::E203, at(a.span), "payload patterns bind names; they never match values");
      continue;
    }
    a.sym = declare_local(a.text, v->payload[i].type, at(a.span));
    a.type = v->payload[i].type;
  }
  return v->index;
}

const Type* Checker::check_switch(ast::Expr& e, const Type* expected) {
  const Type* subj = check_expr(*e.lhs);
  UnionInfo* uni = subj->kind == TypeKind::Union ? subj->uni : nullptr;
  bool subj_ok = subj->is_poison() || subj->is_int_like() || subj->kind == TypeKind::Text ||
                 subj->kind == TypeKind::Bool || uni;
  if (subj->is_nullable())
    error(DiagCode::E201, at(e.lhs->span), "a switch does not narrow: check this " + type_name(subj) + " against nil first");
  else if (!subj_ok)
    error(DiagCode::E201, at(e.lhs->span), "cannot switch over a value of type " + type_name(subj));
  bool seen_default = false, warned = false;
  const Type* value = nullptr;
  bool all_values = true;
  std::vector<bool> covered(uni ? uni->variants.size() : 0, false);
  for (auto& arm : e.arms) {
    if (arm.is_default) {
      seen_default = true;
    } else if (seen_default && !warned) {
      diags_.report(DiagCode::W203, at(arm.span), "`default` is tested last; this `case` after it is still checked first");
      warned = true;
    }
    push_scope();  // payload bindings live in the arm
    for (auto& p : arm.patterns) {
      if (uni) {
        int v = check_union_pattern(*p, *uni, arm.patterns.size() > 1);
        if (v >= 0) covered[v] = true;
        continue;
      }
      if (p->kind == ast::ExprKind::Name && !lookup_local(p->text) && find_variant(p->text)) {
        error(DiagCode::E201, at(p->span), "`" + p->text + "` is a variant, but this switch is over " + type_name(subj));
        continue;
      }
      const Type* pt = check_expr(*p, subj);
      if (subj_ok && !subj->is_poison() && !pt->is_poison() && !assignable(subj, pt))
        mismatch(at(p->span), "case value", subj, pt);
    }
    bool has_value = false;
    const Type* t = stmts_value_type(arm.body, &has_value);
    pop_scope();
    if (has_value && t->kind != TypeKind::Void) {
      if (!value) {
        value = t;
      } else if (!assignable(value, t) && !t->is_poison()) {
        mismatch(at(arm.span), "switch arm", value, t);
      }
    } else if (!stmts_return(arm.body)) {
      all_values = false;
    }
  }
  if (!seen_default) {
    if (uni) {
      std::string missing;
      for (size_t i = 0; i < covered.size(); ++i)
        if (!covered[i]) missing += (missing.empty() ? "" : ", ") + uni->variants[i].name;
      if (!missing.empty())
        error(DiagCode::E208, at(e.span), "switch over `" + uni->name + "` does not cover: " + missing);
    } else if (!subj->is_poison()) {
      error(DiagCode::E208, at(e.span), "a switch over " + type_name(subj) + " needs a `default` arm");
    }
  }
  if (value && all_values) return value;
  return types_.void_();
}

}  // namespace wo::sema
