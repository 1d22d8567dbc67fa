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
  if (commit_) commit_->drain();
  if (wal_stats_ && commit_) {
    CommitStats s = commit_->stats();
    std::fprintf(stderr,
                 "walstats batches=%llu records=%llu peak_batch=%llu peak_staged=%llu compactions=%llu "
                 "compact_us_max=%llu compact_us_total=%llu compacted_bytes=%llu\n",
                 (unsigned long long)s.batches, (unsigned long long)s.records, (unsigned long long)s.peak_batch,
                 (unsigned long long)s.peak_staged, (unsigned long long)compactions_,
                 (unsigned long long)compact_us_max_, (unsigned long long)compact_us_total_,
                 (unsigned long long)compacted_bytes_);
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
    void* map = ::mmap(nullptr, log_->size(), PROT_READ, MAP_PRIVATE, log_->fd(), 0);
    if (map == MAP_FAILED) {
      *err = "cannot read the log " + path + ": " + std::strerror(errno);
      return 2;
    }
    const auto* data = static_cast<const uint8_t*>(map);
    file = classify_file(data, log_->size());
    if (file.kind == FileKind::Store || file.kind == FileKind::Legacy) {
      ok = replay(data, log_->size(), file.start, path, schema_, store_, &res, err, file.sum);
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
    if (res.tail_dirty) log_->truncate_at_end();
  }
  commit_ = std::make_unique<GroupCommit>(log_.get());
  commit_->set_after_batch([this] { after_batch(); });
  return 0;
}

std::unique_lock<std::shared_mutex> Engine::lock_write() {
  std::unique_lock lk(mu_);
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
  if (head_written_) return commit_->stage(records, nrec);
  std::string unit = head_;  // the lazily written head shares the first unit's frame
  unit.append(records);
  uint64_t seq = commit_->stage(unit, nrec + 1);
  head_written_ = true;
  return seq;
}

void Engine::after_batch() {
  if (checkpoint_due(log_->end(), last_compacted_, ckpt_floor_, ckpt_ratio_)) compact(false);
}

// Stop-the-world: holds the write lock so nothing is applied or staged
// meanwhile. Skipped while a transaction is open (its rows are in RAM but
// must not be in a snapshot).
bool Engine::compact(bool forced) {
  auto t0 = std::chrono::steady_clock::now();
  std::unique_lock lk(mu_);
  if (owner_) return false;
  std::string err;
  int64_t size = write_checkpoint(log_->path(), store_, &err);
  if (size < 0) {
    if (!forced) last_compacted_ = log_->end();  // do not retry on every batch
    return false;
  }
  if (!log_->reopen(static_cast<uint64_t>(size), &err)) die_durability("open (after checkpoint)", log_->path(), errno, 0);
  commit_->absorb_staged();  // the snapshot holds every staged unit
  head_written_ = true;
  last_compacted_ = static_cast<uint64_t>(size);
  auto us = static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - t0).count());
  compactions_++;
  compact_us_total_ += us;
  compact_us_max_ = std::max(compact_us_max_, us);
  compacted_bytes_ += static_cast<uint64_t>(size);
  return true;
}

bool Engine::checkpoint_now() {
  if (!log_) return false;
  bool ok = false;
  commit_->run_as_leader([&] { ok = compact(true); });
  return ok;
}

}  // namespace wo::db
