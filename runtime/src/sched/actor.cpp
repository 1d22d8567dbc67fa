// Actors (runtime.md §3.1–§3.8): spawn, send, call, monitor, time.after,
// delivery one message at a time on the home shard, and death.
//
// An actor's mailbox, state and monitors belong to its home shard. Another
// shard reaches them only by posting to the home shard's inbox, after
// deep-copying the value (marshal.cpp). What any thread may touch: the
// `pending` counter that enforces the mailbox cap (reserved by the sender,
// released when the home shard takes the message for delivery) and `dead`.
#include <cstdio>
#include <string>

#include "../core/asan_poison.h"
#include "../core/backtrace.h"
#include "../core/heap.h"
#include "../core/observe.h"
#include "../core/trap.h"
#include "common/traps.h"
#include "shard_internal.h"
#include "wo_db.h"

namespace wo::sched {

namespace {

constexpr int64_t kActor = static_cast<int64_t>(TrapCode::ACTOR);
constexpr int64_t kBounds = static_cast<int64_t>(TrapCode::BOUNDS);
constexpr int64_t kDb = static_cast<int64_t>(TrapCode::DB);
constexpr const char* kDiedDuringCall = "actor died during call";

// Owns a message until it is handed on: released (by its descriptor) when a
// check traps or the message is dropped.
class MsgGuard {
 public:
  MsgGuard(uint64_t msg, const WoTypeDesc* type) : msg_(msg), type_(type) {}
  MsgGuard(const MsgGuard&) = delete;
  MsgGuard& operator=(const MsgGuard&) = delete;
  ~MsgGuard() {
    if (owned_) release_value(msg_, type_);
  }
  uint64_t disown() {
    owned_ = false;
    return msg_;
  }

