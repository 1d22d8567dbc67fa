// The actor runtime's internal model (runtime.md §3; docs/decisions/0018):
// shards (one OS thread each, shard 0 = the thread running `main`), fibers
// (Boost.Context), actors with bounded mailboxes, timers and the cross-shard
// inboxes. Everything a shard owns is touched only by its own thread; the
// only shared pieces are an actor's `pending` and `dead` atomics and each
// shard's inbox (a mutex-guarded list plus an eventfd to wake the shard).
#pragma once
#include <boost/context/fiber.hpp>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <new>
#include <deque>
#include <mutex>
#include <queue>
#include <thread>
#include <utility>
#include <vector>

#include "../core/fiber_unwind.h"
#include "../core/small_heap.h"
#include "deadlines.h"
#include "fiber.h"
#include "wo_actor.h"
#include "wo_runtime.h"

namespace wo::sched {

struct Shard;
struct Actor;
struct CallWait;

// struct Unwind (core/fiber_unwind.h): thrown into a fiber that must end without
// running further user code.

// Fiber, Actor, Shard and Runtime each start on their own cache line: they
// are allocated one after the other but written by different shards, and
// sharing a line made every message bounce it between cores (measured: 40%
// more CPU per round trip with two shards).

struct Envelope {
  uint64_t msg;                 // owned; lives in the home shard's heap
  const WoTypeDesc* type;
  CallWait* wait;               // a `call` waiting for the reply, or nullptr
};

// A parked `call`. Shared by the caller's shard and the callee's shard, so
// it is reference counted (caller + envelope) and only the caller's shard
// reads `abandoned`; the reply travels in the Wake item's happens-before.
struct CallWait {
  std::atomic<int> refs{2};
  Fiber* caller = nullptr;
  Actor* caller_actor = nullptr; // the actor whose receive made the call (nullptr: main)
  uintptr_t link = 0;           // the caller actor's waiting_on for this call (0: main)
  Shard* shard = nullptr;       // the caller's shard
  uint64_t park_id = 0;
  uint64_t reply = 0;
  bool died = false;
  // The reply is an address (WoActorType::reply_address): an owned handle
  // that whoever drops the reply unread must release (release_reply).
  bool reply_ref = false;
  // A `call_dl` from an actor counts its caller (retain_actor): the callee's
  // shard still touches caller_actor after the caller may have given up.
  bool counts_caller = false;
  bool abandoned = false;       // the caller stopped waiting (caller's shard only)
  bool replied = false;         // finish_wake ran: `reply`/`died` are final (caller's shard only)
  uint64_t epoch = 0;           // external waits: the runtime they belong to (external_wait.cpp)
};

// A FIFO of envelopes that allocates nothing until the first message, so
// an idle actor costs only its shell and state (runtime.md §3: ≤ 1 KB). Its
// buffer is the program's heap (the small heap: per thread, no lock; glibc's
// malloc takes an arena lock once a second shard thread exists, and spawns
// on two shards ran 23% slower than on one).
class Mailbox {
 public:
  Mailbox() = default;
  Mailbox(const Mailbox&) = delete;
  Mailbox& operator=(const Mailbox&) = delete;
  ~Mailbox() { release_buffer(); }
  bool empty() const { return count_ == 0; }
  size_t size() const { return count_; }
  void push(const Envelope& e) {
    if (count_ == cap_) grow();
    buf_[(head_ + count_) & (cap_ - 1)] = e;
    ++count_;
  }
  void reset() {  // empty: frees the buffer (a collected actor's shell)
    release_buffer();
    head_ = count_ = cap_ = 0;
  }
  template <class F>
  void each(F f) const {  // oldest first
    for (size_t i = 0; i < count_; ++i) f(buf_[(head_ + i) & (cap_ - 1)]);
  }
  void swap(Mailbox& o) noexcept {
    std::swap(buf_, o.buf_);
    std::swap(head_, o.head_);
    std::swap(count_, o.count_);
    std::swap(cap_, o.cap_);
  }
  Envelope pop() {
    Envelope e = buf_[head_];
    head_ = (head_ + 1) & (cap_ - 1);
    --count_;
    return e;
  }

