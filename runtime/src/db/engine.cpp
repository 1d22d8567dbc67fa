// Engine lifetime (open, start-up rules, close), locking, staging, and the
// checkpoint trigger. Statements are in writes.cpp, reads.cpp and txn.cpp.
#include "engine.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>

#include "../trap.h"
#include "checkpoint.h"
#include "codec.h"
#include "common/traps.h"
#include "file_header.h"
#include "frame.h"
#include "replay.h"
#include "txn.h"

namespace wo::db {
namespace {

Engine* g_engine = nullptr;
thread_local Tx* t_tx = nullptr;

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

Engine::Engine(Schema schema) : schema_(std::move(schema)), store_(&schema_) {}

Engine::~Engine() {
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
  return 0;
}

void Engine::close() {
  if (!g_engine) return;
  g_engine->abort();
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
      ok = replay(data, log_->size(), file.start, file.version, path, schema_, store_, &res, err, file.sum);
    }
    ::munmap(map, log_->size());
  }
  if (file.kind == FileKind::Newer || file.kind == FileKind::Damaged || file.kind == FileKind::Foreign) {
    *err = refusal(file, path);
    return 2;
  }
  if (!ok) return 2;
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
    if (size < 0 || !log_->reopen(static_cast<uint64_t>(size), err)) {
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
    log_->set_end(res.end);
    head_written_ = res.has_head;
    // A log that starts with a checkpoint: the ratio counts from it, so a
    // restart does not rewrite a store that was just checkpointed.
    last_compacted_ = res.snapshot_end;
    if (res.tail_dirty) log_->truncate_at_end();
  }
  commit_ = std::make_unique<GroupCommit>(log_.get());
  commit_->set_after_batch([this] { after_batch(); });
  return 0;
}

std::unique_lock<std::shared_mutex> Engine::lock_write() {
  writers_waiting_.fetch_add(1, std::memory_order_relaxed);  // a checkpoint's next slice waits for us
  std::unique_lock lk(mu_);
  writers_waiting_.fetch_sub(1, std::memory_order_relaxed);
  if (owner_ && owner_ != t_tx) gate_.wait(lk, [&] { return !owner_ || owner_ == t_tx; });
  return lk;
}

std::shared_lock<std::shared_mutex> Engine::lock_read() {
  std::shared_lock lk(mu_);
  if (owner_ && owner_ != t_tx) gate_.wait(lk, [&] { return !owner_ || owner_ == t_tx; });
  return lk;
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
// rows under the read lock) and while the leader installs the file (the
// copy of the log's last bytes, two fsyncs and a rename: about one group
// commit). Skipped while the calling thread has a transaction open (its
// rows are in RAM but must not be in a snapshot); another thread's open
// transaction is waited out by each slice's lock_read.
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
    // slices (seen: a 228 ms commit during a 1M-row checkpoint). Bounded:
    // the checkpoint is only delayed.
    for (int spin = 0; writers_waiting_.load(std::memory_order_relaxed) > 0 && spin < 1000; ++spin)
      std::this_thread::yield();
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
  int64_t size = -1;
  commit_->run_as_leader([&] {
    // No round runs meanwhile: the log's end stays put while its last bytes
    // are copied and the new file takes its place.
    if (!cf.copy_log(log_->fd(), copied, log_->end(), &err)) return;
    size = cf.install(&err);
    if (size < 0) return;
    if (!log_->reopen(static_cast<uint64_t>(size), &err)) die_durability("open (after checkpoint)", log_->path(), errno, 0);
    last_compacted_ = static_cast<uint64_t>(size);
  });
  if (size < 0) return missed();
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
