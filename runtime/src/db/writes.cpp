// The three write statements. Each one: copy the input outside the lock,
// then under the write lock check everything that can trap (nothing changed
// yet, no id taken), encode the record, apply to RAM, and stage the record
// (or hand it to the open transaction with an undo entry); then, outside the
// lock, wait for group commit.
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "../core/trap.h"
#include "../sched/external_wait.h"
#include "common/traps.h"
#include "engine.h"
#include "frame.h"
#include "txn.h"

namespace wo::db {
namespace {

thread_local std::string t_record;        // the statement's record, reused
thread_local std::vector<uint64_t> t_slots;
thread_local RowKeys t_keys;  // the inserted row's index keys, reused

[[noreturn]] void trap(TrapCode code, const WoSite* site, const std::string& msg) {
  raise(static_cast<int64_t>(code), site, msg.c_str());
}

// UNIQUE: `unique constraint violated: <table>.<field>` (e.msg, unchanged),
// plus `table <t>, field <f>` for an uncaught trap's extra lines.
[[noreturn]] void unique_trap(const ClassDef& c, const TableIndex& ix, const WoSite* site) {
  std::string detail = "table " + c.name + (ix.def->cols.size() == 1 ? ", field " : ", fields ");
  for (size_t i = 0; i < ix.def->cols.size(); ++i) detail += (i ? ", " : "") + c.fields[ix.def->cols[i]].name;
  raise(static_cast<int64_t>(TrapCode::UNIQUE), site, ("unique constraint violated: " + ix.label).c_str(),
        std::move(detail));
}

void check_size(const std::string& rec, const WoSite* site) {
  if (rec.size() + kStageReserve + kFrameOverhead > kMaxFrame) [[unlikely]]
    trap(TrapCode::DB, site, "value too large for the table store");
}

// An insert's row, copied from the program's values, owned until the store
// takes its blobs. Built on the stack when it is small (the table copies it
// into its page: an insert allocates no row of its own).
class NewRow {
 public:
  NewRow(const ClassDef& c, const uint64_t* values, const WoSite* site) : c_(c) {
    size_t words = 1 + c.fields.size();
    if (words <= kLocal) {
      std::memset(local_, 0, words * sizeof(uint64_t));
      row_fill_abi(c, reinterpret_cast<Row*>(local_), values, site);
      row_ = reinterpret_cast<Row*>(local_);
    } else {
      row_ = row_from_abi(c, values, site);
      heap_ = true;
    }
  }
  ~NewRow() {
    if (!row_) return;
    row_free_blobs(c_, row_);
    if (heap_) std::free(row_);
  }
  NewRow(const NewRow&) = delete;
  NewRow& operator=(const NewRow&) = delete;
  const Row* row() const { return row_; }
  void taken() {  // the store owns the blobs now
    if (heap_) std::free(row_);
    row_ = nullptr;
  }

