// The store as the program sees it: one Engine per process (wo_db_open),
// shared by every thread.
//
// Serialisation (docs/decisions/0005-store-engine.md): one reader/writer
// lock over the RAM state. A write statement holds it exclusively while it
// checks, applies to RAM and stages its record, so log order is RAM order;
// it then releases the lock and waits for group commit (no lock held across
// the fdatasync). Reads share the lock. An open transaction additionally
// owns a gate: other threads' statements, reads included, wait until it
// commits or aborts, so a transaction is serialisable and nobody can build
// on rows it may still undo. What others can see early are single
// statements applied but not yet durable (the group-commit window), exactly
// as in orig (§1.11): replies to reads are not held.
//
// Solo access (docs/decisions/0069): while only one thread has ever used
// the store, that thread's reads and writes take no lock, only a flag of
// its own; the second thread to come (lock_read/lock_write/begin...) first
// waits for that flag behind an asymmetric barrier (membarrier), and from
// then on everyone locks. A lock's atomic pairs kept a loop of lookups from
// overlapping one lookup's cache misses with the next one's.
#pragma once
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <thread>
#include <utility>

#include "../store/backend.h"
#include "group_commit.h"
#include "log_file.h"
#include "model.h"
#include "store.h"
#include "wo_db.h"

namespace wo::db {

struct Tx;
Tx* current_tx();  // below, with set_current_tx

// What the checkpoints of this process did (walstats, tests).
struct CheckpointStats {
  uint64_t done = 0;            // installed
  uint64_t slices = 0;          // times the store lock was taken for the snapshot
  uint64_t max_slice_rows = 0;  // most rows encoded under one taking of the lock
  uint64_t rows_limit = 0;      // the bound on that (CheckpointFile::kSliceRows)
};

// The embedded engine is a store back end (store/backend.h): with a
// directory or file WO_DATA, or none, it is the process's store.
class Engine final : public store::Backend {
 public:
  // Creates the process's engine; 0, or 2 with *err (a start-up refusal).
  // It becomes the process's store (store::current()).
  static int open(const WoDbSchema* schema, const WoDbConfig* config, std::string* err);
  static void close();
  static Engine* instance();
  static Engine& need(const WoSite* site);   // traps DB `database engine not initialized`

  int64_t insert(uint32_t cls, const uint64_t* values, const WoSite* site) override;
  void set(uint32_t cls, int64_t id, uint32_t field, uint64_t value, const WoSite* site) override;
  void remove(uint32_t cls, int64_t id, const WoSite* site) override;

  // Classes whose rows another back end holds, in a composition of stores
  // (wo_db/mixed.h: PostgreSQL's durable tables beside this engine's RAM
  // ones, decision 0056). A row's ref to one is checked with `holder`'s
  // exists under the write lock (never parking) and counted here. Call
  // before any statement runs.
  void hold_foreign(std::vector<bool> classes, store::Backend* holder) {
    store_.hold_foreign(std::move(classes), holder);
  }
  // Deletes foreign row (cls, id) by calling `del` under the write lock
  // (never parking), unless a row here refers to it (trap FK restrict): no
  // row can take a ref to it between the check and the delete.
  void remove_foreign(uint32_t cls, int64_t id, const WoSite* site, const std::function<void()>& del);

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
  // The id the class's next insert gets (runtime/src/wo_db/copy.cpp copies it).
  int64_t next_id(uint32_t cls, const WoSite* site) { return table(cls, site).next_id; }

  void begin(const WoSite* site) override;
  void commit(const WoSite* site) override;
  void abort() noexcept override;
  bool in_tx() override { return current_tx() != nullptr; }
  void* detach() override;
  void attach(void* tx) override;
  bool checkpoint_now() override;
  void flush() override { if (commit_) commit_->drain(); }  // wo_db_flush
  void wait_durable(uint64_t seq) override { if (commit_) commit_->wait_durable(seq); }  // wo_db_wait_durable
  void want_durable(uint64_t seq) override {  // wo_db_want_durable
    if (commit_ && !commit_->want(seq)) commit_->wait_durable(seq);
  }
  GroupCommit* group_commit() { return commit_.get(); }  // tests: stats, holding the log writer
  // Whether every index is built: a large store's are built after open
  // returns (decision 0070); until then queries scan and writers wait.
  bool indexes_built() const { return !indexing_.load(std::memory_order_acquire); }
  // Waits until they are (tests, and every writer through lock_write).
  void wait_indexes();
  int index_waiters() const { return index_waiters_.load(); }  // tests: threads that waited so far
  CheckpointStats checkpoint_stats();
  // Threads waiting for another thread's transaction to end (tests).
  uint32_t gate_waiters() const { return gate_waiters_.load(); }
  // Tests: wait until no automatic checkpoint is running or requested.
  void wait_checkpoint_idle();
  // Tests: whether the calling thread's next statement would take no lock
  // (decision 0069: it is the only thread that has used the store).
  bool solo_now();

