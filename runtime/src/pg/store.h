// The PostgreSQL store (issue 13; docs/decisions/0056-postgresql-store.md):
// when WO_DATA is a postgresql:// or postgres:// URI, every durable @table
// lives in that database. It is a store back end (store/backend.h) for the
// durable classes only: wo_db/mixed.h composes it with the embedded engine,
// which keeps volatile tables and plain classes in RAM. Same observable
// semantics as the engine:
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

#include "../store/backend.h"
#include "../store/schema.h"
#include "conn.h"
#include "wo_db.h"

namespace wo::pg {

struct Tx;
struct Res;      // result.h: a statement's result
struct Written;  // store.cpp: the row a write is storing

class Store final : public store::Backend {
 public:
  // The classes this store holds (the durable tables); it is asked about no other.
  const std::vector<bool>& owned() const { return owned_; }
  const store::Schema& schema() const { return schema_; }

  int64_t insert(uint32_t cls, const uint64_t* values, const WoSite* site) override;
  void set(uint32_t cls, int64_t id, uint32_t field, uint64_t value, const WoSite* site) override;
  void remove(uint32_t cls, int64_t id, const WoSite* site) override;
  uint64_t get(uint32_t cls, int64_t id, uint32_t field, const WoSite* site) override;
  bool exists(uint32_t cls, int64_t id) override;
  int64_t count(uint32_t cls, const WoSite* site) override;
  WoList* scan(uint32_t cls, const WoSite* site) override;
  WoList* probe(uint32_t cls, uint32_t field, uint64_t key, int64_t limit, const WoSite* site) override;
  int64_t probe_count(uint32_t cls, uint32_t field, uint64_t key, const WoSite* site) override;
  WoList* probe_index(uint32_t cls, uint32_t index, const uint64_t* keys, const WoSite* site) override;
  WoList* range(uint32_t cls, uint32_t field, uint64_t lo, uint64_t hi, uint32_t flags, int64_t limit,
                const WoSite* site) override;
  void sort(uint32_t cls, WoList* ids, uint32_t field, bool desc, const WoSite* site) override;

  // transaction { }: one PostgreSQL transaction on one connection.
  void begin(const WoSite* site) override;
  void commit(const WoSite* site) override;
  void abort() noexcept override;
  bool in_tx() override;
  void* detach() override;
  void attach(void* tx) override;

  // Sets the id counter of class `cls` (wo_ids): its next insert gets `next`.
  // For the copy of an embedded store (wo_db/copy.cpp); false with *err.
  bool set_next_id(uint32_t cls, int64_t next, std::string* err);

  Store(store::Schema schema, std::string uri);
  ~Store() override;
  // Creates or migrates the tables (ddl.cpp); false with a refusal in *err.
  bool setup(bool quiet, std::string* err);

 private:
  enum class Op { Read, Write, Delete };
  Res exec(const std::string& sql, const std::vector<Param>& ps, Op op, const WoSite* site,
           const Written* written = nullptr);
  [[noreturn]] void fail(const Failure& f, Op op, const WoSite* site, const Written* written = nullptr);
  int missing_ref(const Written& w);  // the first ref field naming no row, or -1
  const store::Field& field(uint32_t cls, uint32_t f, const WoSite* site) const;
  std::string lock_suffix() const;
  WoList* id_list(uint32_t cls, const Res& r);
  // rows.cpp: the id list a statement returned, for the field reads after it.
  void remember_ids(uint32_t cls, const WoList* ids);

  store::Schema schema_;
  std::vector<bool> owned_;
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
// For such a WO_DATA: what this mode refuses before connecting, then the
// store of the program's durable classes with its tables set up (NULL in
// *out when the program has none). 0, or 2 with *err (a start-up refusal).
int open(const WoDbSchema* schema, const WoDbConfig* config, std::unique_ptr<Store>* out, std::string* err);

// Shared by store.cpp and ddl.cpp.
std::string quote_ident(const std::string& s);
std::string quote_literal(const std::string& s);
const char* sql_type(const store::Field& f);   // the column type without NOT NULL
const char* sql_cast(const store::Field& f);   // `::bigint` etc.
std::string constraint_name(const std::string& table, const std::vector<std::string>& cols, const char* suffix);

}  // namespace wo::pg
