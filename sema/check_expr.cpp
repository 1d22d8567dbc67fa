// Expressions: names, operators, calls (user fns, methods, builtins),
// fields, indexing, list and constructor literals, try/catch, switch.
#include <set>

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
    case ast::ExprKind::NilLit: return not_implemented(e, "`nil` and nullable values are");
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
    case ast::ExprKind::As: return not_implemented(e, "`as` (JSON decoding) is");
    case ast::ExprKind::EmptyMap: return not_implemented(e, "maps are");
    case ast::ExprKind::Spawn: return not_implemented(e, "actors (`spawn`) are");
    case ast::ExprKind::Insert: return not_implemented(e, "tables (`insert`) are");
    case ast::ExprKind::Delete: return not_implemented(e, "tables (`delete`) are");
    case ast::ExprKind::Query: return not_implemented(e, "queries are");
    case ast::ExprKind::LegacySelect: return not_implemented(e, "the legacy SELECT form is");
  }
  return e.type = t;
}

const Type* Checker::check_name(ast::Expr& e) {
  if (Symbol* s = lookup_local(e.text)) {
    e.sym = s;
    return s->type;
  }
  if (e.text == "self" && fn_ && fn_->self) {
    e.sym = fn_->self.get();
    return e.sym->type;
  }
  if (find_fn(e.text) || is_builtin_name(e.text)) {
    error(DiagCode::E403, at(e.span), "`" + e.text + "` is a function: functions are not values (call it with `()`)");
    return types_.poison();
  }
  if (find_class(e.text)) {
    error(DiagCode::E403, at(e.span), "`" + e.text + "` is a type, not a value");
    return types_.poison();
  }
  error(DiagCode::E403, at(e.span), "unknown name `" + e.text + "`");
  return types_.poison();
}

const Type* Checker::check_interp(ast::Expr& e) {
  const Type* t = check_expr(*e.lhs);
  if (t->is_poison()) return types_.text();
  if (t->kind != TypeKind::Text && !t->is_int_like() && t->kind != TypeKind::Float)
    error(DiagCode::E403, at(e.lhs->span),
          "a value of type " + type_name(t) + " cannot be interpolated (only Text, Int and Float can)");
  return types_.text();
}

