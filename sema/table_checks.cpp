// Whole-program checks on stored classes, run after every body is checked
// (a plain class becomes stored when some `insert` names it):
//  * WO-E102: two stored classes under one storage name. The store refuses
//    such a schema at start-up (exit 2); the compiler says it first.
//  * WO-W204: `@unique` that constrains nothing — on a backlink (it stores
//    nothing) or on a class that is neither a table nor ever inserted.
// docs/decisions/0017-refused-not-ignored.md.
#include <map>

#include "sema/checker.h"

namespace wo::sema {

namespace {
Loc at(const Span& s) { return s.begin; }
}  // namespace

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
  for (auto& c : info_.classes) {
    if (!c->decl) continue;
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
