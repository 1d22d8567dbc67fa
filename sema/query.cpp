// Position queries (query.h): one walk over the declarations and bodies of a
// file, keeping the smallest span that covers the offset.
#include "sema/query.h"

#include "sema/builtins.h"
#include "sema/types.h"

namespace wo::sema {
namespace {

bool covers(const Span& s, uint32_t off) {
  return s.begin.line != 0 && s.begin.offset <= off && off <= s.begin.offset + s.len;
}

Span sub_span(const Span& whole, uint32_t from_offset, uint32_t len) {
  Span s = whole;
  s.begin.col += from_offset - whole.begin.offset;
  s.begin.offset = from_offset;
  s.len = len;
  return s;
}

// The name part of `recv.name`: the last bytes of the Member's span.
Span member_name_span(const ast::Expr& e) {
  uint32_t n = (uint32_t)e.text.size();
  if (e.span.len < n) return Span{};
  return sub_span(e.span, e.span.begin.offset + e.span.len - n, n);
}

class Finder {
 public:
  Finder(const ProgramInfo& info, uint32_t off) : info_(info), off_(off) {}

  PositionInfo best;

  void file(const ast::File& f) {
    for (auto& fn : f.fns) fn_decl(*fn, nullptr);
    for (auto& c : f.classes) {
      const ClassInfo* ci = class_of_decl(c.get(), nullptr);
      if (ci) offer(c->span, ci->sym.get(), ci->type, ci);
      fields(c->fields, ci);
      for (auto& m : c->methods) fn_decl(*m, ci);
      for (auto& k : c->consts) expr_opt(k.value.get());
    }
    for (auto& r : f.records) {
      const ClassInfo* ci = class_of_decl(nullptr, r.get());
      if (ci) offer(r->span, ci->sym.get(), ci->type, ci);
      fields(r->fields, ci);
    }
    for (auto& u : f.unions) {
      for (auto& un : info_.unions)
        if (un->decl == u.get()) {
          offer(u->span, nullptr, un->type, nullptr);
          for (auto& v : un->variants) {
            if (v.decl) offer(v.decl->span, v.sym.get(), un->type, nullptr);
            for (size_t i = 0; v.decl && i < v.decl->payload.size() && i < v.payload.size(); ++i) {
              offer(v.decl->payload[i].span, nullptr, v.payload[i].type, nullptr);
              type_expr(v.decl->payload[i].type.get());
            }
          }
        }
    }
    for (auto& i : f.interfaces) {
      for (auto& in : info_.interfaces)
        if (in->decl == i.get()) {
          offer(i->span, nullptr, in->type, nullptr);
          for (auto& m : in->methods)
            if (m.sig) {
              offer(m.sig->span, m.sym.get(), nullptr, nullptr);
              for (auto& p : m.sig->params) type_expr(p.type.get());
              type_expr(m.sig->ret.get());
            }
        }
    }
    for (auto& k : f.consts) expr_opt(k.value.get());
  }

 private:
  const ProgramInfo& info_;
  uint32_t off_;
  const FnInfo* fn_ = nullptr;  // the function being walked (its locals name catch variables)

  // Keeps the candidate if it is smaller than the best so far; at equal size
  // one that names a symbol wins over a bare expression.
  void offer(const Span& s, const Symbol* sym, const Type* type, const ClassInfo* cls) {
    if (!covers(s, off_) || (!sym && !type && !cls)) return;
    if (best.found && (s.len > best.span.len || (s.len == best.span.len && (best.sym || !sym)))) return;
    best.found = true;
    best.span = s;
    best.sym = sym;
    best.type = type;
    best.cls = cls;
  }

  const ClassInfo* class_of_decl(const ast::ClassDecl* c, const ast::RecordDecl* r) const {
    for (auto& ci : info_.classes)
      if ((c && ci->decl == c) || (r && ci->record == r)) return ci.get();
    return nullptr;
  }

  // A type named in the source: a class, union or interface by its name.
  void type_expr(const ast::TypeExpr* t) {
    if (!t || !covers(t->span, off_)) return;
    for (auto& c : info_.classes)
      if (c->name == t->name) return offer(t->span, c->sym.get(), c->type, c.get());
    for (auto& u : info_.unions)
      if (u->name == t->name) return offer(t->span, nullptr, u->type, nullptr);
    for (auto& i : info_.interfaces)
      if (i->name == t->name) return offer(t->span, nullptr, i->type, nullptr);
  }

  void fields(const std::vector<ast::FieldDecl>& fs, const ClassInfo* ci) {
    for (auto& f : fs) {
      const FieldInfo* fi = ci ? ci->field(f.name) : nullptr;
      if (fi) offer(f.span, fi->sym.get(), fi->type, nullptr);
      type_expr(f.type.get());
      expr_opt(f.default_value.get());
    }
  }