const Type* Checker::check_unary(ast::Expr& e) {
  const Type* t = check_expr(*e.lhs);
  if (t->is_poison()) return t;
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
  const Type* l = check_expr(*e.lhs);
  const Type* r = check_expr(*e.rhs, l);
  Op op = e.binary_op;
  std::string sp = std::string("`") + ast::binary_op_spelling(op) + "`";
  if (l->is_poison() || r->is_poison()) {
    if (op == Op::Or || op == Op::And || (op >= Op::Eq && op <= Op::Ge)) return types_.bool_();
    if (op == Op::Concat) return types_.text();
    return types_.poison();
  }
  auto fail = [&](const std::string& need) {
    error(DiagCode::E201, at(e.span), sp + " needs " + need + ", found " + type_name(l) + " and " + type_name(r));
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
                (l == r && (l->kind == TypeKind::Float || l->kind == TypeKind::Bool || l->kind == TypeKind::Text));
      if (!ok) fail("two values of the same Int, Float, Bool or Text type");
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
    if (FnInfo* fn = find_fn(n)) {
      e.sym = fn->sym.get();
      return check_user_call(e, *fn, 0);
    }
    if (is_builtin_name(n)) return check_builtin_call(e, n);
    for (auto& a : e.args) check_expr(*a);
    if (find_class(n)) {
      error(DiagCode::E403, at(callee.span), "`" + n + "` is a class: build one with `" + n + " { ... }`");
      return types_.poison();
    }
    error(DiagCode::E403, at(callee.span), "unknown function `" + n + "`");
    return types_.poison();
  }
  if (callee.kind == ast::ExprKind::Member) {
    ast::Expr& recv = *callee.lhs;
    const std::string& m = callee.text;
    // `C.f(...)`: a static method, when C is not a local.
    if (recv.kind == ast::ExprKind::Name && !lookup_local(recv.text) && recv.text != "self") {
      if (ClassInfo* cls = find_class(recv.text)) {
        FnInfo* fn = cls->method(m);
        if (!fn) {
          error(DiagCode::E403, at(callee.span), "class `" + cls->name + "` has no static fn `" + m + "`");
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
        return check_user_call(e, *fn, 0);
      }
    }
    const Type* rt = check_expr(recv);
    if (rt->is_poison()) {
      for (auto& a : e.args) check_expr(*a);
      return types_.poison();
    }
    if (rt->kind != TypeKind::Class) {
      error(DiagCode::E403, at(callee.span), "a value of type " + type_name(rt) + " has no method `" + m + "`");
      for (auto& a : e.args) check_expr(*a);
      return types_.poison();
    }
    FnInfo* fn = rt->cls->method(m);
    if (!fn || fn->is_static) {
      error(DiagCode::E403, at(callee.span),
            fn ? "`" + m + "` is a static fn: call it as `" + rt->cls->name + "." + m + "(...)`"
               : "class `" + rt->cls->name + "` has no method `" + m + "`");
      for (auto& a : e.args) check_expr(*a);
      return types_.poison();
    }
    e.sym = fn->sym.get();
    return check_user_call(e, *fn, 0);
  }
  error(DiagCode::E403, at(callee.span), "this expression cannot be called");
  for (auto& a : e.args) check_expr(*a);
  return types_.poison();
}

const Type* Checker::check_user_call(ast::Expr& e, FnInfo& fn, size_t) {
  if (e.args.size() != fn.params.size()) {
    error(DiagCode::E403, at(e.span), "`" + fn.name + "` takes " + std::to_string(fn.params.size()) +
                                          " argument(s), but " + std::to_string(e.args.size()) + " were given");
    for (auto& a : e.args) check_expr(*a);
    return fn.ret;
  }
  for (size_t i = 0; i < e.args.size(); ++i) {
    const Type* want = fn.params[i]->type;
    const Type* got = check_expr(*e.args[i], want);
    if (!assignable(want, got))
      mismatch(at(e.args[i]->span), "argument " + std::to_string(i + 1) + " of `" + fn.name + "`", want, got);
  }
  return fn.ret;
}

namespace {
// Does `t` fit builtin parameter class `code` (builtins.def)? `arg0` is the
// type of the first argument (for `e`, the element of a multi).
bool fits(char code, const Type* t, const Type* arg0) {
  if (t->is_poison()) return true;
  switch (code) {
    case 'i': return t->is_int_like() || t->kind == TypeKind::Bool;
    case 'n': return t->is_int_like();
    case 'b': return t->kind == TypeKind::Bool;
    case 'f': return t->kind == TypeKind::Float;
    case 't': return t->kind == TypeKind::Text;
    case 'S': return t->is_int_like();
    case 'L': return t->kind == TypeKind::List;
    case 'T': return t->kind == TypeKind::List && t->elem->kind == TypeKind::Text;
    case 'e':
      if (!arg0 || arg0->kind != TypeKind::List) return true;
      return assignable(arg0->elem, t);
    default: return false;
  }
}
}  // namespace

const Type* Checker::check_builtin_call(ast::Expr& e, const std::string& name) {
  std::vector<const Type*> args;
  for (size_t i = 0; i < e.args.size(); ++i) {
    const Type* exp = nullptr;
    if (i == 1 && !args.empty() && args[0]->kind == TypeKind::List) exp = args[0]->elem;
    args.push_back(check_expr(*e.args[i], exp));
  }
  const auto& table = builtin_table();
  int arity_match = -1;
  for (size_t bi = 0; bi < table.size(); ++bi) {
    const BuiltinSig& b = table[bi];
    if (b.name != name || b.params.size() != args.size()) continue;
    if (arity_match < 0) arity_match = (int)bi;
    bool ok = true;
    for (size_t i = 0; i < args.size() && ok; ++i) ok = fits(b.params[i], args[i], args.empty() ? nullptr : args[0]);
    if (!ok) continue;
    auto sym = std::make_unique<Symbol>(Symbol{SymKind::Builtin, name});
    sym->builtin = (int)bi;
    e.sym = sym.get();
    info_.extra_symbols.push_back(std::move(sym));
    std::string_view r = b.result;
    switch (r[0]) {
      case 'v': return types_.void_();
      case 'i':
      case 'n': return types_.int_();
      case 'b': return types_.bool_();
      case 'f': return types_.float_();
      case 't': return types_.text();
      case 'S': return types_.timestamp();
      case 'T': return types_.list_of(types_.text());
      case 'e': return args[0]->is_poison() ? types_.poison() : args[0]->elem;
    }
    return types_.poison();
  }
  if (arity_match < 0) {
    size_t want = 0;
    for (auto& b : table)
      if (b.name == name) want = b.params.size();
    error(DiagCode::E209, at(e.span), "builtin `" + name + "` takes " + std::to_string(want) + " argument(s), but " +
                                          std::to_string(args.size()) + " were given");
  } else {
    std::string got;
    for (auto* a : args) got += (got.empty() ? "" : ", ") + type_name(a);
    error(DiagCode::E209, at(e.span), "builtin `" + name + "` cannot take (" + got + ")");
  }
  return types_.poison();
}

const Type* Checker::check_member(ast::Expr& e) {
  const Type* t = check_expr(*e.lhs);
  if (t->is_poison()) return t;
  if (t->kind != TypeKind::Class) {
    error(DiagCode::E403, at(e.span), "a value of type " + type_name(t) + " has no field `" + e.text + "`");
    return types_.poison();
  }
  const FieldInfo* f = t->cls->field(e.text);
  if (!f) {
    error(DiagCode::E202, at(e.span), "`" + t->cls->name + "` has no field `" + e.text + "`");
    return types_.poison();
  }
  e.sym = f->sym.get();
  return f->type;
}

const Type* Checker::check_index(ast::Expr& e) {
  const Type* t = check_expr(*e.lhs);
  const Type* i = check_expr(*e.rhs);
  if (t->is_poison()) return t;
  if (t->kind != TypeKind::List) {
    error(DiagCode::E201, at(e.span), "only a multi can be indexed here, found " + type_name(t));
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
    } else if (!assignable(elem, t)) {
      mismatch(at(item->span), "list element", elem, t);
    }
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
  if (!assignable(f.type, d.type)) mismatch(at(d.span), "default of field `" + f.name + "`", f.type, d.type);
}

const Type* Checker::check_ctor(ast::Expr& e, const Type* expected) {
  if (!e.qualifier.empty()) {
    for (auto& f : e.fields) check_expr(*f.value);
    return not_implemented(e, "constructors of types from other modules are");
  }
  ClassInfo* cls = find_class(e.text);
  if (!cls || cls->predeclared) {
    for (auto& f : e.fields) check_expr(*f.value);
    error(DiagCode::E207, at(e.span), "unknown type `" + e.text + "` in constructor literal");
    return types_.poison();
  }
  e.sym = cls->sym.get();
  std::set<std::string> given;
  for (auto& f : e.fields) {
    const FieldInfo* fi = cls->field(f.name);
    if (!fi) {
      error(DiagCode::E202, at(f.name_span), "`" + cls->name + "` has no field `" + f.name + "`");
      check_expr(*f.value);
      continue;
    }
    if (!given.insert(f.name).second)
      error(DiagCode::E202, at(f.name_span), "field `" + f.name + "` is given twice");
    const Type* t = check_expr(*f.value, fi->type);
    if (!assignable(fi->type, t)) mismatch(at(f.value->span), "field `" + f.name + "`", fi->type, t);
  }
  for (auto& fi : cls->fields) {
    if (given.count(fi.name)) continue;
    if (!fi.decl || !fi.decl->default_value) {
      error(DiagCode::E206, at(e.span), "constructor of `" + cls->name + "` is missing field `" + fi.name + "`");
    } else if (!default_supported(*fi.decl->default_value)) {
      error(DiagCode::E403, at(e.span),
            "the default of field `" + fi.name + "` cannot be lowered (supported: Int, Float, Text and Bool literals, `now()`, `[]`); give the field explicitly");
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
    if (e.rhs->kind == ast::ExprKind::NilLit) {
      pop_scope();
      return not_implemented(*e.rhs, "`catch (e) nil` (nullable results) is");
    }
    handler = check_expr(*e.rhs, body);
  }
  pop_scope();
  // The catch variable's symbol is what codegen binds the Error record to.
  e.sym = var;
  if (body->is_poison()) return body;
  if (body->kind == TypeKind::Void) return body;  // statement position: handler value is ignored
  if (diverges) return body;
  if (!has_value || handler->kind == TypeKind::Void) {
    error(DiagCode::E201, at(e.span), "the `catch` handler must produce a value of type " + type_name(body));
    return types_.poison();
  }
  if (!assignable(body, handler)) return mismatch(at(e.span), "`catch` handler", body, handler);
  return body;
}

const Type* Checker::check_switch(ast::Expr& e, const Type* expected) {
  const Type* subj = check_expr(*e.lhs);
  bool subj_ok = subj->is_poison() || subj->is_int_like() || subj->kind == TypeKind::Text || subj->kind == TypeKind::Bool;
  if (!subj_ok) error(DiagCode::E201, at(e.lhs->span), "cannot switch over a value of type " + type_name(subj));
  bool seen_default = false, warned = false;
  const Type* value = nullptr;
  bool all_values = true;
  for (auto& arm : e.arms) {
    if (arm.is_default) {
      seen_default = true;
    } else if (seen_default && !warned) {
      diags_.report(DiagCode::W203, at(arm.span), "`default` is tested last; this `case` after it is still checked first");
      warned = true;
    }
    for (auto& p : arm.patterns) {
      const Type* pt = check_expr(*p, subj);
      if (subj_ok && !subj->is_poison() && !pt->is_poison() && !assignable(subj, pt))
        mismatch(at(p->span), "case value", subj, pt);
    }
    push_scope();
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
  if (!seen_default) error(DiagCode::E208, at(e.span), "a switch over " + type_name(subj) + " needs a `default` arm");
  if (value && all_values) return value;
  return types_.void_();
}

}  // namespace wo::sema