 private:
  void grow() {
    size_t cap = cap_ ? cap_ * 2 : 4;
    auto* nb = static_cast<Envelope*>(wo::heap_block(cap * sizeof(Envelope)));
    if (!nb) throw std::bad_alloc();
    for (size_t i = 0; i < count_; ++i) nb[i] = buf_[(head_ + i) & (cap_ - 1)];
    release_buffer();
    buf_ = nb;
    cap_ = cap;
    head_ = 0;
  }
  void release_buffer() {
    if (buf_) wo::heap_free(buf_);
    buf_ = nullptr;
  }
  Envelope* buf_ = nullptr;
  size_t head_ = 0, count_ = 0, cap_ = 0;
};

struct Monitor {
  Actor* observer;
  uint64_t notice;              // owned by the watched actor's home shard
  const WoTypeDesc* type;
};

// A message (or the reply to a `call`) an actor sent while a commit it made
// was not yet durable (held.cpp).
struct Held {
  uint64_t need;                // released once the store is durable up to this seq
  Actor* to;                    // a message: the target (already counted in its `pending`) ...
  Envelope env;
  CallWait* reply_to;           // ... or a reply: the call it answers
  uint64_t reply;
  bool died;
};

// An actor address as `.wo` values hold it (docs/decisions/0079): a heap
// object of the shard that holds it, counted by that shard without atomics
// like any other value, naming the actor. Copying an address within a shard
// retains the handle; a copy that crosses shards is a new handle. Each live
// handle (and each runtime reference: a timer, a monitor, a `call_dl`'s
// caller) holds one count of the actor's atomic `refs`; at zero, once the
// actor is idle, its home shard destroys it (collect.cpp).
struct ActorRef {
  WoHeader h;
  Actor* actor;
  uint64_t epoch;  // the scheduler it was made in: one dropped after that scheduler ended touches nothing
};

struct alignas(64) Actor {
  const WoActorType* type;
  // The shard that runs it and owns its state, mailbox and monitors. It
  // changes only when that shard hands a queued actor to another one
  // (placement.cpp): released there after the state and mailbox moved, so a
  // thread that reads the new home (acquire) also sees them.
  std::atomic<Shard*> home{nullptr};
  Shard* home_shard() const { return home.load(std::memory_order_acquire); }
  // Handles and runtime references naming this actor (ActorRef). Any thread.
  std::atomic<int64_t> refs{0};
  // Bumped each time the shell is collected: a Collect item posted for an
  // earlier life of a recycled shell is ignored (collect.cpp).
  std::atomic<uint64_t> life{0};
  size_t slot = 0;                    // its index in its home's `homed` (home only)
  // How many fields of its state class hold an address: so many of `refs`
  // may be its own (a `me` field), which do not keep it reachable (collect.cpp).
  int64_t addr_fields = 0;
  bool suspect = false;               // in its home shard's `suspects` (home only)
  void* state = nullptr;              // home only
  Mailbox mailbox;                    // home only
  std::vector<Monitor> monitors;      // home only
  // Sent, not yet taken for delivery (the cap). While its home hands it to
  // another shard the kMoving bit is set: a sender that reserves then waits
  // for the move to end before it reads `home` (placement.cpp).
  std::atomic<int64_t> pending{0};
  std::atomic<bool> dead{false};
  // Its receive is parked in a call to this actor (0: none), as a link: the
  // callee's address with the call's tag in the low bits (link_actor). Set by
  // its own shard at the call, cleared by the callee's shard when the reply
  // is sent; read by any shard looking for a call cycle (closes_call_cycle).
  std::atomic<uintptr_t> waiting_on{0};
  uint8_t call_tag = 0;               // counts its calls, for the links' tags (home only)
  bool queued = false;                // in the home run queue (home only)
  bool running = false;               // a delivery is in progress, maybe parked (home only)
  bool fresh = true;                  // no delivery has started yet (placement.cpp prefers to move these)
  // Moved and not delivered to since: it does not move again until it has
  // been (placement.cpp; each move puts it at the tail of a run queue, and an
  // actor moved on every few mails never reached the head of one).
  bool moved = false;
  // Mail from other shards (home only, placement.cpp): the shard and the
  // sender the last ones came from, and how many came from that one sender
  // in a row, none from elsewhere. One partner, not a crowd: a collector fed
  // by many actors does not chase whichever shard sent last.
  Shard* mail_from = nullptr;
  const void* mail_sender = nullptr;
  int mail_streak = 0;
  // Held messages (docs/decisions/0045): the highest commit seq this actor's
  // receives staged without waiting, and what it sent since that is not
  // durable yet, released in order once the store's durable seq covers it.
  uint64_t need = 0;                  // home only
  uint64_t asked = 0;                 // the highest `need` a round was asked for (home only)
  std::deque<Held>* held = nullptr;  // home only; allocated at the first hold
};

// A call link (Actor::waiting_on): the callee's address, 64-byte aligned,
// with a tag in the six low bits.
inline constexpr uintptr_t kLinkTagMask = 63;
static_assert(alignof(Actor) > kLinkTagMask);
inline Actor* link_actor(uintptr_t link) { return reinterpret_cast<Actor*>(link & ~kLinkTagMask); }

// What one shard hands another.
struct InboxItem {
  // Stop: end this shard's `_dl` fd waits; Durable: the store's durable seq
  // advanced, release held messages it covers; Collect: the last reference
  // to `actor` (of life `env.msg`) went on another shard; Adopt: `actor`,
  // queued, now lives here (placement.cpp); Enlist: `actor`, spawned by
  // another shard (WO_PLACEMENT=spread), lives here.
  enum Kind : uint8_t { Mail, Wake, Watch, Stop, Durable, Collect, Adopt, Enlist } kind;
  Actor* actor = nullptr;       // Mail, Watch, Collect: the target / the watched actor
  Envelope env{};               // Mail; Watch: the notice
  Actor* observer = nullptr;    // Watch
  Shard* from = nullptr;        // Mail: the sending shard ...
  const void* sender = nullptr; // ... and the sending actor (or fiber: `main`, a timer's scheduler)
  CallWait* wait = nullptr;     // Wake
};

// A time.after delivery. (A parked fiber's deadline lives in ParkDeadlines;
// both draw `seq` from one counter, so they fire in one deadline order.)
struct Timer {
  int64_t deadline_us;
  uint64_t seq;                 // arming order breaks ties
  Actor* target;
  uint64_t msg;
  const WoTypeDesc* type;
  bool operator>(const Timer& o) const {
    return deadline_us != o.deadline_us ? deadline_us > o.deadline_us : seq > o.seq;
  }
};

// A fiber parked on an fd: lives on that fiber's stack while the fd's
// one-shot registration in the shard's epoll set points at it (io.cpp).
struct IoWait {
  Fiber* fiber;
  uint64_t park_id;
  bool fired = false;           // the one-shot event was reported (and disarmed itself)
  bool dl = false;              // a `_dl` wait: a stop signal ends it with its timeout value
};

struct Runnable {
  Fiber* fiber;                 // resume this fiber, or
  Actor* actor;                 // start a delivery to this actor
};

struct alignas(64) Shard {
  int id = 0;
  std::thread thread;                       // workers; shard 0 runs on main's thread
  Fiber* sched = nullptr;                   // the scheduler context
  std::deque<Runnable> runq;
  std::priority_queue<Timer, std::vector<Timer>, std::greater<Timer>> timers;
  ParkDeadlines park_deadlines;             // parked fibers' wake-up times
  uint64_t timer_seq = 0;
  std::vector<Fiber*> idle;                 // pooled delivery fibers
  std::vector<Fiber*> all;                  // every fiber this shard made
  // The inbox: any thread pushes, the shard drains.
  std::mutex mu;
  std::vector<InboxItem> inbox;
  std::atomic<bool> has_mail{false};        // inbox non-empty (a lock-free peek)
  std::atomic<bool> sleeping{false};        // in poll(): a poster must write the eventfd
  // How many takes in a row left work queued behind the one taken (home
  // only): a backlog that lasts, not the moment two things are runnable,
  // makes this shard give work away (placement.cpp).
  int backlog = 0;
  // Takes to go before this shard hands work away again (home only): one
  // hand-off per 64 takes at most (placement.cpp). Handing fresh actors out at
  // every take let an idle shard run a stream of short producers faster than
  // their consumer here got its turns (a mailbox-full trap).
  int share_pause = 0;
  struct Follow {
    Actor* actor;
    Shard* to;
    uint64_t life;
  };
  std::vector<Follow> follow;               // listed by follow_mail (home only)
  std::vector<Actor*> shells;               // collected here, reused by spawns here (collect.cpp)
  // The actors homed here (Actor::slot is the index; home only): released at
  // teardown, freed at the end. Per shard, so a spawn or a collection takes
  // no lock (one global list under a mutex cost every spawn on two shards).
  std::vector<Actor*> homed;
  // Actors this shard handed away (home only; WO_SCHED_STATS prints the sums).
  int64_t moved_shared = 0;                 // to an idle shard (share_work)
  int64_t moved_followed = 0;               // after their mail (move_followers)
  int efd = -1;                             // eventfd: "the inbox or a signal wants you"
  int epfd = -1;                            // epoll: the eventfd and the fds fibers wait on
  int64_t io_waiting = 0;                   // fibers parked on an fd (home only)
  int64_t polled_us = 0;                    // when poll_io last looked at the fds (home only)
  // Actors queued or running here: written by this shard only, read by
  // shard 0 to tell when the stop drain is over.
  std::atomic<int64_t> active{0};
  std::vector<IoWait*> fd_waits;            // by fd: the fiber parked on it here, if any
  std::vector<Actor*> holding;              // actors homed here with held messages (home only)
  // Idle actors named only by their own `me` fields and by a copy of that
  // handle held elsewhere on this shard: re-checked when the shard idles
  // (collect.cpp). Each with the life it was listed in.
  std::vector<std::pair<Actor*, uint64_t>> suspects;
  size_t suspect_at = 0;                    // where the next re-check starts
  // Takes since the last re-check: a shard that never idles (one running
  // `main` in a loop of calls) re-checks every kRecheckTakes takes instead,
  // or its suspects pile up for as long as it is busy.
  int takes_since_recheck = 0;
  // holding.size(), for the log writer (which posts Durable only to shards
  // that hold something) and the stop drain (which waits for held messages).
  std::atomic<int64_t> held_actors{0};
  bool quit = false;                        // the loop returns (shutdown)
  // Read by the other shards on their busy paths, so each on a line of its
  // own (next to fields this shard writes at every take, the line bounced
  // between cores: two independent ping-pong pairs per shard ran at half speed).
  // Idle and willing to take actors: set as the shard starts to wait, taken
  // (exchange) by the one busy shard that hands it work (placement.cpp).
  alignas(64) std::atomic<bool> wants_work{true};  // a new shard is idle
  // The run queue's length at the last take: how busy this shard is, for
  // another deciding whether to hand it an actor (placement.cpp).
  alignas(64) std::atomic<int64_t> load{0};
};

// ---- shard.cpp -----------------------------------------------------------------
// A spin-wait's pause (the thread waited for runs on another core).
inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}
bool started();
void ensure_started();            // starts the shards at the first spawn
Shard* current_shard();           // the calling thread's shard (nullptr before start)
Fiber* current_fiber();
// ---- placement.cpp (docs/decisions/0083) ---------------------------------------
Shard* shard_for_spawn();         // the spawner's shard (round-robin with WO_PLACEMENT=spread)
// After each take (the run queue as it is behind what runs next): keeps the
// shard's load and backlog counts and, when the backlog says so, hands
// queued actors to an idle shard that asked for work.
void note_take(Shard* s);
void adopt(Actor* a);             // the Adopt inbox item
void print_sched_stats(const std::vector<Shard*>& shards);  // WO_SCHED_STATS, at the end
// On a's home, after mail from shard `from` was queued for it: an actor whose
// mail keeps coming from one other shard is listed to move there ...
void follow_mail(Actor* a, Shard* from, const void* sender);
// ... which happens once the inbox is drained (no DeferCollect then), if that
// shard is no busier than this one.
void move_followers(Shard* s);
// reserve() found the kMoving bit: waits until the move is over.
void wait_for_move(Actor* a);
inline constexpr int64_t kMoving = int64_t{1} << 40;
// ---- shard.cpp (again) ----------------------------------------------------------
int64_t mailbox_cap();
void push_run(Shard* s, Runnable r);
void post(Shard* to, InboxItem item);     // cross-shard; wakes the shard
void post_all(Shard* to, const InboxItem* items, size_t n);  // several at once: one wake-up
// Parks the running fiber until a wake-up with the returned park id; throws
// Unwind when cancelled. `timer_us` >= 0 also arms a wake-up at that time.
// `stop_ends` false: a stop signal neither refuses nor ends this park of
// `main` (a commit waiting for its fdatasync; the program's end still does).
void park(int64_t deadline_us, bool stop_ends = true);
void wake(Fiber* f, uint64_t park_id);    // on f's shard: f becomes runnable if still parked on park_id
bool shutting_down();                     // the program is ending (parks unwind)
void add_timer(Timer t);
int64_t now_us();
// The CLOCK_MONOTONIC µs deadline `ms` (> 0) milliseconds from now; delays
// are clamped to 2^40 ms (~35 years) so the µs value stays in range.
int64_t deadline_after_ms(int64_t ms);
void switch_to(Fiber* from, Fiber* to);
void switch_away(Fiber* from, Shard* s);  // to the next runnable, else the scheduler

