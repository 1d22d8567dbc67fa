// Which methods borrow their receiver exclusively (language.md §6.6, §15.3):
// a method whose body writes through `self` — assigns to a place under `self`
// (`self.v = …`, `self.xs[i] += …`), passes such a place to a `mut`
// parameter or to a builtin that modifies its container (§15.4), or calls a
// mutating method on it. A place bound from `self` (`let r = self.part`,
// `for it in self.items`) is a borrow of it (§15.3), so writes through it
// count. Mutation through another method is followed to a fixed point;
// a call through an interface counts as mutating when some class's method of
// that name mutates (the implementation is only known at run time).
// The ownership pass reads FnInfo::mutates_self to check receivers like `mut`
// arguments (decision 0011).
#include <set>

#include "sema/ownership.h"

namespace wo::sema {

namespace {

class SelfWrites {
 public:
  explicit SelfWrites(FnInfo& fn) { under_self_.insert(fn.self.get()); }

  bool direct = false;                      // a write through self in this body
  std::set<const FnInfo*> calls;            // methods called on a place under self
  std::set<std::string> iface_calls;        // interface methods called on one

  void block(const ast::Block& b) {
    for (auto& s : b.stmts) stmt(*s);
  }

 private:
  // The local, parameter or `self` a place (`a.b[i].c`, `get(a, i)`) starts from.
  static const Symbol* root(const ast::Expr& e) {
    const ast::Expr* p = &e;
    for (;;) {
      if (p->kind == ast::ExprKind::Member || p->kind == ast::ExprKind::Index) {
        p = p->lhs.get();
      } else if (p->kind == ast::ExprKind::Call && p->sym && p->sym->kind == SymKind::Builtin &&
                 (builtin_table()[p->sym->builtin].flags & BORROWED) && !p->args.empty()) {
        p = p->args[0].get();
      } else {
        break;
      }
    }
    return p->kind == ast::ExprKind::Name ? p->sym : nullptr;
  }
  bool under_self(const ast::Expr& e) const {
    const Symbol* r = root(e);
    return r && under_self_.count(r);
  }
  // A place under self, not self's own name being rebound (a bare local).
  bool writes_self(const ast::Expr& target) const {
    return target.kind != ast::ExprKind::Name && under_self(target);
  }

  void stmt(const ast::Stmt& s) {
    using K = ast::StmtKind;
    switch (s.kind) {
      case K::Let:
        expr(*s.expr);
        if (s.sym && under_self(*s.expr)) under_self_.insert(s.sym);
        return;
      case K::Assign:
        expr(*s.expr);
        expr(*s.target);
        if (writes_self(*s.target)) direct = true;
        return;
      case K::For:
        expr(*s.expr);
        if (under_self(*s.expr)) {
          if (s.sym) under_self_.insert(s.sym);
          if (s.sym2) under_self_.insert(s.sym2);
        }
        block(*s.body);
        return;
      default:
        if (s.expr) expr(*s.expr);
        if (s.target) expr(*s.target);
        if (s.body) block(*s.body);
        if (s.else_body) block(*s.else_body);
        return;
    }
  }

  void call(const ast::Expr& e) {
    const Symbol* s = e.sym;
    if (!s) return;
    const ast::Expr* recv = e.lhs && e.lhs->kind == ast::ExprKind::Member ? e.lhs->lhs.get() : nullptr;
    auto mut_param = [&](size_t i) -> bool {
      switch (s->kind) {
        case SymKind::Fn:
        case SymKind::Method:
        case SymKind::StaticFn: return s->fn && i < s->fn->params.size() && s->fn->params[i]->conv == ast::ParamConv::Mut;
        case SymKind::IfaceMethod: {
          const ast::FnSig* sig = s->iface->methods[s->method_index].sig;
          return sig && i < sig->params.size() && sig->params[i].conv == ast::ParamConv::Mut;
        }
        case SymKind::Builtin: return i == 0 && (builtin_table()[s->builtin].flags & MUTATES);
        default: return false;
      }
    };
    size_t first = 0;
    if (s->kind == SymKind::Method && recv && under_self(*recv)) calls.insert(s->fn);
    if (s->kind == SymKind::IfaceMethod && recv && under_self(*recv)) iface_calls.insert(s->iface->methods[s->method_index].name);
    if (s->kind == SymKind::Fn && recv && recv->type) {  // `using`: the receiver is parameter 0
      first = 1;
      if (mut_param(0) && under_self(*recv)) direct = true;
    }
    for (size_t i = 0; i < e.args.size(); ++i)
      if (mut_param(i + first) && under_self(*e.args[i])) direct = true;
  }

  void expr(const ast::Expr& e) {
    if (e.kind == ast::ExprKind::Call) call(e);
    if (e.lhs) expr(*e.lhs);
    if (e.rhs) expr(*e.rhs);
    for (auto& a : e.args) expr(*a);
    for (auto& f : e.fields) expr(*f.value);
    for (auto& arm : e.arms)
      for (auto& s : arm.body) stmt(*s);
    if (e.handler_block) block(*e.handler_block);
    for (auto& c : e.clauses)
      if (c.expr) expr(*c.expr);
  }

  std::set<const Symbol*> under_self_;  // self, and the borrows bound from places under it
};

}  // namespace

void infer_mutating_methods(ProgramInfo& info) {
  struct Found {
    FnInfo* fn;
    std::set<const FnInfo*> calls;
    std::set<std::string> iface_calls;
  };
  std::vector<Found> methods;
  for (auto& cls : info.classes)
    for (auto& m : cls->methods) {
      if (m->is_static || !m->self || !m->decl || !m->decl->body) continue;
      SelfWrites w(*m);
      w.block(*m->decl->body);
      m->mutates_self = w.direct;
      methods.push_back({m.get(), std::move(w.calls), std::move(w.iface_calls)});
    }
  for (bool changed = true; changed;) {
    changed = false;
    std::set<std::string> mutating_names;
    for (auto& f : methods)
      if (f.fn->mutates_self) mutating_names.insert(f.fn->name);
    for (auto& f : methods) {
      if (f.fn->mutates_self) continue;
      bool m = false;
      for (const FnInfo* c : f.calls) m |= c->mutates_self;
      for (const std::string& n : f.iface_calls) m |= mutating_names.count(n) > 0;
      if (m) f.fn->mutates_self = changed = true;
    }
  }
}

}  // namespace wo::sema
