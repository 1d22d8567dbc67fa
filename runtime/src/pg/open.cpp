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
    for (const db::ClassDef& c : schema.classes)
      for (const db::Field& fd : c.fields)
        if (c.durable() && fd.name == "id") {
          *err = "table \"" + c.name + "\" has a field named id, which is the column of the row ids in PostgreSQL: rename the field";
          return 2;
        }
    // A row in RAM cannot hold a reference the database checks and restricts.
    for (const db::ClassDef& c : schema.classes)
      for (const db::Field& fd : c.fields)
        if (!c.durable() && fd.kind == db::Kind::Ref && schema.classes[static_cast<size_t>(fd.ref_class)].durable()) {
          *err = "class \"" + c.name + "\" (in RAM) refers to the durable table \"" +
                 schema.classes[static_cast<size_t>(fd.ref_class)].name +
                 "\", which lives in PostgreSQL: such a ref is not supported with a PostgreSQL WO_DATA";
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