// ---- actor.cpp -----------------------------------------------------------------
void deliver(Fiber* self, Actor* a);       // runs one message on the current (home) shard
void accept_mail(Actor* a, Envelope env);  // on a's home shard: into the mailbox, schedule
void accept_watch(Actor* watched, Actor* observer, uint64_t notice, const WoTypeDesc* type);
void complete_call(CallWait* w, uint64_t reply, bool died);
void finish_wake(CallWait* w);             // on the caller's shard
// A delivery the runtime makes (timer, death notice): dropped with one stderr
// line when the target's mailbox is full, silently when it is dead.
// `from`: the actor sending it (time.after 0 from a receive), held like its sends.
void runtime_send(Actor* target, uint64_t msg, const WoTypeDesc* type, const char* what, const char* whose,
                  Actor* from = nullptr);
void release_actor(Actor* a);              // shutdown, on the home shard
// `a` became queued or stopped being busy on its home shard (the drain's count).
inline void count_active(Shard* s, int64_t by) {
  s->active.store(s->active.load(std::memory_order_relaxed) + by, std::memory_order_release);
}
inline void count_active(Actor* a, int64_t by) { count_active(a->home_shard(), by); }

// ---- collect.cpp (docs/decisions/0079) ------------------------------------------
// A new handle for `a` (one more count), owned by the caller's shard.
ActorRef* new_ref(Actor* a, bool adopt = false);  // adopt: the count is taken already (spawn)
inline Actor* ref_actor(int64_t addr) { return reinterpret_cast<ActorRef*>(addr)->actor; }
void retain_actor(Actor* a);               // a runtime reference (timer, monitor, call_dl caller)
void unref_actor(Actor* a);                // drops one; the last one lets the actor be collected
// On a's home shard: destroys `a` now if nothing names it and it is idle
// (not queued or running, empty mailbox, nothing sent to it in flight, no
// held messages of its own). Called wherever one of those becomes true.
void maybe_collect(Actor* a);
void collect_item(Actor* a, uint64_t life);  // the Collect inbox item
void recheck_suspects(Shard* s);             // before the shard idles: a bounded slice of `suspects`
inline constexpr int kRecheckTakes = 1024;  // ... and every so many takes of a busy shard
// While one lives on this thread, actors found unreachable are destroyed
// only when the outermost one ends: code walking an actor's queues (held
// messages, the inbox) never sees that actor freed under it.
bool collect_deferred();                     // a DeferCollect lives on this thread
class DeferCollect {
 public:
  DeferCollect();
  ~DeferCollect();
  DeferCollect(const DeferCollect&) = delete;
  DeferCollect& operator=(const DeferCollect&) = delete;

