// Engine lifetime (open, start-up rules, close), locking, staging, and the
// checkpoint trigger. Statements are in writes.cpp, reads.cpp and transactions.cpp.
#include "engine.h"

#include <fcntl.h>
#include <linux/membarrier.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>

#include "../core/trap.h"
#include "bulk_index.h"
#include "checkpoint.h"
#include "model.h"
#include "common/traps.h"
#include "file_header.h"
#include "frame.h"
#include "replay.h"
#include "txn.h"

namespace wo::db {

namespace testing {
int64_t background_index_rows = 65536;
std::function<void()> before_background_index;
std::atomic<void (*)()> before_write_lock{nullptr};
}  // namespace testing

namespace {

Engine* g_engine = nullptr;
thread_local Tx* t_tx = nullptr;
std::atomic<uint64_t> g_serial{0};

// MEMBARRIER_CMD_PRIVATE_EXPEDITED: every thread of this process that is
// running passes a full memory barrier before this returns (the others do
// when they are next scheduled). It only fails for a process that has not
// registered, and each engine registers (or goes without solo access).
bool membarrier_register() {
  return ::syscall(__NR_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) == 0;
}
void membarrier_all() { ::syscall(__NR_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0); }

void notice(bool quiet, const std::string& line) {
  if (quiet) return;
  std::fprintf(stderr, "%s\n", line.c_str());
  std::fflush(stderr);
}

}  // namespace

Tx* current_tx() { return t_tx; }
void set_current_tx(Tx* tx) { t_tx = tx; }

Engine* Engine::instance() { return g_engine; }

Engine& Engine::need(const WoSite* site) {
  if (!g_engine) [[unlikely]]
    raise(static_cast<int64_t>(TrapCode::DB), site, "database engine not initialized");
  return *g_engine;
}

thread_local uint64_t Engine::t_seen_ = 0;

Engine::Engine(Schema schema)
    : schema_(std::move(schema)), store_(&schema_), serial_(++g_serial), solo_ok_(membarrier_register()) {}

Engine::~Engine() {
  if (indexer_.joinable()) indexer_.join();  // before anything it reads goes
  {
    std::lock_guard lk(ckpt_mu_);
    ckpt_stop_ = true;
  }
  ckpt_abandon_ = true;  // an unfinished snapshot is dropped (the log is complete)
  ckpt_cv_.notify_all();
  if (checkpointer_.joinable()) checkpointer_.join();
  if (commit_) commit_->drain();
  if (wal_stats_ && commit_) {
    CommitStats s = commit_->stats();
    std::fprintf(stderr,
                 "walstats batches=%llu records=%llu peak_batch=%llu peak_staged=%llu compactions=%llu "
                 "compact_us_max=%llu compact_us_total=%llu compacted_bytes=%llu checkpoint_slices=%llu "
                 "checkpoint_max_slice_rows=%llu sync_us_total=%llu herd_us_total=%llu\n",
                 (unsigned long long)s.batches, (unsigned long long)s.records, (unsigned long long)s.peak_batch,
                 (unsigned long long)s.peak_staged, (unsigned long long)compactions_,
                 (unsigned long long)compact_us_max_, (unsigned long long)compact_us_total_,
                 (unsigned long long)compacted_bytes_, (unsigned long long)ckpt_slices_,
                 (unsigned long long)ckpt_max_slice_rows_, (unsigned long long)(s.sync_ns / 1000),
                 (unsigned long long)(s.herd_ns / 1000));
    std::fflush(stderr);
  }
}

int Engine::open(const WoDbSchema* abi, const WoDbConfig* config, std::string* err) {
  if (g_engine) {
    *err = "the store is already open";
    return 2;
  }
  Schema schema;
  if (!schema_from_abi(abi, &schema, err)) return 2;
  WoDbConfig cfg = config ? *config : WoDbConfig{};
  std::unique_ptr<Engine> e(new Engine(std::move(schema)));
  int rc = e->start(cfg, err);
  if (rc != 0) return rc;
  g_engine = e.release();
  store::set_current(g_engine);
  return 0;
}

void Engine::close() {
  if (!g_engine) return;
  g_engine->abort();
  if (store::current() == g_engine) store::set_current(nullptr);
  delete g_engine;
  g_engine = nullptr;
}

// The start-up rules of runtime.md §1.8, then the log (§1.9, §1.12).
int Engine::start(const WoDbConfig& cfg, std::string* err) {
  if (cfg.checkpoint_bytes > 0) ckpt_floor_ = static_cast<uint64_t>(cfg.checkpoint_bytes);
  if (cfg.checkpoint_ratio >= 0) ckpt_ratio_ = static_cast<uint64_t>(cfg.checkpoint_ratio);
  wal_stats_ = cfg.wal_stats;
  const ClassDef* durable = nullptr;
  const ClassDef* keys = nullptr;
  for (const ClassDef& c : schema_.classes) {
    if (c.durable() && !durable) durable = &c;
    if (c.durable() && c.resident_keys() && !keys) keys = &c;
  }
  if (!durable) return 0;  // neither variable is consulted
  if (cfg.data && cfg.ephemeral) {
    *err = "both WO_DATA and WO_EPHEMERAL are set; set WO_DATA to keep the data or WO_EPHEMERAL=1 to keep it in RAM only";
    return 2;
  }
  if (keys && !cfg.data) {
    *err = "table \"" + keys->name +
           "\" is resident: keys, which reads rows back from the log: set WO_DATA=<dir or file> (WO_EPHEMERAL cannot serve it)";
    return 2;
  }
  if (cfg.ephemeral) {
    if (std::strcmp(cfg.ephemeral, "1") != 0) {
      *err = "WO_EPHEMERAL must be 1 (it is \"" + std::string(cfg.ephemeral) + "\")";
      return 2;
    }
    notice(cfg.quiet, "wo: WO_EPHEMERAL=1: durable tables are served from RAM only; nothing is written to disk");
    return 0;
  }
  if (!cfg.data) {
    *err = "table \"" + durable->name +
           "\" is durable but no data location is set: run with WO_DATA=<dir or file>, or WO_EPHEMERAL=1 to keep "
           "it in RAM only (nothing is saved), or declare @table(durable: false)";
    return 2;
  }
  std::string path;
  if (!resolve_data_path(cfg.data, &path, err)) return 2;
  return open_log(path, cfg.quiet, err);
}

int Engine::open_log(const std::string& path, bool quiet, std::string* err) {
  log_ = std::make_unique<LogFile>();
  if (!log_->open(path, err)) return 2;
  // Whose file it is, from its first bytes, before anything is written
  // (file_header.h): a file the store did not write is refused untouched.
  FileCheck file{FileKind::Fresh};
  ReplayResult res;
  bool ok = true;
  if (log_->size() > 0) {
    // Populated: replay reads all of it, and one call maps the pages
    // instead of a fault per 4 KiB page.
    void* map = ::mmap(nullptr, log_->size(), PROT_READ, MAP_PRIVATE | MAP_POPULATE, log_->fd(), 0);
    if (map == MAP_FAILED) {
      *err = "cannot read the log " + path + ": " + std::strerror(errno);
      return 2;
    }
    const auto* data = static_cast<const uint8_t*>(map);
    file = classify_file(data, log_->size());
    if (file.kind == FileKind::Store || file.kind == FileKind::Legacy) {
      ok = replay(data, log_->size(), file.start, file.version, path, schema_, store_, &res, err, file.sum, false);
    }
    ::munmap(map, log_->size());
  }
  if (file.kind == FileKind::Newer || file.kind == FileKind::Damaged || file.kind == FileKind::Foreign) {
    *err = refusal(file, path);
    return 2;
  }
  if (!ok) return 2;
  // The indexes: a large store that opens as it is (no rewrite) gets them
  // after open returns, built on other threads while queries scan (decision
  // 0070); any other store first, as replay did before.
  int64_t rows = 0;
  for (size_t c = 0; c < store_.size(); ++c) rows += store_.table(static_cast<uint32_t>(c)).live();
  bool later = file.kind == FileKind::Store && !(res.has_head && res.plan.head_differs) && rows > 0 &&
               rows >= testing::background_index_rows;
  if (!later) {
    std::string why;
    if (!build_indexes(store_, &why)) {
      *err = "replay found corruption beyond a torn tail: " + path + ": " + why;
      return 2;
    }
  }
  if (!clear_stale_checkpoint(path, err)) return 2;  // the log is ours: its temporary may be too

  size_t at = begin_record(head_, kSchema, 0, kFormatVersion);
  encode_schema(head_, schema_);
  end_record(head_, at);

  if (file.kind == FileKind::Fresh) {
    log_->initialise();
  } else if (file.kind == FileKind::Legacy || (res.has_head && res.plan.head_differs)) {
    // A log of an earlier format (it gains the header or CRC-32C), a migration, a new
    // table or new indexes: rewrite the whole log under the program's head
    // before anything is appended to it.
    int64_t size = write_checkpoint(path, store_, err);
    int retired = -1;
    bool reopened = size >= 0 && log_->reopen(static_cast<uint64_t>(size), static_cast<uint64_t>(size), &retired, err);
    if (retired >= 0) ::close(retired);
    if (!reopened) {
      const char* why = file.kind == FileKind::Legacy ? "in the current format" : "for the new schema";
      *err = "cannot rewrite the log " + std::string(why) + ": " + *err;
      return 2;
    }
    last_compacted_ = static_cast<uint64_t>(size);
    head_written_ = true;
    for (const std::string& line : res.plan.notes) notice(quiet, line);
    if (res.plan.fields_changed) notice(quiet, "wo: schema migrated (" + path + ")");
    if (file.kind == FileKind::Legacy)
      notice(quiet, "wo: " + path + " upgraded to store file format " + std::to_string(kFileVersion) +
                        (file.version == 1 ? " (it now starts with a header)" : " (its frames now carry CRC-32C)"));
  } else {
    if (file.kind == FileKind::Store && file.version < kFileVersion) {  // format 3: the header alone
      if (!log_->upgrade_header(err)) return 2;
      notice(quiet, "wo: " + path + " upgraded to store file format " + std::to_string(kFileVersion) +
                        " (its header only)");
    }
    log_->set_end(res.end);
    head_written_ = res.has_head;
    // A log that starts with a checkpoint: the ratio counts from it, so a
    // restart does not rewrite a store that was just checkpointed.
    last_compacted_ = res.snapshot_end;
    if (res.tail_dirty) log_->truncate_at_end();
  }
  commit_ = std::make_unique<GroupCommit>(log_.get());
  commit_->set_after_batch([this] { after_batch(); });
  if (later) {
    indexing_ = true;
    try {
      indexer_ = std::thread([this, path] { build_indexes_later(path); });
    } catch (const std::system_error&) {  // no thread: built here, as before
      build_indexes_later(path);
    }
  }
  return 0;
}

// The indexer thread (decision 0070). Nothing else reads an index or writes
// a row meanwhile (index_on, lock_write), so it needs no lock. A unique key
// held by two rows is the corruption replay refused before: the process
// exits 2 with the same line (no write has been accepted by then).
void Engine::build_indexes_later(const std::string& path) {
  if (testing::before_background_index) testing::before_background_index();
  std::string why;
  bool ok = false;
  try {
    ok = build_indexes(store_, &why);
    if (!ok) why = "replay found corruption beyond a torn tail: " + path + ": " + why + "; refusing to go on";
  } catch (...) {  // an OOM trap: the store cannot start (as it could not before)
    why = "out of memory while building the indexes of " + path + "; refusing to go on";
  }
  if (!ok) {
    std::fflush(stdout);
    std::fprintf(stderr, "wo: %s\n", why.c_str());
    std::fflush(stderr);
    ::_exit(2);  // not exit(): other threads may be inside the store
  }
  {
    std::lock_guard lk(index_mu_);
    indexing_.store(false, std::memory_order_release);
  }
  index_cv_.notify_all();
}

void Engine::wait_indexes() {
  if (indexes_built()) return;
  index_waiters_.fetch_add(1);
  std::unique_lock lk(index_mu_);
  index_cv_.wait(lk, [&] { return indexes_built(); });
}

// Solo access (decision 0069). The solo thread sets its flag, then reads
// the thread count with no fence of its own; a newcomer raises the count,
// then makes every running thread of the process pass a full barrier
// (membarrier), then waits for the flag to drop. After the barrier either
// the solo thread's flag is visible to the newcomer (it waits for that
// statement to end) or the solo thread's read of the count comes after the
// barrier and sees two (it takes the lock). From then on nobody is solo.
//
// A third (or later) thread waits until the second has seen the solo thread
// leave: counted the moment after the second, it must not take the lock
// while the solo thread still writes without it (db.crash under ASan: three
// writer threads starting together lost acknowledged rows).
void Engine::enter_thread() {
  t_seen_ = serial_;
  uint32_t n = threads_.fetch_add(1) + 1;
  if (n == 1 || !solo_ok_) return;
  if (n == 2) {
    membarrier_all();
    // Bounded by the one statement the solo thread may be in (a statement
    // without the lock never waits for another thread).
    for (unsigned spin = 0; solo_busy_.load(std::memory_order_acquire); ++spin)
      if (spin >= 64) std::this_thread::yield();
    solo_over_.store(true, std::memory_order_release);
    return;
  }
  // Bounded by the second thread's wait above.
  for (unsigned spin = 0; !solo_over_.load(std::memory_order_acquire); ++spin)
    if (spin >= 64) std::this_thread::yield();
}

bool Engine::enter_solo() {
  note_thread();
  if (!solo_ok_ || threads_.load(std::memory_order_relaxed) != 1) return false;
  solo_busy_.store(true, std::memory_order_relaxed);
  std::atomic_signal_fence(std::memory_order_seq_cst);  // the CPU's half is the newcomer's membarrier
  // An open transaction of another fiber of this thread: wait at the gate
  // as before (owner_ is only written by this thread while it is solo).
  if (threads_.load(std::memory_order_relaxed) == 1 && !(owner_ && owner_ != t_tx)) return true;
  solo_busy_.store(false, std::memory_order_release);
  return false;
}

bool Engine::solo_now() {
  if (!enter_solo()) return false;
  solo_busy_.store(false, std::memory_order_release);
  return true;
}

Engine::Hold Engine::lock_write() {
  if (!indexes_built()) [[unlikely]]
    wait_indexes();  // decision 0070: no write while the indexes are built, solo or not
  if (enter_solo()) return Hold(&solo_busy_);
  writers_waiting_.fetch_add(1);  // a checkpoint's next slice waits for us
  if (auto hook = testing::before_write_lock.load(std::memory_order_relaxed)) hook();
  std::unique_lock lk(mu_);
  writers_waiting_.fetch_sub(1, std::memory_order_relaxed);
  write_locks_.fetch_add(1);
  if (slice_waits_.load()) write_locks_.notify_all();
  wait_gate(lk);
  return Hold(std::move(lk));
}

Engine::Hold Engine::lock_read() {
  if (enter_solo()) return Hold(&solo_busy_);
  std::shared_lock lk(mu_);
  wait_gate(lk);
  return Hold(std::move(lk));
}

Table& Engine::table(uint32_t cls, const WoSite* site) {
  if (cls >= store_.size()) [[unlikely]]
    raise(static_cast<int64_t>(TrapCode::DB), site, "no such class");
  return store_.table(cls);
}

const Field& Engine::field(const Table& t, uint32_t f, const WoSite* site) {
  if (f >= t.def().fields.size()) [[unlikely]]
    raise(static_cast<int64_t>(TrapCode::DB), site, "no such field");
  return t.def().fields[f];
}

uint64_t Engine::stage_unit(std::string_view records, uint32_t nrec) {
  if (head_written_) return last_staged_ = commit_->stage(records, nrec);
  std::string unit = head_;  // the lazily written head shares the first unit's frame
  unit.append(records);
  last_staged_ = commit_->stage(unit, nrec + 1);
  head_written_ = true;
  return last_staged_;
}

// Run by the commit leader after each round: asks the checkpointer thread
// for a checkpoint when the sizes say so (docs/decisions/0050). Nothing
// else: the round's waiters are woken right after this returns.
void Engine::after_batch() {
  if (ckpt_busy_.load(std::memory_order_acquire)) return;
  if (!checkpoint_due(log_->end(), last_compacted_, ckpt_floor_, ckpt_ratio_)) return;
  std::lock_guard lk(ckpt_mu_);
  if (ckpt_stop_) return;
  if (!checkpointer_.joinable()) {
    try {
      checkpointer_ = std::thread([this] { checkpointer_main(); });
    } catch (const std::system_error&) {
      last_compacted_ = log_->end();  // no thread: a missed optimisation, not retried every round
      return;
    }
  }
  ckpt_busy_ = true;
  ckpt_want_ = true;
  ckpt_cv_.notify_all();
}

void Engine::checkpointer_main() {
  std::unique_lock lk(ckpt_mu_);
  for (;;) {
    ckpt_cv_.wait(lk, [&] { return ckpt_want_ || ckpt_stop_; });
    if (ckpt_stop_) break;
    ckpt_want_ = false;
    lk.unlock();
    checkpoint(false);
    lk.lock();
    ckpt_busy_ = false;
    ckpt_cv_.notify_all();
  }
  ckpt_busy_ = false;
  ckpt_cv_.notify_all();
}

void Engine::wait_checkpoint_idle() {
  std::unique_lock lk(ckpt_mu_);
  ckpt_cv_.wait(lk, [&] { return !ckpt_busy_.load() || ckpt_stop_; });
}

CheckpointStats Engine::checkpoint_stats() {
  std::lock_guard lk(ckpt_run_mu_);
  return CheckpointStats{compactions_, ckpt_slices_, ckpt_max_slice_rows_, CheckpointFile::kSliceRows};
}

// Writers are held back only while a slice is encoded (at most kSliceRows
// rows under the read lock) and while the leader copies the log's last
// bytes into the new file or switches to it (no sync: decision 0074).
// Skipped while the calling thread has a transaction open (its rows are in
// RAM but must not be in a snapshot); another thread's open transaction is
// waited out by each slice's lock_read.
bool Engine::checkpoint(bool forced) {
  if (t_tx) return false;
  std::lock_guard run(ckpt_run_mu_);
  auto t0 = std::chrono::steady_clock::now();
  {
    auto lk = lock_read();
    // No durable write yet: the store holds no durable row and the log is
    // its header alone; nothing to compact (and the head, staged with the
    // first write, must not follow a checkpoint's own).
    if (!head_written_) return forced;
  }
  std::string err;
  auto missed = [&] {
    if (!forced) commit_->run_as_leader([&] { last_compacted_ = log_->end(); });  // not retried every round
    return false;
  };
  uint64_t start = 0, copied = 0, need = 0;
  commit_->run_as_leader([&] { start = log_->end(); });  // read with no round in flight
  CheckpointFile cf;
  if (!cf.create(log_->path(), schema_, &err)) return missed();
  for (bool done = false; !done;) {
    // Writers first: the lock prefers readers, and a slicer that takes it
    // again as soon as it let go could keep a waiting writer out for many
    // slices (seen: a 228 ms commit during a 1M-row checkpoint; 32 ms with
    // a bounded spin of yields, the writer woken but not yet running). So
    // it sleeps until one waiting writer has taken the lock: that writer is
    // past its count and asking for a lock nobody keeps, so this ends; the
    // checkpoint is only delayed (by one write per slice at most).
    if (writers_waiting_.load() > 0) {
      slice_waits_.store(true);
      uint32_t seen = write_locks_.load();
      while (writers_waiting_.load() > 0 && write_locks_.load() == seen) write_locks_.wait(seen);
      slice_waits_.store(false);
    }
    {
      auto lk = lock_read();
      done = cf.encode_slice(store_);
      if (done) need = last_staged_;  // every change a slice saw was staged by now
    }
    if (ckpt_abandon_.load() || !cf.write_buffered(&err)) return missed();
    if (testing::after_checkpoint_slice) testing::after_checkpoint_slice(cf.slices());
  }
  cf.end_snapshot();
  commit_->wait(need);  // ... and is in the log once this returns
  commit_->run_as_leader([&] { copied = log_->end(); });
  if (!cf.copy_log(log_->fd(), start, copied, &err) || !cf.sync(&err)) return missed();
  // The install (decision 0074). As the leader (no round in flight, so the
  // log's end stays put): the last bytes copied, CAUGHT_UP written, and the
  // new file made the log's mirror: from the next round on each commit is
  // written and synced in both files, which then hold the same frames.
  int64_t size = -1;
  commit_->run_as_leader([&] {
    if (!cf.copy_log(log_->fd(), copied, log_->end(), &err)) return;
    size = cf.caught_up(&err);
    if (size >= 0) log_->mirror(cf.fd(), static_cast<uint64_t>(size), cf.file_size(), log_->path() + ".compact");
  });
  if (size < 0) return missed();
  // With commits going on: the new file's sync, its rename over the log and
  // the directory's fsync. Until that fsync returns a crash may leave
  // either name, and either file holds every acknowledged commit.
  if (!cf.publish(&err)) {
    commit_->run_as_leader([&] { log_->drop_mirror(); });  // before cf closes and deletes it
    return missed();
  }
  if (testing::during_install) testing::during_install(3);
  // The rename is durable: the next round switches to the new file and
  // writes only it. The leader's part here only collects the old one.
  log_->mirror_durable();
  int retired = -1;
  commit_->run_as_leader([&] {
    retired = log_->take_mirror();
    cf.release_fd();
    last_compacted_ = static_cast<uint64_t>(size);
  });
  release_retired(retired);
  auto us = static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - t0).count());
  compactions_++;
  compact_us_total_ += us;
  compact_us_max_ = std::max(compact_us_max_, us);
  compacted_bytes_ += static_cast<uint64_t>(size);
  ckpt_slices_ += cf.slices();
  ckpt_max_slice_rows_ = std::max(ckpt_max_slice_rows_, cf.max_slice_rows());
  return true;
}

bool Engine::checkpoint_now() {
  if (!log_) return false;
  return checkpoint(true);
}

}  // namespace wo::db