  ~Engine() override;

 private:
  explicit Engine(Schema schema);
  int start(const WoDbConfig& cfg, std::string* err);
  int open_log(const std::string& path, bool quiet, std::string* err);

  // What a statement holds while it reads or changes the RAM state: the
  // lock, or for the solo thread only its flag (decision 0069).
  class Hold {
   public:
    Hold() = default;
    explicit Hold(std::atomic<bool>* solo) : solo_(solo) {}
    explicit Hold(std::shared_lock<std::shared_mutex> r) : r_(std::move(r)) {}
    explicit Hold(std::unique_lock<std::shared_mutex> w) : w_(std::move(w)) {}
    Hold(Hold&& o) noexcept : r_(std::move(o.r_)), w_(std::move(o.w_)), solo_(o.solo_) { o.solo_ = nullptr; }
    Hold& operator=(Hold&& o) noexcept {
      unlock();
      r_ = std::move(o.r_);
      w_ = std::move(o.w_);
      solo_ = o.solo_;
      o.solo_ = nullptr;
      return *this;
    }
    ~Hold() { unlock(); }
    void unlock() {
      if (solo_) solo_->store(false, std::memory_order_release);  // the store's reads are done
      solo_ = nullptr;
      if (r_.owns_lock()) r_.unlock();
      if (w_.owns_lock()) w_.unlock();
    }

   private:
    std::shared_lock<std::shared_mutex> r_;
    std::unique_lock<std::shared_mutex> w_;
    std::atomic<bool>* solo_ = nullptr;
  };

  Table& table(uint32_t cls, const WoSite* site);
  // t.index_on(f), or NULL while the indexes are being built (the query scans).
  const TableIndex* index_on(const Table& t, uint32_t f) const { return indexes_built() ? t.index_on(f) : nullptr; }
  void build_indexes_later(const std::string& path);  // the indexer thread's work
  const Field& field(const Table& t, uint32_t f, const WoSite* site);
  Hold lock_write();
  Hold lock_read();
  // lock_read, after merging `ix`'s deferred ordered entries (only the
  // thread inside a transaction can find any: commit merges the rest).
  Hold lock_read_settled(const TableIndex* ix);
  // Inside transaction `tx`: table `t`'s ordered entries wait for commit.
  void defer_ordered(Tx& tx, Table& t);
  // Ends that for every table of `tx`; merges first when `settle` (commit).
  void end_deferral(Tx& tx, bool settle);
  // Solo access: counts the calling thread in (once), then whether it may
  // go without the lock; if so its flag is set (Hold clears it).
  void note_thread() {
    if (t_seen_ != serial_) enter_thread();
  }
  bool enter_solo();
  void enter_thread();
  bool logged(const Table& t) const { return log_ && t.def().durable(); }
  // Under the write lock: the record (sub-records) of a statement outside a
  // transaction, or of a committing transaction, as one unit.
  uint64_t stage_unit(std::string_view records, uint32_t nrec);
  uint64_t log_write(Tx* tx, bool log, const std::string& rec);
  void after_batch();          // checkpoint trigger, run by the commit leader
  // A fuzzy checkpoint (checkpoint.h): the snapshot in slices under the read
  // lock, the log written meanwhile copied after it, installed as the
  // leader. Any thread but a commit leader; one at a time.
  bool checkpoint(bool forced);
  void checkpointer_main();    // the thread that runs automatic checkpoints
  void undo(Tx& tx);
  void log_burnt_ids(const Tx& tx);  // mu_ held (transactions.cpp)
  void ensure_ordered(Table& t, uint32_t index);  // the ordered side of a unique index, on first use

  Schema schema_;
  Store store_;
  std::unique_ptr<LogFile> log_;          // NULL: RAM only
  std::unique_ptr<GroupCommit> commit_;
  std::string head_;                      // the SCHEMA sub-record, staged before the first record
  bool head_written_ = false;

