// Group commit (§1.11): writers stage their records under the engine's
// write lock, then wait until a round of group commit has written them: one
// round takes everything staged so far, writes it as ONE frame with one
// pwrite and one fdatasync, publishes how far the log is durable and wakes
// whoever that covers. Nothing to tune: a lone writer pays one fdatasync per
// statement, N concurrent writers share one. The batch boundary is "what was
// staged when the round began" (orig's "queue empty"), with one refinement,
// the herd wait: when the last round covered several units, the next one
// first waits for as many to be staged - the writers it just woke coming
// back - for at most half the last fdatasync's time. Without it 8 writers
// settle into rounds of ~2 and ~6 (4x one writer, not 8x): the first to
// come back starts a round before the others have staged.
//
// Who waits (docs/decisions/0045-held-messages.md): a commit made in an
// actor's receive does not wait at all. The actor records the seq it depends
// on (sched::defer_commit), the log writer is asked for a round, and the
// scheduler holds the actor's messages until publish_durable covers them.
//
// Who runs a round (docs/decisions/0034-commits-park-fibers.md):
// - A fiber on a scheduler shard never does: it parks (its shard runs other
//   fibers meanwhile, which may stage more units into the same round) and
//   the log writer - a thread of this GroupCommit's own, started at the
//   first such wait - runs the round and posts each covered fiber a wake-up
//   to its shard, the way a `call` reply travels.
// - Any other thread (no scheduler, a C ABI user, checkpoint, close): the
//   first one that finds no round running leads the next one itself
//   (leader/follower), so a lone thread pays no hand-off; the others sleep
//   on a round counter (a futex) that one wake-up at the round's end
//   releases all at once, and a covered follower returns without taking
//   the mutex again (docs/decisions/0072-commit-rounds-wake-once.md).
// Either way at most one round runs at a time (`leading_`), and a thread
// asking for run_as_leader (checkpoint, close) is let in right after the
// round in flight: nobody starts another while it waits (`leader_asks_`).
//
// Units (a statement's record, or a whole transaction) are never split
// across frames, so group commit cannot make part of a transaction durable
// (runtime.md §2.5.2), and a torn write loses whole units only (§2.5.3).
// A wait returns only once its unit is durable; a fiber unwound while
// parked (the program's end) was never told, and its unit is still written.
#pragma once
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "log_file.h"

namespace wo::sched {
struct CallWait;
}

namespace wo::db {

struct CommitStats {
  uint64_t batches = 0;
  uint64_t records = 0;
  uint64_t peak_batch = 0;    // records in one frame
  uint64_t peak_staged = 0;   // records waiting at once
  uint64_t deferred = 0;      // commits of actors that did not wait (decision 0045)
  uint64_t parked = 0;        // waits that parked a fiber
  uint64_t peak_parked = 0;   // fibers parked at once
  uint64_t sync_ns = 0;       // in the rounds' pwrite + fdatasync
  uint64_t herd_ns = 0;       // in the herd wait before a round's batch
};

class GroupCommit {
 public:
  explicit GroupCommit(LogFile* log);
  ~GroupCommit();  // stops the log writer (close drains first)

  // Called with the engine's write lock held, so log order is RAM order:
  // queues one unit of `nrec` sub-records and returns its sequence number.
  uint64_t stage(std::string_view records, uint32_t nrec);
  // Called with no engine lock held, after a statement or transaction staged
  // unit `seq`: from an actor's receive it returns at once (the actor's
  // messages are held until `seq` is durable); otherwise as wait_durable.
  void wait(uint64_t seq);
  // Returns once unit `seq` is durable (parking the calling fiber, or
  // blocking the calling thread; see above). A fiber may get sched::Unwind
  // instead: its unit was not acknowledged.
  void wait_durable(uint64_t seq);
  // Asks the log writer for a round covering `seq` without waiting for it;
  // false when there is no log writer (then the caller must wait).
  bool want(uint64_t seq);
  // Runs `fn` while this thread is the leader (no round in flight).
  void run_as_leader(const std::function<void()>& fn);
  // The leader runs this after each batch (the checkpoint trigger).
  void set_after_batch(std::function<void()> fn) { after_batch_ = std::move(fn); }
  // A checkpoint holding the engine's write lock wrote every staged unit
  // into its snapshot: they are durable now and must not be written again.
  void absorb_staged();
  // Writes whatever is staged, blocking the calling thread (at close).
  void drain();
  // Tests: while held, the log writer starts no round, so fibers stay parked.
  void hold_writer(bool held);

