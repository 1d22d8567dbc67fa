// What shard.cpp and actor.cpp share beyond sched.h: the process-wide
// runtime record, created at the first spawn and destroyed by shutdown().
#pragma once
#include <atomic>
#include <mutex>
#include <vector>

#include "sched.h"

namespace wo::sched {

struct alignas(64) Runtime {
  // Read on every message by every shard; written only at start and at the end.
  std::vector<Shard*> shards;          // fixed once the workers start
  Fiber* main = nullptr;               // `main`, on shard 0
  std::atomic<bool> shutdown{false};
  // The stop drain (decision 0027): after a SIGTERM/SIGINT ended `main`,
  // shard 0 lets deliveries in progress finish until all shards are quiet or
  // the grace deadline passes, then sets `shutdown`.
  std::atomic<bool> draining{false};
  int64_t drain_deadline_us = 0;       // shard 0 only
  int quiet_checks = 0;                // shard 0 only: consecutive quiet observations
  bool stop_broadcast = false;         // shard 0 only: every shard was told of the stop
  int64_t mailbox_cap = 1024;
  uint64_t epoch = 0;                  // this scheduler's number (ActorRef::epoch)
  // WO_PLACEMENT=spread: spawns go round-robin over the shards and no actor
  // moves (placement.cpp); next_spawn is the round-robin's counter.
  bool spread = false;
  alignas(64) std::atomic<uint64_t> next_spawn{0};
};

Runtime* runtime_record();             // the running scheduler's record (nullptr before start, after the end)
std::vector<Actor*> actors_of(Shard* s);
void unref_wait(CallWait* w);
// A call record from this thread's list of recycled ones (else new), and its
// return to that list (poisoned there under ASan, decision 0077).
CallWait* new_wait();
void free_wait(CallWait* w);
void shutdown();
// From here on a thread outside the scheduler that fires an external wait
// (external_wait.h) no longer posts to this scheduler's shards.
void close_external_waits();
void open_external_waits(Runtime* rt);  // publish_durable posts to its shards from now on
}  // namespace wo::sched
