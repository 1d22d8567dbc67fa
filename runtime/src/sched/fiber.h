// sched::Fiber, one execution context, in a header of its own: the park
// deadlines' heap (deadlines.cpp) reads a fiber's deadline fields, and
// sched.h holds that heap in each Shard; with Fiber in sched.h the two
// included each other. Include sched.h for the rest of the model.
#pragma once
#include <boost/context/fiber.hpp>

#include <cstddef>
#include <cstdint>

namespace wo::sched {

struct Shard;
struct Actor;

// A fiber's deadline_slot while it has no deadline in its shard's
// ParkDeadlines (ParkDeadlines::kNotQueued).
inline constexpr size_t kDeadlineNotQueued = SIZE_MAX;

// Fiber, Actor, Shard and Runtime each start on their own cache line
// (sched.h says why).
// One execution context: `main` (on its thread's own stack), a shard's
// scheduler, or a pooled delivery fiber.
struct alignas(64) Fiber {
  boost::context::fiber cont;   // how to resume it while it is suspended
  Shard* shard = nullptr;
  uintptr_t stack_limit = 0;
  void* tsan = nullptr;
  const void* stack_lo = nullptr;   // the stack's bounds (for AddressSanitizer)
  size_t stack_size = 0;
  void* asan_fake = nullptr;
  Actor* task = nullptr;        // delivery fibers: the actor to run next (nullptr: exit)
  Actor* serving = nullptr;     // the actor whose receive this fiber is running
  uint64_t park_id = 0;         // bumped at every park; stale wake-ups carry an old one
  int64_t deadline_us = 0;      // while parked with a deadline: when it ends (ParkDeadlines)
  uint64_t deadline_seq = 0;
  size_t deadline_slot = kDeadlineNotQueued;
  bool parked = false;
  bool pooled = false;          // in its shard's idle pool (a delivery fiber between tasks)
  bool cancel = false;          // resume by throwing Unwind
  bool stop_proof = false;      // parked in a wait a stop signal does not end (a commit's fdatasync)
  bool finished = false;
  bool is_main = false;
  bool native = false;          // runs on its thread's own stack (main, a worker's scheduler)
  Fiber* exit_to = nullptr;     // where a finishing fiber switches
};

}  // namespace wo::sched
