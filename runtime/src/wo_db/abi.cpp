// The extern "C" surface of wo_db.h: each function asks the process's store
// (store::current(), store/backend.h) once, whichever back end it is; and
// wo_db_boot's reading of the environment (runtime.md §5.6), which picks the
// back end: the embedded engine for a directory or file WO_DATA (or none),
// the composition of PostgreSQL and the engine for a postgresql:// URI
// (mixed.h, docs/decisions/0056-postgresql-store.md).
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "../db/engine.h"
#include "../pg/store.h"
#include "../store/backend.h"
#include "../store/order.h"
#include "../core/trap.h"
#include "common/traps.h"
#include "copy.h"
#include "mixed.h"
#include "wo_db.h"

using wo::store::Backend;

namespace {

int64_t env_int(const char* name, int64_t dflt) {
  const char* v = std::getenv(name);
  if (!v || !*v) return dflt;
  char* end = nullptr;
  long long n = std::strtoll(v, &end, 10);
  return end && *end == '\0' ? n : dflt;
}

int open_store(const WoDbSchema* schema, const WoDbConfig* config, std::string* err) {
  if (config && wo::pg::is_uri(config->data)) return wo::wo_db::Mixed::open(schema, config, err);
  return wo::db::Engine::open(schema, config, err);
}

// The open store, or a DB trap at `site`.
Backend& need(const WoSite* site) {
  Backend* b = wo::store::current();
  if (!b) [[unlikely]]
    wo::raise(static_cast<int64_t>(wo::TrapCode::DB), site, "database engine not initialized");
  return *b;
}

}  // namespace

extern "C" {

int wo_db_open(const WoDbSchema* schema, const WoDbConfig* config, char* err, size_t errlen) {
  std::string msg;
  int rc = open_store(schema, config, &msg);
  if (rc != 0 && err && errlen) std::snprintf(err, errlen, "%s", msg.c_str());
  return rc;
}

void wo_db_boot(const WoDbSchema* schema) {
  WoDbConfig cfg{};
  cfg.data = std::getenv("WO_DATA");
  cfg.ephemeral = std::getenv("WO_EPHEMERAL");
  cfg.checkpoint_bytes = env_int("WO_CHECKPOINT_BYTES", 0);
  cfg.checkpoint_ratio = env_int("WO_CHECKPOINT_RATIO", -1);
  cfg.wal_stats = std::getenv("WO_WAL_STATS") != nullptr;
  // `woc copy-store`: copy the embedded store into PostgreSQL, not run main.
  if (const char* to = std::getenv("WO_COPY_TO")) std::exit(wo::wo_db::copy_store(schema, &cfg, to));
  std::string msg;
  if (open_store(schema, &cfg, &msg) != 0) {
    std::fflush(stdout);
    std::fprintf(stderr, "wo: %s\n", msg.c_str());
    std::exit(2);
  }
}

void wo_db_close(void) {
  wo::wo_db::Mixed::close();
  wo::db::Engine::close();
}

void wo_db_flush(void) {
  if (Backend* b = wo::store::current()) b->flush();
}

void wo_db_wait_durable(uint64_t seq) {
  if (Backend* b = wo::store::current()) b->wait_durable(seq);
}

void wo_db_want_durable(uint64_t seq) {
  if (Backend* b = wo::store::current()) b->want_durable(seq);
}

bool wo_db_checkpoint(void) {
  Backend* b = wo::store::current();
  return b && b->checkpoint_now();
}

int64_t wo_db_insert(uint32_t cls, const uint64_t* values, const WoSite* site) {
  return need(site).insert(cls, values, site);
}

void wo_db_set(uint32_t cls, int64_t id, uint32_t field, uint64_t value, const WoSite* site) {
  need(site).set(cls, id, field, value, site);
}

void wo_db_delete(uint32_t cls, int64_t id, const WoSite* site) { need(site).remove(cls, id, site); }

uint64_t wo_db_get(uint32_t cls, int64_t id, uint32_t field, const WoSite* site) {
  return need(site).get(cls, id, field, site);
}

bool wo_db_exists(uint32_t cls, int64_t id) {
  Backend* b = wo::store::current();
  return b && b->exists(cls, id);
}

int64_t wo_db_count(uint32_t cls, const WoSite* site) { return need(site).count(cls, site); }

WoList* wo_db_scan(uint32_t cls, const WoSite* site) { return need(site).scan(cls, site); }

WoList* wo_db_probe(uint32_t cls, uint32_t field, uint64_t key, const WoSite* site) {
  return need(site).probe(cls, field, key, -1, site);
}

int64_t wo_db_find(uint32_t cls, uint32_t field, uint64_t key, const WoSite* site) {
  WoList* xs = need(site).probe(cls, field, key, 1, site);
  int64_t id = xs->len ? static_cast<int64_t>(xs->data[0]) : 0;
  wo_release(xs);
  return id;
}

int64_t wo_db_probe_count(uint32_t cls, uint32_t field, uint64_t key, const WoSite* site) {
  return need(site).probe_count(cls, field, key, site);
}

WoList* wo_db_probe_index(uint32_t cls, uint32_t index, const uint64_t* keys, const WoSite* site) {
  return need(site).probe_index(cls, index, keys, site);
}

WoList* wo_db_range(uint32_t cls, uint32_t field, uint64_t lo, uint64_t hi, uint32_t flags, int64_t limit,
                    const WoSite* site) {
  return need(site).range(cls, field, lo, hi, flags, limit, site);
}

void wo_db_sort(uint32_t cls, WoList* ids, uint32_t field, bool desc, const WoSite* site) {
  need(site).sort(cls, ids, field, desc, site);
}

void wo_db_sort_keys(WoList* ids, WoList* keys, uint32_t kind, bool nullable, bool desc, const WoSite* site) {
  wo::store::sort_by_keys(ids, keys, kind, nullable, desc, site);
}

void wo_tx_begin(const WoSite* site) { need(site).begin(site); }

void wo_tx_commit(const WoSite* site) {
  if (Backend* b = wo::store::current()) b->commit(site);
}

void wo_tx_abort(void) {
  if (Backend* b = wo::store::current()) b->abort();
}

bool wo_tx_active(void) {
  Backend* b = wo::store::current();
  return b && b->in_tx();
}

void* wo_tx_detach(void) {
  Backend* b = wo::store::current();
  return b ? b->detach() : nullptr;
}

void wo_tx_attach(void* tx) {
  if (Backend* b = wo::store::current()) b->attach(tx);
}

}  // extern "C"