  void fn_decl(const ast::FnDecl& d, const ClassInfo* owner) {
    const FnInfo* fi = nullptr;
    if (owner) {
      for (auto& m : owner->methods) fi = m->decl == &d ? m.get() : fi;
    } else {
      for (auto& f : info_.fns) fi = f->decl == &d ? f.get() : fi;
    }
    offer(d.sig.span, d.sym, nullptr, nullptr);
    for (auto& p : d.sig.params) {
      offer(p.span, p.sym, p.sym ? p.sym->type : nullptr, nullptr);
      type_expr(p.type.get());
    }
    type_expr(d.sig.ret.get());
    if (!d.body || !covers(d.span, off_)) return;
    const FnInfo* outer = fn_;
    fn_ = fi;
    block(*d.body);
    fn_ = outer;
  }

  void block(const ast::Block& b) {
    for (auto& s : b.stmts) stmt(*s);
  }

  void stmt(const ast::Stmt& s) {
    if (s.sym) offer(s.name_span, s.sym, s.sym->type, nullptr);
    if (s.sym2) offer(s.second_name_span, s.sym2, s.sym2->type, nullptr);
    type_expr(s.declared_type.get());
    expr_opt(s.expr.get());
    expr_opt(s.target.get());
    if (s.body) block(*s.body);
    if (s.else_body) block(*s.else_body);
  }

  void expr_opt(const ast::Expr* e) {
    if (e) expr(*e, nullptr);
  }

  // A local declared at `s` (a catch variable has no slot on its Expr).
  const Symbol* local_at(const Span& s) const {
    if (!fn_) return nullptr;
    for (auto& l : fn_->locals)
      if (l->loc.offset == s.begin.offset && l->loc.file == s.begin.file) return l.get();
    return nullptr;
  }

  void expr(const ast::Expr& e, const ast::Expr* call) {
    using K = ast::ExprKind;
    switch (e.kind) {
      case K::Name:
        offer(e.span, e.sym, e.type, e.sym && e.sym->kind == SymKind::Class ? e.sym->cls : nullptr);
        break;
      case K::Member: {
        // A method's symbol sits on the Call around the callee.
        const Symbol* s = e.sym ? e.sym : call ? call->sym : nullptr;
        offer(member_name_span(e), s, e.sym ? e.type : call ? call->type : e.type, nullptr);
        offer(e.span, nullptr, e.type, nullptr);
        break;
      }
      case K::Ctor: {
        uint32_t skip = e.qualifier.empty() ? 0 : (uint32_t)e.qualifier.size() + 1;
        const ClassInfo* ci = e.sym ? e.sym->cls : nullptr;
        offer(sub_span(e.span, e.span.begin.offset + skip, (uint32_t)e.text.size()), e.sym, e.type, ci);
        for (auto& f : e.fields) {
          const FieldInfo* fi = ci ? ci->field(f.name) : nullptr;
          if (fi) offer(f.name_span, fi->sym.get(), fi->type, nullptr);
        }
        break;
      }
      case K::Call:
        // `f(x)`: the callee Name carries no symbol of its own for user fns.
        if (e.lhs && e.lhs->kind == K::Name && e.sym) offer(e.lhs->span, e.sym, e.type, nullptr);
        offer(e.span, nullptr, e.type, nullptr);
        break;
      default:
        offer(e.span, nullptr, e.type, nullptr);
        break;
    }
    if (!e.catch_name.empty()) {
      const Symbol* s = e.kind == K::Query ? e.sym : local_at(e.catch_name_span);
      if (s) offer(e.catch_name_span, s, s->type, nullptr);
    }
    if (e.lhs) expr(*e.lhs, e.kind == K::Call ? &e : nullptr);
    if (e.rhs) expr(*e.rhs, nullptr);
    for (auto& a : e.args) expr(*a, nullptr);
    for (auto& f : e.fields) expr_opt(f.value.get());
    if (e.as_type) type_expr(e.as_type.get());
    for (auto& arm : e.arms) {
      for (auto& p : arm.patterns) expr(*p, nullptr);
      for (auto& s : arm.body) stmt(*s);
    }
    for (auto& c : e.clauses) expr_opt(c.expr.get());
    if (e.handler_block) block(*e.handler_block);
  }
};

class EndFinder {
 public:
  explicit EndFinder(uint32_t end) : end_(end) {}
  const ast::Expr* best = nullptr;

