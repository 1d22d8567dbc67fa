// The C ABI of actors, fibers and timers (runtime.md §3, language.md §14):
// what generated code calls for `spawn`, `send`, `call`, `monitor`,
// `time.after`, `time.sleep` and the loop back-edge preemption check.
// Implemented in runtime/src/sched/; the design is in
// docs/decisions/0018-actors-and-fibers.md.
//
// Values cross as 64-bit words as in wo_runtime.h. An actor address is a
// heap value: a pointer to a counted handle (a WoHeader object) naming the
// actor, NULL for the nil of `?actor M` (docs/decisions/0079). Copies retain
// the handle, drops release it, and an actor nothing names any more is
// destroyed once it is idle. Two addresses are the same actor when
// wo_actor_same says so (two handles may name one actor). The functions
// below borrow the address they are given; wo_spawn returns an owned one.
//
// Messages (and the state of a spawned actor) are described by a WoTypeDesc
// of their static type: the runtime needs it to deep-copy a value that
// crosses to another shard (thread) and to release a message nobody will
// receive. Every function here that takes a message takes ownership of it,
// also when it traps (the runtime releases it then, like wo_list_push).
#ifndef WO_ACTOR_H
#define WO_ACTOR_H

#include <stdint.h>

#include "wo_runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

// ---- per-fiber state read inline by generated code ----------------------------
// Each shard thread has one WoFiberLocal; the scheduler loads the running
// fiber's values into it on every switch. Generated code reaches it without a
// call: llvm.thread.pointer() + wo_fiber_local_offset (the offset is the same
// on every thread: the runtime's TLS is static).
typedef struct WoFiberLocal {
  int64_t budget;          // loop back-edges left in this slice; at <= 0 call wo_yield()
  uintptr_t stack_limit;   // the lowest frame address allowed (STACK trap below it)
} WoFiberLocal;

extern int64_t wo_fiber_local_offset;

// Loop back-edge slow path: refills the budget (WO_REDUCTIONS, default 4000)
// and moves the running fiber to the tail of its shard's run queue when it
// may yield (never inside an open transaction). Returns when the fiber runs
// again; after the program's end it raises the fiber-unwind exception (not a
// trap: `try` does not catch it).
void wo_yield(void);

// ---- actor classes --------------------------------------------------------------
// One constant per spawned class, emitted by codegen.
typedef struct WoActorType {
  const char* name;                                 // the class name
  // Calls `receive` on the state with the message (both borrowed) and returns
  // the reply as a word (Int as is, Bool 0/1, Float bits, an address); 0 when
  // receive returns nothing. Traps propagate as C++ exceptions.
  uint64_t (*receive)(void* state, uint64_t msg);
  const WoTypeDesc* state;                          // WO_TY_CLASS of the class
  const WoTypeDesc* msg;                            // the message type M
  // 1 when receive returns an address: the reply word is then an owned
  // handle (released by the runtime when nobody reads it), else 0.
  int64_t reply_address;
} WoActorType;

// `a == b` on addresses (either may be NULL, the nil of `?actor M`).
bool wo_actor_same(int64_t a, int64_t b);

// `deep_copy(x)` (docs/decisions/0032): a copy of `value` (a heap value of
// type `type`, or NULL for nil) that shares nothing mutable with it, made by
// the copier that moves messages across shards; `value` stays the caller's.
void* wo_deep_copy(void* value, const WoTypeDesc* type);

// `spawn C { ... }`: takes the state object; places the actor round-robin on
// a shard; runs none of its code. Returns the address.
int64_t wo_spawn(void* state, const WoActorType* type, const WoSite* site);

// `send(addr, msg)`: nil address -> BOUNDS `send: nil actor address`; nil
// message -> BOUNDS `send: nil message`; full mailbox -> ACTOR `actor mailbox
// full`; a dead actor -> silent drop. Never yields.
void wo_send(int64_t addr, uint64_t msg, const WoTypeDesc* msg_type, const WoSite* site);

// `call(addr, msg)`: parks the calling fiber until the receive returns and
// returns its reply word. ACTOR `actor died during call` when the callee is
// dead or dies first; ACTOR `call to the calling actor would deadlock` for
// a call to the actor running the call and `call cycle would deadlock` for
// one that closes a cycle of parked receives on this shard
// (docs/decisions/0018); DB `cannot park inside a transaction`.
uint64_t wo_call(int64_t addr, uint64_t msg, const WoTypeDesc* msg_type, const WoSite* site);

// `call_dl(addr, msg, ms)`: `call` with a deadline. True with the reply word
// in *reply when the receive returned within `ms` milliseconds; false when
// it did not (the message stays queued and is handled; its reply is dropped,
// never delivered to a later call) or when a stop signal ended the wait of
// `main` (the `_dl` rule). ms <= 0: no deadline, as `call`. Traps as `call`.
bool wo_call_dl(int64_t addr, uint64_t msg, const WoTypeDesc* msg_type, int64_t ms, uint64_t* reply,
                const WoSite* site);

// `monitor(watched, observer, notice)`: `notice` goes to `observer` when
// `watched` dies (at once when it is already dead). Never yields.
void wo_monitor(int64_t watched, int64_t observer, uint64_t notice, const WoTypeDesc* notice_type,
                const WoSite* site);

// `time.after(ms, addr, msg)`: delivers `msg` after `ms` ms of wall-clock
// time; ms <= 0 enqueues it during the call (held behind the sending actor's
// commits that are not durable yet, like a send). With ms > 0 from such an
// actor it first parks until they are durable (decision 0045); otherwise it
// never yields.
void wo_time_after(int64_t ms, int64_t addr, uint64_t msg, const WoTypeDesc* msg_type, const WoSite* site);

// `time.sleep(ms)` (declared in wo_runtime.h) parks the calling fiber.

// Ends the actor system once `main` has returned: every other fiber is
// unwound, actors' state and queued messages are released, worker shards are
// joined. Generated code calls it after `main` returns and before
// wo_db_close; wo_start calls it too (a no-op the second time).
void wo_sched_shutdown(void);

// Before an externally visible effect made from an actor's receive (output,
// a socket or file write, a process): parks until every commit that actor
// made is durable and the messages held behind them are sent (decision
// 0045). A no-op elsewhere and when nothing is pending. The runtime's own
// effect builtins call it; a C ABI user writing on its own must too.
void wo_sched_durable_barrier(void);

#ifdef __cplusplus
}
#endif
#endif