  std::shared_mutex mu_;
  std::condition_variable_any gate_;
  Tx* owner_ = nullptr;                   // the open transaction holding the store
  // Fairness at the gate: threads waiting for another thread's transaction
  // to end go before newcomers when it does. Without it a thread running
  // transactions back to back retook mu_ before the woken waiter ran and
  // kept a statement out for thousands of transactions (seen: 17,524).
  std::atomic<uint32_t> gate_waiters_{0};
  std::atomic<bool> gate_turn_{false};    // a transaction ended with waiters: theirs
  // With mu_ held through `lk` (shared or not): waits until no other
  // thread's transaction holds the gate, letting earlier waiters go first.
  template <class Lock>
  void wait_gate(Lock& lk) {
    bool waited = false;
    for (;;) {
      if (owner_ && owner_ == current_tx()) return;  // its own transaction
      bool open = owner_ == nullptr;
      if (open && (waited || !gate_turn_.load())) break;
      if (!open && !waited) {
        gate_waiters_.fetch_add(1);
        waited = true;
      }
      gate_.wait(lk);
    }
    if (!waited) return;
    gate_waiters_.fetch_sub(1);
    if (gate_turn_.exchange(false)) gate_.notify_all();  // newcomers held back for the waiters
  }
  // With mu_ held exclusively: the open transaction ends (notify gate_ after unlocking).
  void release_gate() {
    owner_ = nullptr;
    if (gate_waiters_.load() > 0) gate_turn_.store(true);
  }

  std::atomic<int> writers_waiting_{0};   // threads in lock_write() before they hold mu_
  // Write locks taken so far, and whether a checkpoint sleeps on that count
  // to let a waiting writer in before its next slice (decision 0074).
  std::atomic<uint32_t> write_locks_{0};
  std::atomic<bool> slice_waits_{false};

  // Solo access (decision 0069).
  static thread_local uint64_t t_seen_;   // the serial_ of the engine this thread was counted in
  const uint64_t serial_;                 // this engine's number in the process (engines reopen in tests)
  bool solo_ok_ = false;                  // membarrier is there: solo access is allowed
  std::atomic<uint32_t> threads_{0};      // threads that have used the store; never goes down
  std::atomic<bool> solo_busy_{false};    // the one thread is inside a statement without the lock
  std::atomic<bool> solo_over_{false};    // the second thread saw the solo thread leave: nobody is solo now
  uint64_t last_staged_ = 0;              // the seq of the last unit staged (under the write lock)

  uint64_t ckpt_floor_ = uint64_t{4} << 20;
  uint64_t ckpt_ratio_ = 3;
  uint64_t last_compacted_ = 0;           // the commit leader's (checkpoints install as the leader)
  bool wal_stats_ = false;
  std::mutex ckpt_run_mu_;                // one checkpoint at a time; guards the figures below
  uint64_t compactions_ = 0, compact_us_max_ = 0, compact_us_total_ = 0, compacted_bytes_ = 0;
  uint64_t ckpt_slices_ = 0, ckpt_max_slice_rows_ = 0;
  std::mutex ckpt_mu_;                    // the checkpointer's requests
  std::condition_variable ckpt_cv_;
  bool ckpt_want_ = false, ckpt_stop_ = false;
  std::atomic<bool> ckpt_busy_{false};    // requested or running: the trigger waits
  std::atomic<bool> ckpt_abandon_{false}; // closing: stop between slices
  std::thread checkpointer_;

  // The indexes built after open (decision 0070): no index is read and no
  // write runs while indexing_ is true; the indexer clears it when done.
  std::atomic<bool> indexing_{false};
  std::atomic<int> index_waiters_{0};
  std::mutex index_mu_;
  std::condition_variable index_cv_;
  std::thread indexer_;
};

namespace testing {
// Tests: a store of at least this many rows (all tables) has its indexes
// built after open returns (default 65,536; below that they are built first).
extern int64_t background_index_rows;
// Tests: run by the indexer thread before it builds anything.
extern std::function<void()> before_background_index;
// Tests: run by a writer in lock_write once it is counted as waiting, before
// it asks for the lock (it holds nothing then).
extern std::atomic<void (*)()> before_write_lock;
}  // namespace testing

// The calling thread's open transaction (NULL if none).
Tx* current_tx();
void set_current_tx(Tx* tx);

}  // namespace wo::db
