// The PostgreSQL mode's start (store.h): what is refused before a
// connection is tried, then the store of the durable classes with its tables
// set up. The RAM classes are the embedded engine's (wo_db/mixed.cpp).
#include <cstring>

#include "store.h"

namespace wo::pg {

bool is_uri(const char* data) {
  return data && (std::strncmp(data, "postgresql://", 13) == 0 || std::strncmp(data, "postgres://", 11) == 0);
}

int open(const WoDbSchema* abi, const WoDbConfig* config, std::unique_ptr<Store>* out, std::string* err) {
  out->reset();
  store::Schema schema;
  if (!store::schema_from_abi(abi, &schema, err)) return 2;
  bool durable = false;
  for (const store::ClassDef& c : schema.classes) durable = durable || c.durable();
  if (!durable) return 0;  // nothing for PostgreSQL to hold
  if (config->ephemeral) {
    *err = "both WO_DATA and WO_EPHEMERAL are set; set WO_DATA to keep the data or WO_EPHEMERAL=1 to keep it in RAM only";
    return 2;
  }
  // The log's settings have no log to act on here: refused, not ignored.
  const char* log_only = config->checkpoint_bytes != 0  ? "WO_CHECKPOINT_BYTES"
                         : config->checkpoint_ratio >= 0 ? "WO_CHECKPOINT_RATIO"
                         : config->wal_stats             ? "WO_WAL_STATS"
                                                         : nullptr;
  if (log_only) {
    *err = std::string(log_only) + " is set, but it concerns the embedded store's log and WO_DATA names a " +
           "PostgreSQL database, which has none: unset it";
    return 2;
  }
  for (const store::ClassDef& c : schema.classes)
    if (c.durable() && (c.name == "wo_ids" || c.name == "wo_meta")) {
      *err = "table \"" + c.name + "\" has the name of one of the store's own tables in PostgreSQL: rename it";
      return 2;
    }
  for (const store::ClassDef& c : schema.classes)
    for (const store::Field& fd : c.fields)
      if (c.durable() && fd.name == "id") {
        *err = "table \"" + c.name + "\" has a field named id, which is the column of the row ids in PostgreSQL: rename the field";
        return 2;
      }
  std::string why;
  if (!libpq(&why)) {
    *err = "WO_DATA names a PostgreSQL database, but " + why;
    return 2;
  }
  auto held = std::make_unique<Store>(std::move(schema), config->data);
  if (!held->setup(config->quiet, err)) return 2;
  *out = std::move(held);
  return 0;
}

}  // namespace wo::pg
