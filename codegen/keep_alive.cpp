// Keeping borrowed operands alive (docs/decisions/0078).
//
// An expression yields a borrowed value or an owned temporary (emitter.h).
// A borrowed value read from a place — a field, an element, a map value,
// `get(xs, i)` — stays valid only while nothing replaces or destroys that
// place. The operands of one construct (the two sides of an operator, the
// pieces of a `..` chain or an interpolation, a call's receiver and
// arguments, a constructor's fields) are evaluated left to right and used
// together at the end, so an operand that is evaluated later and writes
// (`o.name .. replace(o)`, `self.words[0] .. self.drain()`) would leave an
// earlier one pointing at freed memory. Such an earlier operand gets a
// reference of its own (`hold`), released with the statement's temporaries:
// one count up and down, and only where a later operand may write.
//
// A call can also destroy what one of its own arguments borrows (a `mut`
// owner passed beside its Text part, a traced object aliased by another
// argument): sema marks those arguments (ProgramInfo::keep_alive) and the
// call sites hold them too.
#include <functional>

#include "codegen/emitter.h"

namespace wo::codegen {

namespace {

// A user function or method call that can write something its caller can see:
// a `mut` or `take` parameter, a receiver it writes through, or — since a
// traced object may be reached from anywhere — any call when the program has
// traced classes (their shared parameters may be written, language.md §15.6).
bool call_writes(const ast::Expr& e, bool any_traced) {
  const sema::Symbol* s = e.sym;
  if (!s) return false;  // multi_new() / map_new()
  switch (s->kind) {
    case sema::SymKind::Builtin: {
      const sema::BuiltinSig& b = sema::builtin_table()[s->builtin];
      return (b.flags & (sema::MUTATES | sema::ACTOR)) != 0;  // an actor operation moves (and may free) its message
    }
    case sema::SymKind::Variant: return false;
    case sema::SymKind::IfaceMethod: return true;  // the implementation is only known at run time
    default: break;
  }
  if (any_traced) return true;
  const sema::FnInfo* fn = s->fn;
  if (!fn) return true;
  if (fn->mutates_self || fn->writes_message) return true;
  for (const sema::Symbol* p : fn->params)
    if (p->conv != ast::ParamConv::Borrow) return true;
  return false;
}

}  // namespace

// What evaluating `e` itself (not its operands) may write.
uint8_t Emitter::own_writes(const ast::Expr& e) const {
  using K = ast::ExprKind;
  switch (e.kind) {
    case K::Switch:
    case K::Try: return kWritesPlaces | kWritesLocals;  // statement bodies: anything, locals too
    case K::Query: return kWritesPlaces;                // clauses run per row
    case K::Call: return call_writes(e, any_traced_) ? kWritesPlaces : 0;
    case K::Spawn: return kWritesPlaces;  // the state moves to another actor (maybe a deep copy, the original freed)
    default: return 0;  // a local moved into a constructor or a list lives on in it
  }
}

uint8_t Emitter::may_write(const ast::Expr& root) {
  if (auto m = write_memo_.find(&root); m != write_memo_.end()) return m->second;
  // Left-nested chains (`a .. b .. c …`, 100,000 terms in generated code) are
  // walked down their left spine as a loop, then summed bottom-up.
  std::vector<const ast::Expr*> spine;
  for (const ast::Expr* p = &root; p && !write_memo_.count(p); p = p->lhs.get()) spine.push_back(p);
  for (auto it = spine.rbegin(); it != spine.rend(); ++it) {
    const ast::Expr& e = **it;
    uint8_t w = own_writes(e);
    if (e.lhs) w |= write_memo_.at(e.lhs.get());
    if (e.rhs) w |= may_write(*e.rhs);
    for (auto& a : e.args) w |= may_write(*a);
    for (auto& f : e.fields) w |= may_write(*f.value);
    for (auto& c : e.clauses)
      if (c.expr) w |= may_write(*c.expr);
    write_memo_[&e] = w;
  }
  return write_memo_.at(&root);
}

std::vector<uint8_t> Emitter::writes_after(const std::vector<const ast::Expr*>& ops) {
  std::vector<uint8_t> after(ops.size(), 0);
  uint8_t acc = 0;
  for (size_t i = ops.size(); i-- > 0;) {
    after[i] = acc;
    acc |= may_write(*ops[i]);
  }
  return after;
}

// A borrowed heap value that code about to run could free: a reference of its
// own, released with the statement's temporaries.
Val Emitter::hold(Val v, const Type* t) {
  if (v.temp || !t->is_heap()) return v;
  retain(v.v);
  return own_temp(v.v);
}

std::vector<const ast::Expr*> Emitter::operands(const ast::Expr& call) {
  std::vector<const ast::Expr*> ops;
  const sema::Symbol* s = call.sym;
  using sema::SymKind;
  bool has_recv = s && call.lhs && call.lhs->kind == ast::ExprKind::Member &&
                  (s->kind == SymKind::Method || s->kind == SymKind::IfaceMethod ||
                   (s->kind == SymKind::Fn && call.lhs->lhs->type));  // `v.f()` through `using`
  if (has_recv) ops.push_back(call.lhs->lhs.get());
  for (auto& a : call.args) ops.push_back(a.get());
  return ops;
}

Val Emitter::keep(Val v, const ast::Expr& e, uint8_t later) {
  if (!later || v.temp || !v.v || !e.type || !e.type->is_heap()) return v;
  const ast::Expr* p = &e;
  while (p->kind == ast::ExprKind::Interp || p->kind == ast::ExprKind::As) p = p->lhs.get();
  switch (p->kind) {
    case ast::ExprKind::TextLit:
    case ast::ExprKind::NilLit: return v;  // immortal
    case ast::ExprKind::Name: {
      // A local or parameter's slot holds its own reference; only a statement
      // (inside a later `switch` arm or `catch` block) can give it a new value.
      const sema::Symbol* s = p->sym;
      if (!s || s->kind == sema::SymKind::Self || s->kind == sema::SymKind::Variant) return v;
      return later & kWritesLocals ? hold(v, e.type) : v;
    }
    default: return hold(v, e.type);  // a part of some value, or a borrowed builtin result
  }
}

// Whether the place `e` is read through an object that a traced object may
// own (aliasable_classes_): a traced object may be reached by any other name
// (language.md §15.6), so any call that writes may be replacing that part.
bool Emitter::through_aliasable(const ast::Expr& e) const {
  for (const ast::Expr* p = &e;;) {
    if (p->kind == ast::ExprKind::Member || p->kind == ast::ExprKind::Index) {
      p = p->lhs.get();
    } else if (p->kind == ast::ExprKind::Call && p->sym && p->sym->kind == sema::SymKind::Builtin &&
               (sema::builtin_table()[p->sym->builtin].flags & sema::BORROWED) && !p->args.empty()) {
      p = p->args[0].get();
    } else {
      return false;
    }
    const Type* t = p->type ? p->type->base() : nullptr;
    if (t && t->kind == TypeKind::Class && aliasable_classes_.count(t->cls)) return true;
    if (t && (t->kind == TypeKind::List || t->kind == TypeKind::Map || t->kind == TypeKind::Union ||
              t->kind == TypeKind::Interface) && any_traced_)
      return true;  // a container or box a traced object may own
  }
}

// Every class a traced object may own, directly or through fields, lists,
// maps, payloads and interface values (the traced classes themselves too).
void Emitter::find_aliasable_classes() {
  std::vector<const ClassInfo*> work;
  for (auto& c : prog_.classes)
    if (c->traced) work.push_back(c.get());
  std::function<void(const Type*)> reach = [&](const Type* t) {
    if (!t) return;
    t = t->base();
    switch (t->kind) {
      case TypeKind::Class:
        if (!t->cls->is_table && aliasable_classes_.insert(t->cls).second) work.push_back(t->cls);
        return;
      case TypeKind::List: reach(t->elem); return;
      case TypeKind::Map: reach(t->value); return;
      case TypeKind::Union:
        for (auto& v : t->uni->variants)
          for (auto& f : v.payload) reach(f.type);
        return;
      case TypeKind::Interface:
        for (auto& c : prog_.classes)
          if (!c->is_table && sema::satisfies(*c, *t->iface, nullptr)) reach(c->type);
        return;
      default: return;
    }
  };
  for (const ClassInfo* c : work) aliasable_classes_.insert(c);
  while (!work.empty()) {
    const ClassInfo* c = work.back();
    work.pop_back();
    for (auto& f : c->fields) reach(f.type);
  }
}

Val Emitter::keep_arg(Val v, const ast::Expr& e, uint8_t later, const ast::Expr& call) {
  if (prog_.keep_alive.count(&e)) later |= kWritesPlaces;
  if (any_traced_ && through_aliasable(e)) later |= own_writes(call);
  return keep(v, e, later);
}

}  // namespace wo::codegen
