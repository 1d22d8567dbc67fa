// Statements, reads and transactions of the PostgreSQL store (store.h):
// each wo_db.h call becomes one prepared statement with binary parameters
// and results, on a pooled connection or on the open transaction's.
#include "store.h"

#include <algorithm>
#include <cstring>

#include "result.h"

#include "../core/observe.h"
#include "../core/trap.h"
#include "../sched/external_wait.h"
#include "../store/order.h"
#include "../store/value.h"
#include "common/traps.h"

namespace wo::pg {

// The row an insert is writing, for fail(): the engine
// checks refs before unique indexes, PostgreSQL the other way round, so a
// write that breaks both is asked about its refs after the unique error.
// (Passed along, not kept in a thread_local: a statement's fiber may park.)
struct Written {
  uint32_t cls;
  const uint64_t* values;  // an insert's row
};

namespace {

// The calling thread's open transaction (a transaction never parks, so it
// stays on its thread; wo_tx_detach still carries it if a scheduler asks).
struct TxState {
  Conn* conn = nullptr;
  bool savepoint = false;     // a savepoint `wo_s` is set (released by the next write)
  // Ids (decision 0080): the classes whose id lock this session holds, the
  // one the next write's savepoint statement takes (-1: none), and the
  // highest id the block's inserts took per class (burnt if it aborts).
  std::vector<uint32_t> id_locked;
  int64_t lock_next = -1;
  std::vector<std::pair<uint32_t, int64_t>> taken;
};
thread_local TxState* t_tx = nullptr;

// A class's id lock: a PostgreSQL advisory lock keyed by its table's name
// (FNV-1a, in a key space of its own: the two-int form, first int "woid").
// Every insert takes it shared for its statement, before the class's wo_ids
// row; a transaction that inserts takes it exclusive for its session and
// lets go only after its COMMIT, or after its ROLLBACK and the burn of the
// ids it took. So no insert elsewhere reads the counter between a rollback
// that set it back and the burn that moves it on again.
std::string id_lock_key(const std::string& table) {
  uint32_t h = 2166136261u;
  for (unsigned char ch : table) h = (h ^ ch) * 16777619u;
  return "2003790180, " + std::to_string(static_cast<int32_t>(h));
}

[[noreturn]] void trap(TrapCode code, const WoSite* site, const std::string& msg, std::string detail = {}) {
  raise(static_cast<int64_t>(code), site, msg.c_str(), std::move(detail));
}

// Holds the bytes of the parameters of one statement.
class Params {
 public:
  explicit Params(size_t n) { bufs_.reserve(n); }
  void add(const store::Field& f, uint64_t w, const WoSite* site) {
    if (store::is_nil(f, w) || (f.kind == store::Kind::Ref && w == 0) || (store::is_blob(f.kind) && w == 0)) {
      ps_.push_back(Param{});
      return;
    }
    std::string& b = bufs_.emplace_back();
    switch (f.kind) {
      case store::Kind::Bool:
        b.push_back(w ? 1 : 0);
        break;
      case store::Kind::Text:
      case store::Kind::Bytes: {
        const auto* t = reinterpret_cast<const WoText*>(w);  // WoBytes has the same layout
        b.assign(t->bytes, static_cast<size_t>(t->len));
        break;
      }
      case store::Kind::Multi:
      case store::Kind::Map:
        store::encode_container(b, f, w, site);
        break;
      default: {  // Int-shaped and Float bits: 8 bytes, network order
        uint64_t v = __builtin_bswap64(w);
        b.assign(reinterpret_cast<const char*>(&v), 8);
      }
    }
    ps_.push_back(Param{b.data(), static_cast<int>(b.size()), false});
  }
  void add_int(int64_t v) {
    std::string& b = bufs_.emplace_back();
    uint64_t x = __builtin_bswap64(static_cast<uint64_t>(v));
    b.assign(reinterpret_cast<const char*>(&x), 8);
    ps_.push_back(Param{b.data(), 8, false});
  }
  void add_null() { ps_.push_back(Param{}); }
  void add_text(std::string s) {
    std::string& b = bufs_.emplace_back(std::move(s));
    ps_.push_back(Param{b.data(), static_cast<int>(b.size()), true});
  }
  const std::vector<Param>& all() const { return ps_; }
  size_t size() const { return ps_.size(); }

