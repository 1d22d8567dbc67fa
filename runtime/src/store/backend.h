// One store back end: what the functions of wo_db.h ask of whoever holds the
// program's rows. The embedded engine (db/), the PostgreSQL store (pg/) and
// their composition for a PostgreSQL WO_DATA (wo_db/mixed.h) implement it;
// wo_db/abi.cpp calls the process's current one (`current()`), once, with no
// branch per back end. Class and field numbers are the compiler's, values
// the ABI's words (Text/Bytes and containers borrowed in, fresh out); traps
// are `wo::Trap` exceptions and a statement that traps changed nothing.
#pragma once
#include <cstdint>

#include "wo_db.h"

namespace wo::store {

class Backend {
 public:
  virtual ~Backend() = default;

  virtual int64_t insert(uint32_t cls, const uint64_t* values, const WoSite* site) = 0;
  virtual void set(uint32_t cls, int64_t id, uint32_t field, uint64_t value, const WoSite* site) = 0;
  virtual void remove(uint32_t cls, int64_t id, const WoSite* site) = 0;

  virtual uint64_t get(uint32_t cls, int64_t id, uint32_t field, const WoSite* site) = 0;
  virtual bool exists(uint32_t cls, int64_t id) = 0;
  virtual int64_t count(uint32_t cls, const WoSite* site) = 0;
  virtual WoList* scan(uint32_t cls, const WoSite* site) = 0;
  // Rows whose `field` equals `key`, at most `limit` of them (-1: all).
  virtual WoList* probe(uint32_t cls, uint32_t field, uint64_t key, int64_t limit, const WoSite* site) = 0;
  virtual int64_t probe_count(uint32_t cls, uint32_t field, uint64_t key, const WoSite* site) = 0;
  virtual WoList* probe_index(uint32_t cls, uint32_t index, const uint64_t* keys, const WoSite* site) = 0;
  virtual WoList* range(uint32_t cls, uint32_t field, uint64_t lo, uint64_t hi, uint32_t flags, int64_t limit,
                        const WoSite* site) = 0;
  virtual void sort(uint32_t cls, WoList* ids, uint32_t field, bool desc, const WoSite* site) = 0;

  // transaction { } on the calling thread: one durable commit, full undo.
  virtual void begin(const WoSite* site) = 0;
  virtual void commit(const WoSite* site) = 0;
  virtual void abort() noexcept = 0;
  virtual bool in_tx() = 0;  // the calling thread has a transaction open
  // The calling thread's open transaction taken off it (NULL if none), and
  // put back on the thread that carries on with it.
  virtual void* detach() = 0;
  virtual void attach(void* tx) = 0;

  // Durability of a log this back end writes itself (runtime/src/db/README.md
  // "Waiting for durability"); one that acknowledges nothing before it is
  // durable has nothing to wait for.
  virtual void flush() {}
  virtual void wait_durable(uint64_t /*seq*/) {}
  virtual void want_durable(uint64_t /*seq*/) {}
  virtual bool checkpoint_now() { return false; }  // false: none was made
};

// The process's store: set by whoever opens one (the engine, or the
// composition over it), NULL when none is open. Set before any statement
// runs and cleared after the last; read by every thread. Inline: every
// statement asks (an out-of-line call cost C ABI lookups 3%).
namespace detail {
extern Backend* g_current;
}  // namespace detail
inline Backend* current() { return detail::g_current; }
void set_current(Backend* b);

}  // namespace wo::store
