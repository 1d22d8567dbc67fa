// Start-up schema check (runtime.md §1.14): the log's head against the
// program's classes, matched by table name and fields by name + shape, so a
// reordering is a renumbering. Adding fields (filled with the kind's zero)
// and dropping fields (values discarded) migrate; everything else that would
// lose or reinterpret stored rows is refused: a retyped field, a drop and
// an add of the same shape in one step (a rename in disguise), a stored
// table the program no longer declares or declares `durable: false`, an
// added non-nullable `ref` (old rows would have no target). Index and flag
// changes are not field changes: indexes are rebuilt by replay anyway.
#pragma once
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "schema.h"

namespace wo::store {

struct ClassMap {
  uint32_t log_index = 0;      // the class in the log's schema
  uint32_t target = 0;         // the program's class
  std::vector<int32_t> to;     // per log field: the program's field, or -1 (dropped)
};

struct MigrationPlan {
  std::unordered_map<uint32_t, ClassMap> by_log_id;   // the log's class_id -> mapping
  bool fields_changed = false;   // some rows gain or lose fields
  bool head_differs = false;     // the head must be rewritten before appending
  std::vector<std::string> notes;   // one line per migrated table
};

bool plan_migration(const Schema& log, const Schema& program, MigrationPlan* plan, std::string* err);

}  // namespace wo::store
