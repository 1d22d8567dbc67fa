// The extern "C" surface of wo_db.h: argument plumbing to the Engine, and
// wo_db_boot's reading of the environment (runtime.md §5.6). With a
// PostgreSQL WO_DATA, each function first asks wo::pg::route whether the
// class lives there (docs/decisions/0056-postgresql-store.md).
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "../pg/copy.h"
#include "../pg/store.h"
#include "engine.h"
#include "txn.h"
#include "wo_db.h"

using wo::db::Engine;

namespace {

int64_t env_int(const char* name, int64_t dflt) {
  const char* v = std::getenv(name);
  if (!v || !*v) return dflt;
  char* end = nullptr;
  long long n = std::strtoll(v, &end, 10);
  return end && *end == '\0' ? n : dflt;
}

}  // namespace

extern "C" {

int wo_db_open(const WoDbSchema* schema, const WoDbConfig* config, char* err, size_t errlen) {
  std::string msg;
  int rc = config && wo::pg::is_uri(config->data) ? wo::pg::open(schema, config, &msg) : Engine::open(schema, config, &msg);
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
  if (const char* to = std::getenv("WO_COPY_TO")) std::exit(wo::pg::copy_store(schema, &cfg, to));
  std::string msg;
  if ((wo::pg::is_uri(cfg.data) ? wo::pg::open(schema, &cfg, &msg) : Engine::open(schema, &cfg, &msg)) != 0) {
    std::fflush(stdout);
    std::fprintf(stderr, "wo: %s\n", msg.c_str());
    std::exit(2);
  }
}

void wo_db_close(void) {
  wo::pg::close();
  Engine::close();
}

void wo_db_flush(void) {
  if (Engine* e = Engine::instance()) e->flush();
}

void wo_db_wait_durable(uint64_t seq) {
  if (Engine* e = Engine::instance()) e->wait_durable(seq);
}

void wo_db_want_durable(uint64_t seq) {
  if (Engine* e = Engine::instance()) e->want_durable(seq);
}

bool wo_db_checkpoint(void) {
  Engine* e = Engine::instance();
  return e && e->checkpoint_now();
}

int64_t wo_db_insert(uint32_t cls, const uint64_t* values, const WoSite* site) {
  if (auto* pg = wo::pg::route(cls, site)) return pg->insert(cls, values, site);
  return Engine::need(site).insert(cls, values, site);
}

void wo_db_set(uint32_t cls, int64_t id, uint32_t field, uint64_t value, const WoSite* site) {
  if (auto* pg = wo::pg::route(cls, site)) return pg->set(cls, id, field, value, site);
  Engine::need(site).set(cls, id, field, value, site);
}

void wo_db_delete(uint32_t cls, int64_t id, const WoSite* site) {
  if (auto* pg = wo::pg::route(cls, site)) return pg->remove(cls, id, site);
  Engine::need(site).remove(cls, id, site);
}

uint64_t wo_db_get(uint32_t cls, int64_t id, uint32_t field, const WoSite* site) {
  if (auto* pg = wo::pg::route(cls, site)) return pg->get(cls, id, field, site);
  return Engine::need(site).get(cls, id, field, site);
}

bool wo_db_exists(uint32_t cls, int64_t id) {
  if (auto* pg = wo::pg::route(cls, nullptr)) return pg->exists(cls, id);
  Engine* e = Engine::instance();
  return e && e->exists(cls, id);
}

int64_t wo_db_count(uint32_t cls, const WoSite* site) {
  if (auto* pg = wo::pg::route(cls, site)) return pg->count(cls, site);
  return Engine::need(site).count(cls, site);
}

WoList* wo_db_scan(uint32_t cls, const WoSite* site) {
  if (auto* pg = wo::pg::route(cls, site)) return pg->scan(cls, site);
  return Engine::need(site).scan(cls, site);
}

WoList* wo_db_probe(uint32_t cls, uint32_t field, uint64_t key, const WoSite* site) {
  if (auto* pg = wo::pg::route(cls, site)) return pg->probe(cls, field, key, -1, site);
  return Engine::need(site).probe(cls, field, key, -1, site);
}

int64_t wo_db_find(uint32_t cls, uint32_t field, uint64_t key, const WoSite* site) {
  auto* pg = wo::pg::route(cls, site);
  WoList* xs = pg ? pg->probe(cls, field, key, 1, site) : Engine::need(site).probe(cls, field, key, 1, site);
  int64_t id = xs->len ? static_cast<int64_t>(xs->data[0]) : 0;
  wo_release(xs);
  return id;
}

int64_t wo_db_probe_count(uint32_t cls, uint32_t field, uint64_t key, const WoSite* site) {
  if (auto* pg = wo::pg::route(cls, site)) return pg->probe_count(cls, field, key, site);
  return Engine::need(site).probe_count(cls, field, key, site);
}

WoList* wo_db_probe_index(uint32_t cls, uint32_t index, const uint64_t* keys, const WoSite* site) {
  if (auto* pg = wo::pg::route(cls, site)) return pg->probe_index(cls, index, keys, site);
  return Engine::need(site).probe_index(cls, index, keys, site);
}

WoList* wo_db_range(uint32_t cls, uint32_t field, uint64_t lo, uint64_t hi, uint32_t flags, int64_t limit,
                    const WoSite* site) {
  if (auto* pg = wo::pg::route(cls, site)) return pg->range(cls, field, lo, hi, flags, limit, site);
  return Engine::need(site).range(cls, field, lo, hi, flags, limit, site);
}

void wo_db_sort(uint32_t cls, WoList* ids, uint32_t field, bool desc, const WoSite* site) {
  if (auto* pg = wo::pg::route(cls, site)) return pg->sort(cls, ids, field, desc, site);
  Engine::need(site).sort(cls, ids, field, desc, site);
}

void wo_db_sort_keys(WoList* ids, WoList* keys, uint32_t kind, bool nullable, bool desc, const WoSite* site) {
  wo::db::sort_by_keys(ids, keys, kind, nullable, desc, site);
}

void wo_tx_begin(const WoSite* site) {
  if (wo::pg::g_store) return wo::pg::g_store->begin(site);
  Engine::need(site).begin(site);
}

void wo_tx_commit(const WoSite* site) {
  if (wo::pg::g_store) return wo::pg::g_store->commit(site);
  if (Engine* e = Engine::instance()) e->commit(site);
}

void wo_tx_abort(void) {
  if (wo::pg::g_store) return wo::pg::g_store->abort();
  if (Engine* e = Engine::instance()) e->abort();
}

bool wo_tx_active(void) { return wo::db::current_tx() != nullptr || wo::pg::Store::in_tx(); }

void* wo_tx_detach(void) {
  if (wo::pg::g_store) return wo::pg::g_store->detach();
  wo::db::Tx* tx = wo::db::current_tx();
  wo::db::set_current_tx(nullptr);
  return tx;
}

void wo_tx_attach(void* tx) {
  if (wo::pg::g_store) return wo::pg::g_store->attach(tx);
  wo::db::set_current_tx(static_cast<wo::db::Tx*>(tx));
}

}  // extern "C"