 private:
  uint64_t msg_;
  const WoTypeDesc* type_;
  bool owned_ = true;
};

// The actor a handle names (the handle is borrowed: the caller holds it).
Actor* actor_of(int64_t addr, const char* op, const WoSite* site) {
  if (addr == 0) raise(kBounds, site, (std::string(op) + ": nil actor address").c_str());
  return ref_actor(addr);
}

void need_message(uint64_t msg, const WoTypeDesc* type, const char* op, const WoSite* site) {
  if (is_nil(msg, type)) raise(kBounds, site, (std::string(op) + ": nil message").c_str());
}

// Takes a slot of the actor's mailbox cap. Acquire: a slot taken after the
// actor changed shards sees its new home (placement.cpp).
bool reserve(Actor* a) {
  int64_t before = a->pending.fetch_add(1, std::memory_order_acq_rel);
  if ((before & ~kMoving) >= mailbox_cap()) {
    a->pending.fetch_sub(1, std::memory_order_relaxed);
    return false;
  }
  if (before & kMoving) wait_for_move(a);
  return true;
}

// Would `caller` (the actor running this call, or nullptr for main) wait on
// itself through `target`? Follows the chain of receives parked in calls,
// across shards. The caller publishes its own link (caller -> target) before
// it looks (wo_call), and every link is a sequentially consistent atomic: of
// several actors closing one cycle at once, the last to publish sees all the
// other links, so at least one of them traps instead of all parking for ever.
// A link is cleared by the callee's shard as it sends the reply
// (complete_call), so a call that has been answered never looks parked.
// Links are tagged pointers (an Actor is 64-byte aligned): the low bits tell
// one call from the next, so a late reply never clears a newer call's link.
bool closes_call_cycle(Actor* caller, Actor* target) {
  if (!caller) return false;
  int hops = 0;
  for (Actor* x = target; x && hops < 100000; x = link_actor(x->waiting_on.load()), ++hops)
    if (x == caller) return true;
  return false;
}

void refuse_in_transaction(const char* what, const WoSite* site) {
  if (wo_tx_active()) raise(kDb, site, what);
}

// `wovm: fiber trap <code> at <method>:<line>: <msg>` (runtime.md §3.6),
// then (unless WO_BACKTRACE=0) which actor's receive died, where:
// `  in Worker.receive at FILE:LINE`, the receive's frame in the trap's call
// chain, read from the DWARF as an uncaught trap's chain is (no location
// when that frame cannot be found: a stripped program, a receive turned
// into a tail call) (docs/decisions/0092).
void report_death(const Actor* a, const Trap& t) {
  std::string line = "wovm: fiber trap " + std::to_string(t.code) + " at " + t.method + ":" +
                     std::to_string(t.line) + ": " + t.msg + "\n";
  if (backtrace_enabled()) {
    std::string receive = std::string(a->type->name) + ".receive";
    std::string where = trap_frame_line(t, receive);
    line += where.empty() ? "  in " + receive + "\n" : where;
  }
  std::fflush(stdout);
  std::fwrite(line.data(), 1, line.size(), stderr);
  std::fflush(stderr);
}

void die(Actor* a, const Trap& t, CallWait* in_flight) {
  // Its death report, notices and the dying call's answer are effects like
  // any other: after what it committed is durable and its held messages are
  // out (decision 0045). The program's end may unwind the wait: nothing runs
  // user code after that, so the death goes on.
  try {
    durable_barrier_for(a);
  } catch (const Unwind&) {
  }
  report_death(a, t);
  a->dead.store(true, std::memory_order_release);
  if (in_flight) complete_call(in_flight, 0, true);
  while (!a->mailbox.empty()) {
    Envelope e = a->mailbox.pop();
    a->pending.fetch_sub(1, std::memory_order_relaxed);
    release_value(e.msg, e.type);
    if (e.wait) complete_call(e.wait, 0, true);
  }
  void* state = a->state;
  a->state = nullptr;
  wo_release(state);
  std::vector<Monitor> monitors;
  monitors.swap(a->monitors);
  for (Monitor& m : monitors) {
    runtime_send(m.observer, m.notice, m.type, "death notice", "observer");
    unref_actor(m.observer);  // the monitor's reference (wo_monitor)
  }
}

}  // namespace

namespace {
// Recycled call records: a call costs no malloc in the steady state. A record
// freed on another shard joins that thread's list; it is plain memory. Under
// ASan a listed record is poisoned, so a late read of a finished call's record
// is reported as after a delete (decision 0077).
struct FreeWaits {
  std::vector<CallWait*> list;
  ~FreeWaits() {
    for (CallWait* w : list) {
      wo::asan_unpoison(w, sizeof(CallWait));
      delete w;
    }
  }
};
thread_local FreeWaits t_free_waits;
}  // namespace

CallWait* new_wait() {
  if (t_free_waits.list.empty()) return new CallWait;
  CallWait* w = t_free_waits.list.back();
  t_free_waits.list.pop_back();
  wo::asan_unpoison(w, sizeof(CallWait));
  w->~CallWait();
  return new (w) CallWait;
}

void free_wait(CallWait* w) {
  if (t_free_waits.list.size() < 256) {
    t_free_waits.list.push_back(w);
    wo::asan_poison(w, sizeof(CallWait));
  } else {
    delete w;
  }
}

// Hands an owned message (already counted in `pending`) to the actor's home
// shard: directly when that is this shard, else as a deep copy.
void enqueue(Actor* a, uint64_t msg, const WoTypeDesc* type, CallWait* wait) {
  Shard* home = a->home_shard();
  if (home == current_shard()) {
    a->mail_streak = 0;  // mail from its own shard: it is where it belongs
    accept_mail(a, Envelope{msg, type, wait});
    return;
  }
  uint64_t copy;
  try {
    copy = copy_value(msg, type);
  } catch (...) {
    a->pending.fetch_sub(1, std::memory_order_relaxed);
    release_value(msg, type);
    throw;
  }
  release_value(msg, type);
  InboxItem it{InboxItem::Mail};
  it.actor = a;
  it.env = Envelope{copy, type, wait};
  it.from = current_shard();
  Fiber* me = current_fiber();
  it.sender = me && me->serving ? static_cast<const void*>(me->serving) : me;
  post(home, it);
}

void unref_wait(CallWait* w) {
  if (w->refs.fetch_sub(1, std::memory_order_acq_rel) != 1) return;
  if (w->counts_caller) unref_actor(w->caller_actor);  // complete_call is done with it
  free_wait(w);
}

void accept_mail(Actor* a, Envelope env) {
  DeferCollect later;  // complete_call below may free actors; `a` is looked at after it
  if (a->dead.load(std::memory_order_relaxed)) {
    a->pending.fetch_sub(1, std::memory_order_relaxed);
    release_value(env.msg, env.type);
    if (env.wait) complete_call(env.wait, 0, true);
    maybe_collect(a);  // that was the last thing in flight to a dead actor nobody names
    return;
  }
  a->mailbox.push(env);
  if (!a->queued && !a->running) {
    a->queued = true;
    count_active(a, 1);
    push_run(current_shard(), Runnable{nullptr, a});
  }
}

// Takes the two references wo_monitor counted: the observer's stays with
// the monitor (released when the notice is sent or the monitor dropped),
// the watched actor's ends here.
void accept_watch(Actor* watched, Actor* observer, uint64_t notice, const WoTypeDesc* type) {
  if (watched->dead.load(std::memory_order_relaxed)) {
    runtime_send(observer, notice, type, "death notice", "observer");
    unref_actor(observer);
  } else {
    watched->monitors.push_back(Monitor{observer, notice, type});
  }
  unref_actor(watched);
}

void complete_call(CallWait* w, uint64_t reply, bool died) {
  if (w->caller_actor) {
    // Answered: the caller no longer waits on the callee. Only if the link is
    // still this call's: a caller whose call_dl gave up may have called the
    // same actor again, and that call's link carries another tag.
    uintptr_t expected = w->link;
    w->caller_actor->waiting_on.compare_exchange_strong(expected, 0);
  }
  w->reply = reply;
  w->died = died;
  if (w->shard == current_shard()) {
    finish_wake(w);
    return;
  }
  InboxItem it{InboxItem::Wake};
  it.wait = w;
  post(w->shard, it);
}

void finish_wake(CallWait* w) {
  w->replied = true;
  if (!w->abandoned)
    wake(w->caller, w->park_id);
  else
    release_reply(w);  // nobody will read it
  unref_wait(w);
}

void runtime_send(Actor* target, uint64_t msg, const WoTypeDesc* type, const char* what, const char* whose,
                  Actor* from) {
  if (target->dead.load(std::memory_order_relaxed)) {
    release_value(msg, type);
    return;
  }
  if (!reserve(target)) {
    release_value(msg, type);
    std::fflush(stdout);
    std::fprintf(stderr, "wovm: %s dropped \xE2\x80\x94 the %s's mailbox is full\n", what, whose);
    return;
  }
  send_or_hold(from, target, msg, type, nullptr);
}

void deliver(Fiber* self, Actor* a) {
  observed_outside();  // a message: news from another actor
  Envelope env = a->mailbox.pop();
  a->pending.fetch_sub(1, std::memory_order_relaxed);
  a->fresh = false;
  a->moved = false;
  self->serving = a;
  uint64_t reply = 0;
  bool trapped = false, unwound = false;
  Trap trap;
  try {
    reply = a->type->receive(a->state, env.msg);
  } catch (const Unwind&) {
    unwound = true;
  } catch (...) {
    trapped = true;
    trap = current_trap();
  }
  // Outside the handlers: what follows may run generated code (drops) and
  // must never switch fibers inside a C++ catch block.
  self->serving = nullptr;
  release_value(env.msg, env.type);
  if (a->type->reply_address && reply) {
    // An address: an owned handle of this shard. A `send` drops it; a
    // caller on another shard gets a handle of its own (the one made here
    // may be shared with the state: its count is this shard's alone).
    if (!env.wait || unwound) {
      wo_release(reinterpret_cast<void*>(reply));
      reply = 0;
    } else if (env.wait->shard != current_shard()) {
      ActorRef* own = nullptr;
      try {
        own = new_ref(ref_actor(static_cast<int64_t>(reply)));
      } catch (...) {
        unwound = true;  // out of memory: the caller hears of no reply (`died`), nothing escapes the fiber
      }
      wo_release(reinterpret_cast<void*>(reply));
      reply = reinterpret_cast<uint64_t>(own);
    }
  }
  if (trapped) {
    die(a, trap, env.wait);
  } else if (env.wait) {
    reply_or_hold(a, env.wait, reply, unwound);  // held while a commit of `a` is not durable
  }
  ask_durable(a);  // what it committed goes to disk even when nothing waits for it
  a->running = false;
  if (!a->dead.load(std::memory_order_relaxed) && !a->mailbox.empty() && !a->queued) {
    a->queued = true;
    push_run(current_shard(), Runnable{nullptr, a});
  } else if (!a->queued) {
    count_active(a, -1);
    // Idle now: destroyed if nothing names it any more (the common case, a
    // named actor, costs one load).
    if (a->refs.load(std::memory_order_relaxed) <= a->addr_fields) maybe_collect(a);
  }
}

namespace {
// The body of `call` and `call_dl`: sends `msg` with a CallWait and parks
// until the reply, or until `deadline_us` (>= 0) passes. Returns false on
// the deadline (or, for `call_dl` in `main`, a stop signal): the wait is
// then abandoned, so the reply that comes later is dropped by finish_wake
// on this shard and never reaches a later park of this fiber (park ids).
bool call_until(int64_t addr, uint64_t msg, const WoTypeDesc* msg_type, int64_t deadline_us, bool dl, uint64_t* reply,
                const WoSite* site) {
  MsgGuard guard(msg, msg_type);
  const char* op = dl ? "call_dl" : "call";
  Actor* a = actor_of(addr, op, site);
  need_message(msg, msg_type, op, site);
  refuse_in_transaction("cannot park inside a transaction", site);
  Fiber* me = current_fiber();
  if (me->serving == a) wo::raise(kActor, site, "call to the calling actor would deadlock");
  // This call's link (callee + a tag telling it from the caller's earlier
  // calls to the same callee), published before the cycle check.
  uintptr_t link = 0;
  if (me->serving) {
    link = reinterpret_cast<uintptr_t>(a) | (++me->serving->call_tag & kLinkTagMask);
    me->serving->waiting_on.store(link);
  }
  auto unlink = [&] {
    if (me->serving) me->serving->waiting_on.store(0);
  };
  if (closes_call_cycle(me->serving, a)) {
    unlink();
    wo::raise(kActor, site, "call cycle would deadlock");
  }
  bool dead = a->dead.load(std::memory_order_relaxed);
  if (dead || !reserve(a)) {
    unlink();
    wo::raise(kActor, site, dead ? kDiedDuringCall : "actor mailbox full");
  }
  CallWait* w = new_wait();
  w->caller = me;
  w->shard = current_shard();
  w->park_id = me->park_id + 1;  // the id park() is about to use
  w->caller_actor = me->serving;
  w->link = link;
  w->reply_ref = a->type->reply_address != 0;
  if (dl && me->serving) {
    // The caller may give up and be collected before the callee answers;
    // complete_call still clears its link.
    w->counts_caller = true;
    retain_actor(me->serving);
  }
  try {
    send_or_hold(me->serving, a, guard.disown(), msg_type, w);
  } catch (...) {
    unlink();
    if (w->counts_caller) unref_actor(w->caller_actor);
    free_wait(w);  // the message never reached a mailbox
    throw;
  }
  auto abandon = [&] {
    unlink();
    w->abandoned = true;  // read only on this shard (finish_wake)
    if (w->replied) release_reply(w);  // came, but is not taken
    unref_wait(w);
  };
  bool stopped = false;
  try {
    park(deadline_us);
  } catch (const Unwind&) {
    // A stop signal ends a `_dl` wait of `main` with its timeout value;
    // at the program's end (or for a plain call) the fiber keeps unwinding.
    if (!dl || shutting_down()) {
      abandon();
      throw;
    }
    stopped = true;
  } catch (...) {
    abandon();
    throw;
  }
  if (stopped || !w->replied) {  // the deadline passed first
    abandon();
    return false;
  }
  bool died = w->died;
  *reply = w->reply;
  unref_wait(w);
  if (died) wo::raise(kActor, site, kDiedDuringCall);
  return true;
}
}  // namespace

void release_actor(Actor* a) {
  drop_held(a);  // never delivered: nothing they answer was acknowledged
  while (!a->mailbox.empty()) {
    Envelope e = a->mailbox.pop();
    release_value(e.msg, e.type);
    if (e.wait) unref_wait(e.wait);
  }
  for (Monitor& m : a->monitors) {
    release_value(m.notice, m.type);
    unref_actor(m.observer);
  }
  a->monitors.clear();
  void* state = a->state;
  a->state = nullptr;
  wo_release(state);
}

}  // namespace wo::sched

