// Group commit: staging, rounds, the log writer (see group_commit.h).
#include "group_commit.h"

#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <system_error>
#include <thread>

#include "../sched/external_wait.h"
#include "frame.h"

namespace wo::db {

namespace {
// Seqs go on growing from one store to the next in a process (tests reopen
// stores): the scheduler compares actors' `need` with one published durable
// seq (decision 0045), so a new store must not reuse the old one's numbers.
std::atomic<uint64_t> g_seq_floor{0};

// Sleeps while *word == seen (returns at once if it is not; spurious returns
// are fine: the caller loops).
void futex_wait(std::atomic<uint32_t>* word, uint32_t seen) {
  ::syscall(SYS_futex, reinterpret_cast<uint32_t*>(word), FUTEX_WAIT_PRIVATE, seen, nullptr, nullptr, 0);
}
void futex_wake_all(std::atomic<uint32_t>* word) {
  ::syscall(SYS_futex, reinterpret_cast<uint32_t*>(word), FUTEX_WAKE_PRIVATE, INT32_MAX, nullptr, nullptr, 0);
}
static_assert(sizeof(std::atomic<uint32_t>) == sizeof(uint32_t));
}  // namespace

GroupCommit::GroupCommit(LogFile* log) : log_(log), stage_(kStageReserve, '\0') {
  staged_seq_ = absorbed_ = g_seq_floor.load();
  durable_.store(staged_seq_);
}

uint64_t GroupCommit::stage(std::string_view records, uint32_t nrec) {
  uint64_t seq;
  bool herd_in;
  {
    std::lock_guard lk(stage_mu_);
    stage_.append(records);
    seq = ++staged_seq_;
    units_.push_back(Unit{stage_.size(), nrec, seq});
    g_seq_floor.store(seq, std::memory_order_relaxed);
    staged_recs_ += nrec;
    stats_.peak_staged = std::max(stats_.peak_staged, staged_recs_);
    herd_in = herd_target_ != 0 && units_.size() >= herd_target_;
  }
  // After unlocking: the leader it wakes takes stage_mu_ at once.
  if (herd_in) herd_cv_.notify_one();
  return seq;
}

uint64_t GroupCommit::flush_batch() {
  uint64_t last = 0;
  uint32_t nrec = 0;
  {
    std::unique_lock lk(stage_mu_);
    // The herd wait: the writers the last round woke stage again within
    // microseconds; a round started before they have would cover only the
    // first of them, and the rest would wait a whole fdatasync more.
    if (last_units_ > 1 && units_.size() < last_units_ && last_sync_ns_ > 0) {
      herd_target_ = last_units_;
      auto h0 = std::chrono::steady_clock::now();
      herd_cv_.wait_for(lk, std::chrono::nanoseconds(std::min<int64_t>(last_sync_ns_ / 2, 2'000'000)),
                        [&] { return units_.size() >= herd_target_; });
      herd_target_ = 0;
      stats_.herd_ns += std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - h0).count();
    }
    if (units_.empty()) {
      last_units_ = 0;
      return 0;
    }
    // Whole units up to kMaxFrame (at least one: a unit never exceeds it).
    size_t k = 1;
    while (k < units_.size() && units_[k].end - 8 + kFrameOverhead <= kMaxFrame) ++k;
    for (size_t i = 0; i < k; ++i) nrec += units_[i].nrec;
    last = units_[k - 1].seq;
    size_t cut = units_[k - 1].end;
    batch_.assign(kStageReserve, '\0');
    if (k == units_.size()) {
      std::swap(batch_, stage_);  // stage_ keeps the old batch buffer's capacity
    } else {
      batch_.append(stage_, kStageReserve, cut - kStageReserve);
      stage_.erase(kStageReserve, cut - kStageReserve);
      for (size_t i = k; i < units_.size(); ++i) units_[i].end -= cut - kStageReserve;
    }
    units_.erase(units_.begin(), units_.begin() + static_cast<ptrdiff_t>(k));
    last_units_ = k;
    staged_recs_ -= nrec;
    stats_.batches++;
    stats_.records += nrec;
    stats_.peak_batch = std::max<uint64_t>(stats_.peak_batch, nrec);
  }
  auto t0 = std::chrono::steady_clock::now();
  log_->append_durable(seal_frame(batch_, nrec), nrec);  // exits 74 on failure
  last_sync_ns_ = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0).count();
  std::lock_guard lk(stage_mu_);
  stats_.sync_ns += static_cast<uint64_t>(last_sync_ns_);
  return last;
}

