// Group commit (§1.11): writers stage their records and then wait; the first
// waiter that finds nobody writing becomes the leader, takes everything
// staged so far, writes it as ONE frame with one pwrite and one fdatasync,
// publishes how far the log is durable and wakes the others; a waiter whose
// unit is not covered yet leads the next round. No timer and nothing to
// tune: a lone writer pays one fdatasync per statement, N concurrent
// writers share one. The batch boundary is "what was staged when the
// leader looked" (orig's "queue empty").
//
// Units (a statement's record, or a whole transaction) are never split
// across frames, so group commit cannot make part of a transaction durable
// (runtime.md §2.5.2), and a torn write loses whole units only (§2.5.3).
#pragma once
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "log_file.h"

namespace wo::db {

struct CommitStats {
  uint64_t batches = 0;
  uint64_t records = 0;
  uint64_t peak_batch = 0;    // records in one frame
  uint64_t peak_staged = 0;   // records waiting at once
};

class GroupCommit {
 public:
  explicit GroupCommit(LogFile* log);

  // Called with the engine's write lock held, so log order is RAM order:
  // queues one unit of `nrec` sub-records and returns its sequence number.
  uint64_t stage(std::string_view records, uint32_t nrec);
  // Called with no engine lock held: returns once unit `seq` is durable.
  void wait(uint64_t seq);
  // Runs `fn` while this thread is the leader (no batch in flight).
  void run_as_leader(const std::function<void()>& fn);
  // The leader runs this after each batch (the checkpoint trigger).
  void set_after_batch(std::function<void()> fn) { after_batch_ = std::move(fn); }
  // A checkpoint holding the engine's write lock wrote every staged unit
  // into its snapshot: they are durable now and must not be written again.
  void absorb_staged();
  // Writes whatever is staged (at close).
  void drain();

  CommitStats stats();

 private:
  struct Unit {
    size_t end;      // offset in stage_ just past the unit
    uint32_t nrec;
    uint64_t seq;
  };
  uint64_t flush_batch();   // leader only; returns the last seq written (0: none)
  uint64_t take_absorbed();

  LogFile* log_;
  std::function<void()> after_batch_;

  std::mutex stage_mu_;     // taken inside the engine's write lock, never the reverse
  std::string stage_;       // kStageReserve bytes, then the units' sub-records
  std::vector<Unit> units_;
  uint64_t staged_seq_ = 0;
  uint64_t staged_recs_ = 0;
  uint64_t absorbed_ = 0;
  CommitStats stats_;

  std::mutex sync_mu_;      // never held together with the other two
  std::condition_variable sync_cv_;
  uint64_t durable_ = 0;
  bool leading_ = false;

  std::string batch_;       // the leader's frame buffer (swapped with stage_)
};

}  // namespace wo::db