 private:
  static constexpr size_t kLocal = 33;
  const ClassDef& c_;
  Row* row_ = nullptr;
  bool heap_ = false;
  uint64_t local_[kLocal];
};
// Room for one more undo entry, so recording it after the change cannot
// fail. Geometric: reserve(size() + 1) reallocated the whole log on every
// statement, which made a transaction quadratic in its rows.
void reserve_undo(Tx& tx) {
  if (tx.undo.size() == tx.undo.capacity()) tx.undo.reserve(std::max<size_t>(16, tx.undo.capacity() * 2));
}

struct WordHold {
  const Field& f;
  uint64_t w;
  ~WordHold() { word_free(f, w); }
};

}  // namespace

// Where a write statement's record goes: into the open transaction's private
// buffer (committed as one frame), or staged for the next group commit, whose
// sequence number the caller waits for after releasing the lock (0: none).
uint64_t Engine::log_write(Tx* tx, bool log, const std::string& rec) {
  if (!log) return 0;
  if (!tx) return stage_unit(rec, 1);
  tx->records.append(rec);
  tx->nrec++;
  return 0;
}

int64_t Engine::insert(uint32_t cls, const uint64_t* values, const WoSite* site) {
  Table& t = table(cls, site);
  const ClassDef& c = t.def();
  uint64_t seq = 0;
  int64_t id;
  {
    auto lk = lock_write();
    Tx* tx = current_tx();
    // The keys from the program's values, and the index lines they land in
    // asked for, before the row is copied: the copy's work overlaps those
    // cache misses instead of coming before them.
    RowKeys& keys = t_keys;
    t.keys_of(values, keys, true);
    t.prefetch_insert(keys, t.next_id);
    NewRow hold(c, values, site);
    const uint64_t* s = hold.row()->slots();
    int bad = store_.missing_ref(t, s);
    if (bad >= 0) trap(TrapCode::FK, site, "referenced row does not exist: " + c.name + "." + c.fields[bad].name);
    if (const TableIndex* ix = t.unique_conflict(keys))
      unique_trap(c, *ix, site);
    id = t.next_id;
    bool log = logged(t);
    std::string& rec = t_record;
    rec.clear();
    if (log) {
      size_t at = begin_record(rec, kInsert, c.id, static_cast<uint64_t>(id));
      encode_row(rec, c, s);
      end_record(rec, at);
      check_size(rec, site);
    }
    if (tx) {
      reserve_undo(*tx);
      defer_ordered(*tx, t);
    }
    store_.attach(t, id, hold.row(), &keys);
    hold.taken();
    t.next_id = id + 1;
    if (tx) {
      Undo* last = tx->undo.empty() ? nullptr : &tx->undo.back();
      if (last && last->op == Undo::Insert && last->cls == cls && last->id + static_cast<int64_t>(last->old) == id)
        last->old++;  // the run goes on
      else
        tx->undo.push_back(Undo{Undo::Insert, cls, 0, id, 1, nullptr});  // room reserved above
    }
    seq = log_write(tx, log, rec);
  }
  if (seq) commit_->wait(seq);
  return id;
}

void Engine::set(uint32_t cls, int64_t id, uint32_t f, uint64_t value, const WoSite* site) {
  Table& t = table(cls, site);
  const ClassDef& c = t.def();
  const Field& fd = field(t, f, site);
  WordHold hold{fd, word_from_abi(fd, value, site)};
  uint64_t seq = 0;
  {
    auto lk = lock_write();
    Tx* tx = current_tx();
    Row* row = t.find(id);
    if (!row) trap(TrapCode::DB, site, "no such row");
    if (fd.kind == Kind::Ref && !store_.ref_target_exists(fd, hold.w))
      trap(TrapCode::FK, site, "referenced row does not exist: " + c.name + "." + fd.name);
    std::vector<uint64_t>& s = t_slots;  // the row as it will be
    s.assign(row->slots(), row->slots() + c.fields.size());
    s[f] = hold.w;
    if (const TableIndex* ix = t.unique_conflict(s.data(), id, static_cast<int>(f)))
      unique_trap(c, *ix, site);
    bool log = logged(t);
    std::string& rec = t_record;
    rec.clear();
    if (log) {  // UPDATE carries the whole row (§1.10)
      size_t at = begin_record(rec, kUpdate, c.id, static_cast<uint64_t>(id));
      encode_row(rec, c, s.data());
      end_record(rec, at);
      check_size(rec, site);
    }
    if (tx) reserve_undo(*tx);
    uint64_t old = store_.set_field(t, id, f, hold.w);
    hold.w = old;  // the hold now frees the old value, unless the transaction keeps it
    if (tx) {
      tx->undo.push_back(Undo{Undo::Update, cls, f, id, old, nullptr});
      hold.w = is_blob(fd.kind) ? 0 : old;
    }
    seq = log_write(tx, log, rec);
  }
  if (seq) commit_->wait(seq);
}

void Engine::remove_foreign(uint32_t cls, int64_t id, const WoSite* site, const std::function<void()>& del) {
  auto lk = lock_write();
  if (store_.foreign_inbound(cls, id) != 0) trap(TrapCode::FK, site, "row is still referenced (restrict)");
  sched::NoParkScope hold_the_shard;  // the write lock is held
  del();
}

void Engine::remove(uint32_t cls, int64_t id, const WoSite* site) {
  Table& t = table(cls, site);
  const ClassDef& c = t.def();
  uint64_t seq = 0;
  {
    auto lk = lock_write();
    Tx* tx = current_tx();
    Row* row = t.find(id);
    if (!row) trap(TrapCode::DB, site, "no such row");
    if (row->inbound) trap(TrapCode::FK, site, "row is still referenced (restrict)");
    bool log = logged(t);
    std::string& rec = t_record;
    rec.clear();
    if (log) end_record(rec, begin_record(rec, kRemove, c.id, static_cast<uint64_t>(id)));
    if (tx) reserve_undo(*tx);
    Row* gone = store_.detach(t, id);
    if (tx)
      tx->undo.push_back(Undo{Undo::Delete, cls, 0, id, 0, gone});
    else
      row_free(c, gone);
    seq = log_write(tx, log, rec);
  }
  if (seq) commit_->wait(seq);
}

}  // namespace wo::db
