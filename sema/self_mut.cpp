// Writes through a borrow (language.md §6.6, §15.3, §15.4).
//
// Which methods borrow their receiver exclusively: a method whose body
// writes through `self` — assigns to a place under `self` (`self.v = …`,
// `self.xs[i] += …`), passes such a place to a `mut` parameter or to a
// builtin that modifies its container (§15.4), or calls a mutating method
// on it. A place bound from `self` (`let r = self.part`, `for it in
// self.items`, a `switch` payload of a part) is a borrow of it (§15.3), so
// writes through it count. Mutation through another method is followed to a
// fixed point; a call through an interface counts as mutating when some
// class that satisfies the interface writes through `self` in its method of
// that name (the implementation is only known at run time).
// The ownership pass reads FnInfo::mutates_self to check receivers like `mut`
// arguments (decision 0011).
//
// The same walk finds writes through a shared parameter (`p: T`, not `mut`),
// which §15.4 forbids: WO-E303 at the first one (decision 0078).
#include <set>

#include "sema/ownership.h"

namespace wo::sema {

namespace {

class PlaceWrites {
 public:
  explicit PlaceWrites(const Symbol* root) { under_.insert(root); }

  // The first write through the root in this body (line 0: none), and what it was.
  Loc first_write{};
  std::string what;
  // Methods and interface methods called on a place under the root, where.
  std::vector<std::pair<const FnInfo*, Loc>> calls;
  std::vector<std::pair<std::pair<const InterfaceInfo*, int>, Loc>> iface_calls;