 private:
  std::vector<std::string> bufs_;  // reserved: never reallocates under the Params
  std::vector<Param> ps_;
};

std::string ph(size_t n, const store::Field& f) { return "$" + std::to_string(n) + sql_cast(f); }
std::string ph_int(size_t n) { return "$" + std::to_string(n) + "::bigint"; }

}  // namespace

Store::Store(store::Schema schema, std::string uri)
    : schema_(std::move(schema)), pool_(std::move(uri)), burnt_(new std::atomic<int64_t>[schema_.classes.size()]()) {
  for (const store::ClassDef& c : schema_.classes) owned_.push_back(c.durable());
}

Store::~Store() = default;

bool Store::in_tx() { return t_tx != nullptr; }

std::string Store::lock_suffix() const { return t_tx ? " FOR UPDATE" : ""; }

const store::Field& Store::field(uint32_t cls, uint32_t f, const WoSite* site) const {
  const store::ClassDef& c = schema_.classes[cls];
  if (f >= c.fields.size()) trap(TrapCode::DB, site, "no such field");
  return c.fields[f];
}

void Store::fail(const Failure& f, Op op, const WoSite* site, const Written* written) {
  if (f.connection) trap(TrapCode::DB, site, "PostgreSQL connection lost: " + f.message);
  if (f.sqlstate == "23505" || f.sqlstate == "23503") {
    if (f.sqlstate == "23503" && op == Op::Delete) trap(TrapCode::FK, site, "row is still referenced (restrict)");
    int bad = f.sqlstate == "23505" && written ? missing_ref(*written) : -1;
    if (bad >= 0)
      trap(TrapCode::FK, site, "referenced row does not exist: " + schema_.classes[written->cls].name + "." +
                                   schema_.classes[written->cls].fields[static_cast<size_t>(bad)].name);
    auto it = violations_.find(f.constraint);
    TrapCode code = f.sqlstate == "23505" ? TrapCode::UNIQUE : TrapCode::FK;
    if (it != violations_.end()) trap(code, site, it->second.msg, it->second.detail);
  }
  if (f.sqlstate == "40P01")
    trap(TrapCode::DB, site, "deadlock: PostgreSQL rolled the transaction back (" + f.message + ")");
  if (f.sqlstate == "40001")
    trap(TrapCode::DB, site, "serialization failure: PostgreSQL rolled the transaction back (" + f.message + ")");
  trap(TrapCode::DB, site, "PostgreSQL: " + f.message);
}

int Store::missing_ref(const Written& w) {
  const store::ClassDef& c = schema_.classes[w.cls];
  for (size_t i = 0; i < c.fields.size(); ++i) {
    const store::Field& fd = c.fields[i];
    if (fd.kind != store::Kind::Ref) continue;
    uint64_t target = w.values[i];
    if (target != 0 && !exists(static_cast<uint32_t>(fd.ref_class), static_cast<int64_t>(target)))
      return static_cast<int>(i);
  }
  return -1;
}

Res Store::exec(const std::string& sql, const std::vector<Param>& ps, Op op, const WoSite* site,
                       const Written* written) {
  observed_outside();  // a statement: what it reads may be news (rows.cpp)
  Failure f;
  if (TxState* tx = t_tx) {
    bool write = op != Op::Read;
    if (write) {  // a trapping statement inside the block changes nothing (`try` may go on)
      std::string sql_sp = tx->savepoint ? "RELEASE SAVEPOINT wo_s; SAVEPOINT wo_s" : "SAVEPOINT wo_s";
      // An insert's first into its class in this block: the class's id lock,
      // for the session (a rollback to the savepoint keeps it).
      if (tx->lock_next >= 0)
        sql_sp += "; SELECT pg_advisory_lock(" + id_lock_key(schema_.classes[static_cast<size_t>(tx->lock_next)].name) + ")";
      PGresult* sp = run_simple(*tx->conn, sql_sp, site, &f);
      if (!sp) {  // (a deadlock on the id lock, say: the block has failed, as after a failed read)
        tx->lock_next = -1;
        fail(f, op, site, written);
      }
      pq().clear(sp);
      tx->savepoint = true;
      if (tx->lock_next >= 0) tx->id_locked.push_back(static_cast<uint32_t>(tx->lock_next));
      tx->lock_next = -1;
    }
    PGresult* r = run(*tx->conn, sql, ps, site, &f);
    if (r) return Res(r);
    if (write && !f.connection) {
      Failure ignore;
      if (PGresult* back = run_simple(*tx->conn, "ROLLBACK TO SAVEPOINT wo_s", site, &ignore)) pq().clear(back);
    }
    fail(f, op, site, written);
  }
  std::string why;
  Conn* c = pool_.take(&why);
  if (!c) trap(TrapCode::DB, site, "PostgreSQL connection failed: " + why);
  PGresult* r = nullptr;
  try {
    r = run(*c, sql, ps, site, &f);
  } catch (...) {  // the parked fiber unwound (the program's end): its answer is never read
    c->broken = true;
    pool_.give(c);
    throw;
  }
  pool_.give(c);
  if (!r) fail(f, op, site, written);
  return Res(r);
}

WoList* Store::id_list(uint32_t cls, const Res& r) {
  int n = r.rows();
  WoList* xs = wo_list_new(WO_ELEM_INT, n);
  for (int i = 0; i < n; ++i) xs->data[i] = static_cast<uint64_t>(r.i64(i, 0));
  xs->len = n;
  remember_ids(cls, xs);
  return xs;
}

int64_t Store::insert(uint32_t cls, const uint64_t* values, const WoSite* site) {
  const store::ClassDef& c = schema_.classes[cls];
  // The id comes from the class's counter row in the same statement: a
  // statement that fails rolls the counter back with it, so a trapping
  // insert consumes no id (a sequence would). The class's id lock first
  // (shared: it waits only while a transaction elsewhere that inserted into
  // the class is open or burning its ids, decision 0080), and never below
  // the ids this process saw burnt ($1: a burn the connection's loss kept
  // from the database).
  std::string sql = "WITH l AS MATERIALIZED (SELECT pg_advisory_xact_lock_shared(" + id_lock_key(c.name) +
                    ")), n AS (UPDATE wo_ids SET next = GREATEST(next, $1::bigint) + 1 FROM l WHERE tbl = " +
                    quote_literal(c.name) + " RETURNING next - 1 AS id) INSERT INTO " + quote_ident(c.name) + " (id";
  std::string sel = " SELECT n.id";
  Params ps(c.fields.size() + 1);
  ps.add_int(burnt_[cls].load(std::memory_order_relaxed));
  for (size_t i = 0; i < c.fields.size(); ++i) {
    sql += ", " + quote_ident(c.fields[i].name);
    sel += ", " + ph(i + 2, c.fields[i]);
    ps.add(c.fields[i], values[i], site);
  }
  sql += ")" + sel + " FROM n RETURNING id";
  Written w{cls, values};
  TxState* tx = t_tx;
  if (tx && std::find(tx->id_locked.begin(), tx->id_locked.end(), cls) == tx->id_locked.end())
    tx->lock_next = cls;
  Res r = exec(sql, ps.all(), Op::Write, site, &w);
  if (r.rows() != 1) trap(TrapCode::DB, site, "PostgreSQL: no id counter for table " + c.name);
  int64_t id = r.i64(0, 0);
  if (tx) {
    auto it = std::find_if(tx->taken.begin(), tx->taken.end(), [&](const auto& t) { return t.first == cls; });
    if (it == tx->taken.end()) tx->taken.emplace_back(cls, id);
    else it->second = std::max(it->second, id);
  }
  return id;
}

void Store::set(uint32_t cls, int64_t id, uint32_t f, uint64_t value, const WoSite* site) {
  const store::ClassDef& c = schema_.classes[cls];
  const store::Field& fd = field(cls, f, site);
  Params ps(2);
  ps.add_int(id);
  ps.add(fd, value, site);
  // (A set cannot break both a unique index and a ref: a row whose ref is
  // already someone's key keeps its target from being deleted.)
  Res r = exec("UPDATE " + quote_ident(c.name) + " SET " + quote_ident(fd.name) + " = " + ph(2, fd) +
                   " WHERE id = $1::bigint",
               ps.all(), Op::Write, site);
  if (r.affected() == 0) trap(TrapCode::DB, site, "no such row");
}

void Store::remove(uint32_t cls, int64_t id, const WoSite* site) {
  const store::ClassDef& c = schema_.classes[cls];
  Params ps(1);
  ps.add_int(id);
  // A row whose ref holds its own id restricts its delete in the engine;
  // PostgreSQL would let it go with itself, so it is asked first.
  std::string self;
  for (const store::Field& fd : c.fields)
    if (fd.kind == store::Kind::Ref && static_cast<uint32_t>(fd.ref_class) == cls)
      self += (self.empty() ? "" : " OR ") + quote_ident(fd.name) + " = id";
  if (!self.empty()) {
    Res s = exec("SELECT 1 FROM " + quote_ident(c.name) + " WHERE id = $1::bigint AND (" + self + ")" + lock_suffix(),
                 ps.all(), Op::Read, site);
    if (s.rows() > 0) trap(TrapCode::FK, site, "row is still referenced (restrict)");
  }
  Res r = exec("DELETE FROM " + quote_ident(c.name) + " WHERE id = $1::bigint", ps.all(), Op::Delete, site);
  if (r.affected() == 0) trap(TrapCode::DB, site, "no such row");
}

bool Store::exists(uint32_t cls, int64_t id) {
  const store::ClassDef& c = schema_.classes[cls];
  Params ps(1);
  ps.add_int(id);
  Res r = exec("SELECT 1 FROM " + quote_ident(c.name) + " WHERE id = $1::bigint" + lock_suffix(), ps.all(), Op::Read,
               nullptr);
  return r.rows() > 0;
}

int64_t Store::count(uint32_t cls, const WoSite* site) {
  Res r = exec("SELECT count(*) FROM " + quote_ident(schema_.classes[cls].name), {}, Op::Read, site);
  return r.i64(0, 0);
}

WoList* Store::scan(uint32_t cls, const WoSite* site) {
  Res r = exec("SELECT id FROM " + quote_ident(schema_.classes[cls].name) + " ORDER BY id" + lock_suffix(), {},
               Op::Read, site);
  return id_list(cls, r);
}

namespace {

// `col = $n` or `col IS NULL` for a probe key.
std::string equal_to(const store::Field& f, uint64_t key, Params& ps, const WoSite* site) {
  if (store::is_nil(f, key) || (f.kind == store::Kind::Ref && key == 0)) return quote_ident(f.name) + " IS NULL";
  ps.add(f, key, site);
  return quote_ident(f.name) + " = " + ph(ps.size(), f);
}

}  // namespace

WoList* Store::probe(uint32_t cls, uint32_t f, uint64_t key, int64_t limit, const WoSite* site) {
  const store::ClassDef& c = schema_.classes[cls];
  const store::Field& fd = field(cls, f, site);
  Params ps(2);
  std::string sql = "SELECT id FROM " + quote_ident(c.name) + " WHERE " + equal_to(fd, key, ps, site) + " ORDER BY id";
  if (limit >= 0) {
    ps.add_int(limit);
    sql += " LIMIT " + ph_int(ps.size());
  }
  Res r = exec(sql + lock_suffix(), ps.all(), Op::Read, site);
  return id_list(cls, r);
}

int64_t Store::probe_count(uint32_t cls, uint32_t f, uint64_t key, const WoSite* site) {
  const store::ClassDef& c = schema_.classes[cls];
  const store::Field& fd = field(cls, f, site);
  Params ps(1);
  Res r = exec("SELECT count(*) FROM " + quote_ident(c.name) + " WHERE " + equal_to(fd, key, ps, site), ps.all(),
               Op::Read, site);
  return r.i64(0, 0);
}

WoList* Store::probe_index(uint32_t cls, uint32_t index, const uint64_t* keys, const WoSite* site) {
  const store::ClassDef& c = schema_.classes[cls];
  if (index >= c.indexes.size()) trap(TrapCode::DB, site, "no such index");
  const store::IndexDef& ix = c.indexes[index];
  Params ps(ix.cols.size());
  std::string sql = "SELECT id FROM " + quote_ident(c.name) + " WHERE ";
  for (size_t i = 0; i < ix.cols.size(); ++i)
    sql += (i ? " AND " : "") + equal_to(c.fields[ix.cols[i]], keys[i], ps, site);
  Res r = exec(sql + " ORDER BY id" + lock_suffix(), ps.all(), Op::Read, site);
  return id_list(cls, r);
}

// The order of wo_db_range: nil first, keys ascending (Text and Bytes
// bytewise: bytea, Float with NaN last as PostgreSQL orders
// float8), ties by ascending id; DESC reverses the keys only.
WoList* Store::range(uint32_t cls, uint32_t f, uint64_t lo, uint64_t hi, uint32_t flags, int64_t limit,
                     const WoSite* site) {
  const store::ClassDef& c = schema_.classes[cls];
  const store::Field& fd = field(cls, f, site);
  std::string col = quote_ident(fd.name);
  auto nil = [&](uint64_t w) { return store::is_nil(fd, w) || (fd.kind == store::Kind::Ref && w == 0 && fd.nullable); };
  Params ps(3);
  std::vector<std::string> conds;
  if (flags & WO_DB_LO) {
    if (nil(lo)) {  // nil is the least key: `>= nil` is everything, `> nil` every value
      if (flags & WO_DB_LO_OPEN) conds.push_back(col + " IS NOT NULL");
    } else {
      ps.add(fd, lo, site);
      conds.push_back(col + ((flags & WO_DB_LO_OPEN) ? " > " : " >= ") + ph(ps.size(), fd));
    }
  }
  if (flags & WO_DB_HI) {
    if (nil(hi)) {
      conds.push_back((flags & WO_DB_HI_OPEN) ? "false" : col + " IS NULL");
    } else {
      ps.add(fd, hi, site);
      std::string cmp = col + ((flags & WO_DB_HI_OPEN) ? " < " : " <= ") + ph(ps.size(), fd);
      conds.push_back(fd.nullable ? "(" + cmp + " OR " + col + " IS NULL)" : cmp);  // nil is below every bound
    }
  }
  std::string sql = "SELECT id FROM " + quote_ident(c.name);
  for (size_t i = 0; i < conds.size(); ++i) sql += (i ? " AND " : " WHERE ") + conds[i];
  sql += (flags & WO_DB_DESC) ? " ORDER BY " + col + " DESC NULLS LAST, id" : " ORDER BY " + col + " NULLS FIRST, id";
  if (limit >= 0) {
    ps.add_int(limit);
    sql += " LIMIT " + ph_int(ps.size());
  }
  Res r = exec(sql + lock_suffix(), ps.all(), Op::Read, site);
  return id_list(cls, r);
}

// The keys are read here and sorted by the engine's one definition of key
// order (wo_db_sort_keys), so a sort agrees with every other order.
void Store::sort(uint32_t cls, WoList* ids, uint32_t f, bool desc, const WoSite* site) {
  const store::ClassDef& c = schema_.classes[cls];
  const store::Field& fd = field(cls, f, site);
  wo::need(ids, site);
  if (ids->len == 0) return;
  Params ps(1);
  ps.add_text(id_array(ids->data, ids->data + ids->len));
  Res r = exec("SELECT id, " + quote_ident(fd.name) + " FROM " + quote_ident(c.name) + " WHERE id = ANY($1::bigint[])" +
                   lock_suffix(),
               ps.all(), Op::Read, site);
  std::unordered_map<int64_t, int> at;
  for (int i = 0; i < r.rows(); ++i) at.emplace(r.i64(i, 0), i);
  int64_t ek = fd.kind == store::Kind::Text    ? WO_ELEM_TEXT
               : fd.kind == store::Kind::Bytes ? WO_ELEM_BYTES
               : fd.kind == store::Kind::Float ? WO_ELEM_FLOAT
                                            : WO_ELEM_INT;
  WoList* keys = wo_list_new(ek, ids->len);
  for (int64_t i = 0; i < ids->len; ++i) {
    auto it = at.find(static_cast<int64_t>(ids->data[i]));
    if (it == at.end()) {
      wo_release(keys);
      trap(TrapCode::DB, site, "no such row");
    }
    wo_list_push(keys, r.word(fd, it->second, 1));
  }
  try {
    store::sort_by_keys(ids, keys, static_cast<uint32_t>(fd.kind), fd.nullable, desc, site);
  } catch (...) {
    wo_release(keys);
    throw;
  }
  wo_release(keys);
  remember_ids(cls, ids);
}

// ---- transactions ------------------------------------------------------------

void Store::begin(const WoSite* site) {
  if (t_tx) trap(TrapCode::DB, site, "nested transaction");
  std::string why;
  Conn* c = pool_.take(&why);
  if (!c) trap(TrapCode::DB, site, "PostgreSQL connection failed: " + why);
  // READ COMMITTED with every row read locked FOR UPDATE (decision 0056):
  // a read-modify-write waits for the other writer and then sees its commit.
  Failure f;
  PGresult* r = run_simple(*c, "BEGIN ISOLATION LEVEL READ COMMITTED", site, &f);
  if (!r) {
    pool_.give(c);
    fail(f, Op::Read, site);
  }
  pq().clear(r);
  t_tx = new TxState;
  t_tx->conn = c;
}

void Store::commit(const WoSite* site) {
  TxState* tx = t_tx;
  if (!tx) return;
  if (pq().transactionStatus(tx->conn->pg) == PQTRANS_INERROR)
    trap(TrapCode::DB, site, "PostgreSQL: the transaction failed earlier and was rolled back");
  Failure f;
  // The ids are the committed rows' now: the id locks go in the same round
  // trip (if that fails, the connection is closed, which lets them go).
  PGresult* r = tx->id_locked.empty()
                    ? run_simple(*tx->conn, "COMMIT", site, &f)
                    : run_simple_then(*tx->conn, "COMMIT", "SELECT pg_advisory_unlock_all()", site, &f);
  if (!r) fail(f, Op::Write, site);  // the landing pad aborts: ROLLBACK, the RAM side undone
  pq().clear(r);
  t_tx = nullptr;
  pool_.give(tx->conn);
  delete tx;
}

void Store::abort() noexcept {
  if (TxState* tx = t_tx) {
    // The ids the block took are burnt (decision 0080): in this process at
    // once, whatever happens to the connection; in the database right after
    // the ROLLBACK, which sets the counters back, and before the id locks go,
    // so no insert anywhere reads a counter in between.
    for (const auto& [cls, id] : tx->taken) {
      std::atomic<int64_t>& b = burnt_[cls];
      for (int64_t seen = b.load(); seen < id + 1 && !b.compare_exchange_weak(seen, id + 1);) {
      }
    }
    // One round trip: the ROLLBACK, the burn, the id locks let go. If the
    // burn fails the connection is closed: its session's locks go, and the
    // burn is kept in this process only.
    std::string burn;
    for (const auto& [cls, id] : tx->taken)
      burn += "UPDATE wo_ids SET next = GREATEST(next, " + std::to_string(id + 1) + ") WHERE tbl = " +
              quote_literal(schema_.classes[cls].name) + "; ";
    Failure f;
    PGresult* r = tx->id_locked.empty()
                      ? run_simple(*tx->conn, "ROLLBACK", nullptr, &f)
                      : run_simple_then(*tx->conn, "ROLLBACK", burn + "SELECT pg_advisory_unlock_all()", nullptr, &f);
    if (r) pq().clear(r);
    else tx->conn->broken = true;  // the server ends the transaction with the connection
    t_tx = nullptr;
    pool_.give(tx->conn);
    delete tx;
  }
}

void* Store::detach() {
  TxState* tx = t_tx;
  t_tx = nullptr;
  return tx;
}

void Store::attach(void* p) { t_tx = static_cast<TxState*>(p); }

bool Store::set_next_id(uint32_t cls, int64_t next, std::string* err) {
  Conn* c = pool_.take(err);
  if (!c) return false;
  Failure f;
  PGresult* r = run_simple(*c, "UPDATE wo_ids SET next = " + std::to_string(next) + " WHERE tbl = " +
                                   quote_literal(schema_.classes[cls].name),
                           nullptr, &f);
  pool_.give(c);
  if (!r) {
    *err = "setting the id counter of " + schema_.classes[cls].name + ": " + f.message;
    return false;
  }
  pq().clear(r);
  return true;
}

}  // namespace wo::pg