using namespace wo::sched;

extern "C" {

int64_t wo_spawn(void* state, const WoActorType* type, const WoSite* site) {
  wo::OwnedGuard guard(state);
  if (!state) wo::raise(kBounds, site, "spawn: nil state");
  ensure_started();
  Shard* home = shard_for_spawn();
  void* own_state;
  if (home == current_shard()) {
    own_state = guard.disown();
  } else {
    own_state = reinterpret_cast<void*>(copy_value(reinterpret_cast<uint64_t>(state), type->state));
  }
  Actor* a = take_shell(type, home, own_state);  // registered; a recycled one keeps its `life`
  return reinterpret_cast<int64_t>(new_ref(a, true));  // (an OOM here leaves it to the program's end)
}

void wo_send(int64_t addr, uint64_t msg, const WoTypeDesc* msg_type, const WoSite* site) {
  MsgGuard guard(msg, msg_type);
  Actor* a = actor_of(addr, "send", site);
  need_message(msg, msg_type, "send", site);
  refuse_in_transaction("cannot send inside a transaction", site);
  if (a->dead.load(std::memory_order_relaxed)) return;  // a silent drop (runtime.md §3.6)
  if (!reserve(a)) wo::raise(kActor, site, "actor mailbox full");
  Fiber* me = current_fiber();
  send_or_hold(me ? me->serving : nullptr, a, guard.disown(), msg_type, nullptr);
}

uint64_t wo_call(int64_t addr, uint64_t msg, const WoTypeDesc* msg_type, const WoSite* site) {
  uint64_t reply = 0;
  call_until(addr, msg, msg_type, -1, false, &reply, site);
  return reply;
}

bool wo_call_dl(int64_t addr, uint64_t msg, const WoTypeDesc* msg_type, int64_t ms, uint64_t* reply,
                const WoSite* site) {
  return call_until(addr, msg, msg_type, ms > 0 ? deadline_after_ms(ms) : -1, true, reply, site);
}

void wo_monitor(int64_t watched, int64_t observer, uint64_t notice, const WoTypeDesc* notice_type,
                const WoSite* site) {
  MsgGuard guard(notice, notice_type);
  Actor* w = actor_of(watched, "monitor", site);
  Actor* o = actor_of(observer, "monitor", site);
  need_message(notice, notice_type, "monitor", site);
  refuse_in_transaction("cannot send inside a transaction", site);
  Shard* home = w->home_shard();
  if (home == current_shard()) {
    retain_actor(w);  // accept_watch takes both references:
    retain_actor(o);  // the observer's stays while the monitor stands
    accept_watch(w, o, guard.disown(), notice_type);
    return;
  }
  uint64_t copy = copy_value(notice, notice_type);
  retain_actor(w);
  retain_actor(o);
  InboxItem it{InboxItem::Watch};
  it.actor = w;
  it.observer = o;
  it.env = Envelope{copy, notice_type, nullptr};
  post(home, it);
}

void wo_time_after(int64_t ms, int64_t addr, uint64_t msg, const WoTypeDesc* msg_type, const WoSite* site) {
  MsgGuard guard(msg, msg_type);
  Actor* a = actor_of(addr, "time.after", site);
  need_message(msg, msg_type, "time.after", site);
  refuse_in_transaction("cannot send inside a transaction", site);
  Fiber* me = current_fiber();
  if (ms <= 0) {
    runtime_send(a, guard.disown(), msg_type, "timer message", "target", me ? me->serving : nullptr);
    return;
  }
  durable_barrier();  // a timer is not held: its arming waits for the actor's commits instead
  add_timer(Timer{deadline_after_ms(ms), 0, a, guard.disown(), msg_type});
  retain_actor(a);    // the timer's reference, until it fires (fire_timers; this thread's, so not before this)
}

}  // extern "C"