 private:
  bool outer_;
};
// The reply word of a call whose reply is an address, dropped unread.
void release_reply(CallWait* w);
// Shells: taken for a spawn (recycled ones first), given back when
// collected, all freed at the end (collect.cpp).
Actor* take_shell(const WoActorType* type, Shard* home, void* state);
void free_shells();
// On s's thread: `a` is homed on s from now on / no longer.
void enlist(Shard* s, Actor* a);
void delist(Shard* s, Actor* a);

// ---- held.cpp (docs/decisions/0045) ------------------------------------------------
// Hands a message `from` (the sending actor, or nullptr) sends to `to`: held
// behind `from`'s commits that are not durable yet, else enqueued now.
void send_or_hold(Actor* from, Actor* to, uint64_t msg, const WoTypeDesc* type, CallWait* wait);
void reply_or_hold(Actor* from, CallWait* w, uint64_t reply, bool died);
void release_held(Actor* a);               // on a's home shard: what the durable seq covers now
void release_held_all(Shard* s);           // the Durable inbox item
void drop_held(Actor* a);                  // teardown: unacknowledged, never delivered
// Parks (or blocks) until every commit the running actor made is durable and
// its held messages are out: before any other externally visible effect.
void durable_barrier();
void durable_barrier_for(Actor* a);        // the same for `a` (its dying delivery)
void ask_durable(Actor* a);                // a round for `a->need`, once per need (no wait)
void enqueue(Actor* a, uint64_t msg, const WoTypeDesc* type, CallWait* wait);  // actor.cpp: now

// ---- marshal.cpp ----------------------------------------------------------------
// A deep copy that shares nothing mutable with `word` (immortal objects are
// shared); `word` stays the caller's.
uint64_t copy_value(uint64_t word, const WoTypeDesc* type);
void release_value(uint64_t word, const WoTypeDesc* type);
bool is_nil(uint64_t word, const WoTypeDesc* type);

}  // namespace wo::sched
