// Whole-program checks on stored classes, run after every body is checked
// (a plain class becomes stored when some `insert` names it):
//  * WO-E102: two stored classes under one storage name. The store refuses
//    such a schema at start-up (exit 2); the compiler says it first.
//  * WO-W204: `@unique` that constrains nothing — on a backlink (it stores
//    nothing) or on a class that is neither a table nor ever inserted.
//  * what a stored field may hold, and WO-E403 for changing a row's container
//    field in place (it reads as a copy; decision 0017).
// docs/decisions/0017-refused-not-ignored.md.
#include <map>

#include "sema/checker.h"

namespace wo::sema {

namespace {
Loc at(const Span& s) { return s.begin; }
}  // namespace

namespace {
bool scalar_or_text(const Type* t) {
  return t->is_int_like() || t->kind == TypeKind::Bool || t->kind == TypeKind::Float || t->kind == TypeKind::Text ||
         t->kind == TypeKind::Bytes;
}
}  // namespace

bool Checker::storable(const Type* t, bool refs, std::string* why) {
  const Type* b = t->base();
  if (b->is_poison() || scalar_or_text(b)) return true;
  if (b->kind == TypeKind::Class && b->cls->is_table) {
    if (refs) return true;
    *why = "only a @table class may hold a `ref`";
    return false;
  }
  // Containers are copied element by element; their elements are scalars,
  // Float, Text or Bytes (a row id inside one would escape the FK counts).
  if (b->kind == TypeKind::List) {
    if (scalar_or_text(b->elem)) return true;
    *why = "a stored `multi` holds Int, Bool, Float, Timestamp, Id, Text or Bytes elements";
    return false;
  }
  if (b->kind == TypeKind::Map) {
    if ((b->elem->is_int_like() || b->elem->kind == TypeKind::Bool || b->elem->kind == TypeKind::Text) &&
        scalar_or_text(b->value))
      return true;
    *why = "a stored `map` holds Int, Bool, Float, Timestamp, Id, Text or Bytes values";
    return false;
  }
  if (b->kind == TypeKind::Actor)
    *why = "an actor address is valid only while the program runs";
  else if (b->kind == TypeKind::Class)
    *why = "an object stored by value is not implemented yet in woc; make `" + b->cls->name +
           "` a @table and store a `ref " + b->cls->name + "`";
  else
    *why = "the store keeps scalars, Text, Bytes, refs and containers of those";
  return false;
}

bool Checker::refuse_row_copy_change(const ast::Expr& e, const std::string& what) {
  const ast::Expr* p = &e;
  while (p) {
    if (p->kind == ast::ExprKind::Member && p->sym && p->sym->kind == SymKind::Field && p->sym->cls->is_table) {
      const FieldInfo& f = p->sym->cls->fields[p->sym->field_index];
      const Type* b = f.type->base();
      if (f.column >= 0 && (b->kind == TypeKind::List || b->kind == TypeKind::Map)) {
        error(DiagCode::E403, at(e.span), what + " would change a copy: a row's `" + f.name +
                                              "` reads as a fresh value. Assign the whole field instead: `let v = row." +
                                              f.name + "`, change `v`, then `row." + f.name + " = v`");
        return true;
      }
    }
    if (p->kind != ast::ExprKind::Member && p->kind != ast::ExprKind::Index) break;
    p = p->lhs.get();
  }
  return false;
}

void Checker::check_stored_classes() {
  std::map<std::string, const ClassInfo*> by_name;
  for (auto& c : info_.classes) {
    if (c->db_index < 0 || !c->decl) continue;
    const std::string& stored = c->is_table ? c->table_name : c->name;
    auto [it, fresh] = by_name.emplace(stored, c.get());
    if (fresh) continue;
    const ClassInfo* first = it->second;
    // Report at the class whose `@table(name: …)` made the clash, else the later one.
    const ClassInfo* at_cls = c->is_table ? c.get() : first;
    error(DiagCode::E102, at(at_cls->decl->span),
          "`" + first->name + "` and `" + c->name + "` are both stored as \"" + stored +
              "\"; give one of them another `@table(name: …)`")
        .related.push_back({at((at_cls == first ? c.get() : first)->decl->span), "the other class"});
  }
  for (auto& c : info_.classes) {  // classes and typedef records (never stored)
    for (auto& f : c->fields) {
      if (!f.unique || !f.decl) continue;
      if (f.backlink_cls)
        diags_.report(DiagCode::W204, at(f.decl->span), "`@unique` on a backlink constrains nothing (a backlink stores no value)");
      else if (c->db_index < 0)
        diags_.report(DiagCode::W204, at(f.decl->span),
                      "`@unique` constrains nothing here: `" + c->name + "` is not a @table and is never inserted");
    }
  }
}

}  // namespace wo::sema
