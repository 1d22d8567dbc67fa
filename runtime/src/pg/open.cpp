// The PostgreSQL mode's start and end (store.h): what is refused before a
// connection is tried, the engine opened for the RAM classes, the tables set up.
#include <cstring>

#include "../db/engine.h"
#include "store.h"

namespace wo::pg {

bool is_uri(const char* data) {
  return data && (std::strncmp(data, "postgresql://", 13) == 0 || std::strncmp(data, "postgres://", 11) == 0);
}

int open(const WoDbSchema* abi, const WoDbConfig* config, std::string* err) {
  if (db::Engine::instance() || g_store) {
    *err = "the store is already open";
    return 2;
  }
  db::Schema schema;
  if (!db::schema_from_abi(abi, &schema, err)) return 2;
  bool durable = false;
  for (const db::ClassDef& c : schema.classes) durable = durable || c.durable();
  WoDbConfig cfg = *config;
  cfg.data = nullptr;  // the engine keeps the rest in RAM: it has no log in this mode
  if (durable) {
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
    for (const db::ClassDef& c : schema.classes)
      if (c.durable() && (c.name == "wo_ids" || c.name == "wo_meta")) {
        *err = "table \"" + c.name + "\" has the name of one of the store's own tables in PostgreSQL: rename it";
        return 2;
      }
    for (const db::ClassDef& c : schema.classes)
      for (const db::Field& fd : c.fields)
        if (c.durable() && fd.name == "id") {
          *err = "table \"" + c.name + "\" has a field named id, which is the column of the row ids in PostgreSQL: rename the field";
          return 2;
        }
    std::string why;
    if (!libpq(&why)) {
      *err = "WO_DATA names a PostgreSQL database, but " + why;
      return 2;
    }
  }
  // The engine gets the schema with every durable class in RAM only and
  // unused: the numbering stays the compiler's, the rows are PostgreSQL's.
  std::vector<WoDbClass> classes(abi->classes, abi->classes + abi->nclasses);
  for (WoDbClass& c : classes)
    if ((c.flags & WO_DB_TABLE) && !(c.flags & WO_DB_VOLATILE)) c.flags = (c.flags | WO_DB_VOLATILE) & ~WO_DB_RESIDENT_KEYS;
  WoDbSchema ram{abi->nclasses, classes.data()};
  std::unique_ptr<Store> store;
  if (durable) {
    store = std::make_unique<Store>(std::move(schema), config->data);
    if (!store->setup(config->quiet, err)) return 2;
  }
  int rc = db::Engine::open(&ram, &cfg, err);
  if (rc != 0) return rc;
  // A RAM row's ref to a durable table's row is checked against PostgreSQL.
  if (store) db::Engine::instance()->hold_outside(store->owned(), &Store::exists_for_engine);
  g_store = store.release();
  return 0;
}

void close() {
  if (!g_store) return;
  g_store->abort();
  delete g_store;
  g_store = nullptr;
}

}  // namespace wo::pg
