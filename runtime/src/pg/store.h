// The PostgreSQL store (issue 13; docs/decisions/0056-postgresql-store.md):
// when WO_DATA is a postgresql:// or postgres:// URI, every durable @table
// lives in that database and the functions of wo_db.h reach it through a
// one-line dispatch in db/abi.cpp; volatile tables and plain classes stay
// in the embedded engine, in RAM. Same observable semantics as the engine:
// ids 1, 2, 3 per class with none consumed by a trapping insert and those of
// an aborted transaction burnt, the same orders, the same trap codes and
// messages.
#pragma once
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "../db/schema.h"
#include "../core/observe.h"
#include "conn.h"
#include "wo_db.h"

namespace wo::pg {

struct Tx;
struct Written;  // store.cpp: the row a write is storing

class Store {
 public:
  // For a class of the program: this store when PostgreSQL holds it; else
  // NULL, after opening the engine's side of an open PostgreSQL transaction
  // (a transaction may touch RAM tables too: their undo is the engine's).
  Store* route(uint32_t cls, const WoSite* site) {
    if (cls < owned_.size() && owned_[cls]) return this;
    observed_outside();  // a RAM table's statement (rows.cpp)
    if (in_tx()) ram_part(site);
    return nullptr;
  }

  int64_t insert(uint32_t cls, const uint64_t* values, const WoSite* site);
  void set(uint32_t cls, int64_t id, uint32_t field, uint64_t value, const WoSite* site);
  void remove(uint32_t cls, int64_t id, const WoSite* site);
  // The engine's check of a RAM row's ref to a row here (Store::hold_outside
  // in db/store.h): under the engine's write lock, so it never parks.
  static bool exists_for_engine(uint32_t cls, int64_t id);
  const std::vector<bool>& owned() const { return owned_; }
  uint64_t get(uint32_t cls, int64_t id, uint32_t field, const WoSite* site);
  bool exists(uint32_t cls, int64_t id);
  int64_t count(uint32_t cls, const WoSite* site);
  WoList* scan(uint32_t cls, const WoSite* site);
  WoList* probe(uint32_t cls, uint32_t field, uint64_t key, int64_t limit, const WoSite* site);
  int64_t probe_count(uint32_t cls, uint32_t field, uint64_t key, const WoSite* site);
  WoList* probe_index(uint32_t cls, uint32_t index, const uint64_t* keys, const WoSite* site);
  WoList* range(uint32_t cls, uint32_t field, uint64_t lo, uint64_t hi, uint32_t flags, int64_t limit,
                const WoSite* site);
  void sort(uint32_t cls, WoList* ids, uint32_t field, bool desc, const WoSite* site);

  // transaction { }: one PostgreSQL transaction on one connection.
  void begin(const WoSite* site);
  void commit(const WoSite* site);
  void abort() noexcept;
  static bool in_tx();
  void* detach();
  void attach(void* tx);

  Store(db::Schema schema, std::string uri);
  ~Store();
  // Creates or migrates the tables (ddl.cpp); false with a refusal in *err.
  bool setup(bool quiet, std::string* err);

 private:
  enum class Op { Read, Write, Delete };
  struct Res;
  Res exec(const std::string& sql, const std::vector<Param>& ps, Op op, const WoSite* site,
           const Written* written = nullptr);
  [[noreturn]] void fail(const Failure& f, Op op, const WoSite* site, const Written* written = nullptr);
  void ram_part(const WoSite* site);
  void remove_row(uint32_t cls, int64_t id, const WoSite* site);
  int missing_ref(const Written& w);  // the first ref field naming no row, or -1
  const db::Field& field(uint32_t cls, uint32_t f, const WoSite* site) const;
  std::string lock_suffix() const;
  WoList* id_list(uint32_t cls, const Res& r);
  // rows.cpp: the id list a statement returned, for the field reads after it.
  void remember_ids(uint32_t cls, const WoList* ids);

  db::Schema schema_;
  std::vector<bool> owned_;
  std::vector<bool> ram_referrers_;  // a volatile class has a ref to this durable one
  Pool pool_;
  // Per class: the lowest id its next insert may get in this process (past
  // the ids aborted blocks burnt here; decision 0080), 0 until one aborts.
  std::unique_ptr<std::atomic<int64_t>[]> burnt_;
  // Constraint and unique-index names (ddl.cpp) -> the trap they become.
  struct Violation {
    std::string msg, detail;
  };
  std::unordered_map<std::string, Violation> violations_;
};

// Whether WO_DATA names a PostgreSQL database.
bool is_uri(const char* data);
// wo_db_open for such a WO_DATA: the engine for RAM classes, then this store.
int open(const WoDbSchema* schema, const WoDbConfig* config, std::string* err);
void close();

extern Store* g_store;
inline Store* route(uint32_t cls, const WoSite* site) { return g_store ? g_store->route(cls, site) : nullptr; }

// Shared by store.cpp and ddl.cpp.
std::string quote_ident(const std::string& s);
std::string quote_literal(const std::string& s);
const char* sql_type(const db::Field& f);   // the column type without NOT NULL
const char* sql_cast(const db::Field& f);   // `::bigint` etc.
std::string constraint_name(const std::string& table, const std::vector<std::string>& cols, const char* suffix);

}  // namespace wo::pg
