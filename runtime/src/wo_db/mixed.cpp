// A PostgreSQL WO_DATA's store: PostgreSQL and the engine side by side (mixed.h).
#include "mixed.h"

#include "../core/observe.h"
#include "../core/trap.h"
#include "common/traps.h"

namespace wo::wo_db {
namespace {

Mixed* g_mixed = nullptr;

// Both parts of a detached transaction.
struct Detached {
  void* durable;
  void* ram;
};

}  // namespace

Mixed* Mixed::instance() { return g_mixed; }

int Mixed::open(const WoDbSchema* abi, const WoDbConfig* config, std::string* err) {
  if (store::current()) {
    *err = "the store is already open";
    return 2;
  }
  std::unique_ptr<pg::Store> durable;
  if (int rc = pg::open(abi, config, &durable, err); rc != 0) return rc;
  // The engine gets the schema with every durable class in RAM only and
  // unused: the numbering stays the compiler's, the rows are PostgreSQL's.
  std::vector<WoDbClass> classes(abi->classes, abi->classes + abi->nclasses);
  for (WoDbClass& c : classes)
    if ((c.flags & WO_DB_TABLE) && !(c.flags & WO_DB_VOLATILE)) c.flags = (c.flags | WO_DB_VOLATILE) & ~WO_DB_RESIDENT_KEYS;
  WoDbSchema ram{abi->nclasses, classes.data()};
  WoDbConfig cfg = *config;
  cfg.data = nullptr;  // the engine keeps the rest in RAM: it has no log in this mode
  if (int rc = db::Engine::open(&ram, &cfg, err); rc != 0) return rc;
  if (!durable) return 0;  // no durable table: the engine alone is the store
  db::Engine& engine = *db::Engine::instance();
  engine.hold_foreign(durable->owned(), durable.get());
  g_mixed = new Mixed(engine, std::move(durable));
  store::set_current(g_mixed);
  return 0;
}

void Mixed::close() {
  if (!g_mixed) return;
  g_mixed->abort();
  if (store::current() == g_mixed) store::set_current(db::Engine::instance());
  delete g_mixed;
  g_mixed = nullptr;
}

Mixed::Mixed(db::Engine& ram, std::unique_ptr<pg::Store> durable) : ram_(ram), durable_(std::move(durable)) {
  const store::Schema& schema = durable_->schema();
  ram_referrers_.assign(schema.classes.size(), false);
  for (const store::ClassDef& c : schema.classes)
    for (const store::Field& fd : c.fields)
      if (!c.durable() && fd.kind == store::Kind::Ref && held(static_cast<uint32_t>(fd.ref_class)))
        ram_referrers_[static_cast<size_t>(fd.ref_class)] = true;
}

store::Backend& Mixed::route(uint32_t cls, const WoSite* site) {
  if (held(cls)) return *durable_;
  observed_outside();  // a RAM table's statement (pg/rows.cpp)
  open_ram_part(site);  // a transaction may touch RAM tables too: their undo is the engine's
  return ram_;
}

void Mixed::remove(uint32_t cls, int64_t id, const WoSite* site) {
  if (!held(cls) || !ram_referrers_[cls]) return route(cls, site).remove(cls, id, site);
  // Rows in RAM may refer to it (a volatile table's ref): the engine counts
  // them, and deletes under its write lock, so none takes a ref to the row
  // between its check and the DELETE. Inside a block the engine's gate is
  // taken as well, until the block ends: a RAM insert elsewhere then waits
  // for the COMMIT instead of finding the row still there before it.
  open_ram_part(site);
  ram_.remove_foreign(cls, id, site, [&] { durable_->remove(cls, id, site); });
}

void Mixed::begin(const WoSite* site) {
  if (in_tx()) raise(static_cast<int64_t>(TrapCode::DB), site, "nested transaction");
  durable_->begin(site);
}

void Mixed::commit(const WoSite* site) {
  if (!durable_->in_tx()) return;
  durable_->commit(site);  // a failure traps: the landing pad aborts both parts
  if (ram_.in_tx()) ram_.commit(site);  // RAM only: no log, nothing left to fail
}

void Mixed::abort() noexcept {
  durable_->abort();
  ram_.abort();
}

void* Mixed::detach() {
  void* durable = durable_->detach();
  void* ram = ram_.detach();
  if (!durable && !ram) return nullptr;
  return new Detached{durable, ram};
}

void Mixed::attach(void* p) {
  auto* tx = static_cast<Detached*>(p);
  durable_->attach(tx ? tx->durable : nullptr);
  ram_.attach(tx ? tx->ram : nullptr);
  delete tx;
}

}  // namespace wo::wo_db