  CommitStats stats();

 private:
  struct Unit {
    size_t end;      // offset in stage_ just past the unit
    uint32_t nrec;
    uint64_t seq;
  };
  struct Parked {
    uint64_t seq;
    sched::CallWait* wait;
  };
  uint64_t flush_batch();   // leader only; returns the last seq written (0: none)
  uint64_t take_absorbed();
  void wait_parked(uint64_t seq);
  bool start_writer();  // sync_mu_ held
  void wait_blocking(uint64_t seq);
  // With sync_mu_ held (via lk) and no round running: runs one; lk is
  // released on return (the wake-ups run outside it).
  void lead_round(std::unique_lock<std::mutex>& lk, bool yield);
  // The leader, lk held: publishes `done`, ends its round, releases lk and
  // wakes whom it covers.
  void end_round(std::unique_lock<std::mutex>& lk, uint64_t done);
  // sync_mu_ held: no round runs and none is asked for by run_as_leader.
  bool may_lead() const { return !leading_ && leader_asks_ == 0; }
  bool writer_has_work() const { return !writer_held_ && may_lead() && parked_want_ > durable_; }
  void writer_main();

  LogFile* log_;
  std::function<void()> after_batch_;

  std::mutex stage_mu_;     // taken inside the engine's write lock, never the reverse
  std::string stage_;       // kStageReserve bytes, then the units' sub-records
  std::vector<Unit> units_;
  uint64_t staged_seq_ = 0;
  uint64_t staged_recs_ = 0;
  uint64_t absorbed_ = 0;
  CommitStats stats_;

  std::mutex sync_mu_;      // never held together with stage_mu_
  std::condition_variable sync_cv_;    // run_as_leader: a round ended
  std::atomic<uint64_t> durable_{0};   // written under sync_mu_; followers read it without
  bool leading_ = false;
  // run_as_leader calls waiting for the current round to end. While any
  // waits, nobody else starts a round: a thread that commits back to back
  // retakes sync_mu_ before the woken caller runs, and kept a checkpoint's
  // install out for hundreds of rounds (205 ms seen in a test).
  uint32_t leader_asks_ = 0;
  // Threads following a round sleep on this counter (a futex), bumped under
  // sync_mu_ at each round's end: one wake-up releases them all, and a
  // covered follower returns without taking sync_mu_ (wait_blocking).
  std::atomic<uint32_t> rounds_{0};
  std::atomic<uint32_t> followers_{0}; // threads asleep on rounds_ (added under sync_mu_)
  std::vector<Parked> parked_;         // fibers waiting, in no particular order
  uint64_t parked_want_ = 0;           // the highest seq a parked fiber waits for
  uint64_t parked_count_ = 0, peak_parked_ = 0, deferred_count_ = 0;
  std::condition_variable writer_cv_;  // the log writer: a fiber waits for a round
  std::thread writer_;                 // started at the first parked wait
  bool writer_stop_ = false;
  bool writer_held_ = false;

  std::string batch_;       // the leader's frame buffer (swapped with stage_)

  // The herd wait (see the top): the leader's wait for `herd_target_` staged
  // units (stage_mu_), notified by stage(); the last round's units and its
  // write+fdatasync time (leader only).
  std::condition_variable herd_cv_;
  size_t herd_target_ = 0;
  size_t last_units_ = 0;
  int64_t last_sync_ns_ = 0;
};

}  // namespace wo::db