uint64_t GroupCommit::take_absorbed() {
  std::lock_guard lk(stage_mu_);
  return absorbed_;
}

void GroupCommit::absorb_staged() {
  std::lock_guard lk(stage_mu_);
  stage_.resize(kStageReserve);
  units_.clear();
  staged_recs_ = 0;
  absorbed_ = staged_seq_;
}

void GroupCommit::wait(uint64_t seq) {
  // The round is asked for later (want), when the actor holds a message,
  // passes a barrier or ends its delivery: its further commits in this
  // receive join the same round, and a lone committer that then waits at a
  // barrier can still lead the round itself (wait_parked).
  if (sched::defer_commit(seq)) {
    std::lock_guard lk(sync_mu_);
    deferred_count_++;
    return;
  }
  wait_durable(seq);
}

void GroupCommit::wait_durable(uint64_t seq) {
  if (sched::can_park_here())
    wait_parked(seq);
  else
    wait_blocking(seq);
}

bool GroupCommit::start_writer() {
  if (writer_.joinable()) return true;
  try {
    writer_ = std::thread([this] { writer_main(); });
  } catch (const std::system_error&) {
    return false;  // no thread to write for us: wait the way threads do
  }
  return true;
}

bool GroupCommit::want(uint64_t seq) {
  bool kick;
  {
    std::lock_guard lk(sync_mu_);
    if (durable_ >= seq) return true;
    if (!start_writer()) return false;
    parked_want_ = std::max(parked_want_, seq);
    kick = writer_has_work();
  }
  if (kick) writer_cv_.notify_one();
  return true;
}

void GroupCommit::wait_parked(uint64_t seq) {
  sched::CallWait* w = nullptr;
  bool kick = false;
  {
    std::unique_lock lk(sync_mu_);
    // A lone committer (its shard has nothing else to run, no fd to watch)
    // leads the round itself on its shard's thread: the shard would only
    // idle meanwhile, and it saves two thread hand-offs (to the log writer
    // and back through the inbox). Not while the writer is held (tests).
    while (durable_ < seq && may_lead() && !writer_held_ && sched::shard_idle_but_caller()) {
      lead_round(lk, false);
      lk.lock();
    }
    if (durable_ >= seq) return;
    if (start_writer()) {
      w = sched::external_wait_new();
      parked_.push_back(Parked{seq, w});
      parked_want_ = std::max(parked_want_, seq);
      parked_count_++;
      peak_parked_ = std::max<uint64_t>(peak_parked_, parked_.size());
      kick = writer_has_work();
    }
  }
  if (!w) {
    wait_blocking(seq);
    return;
  }
  if (kick) writer_cv_.notify_one();
  sched::external_wait_park(w);  // Unwind at the program's end: not acknowledged
}

void GroupCommit::wait_blocking(uint64_t seq) {
  std::unique_lock lk(sync_mu_);
  while (durable_ < seq) {
    if (may_lead()) {
      lead_round(lk, true);
      if (durable_ >= seq) return;
      lk.lock();
      continue;
    }
    // A follower sleeps without the mutex (a condition variable would hand
    // sync_mu_ from one woken follower to the next: with 8 writers on 2
    // cores, 7 context switches in a row after every round).
    uint32_t seen = rounds_.load();  // under sync_mu_: the round's end bumps it later
    followers_++;
    lk.unlock();
    while (rounds_.load() == seen) futex_wait(&rounds_, seen);
    followers_--;
    if (durable_ >= seq) return;
    lk.lock();
  }
}