  void block(const ast::Block& b) {
    for (auto& s : b.stmts) stmt(*s);
  }
  void stmt(const ast::Stmt& s) {
    if (s.expr) expr(*s.expr);
    if (s.target) expr(*s.target);
    if (s.body) block(*s.body);
    if (s.else_body) block(*s.else_body);
  }
  void expr(const ast::Expr& e) {
    if (e.span.begin.line != 0 && e.span.begin.offset + e.span.len == end_ && e.type &&
        (!best || e.span.len < best->span.len))
      best = &e;
    if (e.lhs) expr(*e.lhs);
    if (e.rhs) expr(*e.rhs);
    for (auto& a : e.args) expr(*a);
    for (auto& f : e.fields)
      if (f.value) expr(*f.value);
    for (auto& arm : e.arms)
      for (auto& s : arm.body) stmt(*s);
    for (auto& c : e.clauses)
      if (c.expr) expr(*c.expr);
    if (e.handler_block) block(*e.handler_block);
  }

 private:
  uint32_t end_;
};

template <class Fn>
void for_file(const ProgramInfo& info, uint32_t file, Fn&& fn) {
  if (!info.program) return;
  for (auto& m : info.program->modules)
    for (auto& f : m->files)
      if (f->file_id == file) fn(*f);
}

std::string params_text(const std::vector<Symbol*>& params) {
  std::string s;
  for (const Symbol* p : params) {
    if (!s.empty()) s += ", ";
    if (p->conv == ast::ParamConv::Mut) s += "mut ";
    if (p->conv == ast::ParamConv::Take) s += "take ";
    s += p->name + ": " + type_name(p->type);
  }
  return s;
}

std::string ret_text(const Type* t) {
  return t && t->kind != TypeKind::Void ? " -> " + type_name(t) : "";
}

}  // namespace

PositionInfo info_at(const ProgramInfo& info, uint32_t file, uint32_t offset) {
  Finder f(info, offset);
  for_file(info, file, [&](const ast::File& file_ast) { f.file(file_ast); });
  return f.best;
}

const ast::Expr* expr_ending_at(const ProgramInfo& info, uint32_t file, uint32_t end) {
  EndFinder f(end);
  for_file(info, file, [&](const ast::File& file_ast) {
    for (auto& fn : file_ast.fns)
      if (fn->body) f.block(*fn->body);
    for (auto& c : file_ast.classes)
      for (auto& m : c->methods)
        if (m->body) f.block(*m->body);
  });
  return f.best;
}

std::string describe(const Symbol& sym) {
  switch (sym.kind) {
    case SymKind::Local: return "let " + sym.name + ": " + type_name(sym.type);
    case SymKind::Param: {
      const char* conv = sym.conv == ast::ParamConv::Mut ? "mut " : sym.conv == ast::ParamConv::Take ? "take " : "";
      return std::string("(parameter) ") + conv + sym.name + ": " + type_name(sym.type);
    }
    case SymKind::Self: return "self: " + type_name(sym.type);
    case SymKind::Fn:
      if (!sym.fn) break;
      return "fn " + sym.name + "(" + params_text(sym.fn->params) + ")" + ret_text(sym.fn->ret);
    case SymKind::Method:
    case SymKind::StaticFn:
      if (!sym.fn) break;
      return std::string(sym.kind == SymKind::StaticFn ? "static fn " : "fn ") +
             (sym.cls ? sym.cls->name + "." : "") + sym.name + "(" + params_text(sym.fn->params) + ")" +
             ret_text(sym.fn->ret);
    case SymKind::Builtin: return "builtin " + sym.name;
    case SymKind::Field: return (sym.cls ? sym.cls->name + "." : "") + sym.name + ": " + type_name(sym.type);
    case SymKind::Class:
      if (sym.cls && sym.cls->record) return "type " + sym.name + " = { ... }";
      return (sym.cls && sym.cls->is_table ? "@table class " : "class ") + sym.name;
    case SymKind::Variant: return "variant " + sym.name + (sym.uni ? " of " + sym.uni->name : "");
    case SymKind::IfaceMethod: {
      if (!sym.iface || sym.method_index < 0) break;
      const IfaceMethodInfo& m = sym.iface->methods[sym.method_index];
      std::string ps;
      for (const Type* p : m.params) ps += (ps.empty() ? "" : ", ") + type_name(p);
      return "fn " + sym.iface->name + "." + m.name + "(" + ps + ")" + ret_text(m.ret);
    }
  }
  return sym.name;
}

Loc declaration_of(const Symbol& sym) {
  switch (sym.kind) {
    case SymKind::Builtin: return Loc{};
    case SymKind::Class:
      if (sym.cls && sym.cls->predeclared) return Loc{};
      return sym.loc;
    case SymKind::IfaceMethod:
      if (sym.iface && sym.method_index >= 0 && sym.iface->methods[sym.method_index].sig)
        return sym.iface->methods[sym.method_index].sig->span.begin;
      return Loc{};
    case SymKind::Self:
      if (sym.cls && sym.cls->sym) return sym.cls->sym->loc;
      return Loc{};
    default: return sym.loc;
  }
}

}  // namespace wo::sema
