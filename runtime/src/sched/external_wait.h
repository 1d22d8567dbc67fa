// A fiber parked until a thread outside the scheduler says so: how the
// store's log writer (runtime/src/db/group_commit.cpp) lets a committing
// fiber give its shard to other fibers while its fdatasync runs, and wakes
// it afterwards through the shard's inbox, as a `call` reply does.
//
// Kept free of sched.h so the store does not see the scheduler's model.
#pragma once
#include <cstddef>
#include <cstdint>

namespace wo::sched {

struct CallWait;

// The calling thread runs a shard fiber that may park now: the scheduler
// runs, this is not its own context, the program is not ending (teardown
// unwinds parks) and no transaction is open (a transaction never parks).
bool can_park_here();

// While one lives on a thread, can_park_here() is false there: a wait made
// while holding what the shard's other fibers may need (the store's write
// lock) blocks the thread instead of parking the fiber.
class NoParkScope {
 public:
  NoParkScope();
  ~NoParkScope();
  NoParkScope(const NoParkScope&) = delete;
  NoParkScope& operator=(const NoParkScope&) = delete;
};

// A wait for the calling fiber (can_park_here() was true), to be handed to
// another thread before the fiber parks on it. Two owners: the parker and
// the firer, each letting go exactly once.
CallWait* external_wait_new();

// Parks the calling fiber until `w` fires; returns at once if it already
// has. A stop signal does not end this park, nor refuse it for `main` (the
// firer's work is bounded: one fdatasync); the program's end does, by
// throwing Unwind, and the fire that comes later finds nobody waiting.
void external_wait_park(CallWait* w);

// Any thread: the fiber parked on `w` becomes runnable on its shard. Safe
// after the scheduler that made `w` has ended (it only lets go of `w`).
void external_wait_fire(CallWait* w);
// The same for `n` waits at once (a round of group commit): one post, so one
// wake-up, per shard instead of one per fiber.
void external_wait_fire_all(CallWait* const* ws, size_t n);

// Held messages (held.cpp, docs/decisions/0045). A commit staged `seq`: when
// the calling fiber runs an actor's receive (and could park), the actor now
// depends on `seq` and the caller must not wait; true then. Its messages
// are held until the durable seq covers `seq`, its other effects park.
bool defer_commit(uint64_t seq);

// The store's log writer, after each round: the log is durable up to `seq`
// (seqs only grow, across stores too). Called before the round's parked
// waits fire, so a woken fiber sees durable_seq() >= its seq. Posts each
// shard that holds messages a Durable item. Safe with no scheduler.
void publish_durable(uint64_t seq);
uint64_t durable_seq();

// The calling fiber's shard has nothing else to run now: no runnable fiber
// or actor, no mail in its inbox, no fd watched, no timer or park deadline
// due (group_commit's lone leader).
bool shard_idle_but_caller();

}  // namespace wo::sched
