// Schema diff and migration plan (see migrate.h).
#include "migrate.h"

#include "codec.h"

namespace wo::store {
namespace {

int field_index(const ClassDef& c, const std::string& name) {
  for (size_t i = 0; i < c.fields.size(); ++i)
    if (c.fields[i].name == name) return static_cast<int>(i);
  return -1;
}

bool refuse(std::string* err, std::string msg) {
  *err = "schema change refused: " + std::move(msg);
  return false;
}

}  // namespace

bool plan_migration(const Schema& log, const Schema& program, MigrationPlan* plan, std::string* err) {
  *plan = MigrationPlan{};
  for (size_t li = 0; li < log.classes.size(); ++li) {
    const ClassDef& lc = log.classes[li];
    int pi = program.find(lc.name);
    if (pi < 0)
      return refuse(err, "the log holds table \"" + lc.name +
                             "\" but the program declares no such table (its rows would be lost)");
    const ClassDef& pc = program.classes[pi];
    if (!pc.durable())
      return refuse(err, "table \"" + lc.name +
                             "\" is durable in the log but not in the program (durable: false would drop its rows)");
    ClassMap m;
    m.log_index = static_cast<uint32_t>(li);
    m.target = static_cast<uint32_t>(pi);
    std::vector<const Field*> dropped, added;
    std::vector<bool> kept(pc.fields.size(), false);
    for (const Field& lf : lc.fields) {
      int pf = field_index(pc, lf.name);
      if (pf >= 0 && !same_shape(lf, pc.fields[pf]))
        return refuse(err, "field " + lc.name + "." + lf.name + " changed type from " + type_name(lf) + " to " +
                               type_name(pc.fields[pf]) + "; only adding and dropping fields migrate");
      m.to.push_back(pf);
      if (pf >= 0) kept[pf] = true;
      else dropped.push_back(&lf);
    }
    for (size_t i = 0; i < pc.fields.size(); ++i) {
      if (kept[i]) continue;
      const Field& f = pc.fields[i];
      if (f.kind == Kind::Ref && !f.nullable)
        return refuse(err, "added field " + lc.name + "." + f.name + " is a " + type_name(f) +
                               ", which stored rows cannot fill; declare it ?ref");
      added.push_back(&f);
    }
    for (const Field* d : dropped)
      for (const Field* a : added)
        if (same_shape(*d, *a))
          return refuse(err, "table \"" + lc.name + "\" drops " + d->name + " and adds " + a->name + " of the same type " +
                                 type_name(*a) + ", which looks like a rename; deploy the drop and the add separately");
    if (!dropped.empty() || !added.empty()) {
      std::string line = "wo: migrating table " + lc.name + ":";
      for (const Field* d : dropped) line += " -" + d->name;
      for (const Field* a : added) line += " +" + a->name;
      plan->notes.push_back(std::move(line));
      plan->fields_changed = true;
    }
    plan->by_log_id[lc.id] = std::move(m);
  }
  std::string a, b;
  encode_schema(a, log);
  encode_schema(b, program);
  plan->head_differs = a != b;
  return true;
}

}  // namespace wo::store