  void block(const ast::Block& b) {
    ++depth_;
    for (auto& s : b.stmts) stmt(*s);
    --depth_;
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
  bool under(const ast::Expr& e) const {
    const Symbol* r = root(e);
    return r && under_.count(r);
  }
  void wrote(const Loc& at, const std::string& how) {
    if (first_write.line) return;
    first_write = at;
    what = how;
  }

  void stmt(const ast::Stmt& s) {
    using K = ast::StmtKind;
    switch (s.kind) {
      case K::Let:
        expr(*s.expr);
        if (s.sym && under(*s.expr)) under_.insert(s.sym);
        return;
      case K::Assign:
        expr(*s.expr);
        expr(*s.target);
        // A place under the root, not a bare local being rebound.
        if (s.target->kind != ast::ExprKind::Name && under(*s.target)) wrote(s.target->span.begin, "assigned here");
        // Rebinding the root (or a borrow of it) to another value on every
        // path — at the top of the body — makes later writes go to that value.
        if (s.target->kind == ast::ExprKind::Name && depth_ == 1 && !under(*s.expr)) under_.erase(s.target->sym);
        return;
      case K::For:
        expr(*s.expr);
        if (under(*s.expr)) {
          if (s.sym) under_.insert(s.sym);
          if (s.sym2) under_.insert(s.sym2);
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
        case SymKind::StaticFn:
          // An actor's `receive` that writes its message, called directly, writes the argument.
          return s->fn && i < s->fn->params.size() &&
                 (s->fn->params[i]->conv == ast::ParamConv::Mut || s->fn->writes_message);
        case SymKind::IfaceMethod: {
          const ast::FnSig* sig = s->iface->methods[s->method_index].sig;
          return sig && i < sig->params.size() && sig->params[i].conv == ast::ParamConv::Mut;
        }
        case SymKind::Builtin: return i == 0 && (builtin_table()[s->builtin].flags & MUTATES);
        default: return false;
      }
    };
    size_t first = 0;
    if (s->kind == SymKind::Method && recv && under(*recv)) calls.push_back({s->fn, recv->span.begin});
    if (s->kind == SymKind::IfaceMethod && recv && under(*recv))
      iface_calls.push_back({{s->iface, s->method_index}, recv->span.begin});
    if (s->kind == SymKind::Fn && recv && recv->type) {  // `using`: the receiver is parameter 0
      first = 1;
      if (mut_param(0) && under(*recv)) wrote(recv->span.begin, "passed to a `mut` parameter here");
    }
    for (size_t i = 0; i < e.args.size(); ++i)
      if (mut_param(i + first) && under(*e.args[i]))
        wrote(e.args[i]->span.begin, s->kind == SymKind::Builtin ? "modified by `" + s->name + "` here"
                                                                 : "passed to a `mut` parameter here");
  }

  void expr(const ast::Expr& e) {
    if (e.kind == ast::ExprKind::Call) call(e);
    if (e.lhs) expr(*e.lhs);
    if (e.rhs) expr(*e.rhs);
    for (auto& a : e.args) expr(*a);
    for (auto& f : e.fields) expr(*f.value);
    // A payload bound from a place under the root is a part of it.
    bool subject_under = e.kind == ast::ExprKind::Switch && e.lhs && under(*e.lhs);
    for (auto& arm : e.arms) {
      if (subject_under)
        for (auto& p : arm.patterns)
          for (auto& a : p->args)
            if (a->sym) under_.insert(a->sym);
      for (auto& s : arm.body) stmt(*s);
    }
    if (e.handler_block) block(*e.handler_block);
    for (auto& c : e.clauses)
      if (c.expr) expr(*c.expr);
  }

  std::set<const Symbol*> under_;  // the root, and the borrows bound from places under it
  int depth_ = 0;                   // blocks open: 1 is the function body itself
};

// Whether a value of type `t` has parts a callee could write.
bool writable(const Type* t) {
  t = t->base();
  switch (t->kind) {
    case TypeKind::List:
    case TypeKind::Map:
    case TypeKind::Interface: return true;
    case TypeKind::Class: return !t->cls->is_table && !t->cls->traced;  // records like Error too
    case TypeKind::Union: return t->uni->has_payload;                  // through a `switch` payload binding
    default: return false;
  }
}

}  // namespace

// Matched by name: satisfies() has checked that the signature is the interface's.
bool iface_method_mutates(const ProgramInfo& info, const InterfaceInfo* iface, int m) {
  const std::string& name = iface->methods[m].name;
  for (auto& c : info.classes) {
    if (c->is_table || !satisfies(*c, *iface, nullptr)) continue;
    const FnInfo* impl = c->method(name);
    if (impl && impl->mutates_self) return true;
  }
  return false;
}

void infer_mutating_methods(ProgramInfo& info) {
  struct Found {
    FnInfo* fn;
    std::vector<std::pair<const FnInfo*, Loc>> calls;
    std::vector<std::pair<std::pair<const InterfaceInfo*, int>, Loc>> iface_calls;
  };
  std::vector<Found> methods;
  for (auto& cls : info.classes)
    for (auto& m : cls->methods) {
      if (m->is_static || !m->self || !m->decl || !m->decl->body) continue;
      PlaceWrites w(m->self.get());
      w.block(*m->decl->body);
      m->mutates_self = w.first_write.line != 0;
      methods.push_back({m.get(), std::move(w.calls), std::move(w.iface_calls)});
    }
  for (bool changed = true; changed;) {
    changed = false;
    for (auto& f : methods) {
      if (f.fn->mutates_self) continue;
      bool m = false;
      for (auto& [c, at] : f.calls) m |= c->mutates_self;
      for (auto& [im, at] : f.iface_calls) m |= iface_method_mutates(info, im.first, im.second);
      if (m) f.fn->mutates_self = changed = true;
    }
  }
}

void check_shared_writes(ProgramInfo& info, Diagnostics& diags) {
  // The first write through shared parameter `p` of `fn` (line 0: none), and how.
  auto first_write = [&](FnInfo& fn, const Symbol* p, std::string& how) -> Loc {
    PlaceWrites w(p);
    w.block(*fn.decl->body);
    Loc at = w.first_write;
    how = w.what;
    for (auto& [c, where] : w.calls)
      if (c->mutates_self && (!at.line || where.offset < at.offset)) {
        at = where;
        how = "`" + c->name + "` writes through its receiver";
      }
    for (auto& [im, where] : w.iface_calls)
      if (iface_method_mutates(info, im.first, im.second) && (!at.line || where.offset < at.offset)) {
        at = where;
        how = "`" + im.first->methods[im.second].name + "` writes through its receiver in some implementation";
      }
    return at;
  };
  auto is_receive = [](const FnInfo& fn) {
    return fn.self && !fn.is_static && fn.name == "receive" && fn.params.size() == 1 && fn.decl && fn.decl->body;
  };
  // Actors' `receive` methods that write their message, to a fixed point
  // (one may pass its message to another's `receive`).
  for (bool changed = true; changed;) {
    changed = false;
    for (auto& cls : info.classes)
      for (auto& m : cls->methods) {
        if (!is_receive(*m) || m->writes_message || m->params[0]->conv != ast::ParamConv::Borrow ||
            !writable(m->params[0]->type))
          continue;
        std::string how;
        if (first_write(*m, m->params[0], how).line) m->writes_message = changed = true;
      }
  }
  auto check = [&](FnInfo& fn) {
    if (!fn.decl || !fn.decl->body || is_receive(fn)) return;
    for (const Symbol* p : fn.params) {
      if (p->conv != ast::ParamConv::Borrow || !writable(p->type)) continue;
      std::string how;
      Loc at = first_write(fn, p, how);
      if (!at.line) continue;
      auto& d = diags.error(DiagCode::E303, at,
                            "`" + p->name + "` is a shared borrow and cannot be modified (" + how +
                                "); declare the parameter `mut " + p->name + "`");
      d.related.push_back({p->loc, "`" + p->name + "` declared here"});
    }
  };
  for (auto& fn : info.fns) check(*fn);
  for (auto& cls : info.classes)
    for (auto& m : cls->methods) check(*m);
}

}  // namespace wo::sema
