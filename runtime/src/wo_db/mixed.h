// The store of a program whose WO_DATA names a PostgreSQL database
// (docs/decisions/0056-postgresql-store.md): one back end (store/backend.h)
// composed of two. PostgreSQL (pg::Store) holds every durable @table; the
// embedded engine (db::Engine) keeps volatile tables and plain classes in
// RAM, with no log. Each statement goes to the one that holds its class;
// a transaction is PostgreSQL's, with the engine's own transaction opened
// beside it at its first RAM statement (the RAM part's undo), committed
// after PostgreSQL's COMMIT and undone with its ROLLBACK. A RAM row's ref to
// a durable row is checked through PostgreSQL and counted in the engine
// (Engine::hold_foreign), which restricts that row's delete.
//
// This is the only place that knows both back ends: db/ and pg/ do not
// include each other.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "../db/engine.h"
#include "../pg/store.h"
#include "../store/backend.h"
#include "wo_db.h"

namespace wo::wo_db {

class Mixed final : public store::Backend {
 public:
  // wo_db_open for a PostgreSQL WO_DATA: PostgreSQL's refusals and tables,
  // then the engine for the RAM classes; the composition becomes the
  // process's store (the engine alone when the program has no durable
  // table). 0, or 2 with *err (a start-up refusal).
  static int open(const WoDbSchema* schema, const WoDbConfig* config, std::string* err);
  static void close();
  static Mixed* instance();

  pg::Store& durable() { return *durable_; }

  int64_t insert(uint32_t cls, const uint64_t* values, const WoSite* site) override {
    return route(cls, site).insert(cls, values, site);
  }
  void set(uint32_t cls, int64_t id, uint32_t field, uint64_t value, const WoSite* site) override {
    route(cls, site).set(cls, id, field, value, site);
  }
  void remove(uint32_t cls, int64_t id, const WoSite* site) override;
  uint64_t get(uint32_t cls, int64_t id, uint32_t field, const WoSite* site) override {
    return route(cls, site).get(cls, id, field, site);
  }
  bool exists(uint32_t cls, int64_t id) override { return route(cls, nullptr).exists(cls, id); }
  int64_t count(uint32_t cls, const WoSite* site) override { return route(cls, site).count(cls, site); }
  WoList* scan(uint32_t cls, const WoSite* site) override { return route(cls, site).scan(cls, site); }
  WoList* probe(uint32_t cls, uint32_t field, uint64_t key, int64_t limit, const WoSite* site) override {
    return route(cls, site).probe(cls, field, key, limit, site);
  }
  int64_t probe_count(uint32_t cls, uint32_t field, uint64_t key, const WoSite* site) override {
    return route(cls, site).probe_count(cls, field, key, site);
  }
  WoList* probe_index(uint32_t cls, uint32_t index, const uint64_t* keys, const WoSite* site) override {
    return route(cls, site).probe_index(cls, index, keys, site);
  }
  WoList* range(uint32_t cls, uint32_t field, uint64_t lo, uint64_t hi, uint32_t flags, int64_t limit,
                const WoSite* site) override {
    return route(cls, site).range(cls, field, lo, hi, flags, limit, site);
  }
  void sort(uint32_t cls, WoList* ids, uint32_t field, bool desc, const WoSite* site) override {
    route(cls, site).sort(cls, ids, field, desc, site);
  }

  void begin(const WoSite* site) override;
  void commit(const WoSite* site) override;
  void abort() noexcept override;
  bool in_tx() override { return durable_->in_tx() || ram_.in_tx(); }
  void* detach() override;
  void attach(void* tx) override;

  // The engine has no log in this mode; asked anyway, it answers.
  void flush() override { ram_.flush(); }
  void wait_durable(uint64_t seq) override { ram_.wait_durable(seq); }
  void want_durable(uint64_t seq) override { ram_.want_durable(seq); }
  bool checkpoint_now() override { return ram_.checkpoint_now(); }

  Mixed(db::Engine& ram, std::unique_ptr<pg::Store> durable);

 private:
  // The back end holding `cls`. A RAM statement is news to PostgreSQL's row
  // cache (core/observe.h), and inside a transaction it opens the engine's side.
  store::Backend& route(uint32_t cls, const WoSite* site);
  bool held(uint32_t cls) const { return cls < durable_->owned().size() && durable_->owned()[cls]; }
  // Inside PostgreSQL's transaction, the engine's beside it (the RAM part's
  // undo), opened at the block's first RAM statement.
  void open_ram_part(const WoSite* site) {
    if (durable_->in_tx() && !ram_.in_tx()) ram_.begin(site);
  }

  db::Engine& ram_;
  std::unique_ptr<pg::Store> durable_;
  std::vector<bool> ram_referrers_;   // a RAM class has a ref to this durable one
};

}  // namespace wo::wo_db