void GroupCommit::lead_round(std::unique_lock<std::mutex>& lk, bool yield) {
  leading_ = true;
  lk.unlock();
  // Let the writers the last round just released run first: they stage
  // their next records now and join this batch instead of the next one
  // (measured: 8 writers on 2 cores, ~28k -> ~36k inserts/s; a lone
  // writer loses nothing, it is the only runnable thread). Not the log
  // writer: the fibers it released run on their shards' threads, and on a
  // busy machine a yield costs it a whole time slice.
  if (yield) std::this_thread::yield();
  uint64_t done = flush_batch();
  if (after_batch_) after_batch_();
  done = std::max(done, take_absorbed());
  lk.lock();
  end_round(lk, done);
}

void GroupCommit::end_round(std::unique_lock<std::mutex>& lk, uint64_t done) {
  if (done > durable_) durable_ = done;
  // Before anyone is woken: a fiber resumed from its wait finds its actor's
  // held messages covered, and shards holding messages get a Durable item.
  sched::publish_durable(durable_);
  leading_ = false;
  rounds_.fetch_add(1);
  bool wake = followers_ > 0;
  sync_cv_.notify_all();
  std::vector<sched::CallWait*> ready;
  for (size_t i = 0; i < parked_.size();) {
    if (parked_[i].seq <= durable_) {
      ready.push_back(parked_[i].wait);
      parked_[i] = parked_.back();
      parked_.pop_back();
    } else {
      ++i;
    }
  }
  bool kick = writer_has_work();  // a thread led: fibers still wait
  // The wake-ups after unlocking: the woken (and the next committers) take
  // sync_mu_ at once, and a futex wake of several threads takes a while.
  lk.unlock();
  if (wake) futex_wake_all(&rounds_);
  if (kick) writer_cv_.notify_one();
  if (!ready.empty()) sched::external_wait_fire_all(ready.data(), ready.size());  // only now: durable
}

// The log writer: rounds for parked fibers, until the GroupCommit goes.
void GroupCommit::writer_main() {
  std::unique_lock lk(sync_mu_);
  for (;;) {
    writer_cv_.wait(lk, [&] { return writer_stop_ || writer_has_work(); });
    if (writer_has_work()) {
      lead_round(lk, false);
      lk.lock();
    } else
      return;  // stopping, nothing wanted
  }
}

void GroupCommit::hold_writer(bool held) {
  {
    std::lock_guard lk(sync_mu_);
    writer_held_ = held;
  }
  writer_cv_.notify_one();
}

void GroupCommit::run_as_leader(const std::function<void()>& fn) {
  std::unique_lock lk(sync_mu_);
  leader_asks_++;
  sync_cv_.wait(lk, [&] { return !leading_; });
  leader_asks_--;
  leading_ = true;
  lk.unlock();
  fn();
  uint64_t done = take_absorbed();
  lk.lock();
  end_round(lk, done);
}

void GroupCommit::drain() {
  uint64_t seq;
  {
    std::lock_guard lk(stage_mu_);
    seq = staged_seq_;
  }
  wait_blocking(seq);
}

GroupCommit::~GroupCommit() {
  {
    std::lock_guard lk(sync_mu_);
    writer_stop_ = true;
    writer_held_ = false;
  }
  writer_cv_.notify_one();
  if (writer_.joinable()) writer_.join();
  // Close drained: a wait still listed belongs to a fiber that unwound.
  for (const Parked& p : parked_) sched::external_wait_fire(p.wait);
}

CommitStats GroupCommit::stats() {
  CommitStats s;
  {
    std::lock_guard lk(stage_mu_);
    s = stats_;
  }
  std::lock_guard lk(sync_mu_);
  s.parked = parked_count_;
  s.deferred = deferred_count_;
  s.peak_parked = peak_parked_;
  return s;
}

}  // namespace wo::db
