// Shards, fibers and the scheduling loop (runtime.md §3.3, §3.9, §3.10).
//
// Shard 0 is the thread that runs `main`; `main` keeps its own (big) stack
// and shard 0's scheduler runs in a fiber of its own. Every other shard is a
// thread whose scheduler runs on the thread's stack. A context switch is
// always "from the running context to another one": switch_to() records who
// switched (t_prev) so the resumed side can store the switcher's
// continuation in the switcher's Fiber record (Boost.Context hands it over
// as the return value of resume()).
//
// The loop of one shard: take what other shards posted (inbox), fire due
// timers, run the head of the FIFO run queue (resume a fiber, or start a
// delivery to an actor in a pooled fiber), and sleep on the shard's eventfd
// when there is nothing to do (bounded by the next timer and 1 s).
#include "shard_internal.h"

#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include <boost/context/protected_fixedsize_stack.hpp>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "../core/backtrace.h"
#include "../core/observe.h"
#include "../builtins/stop.h"
#include "../core/trap.h"
#include "common/traps.h"
#include "asan_fiber.h"
#include "cpu_budget.h"
#include "fiber_local.h"
#include "placement.h"
#include "tsan_fiber.h"
#include "wo_db.h"

namespace wo::sched {

namespace {

constexpr size_t kFiberStack = 1u << 20;      // virtual; pages are committed on first touch
constexpr uintptr_t kStackMargin = 96u << 10; // room to unwind after a STACK trap
constexpr int64_t kSpinUs = 50;                 // an idle shard polls its inbox this long before sleeping
constexpr int64_t kBusyPollUs = 100;            // a busy shard looks at its fds at least this often
constexpr int64_t kStopGraceMs = 2000;          // the stop drain's bound (decision 0027)

Runtime* g_rt = nullptr;
std::atomic<bool> g_started{false};
thread_local Shard* t_shard = nullptr;
thread_local Fiber* t_cur = nullptr;
thread_local Fiber* t_prev = nullptr;

// WO_SHARDS, else the CPUs the process may use (affinity mask, cgroup
// quota: cpu_budget.h), not the CPUs the machine has.
int shard_count() {
  const char* v = std::getenv("WO_SHARDS");
  long n = 0;
  if (v && *v) {
    char* end = nullptr;
    n = std::strtol(v, &end, 10);
    if (*end) n = 0;
  }
  if (n < 1 || n > 64) n = usable_cpus();
  return static_cast<int>(n);
}

int64_t read_mailbox_cap() {
  const char* v = std::getenv("WO_MAILBOX");
  if (!v || !*v) return 1024;
  char* end = nullptr;
  long long n = std::strtoll(v, &end, 10);
  if (*end || n < 1 || n > 2147483647LL) return 1024;
  return n;
}

// Records the calling thread's own stack bounds in `f`.
void thread_stack(Fiber* f) {
  pthread_attr_t attr;
  void* lo = nullptr;
  size_t size = 0;
  if (pthread_getattr_np(pthread_self(), &attr) == 0) {
    pthread_attr_getstack(&attr, &lo, &size);
    pthread_attr_destroy(&attr);
  }
  f->stack_lo = lo;
  f->stack_size = size;
}

// protected_fixedsize_stack that also tells the fiber where its stack is.
struct RecordingStack {
  Fiber* f;
  boost::context::protected_fixedsize_stack inner{kFiberStack};
  boost::context::stack_context allocate() {
    boost::context::stack_context sc = inner.allocate();
    f->stack_size = sc.size;
    f->stack_lo = static_cast<char*>(sc.sp) - sc.size;
    return sc;
  }
  void deallocate(boost::context::stack_context& sc) noexcept {
    wo_asan_forget_stack(static_cast<char*>(sc.sp) - sc.size, sc.size);
    inner.deallocate(sc);
  }
};

bool take_next(Shard* s, Runnable* out);
Fiber* take_idle(Shard* s);

// A pooled fiber's life: deliver, then hand the thread straight to what runs
// next — the next delivery in this same fiber, another fiber, or (nothing
// runnable) the scheduler, which waits. No scheduler round trip per message.
void delivery_body(Fiber* f) {
  Shard* s = f->shard;
  Actor* a = f->task;
  f->task = nullptr;
  while (a) {
    deliver(f, a);
    Runnable r;
    if (take_next(s, &r) && r.actor) {
      a = r.actor;
      local().budget = reductions();
      continue;
    }
    s->idle.push_back(f);
    f->pooled = true;
    if (r.fiber) {
      local().budget = reductions();
      switch_to(f, r.fiber);
    } else {
      switch_to(f, s->sched);
    }
    a = f->task;  // resumed from the pool: the next delivery, or nullptr to finish
    f->task = nullptr;
  }
}

// A fiber with its own stack running `body`; when the body returns the
// fiber switches to `f->exit_to` for good.
Fiber* make_fiber(Shard* s, void (*body)(Fiber*)) {
  auto* f = new Fiber;
  f->shard = s;
  f->tsan = wo_tsan_fiber_create();
  f->cont = boost::context::fiber(
      std::allocator_arg, RecordingStack{f},
      [f, body](boost::context::fiber&& caller) {
        wo_asan_finish_switch(nullptr);
        t_prev->cont = std::move(caller);
        f->stack_limit = reinterpret_cast<uintptr_t>(f->stack_lo) + kStackMargin;
        local().stack_limit = f->stack_limit;
        body(f);
        f->finished = true;
        Fiber* to = f->exit_to;
        t_prev = f;
        t_cur = to;
        local().stack_limit = to->stack_limit;
        wo_asan_start_switch(nullptr, to->stack_lo, to->stack_size);
        wo_tsan_fiber_switch(to->tsan);
        return std::move(to->cont);
      });
  s->all.push_back(f);
  return f;
}

Fiber* take_idle(Shard* s) {
  if (!s->idle.empty()) {
    Fiber* f = s->idle.back();
    s->idle.pop_back();
    f->pooled = false;
    return f;
  }
  Fiber* f = make_fiber(s, delivery_body);
  f->exit_to = s->sched;
  return f;
}

// A stop signal arrived: every `_dl` fd wait of this shard ends now with its
// timeout value (the woken fiber retries, and wait_fd sees the stop), so idle
// keep-alive connections close at once instead of at their deadlines.
void end_dl_waits(Shard* s) {
  for (IoWait* w : s->fd_waits)
    if (w && w->dl) wake(w->fiber, w->park_id);
}

void take_items(Shard* s, std::vector<InboxItem>& items) {
  DeferCollect later;  // an item may free an actor a later item names (its life is checked then)
  for (InboxItem& it : items) {
    switch (it.kind) {
      case InboxItem::Mail:
      case InboxItem::Watch:
        // Posted to a home the actor has left since (placement.cpp): its
        // new home takes it. (Mail cannot be: an actor with mail in flight
        // does not move; a monitor's Watch can.)
        if (Shard* home = it.actor->home_shard(); home != s) {
          post(home, it);
        } else if (it.kind == InboxItem::Mail) {
          accept_mail(it.actor, it.env);
          if (it.from) follow_mail(it.actor, it.from, it.sender);
        } else {
          accept_watch(it.actor, it.observer, it.env.msg, it.env.type);
        }
        break;
      case InboxItem::Wake: finish_wake(it.wait); break;
      case InboxItem::Stop: end_dl_waits(s); break;
      case InboxItem::Durable: release_held_all(s); break;
      case InboxItem::Collect: collect_item(it.actor, it.env.msg); break;
      case InboxItem::Adopt: adopt(it.actor); break;
      case InboxItem::Enlist: enlist(s, it.actor); break;
    }
  }
}

void drain_inbox(Shard* s) {
  if (!s->has_mail.load(std::memory_order_acquire)) return;  // the common case costs no lock
  std::vector<InboxItem> items;
  {
    std::lock_guard lk(s->mu);
    items.swap(s->inbox);
    s->has_mail.store(false, std::memory_order_relaxed);
  }
  take_items(s, items);
  if (!s->follow.empty()) move_followers(s);  // placement.cpp
}

// Due time.after timers and park deadlines, merged in one (deadline, arming)
// order.
void fire_timers(Shard* s) {
  ParkDeadlines& parks = s->park_deadlines;
  if (s->timers.empty() && parks.empty()) return;
  int64_t now = now_us();
  for (;;) {
    bool timer_due = !s->timers.empty() && s->timers.top().deadline_us <= now;
    Fiber* f = !parks.empty() && parks.top()->deadline_us <= now ? parks.top() : nullptr;
    if (f && timer_due) {
      const Timer& t = s->timers.top();
      if (t.deadline_us < f->deadline_us || (t.deadline_us == f->deadline_us && t.seq < f->deadline_seq)) f = nullptr;
    }
    if (f) {
      parks.remove(f);
      wake(f, f->park_id);
    } else if (timer_due) {
      Timer t = s->timers.top();
      s->timers.pop();
      runtime_send(t.target, t.msg, t.type, "timer message", "target");
      unref_actor(t.target);  // the timer's reference (wo_time_after)
    } else {
      return;
    }
  }
}

// The earliest wake-up this shard owes (INT64_MAX: none).
int64_t next_deadline(Shard* s) {
  int64_t d = s->timers.empty() ? INT64_MAX : s->timers.top().deadline_us;
  if (!s->park_deadlines.empty() && s->park_deadlines.top()->deadline_us < d) d = s->park_deadlines.top()->deadline_us;
  return d;
}

// A stop signal (seen by shard 0, whose eventfd the signal handler writes):
// once, every shard is told to end its `_dl` fd waits; and `main`'s park ends
// (runtime.md §5.4): main is resumed into Unwind, which ends the program
// with status 0 once it reaches wo_start. Other parks go on (decision 0027).
void act_on_stop(Shard* s) {
  if (s->id != 0 || !(stop_armed() && stop_requested())) return;
  if (!g_rt->stop_broadcast) {
    g_rt->stop_broadcast = true;
    end_dl_waits(s);
    for (size_t i = 1; i < g_rt->shards.size(); ++i) post(g_rt->shards[i], InboxItem{InboxItem::Stop});
  }
  Fiber* m = g_rt->main;
  if (!m->parked || m->stop_proof) return;  // a commit's wait ends first; main's next park unwinds
  m->parked = false;
  m->cancel = true;
  push_run(s, Runnable{m, nullptr});
}

// Ends the program for good: every shard tears down at its next turn.
void begin_shutdown() {
  g_rt->shutdown.store(true, std::memory_order_release);
  for (Shard* s : g_rt->shards) {
    uint64_t one = 1;
    if (::write(s->efd, &one, sizeof one) < 0) { /* already awake */ }
  }
}

// The stop drain is over when the grace deadline passed or, twice in a row,
// no shard has an actor queued or running nor mail in its inbox. (All
// `active` counts are read before any inbox flag: a delivery that posted
// and then went idle shows its mail.)
bool drain_over() {
  if (now_us() >= g_rt->drain_deadline_us) return true;
  bool quiet = true;
  // Held messages are one fdatasync from delivery (decision 0045): wait for them.
  for (Shard* s : g_rt->shards)
    quiet = quiet && s->active.load(std::memory_order_acquire) == 0 && s->held_actors.load(std::memory_order_acquire) == 0;
  for (Shard* s : g_rt->shards) quiet = quiet && !s->has_mail.load(std::memory_order_seq_cst);
  g_rt->quiet_checks = quiet ? g_rt->quiet_checks + 1 : 0;
  return g_rt->quiet_checks >= 2;
}

// Wakes the fibers whose fds are ready (IoWait records on their stacks; the
// eventfd is registered with a null pointer). `timeout_ms` 0 only polls.
void poll_io(Shard* s, int timeout_ms) {
  epoll_event evs[64];
  int n = ::epoll_wait(s->epfd, evs, 64, timeout_ms);
  s->polled_us = now_us();
  for (int i = 0; i < n; ++i) {
    auto* w = static_cast<IoWait*>(evs[i].data.ptr);
    if (!w) {
      uint64_t count;
      if (::read(s->efd, &count, sizeof count) < 0) { /* EAGAIN: someone else drained it */ }
      continue;
    }
    w->fired = true;
    wake(w->fiber, w->park_id);
  }
}

// Nothing to run: first spin a little (a reply or the next hop of a ring
// usually arrives within microseconds, and waking a sleeping thread costs far
// more), then sleep on the eventfd, bounded by the next timer and by 1 s.
// `sleeping` and `has_mail` form a Dekker pair with post(): the poster writes
// the eventfd only when the shard may be asleep, and the shard re-checks its
// inbox after announcing that it sleeps, so no post is missed.
void idle_wait(Shard* s) {
  recheck_suspects(s);  // actors whose own `me` was shared (collect.cpp): a slice now
  if (g_rt->shards.size() > 1) s->wants_work.store(true, std::memory_order_release);  // placement.cpp
  struct Busy {  // taken out of the idle list whatever ends the wait
    Shard* s;
    ~Busy() { s->wants_work.store(false, std::memory_order_relaxed); }
  } busy{s};
  int64_t deadline = next_deadline(s);
  int64_t spin_until = s->io_waiting ? 0 : now_us() + kSpinUs;  // fds to watch: no spinning
  for (int i = 0; !s->has_mail.load(std::memory_order_acquire) && spin_until; ++i) {
    // The clock is read every 64 relaxes, but after every sched_yield: on a
    // loaded machine one yield can give the core away for a whole time
    // slice, and 64 of them overshot a 40 ms timer by 50 ms and more.
    if ((i & 63) == 63 || i >= 256) {
      int64_t now = now_us();
      if (now >= deadline) return;
      if (now >= spin_until) break;
      if (g_rt->shutdown.load(std::memory_order_relaxed) || (s->id == 0 && stop_requested())) return;
    }
    if (i < 256)
      cpu_relax();
    else
      sched_yield();  // a loaded machine: let the thread we are waiting for run
  }
  if (s->has_mail.load(std::memory_order_acquire)) return;
  int timeout_ms = s->id == 0 && g_rt->draining.load(std::memory_order_relaxed) ? 5 : 1000;  // re-check the drain
  if (deadline != INT64_MAX) {
    int64_t left = deadline - now_us();
    if (left <= 0) return;
    int64_t ms = (left + 999) / 1000;
    if (ms < timeout_ms) timeout_ms = static_cast<int>(ms);
  }
  s->sleeping.store(true, std::memory_order_seq_cst);
  if (!s->has_mail.load(std::memory_order_seq_cst)) poll_io(s, timeout_ms);
  s->sleeping.store(false, std::memory_order_relaxed);
}

// What the shard runs next, after taking in what other shards posted and
// firing due timers: a fiber to resume, or an actor whose delivery starts
// (marked running). False when nothing is runnable or the program is ending.
bool take_next(Shard* s, Runnable* out) {
  *out = Runnable{nullptr, nullptr};
  if (s->id == 0 && g_rt->draining.load(std::memory_order_relaxed) && drain_over()) begin_shutdown();
  if (g_rt->shutdown.load(std::memory_order_acquire)) return false;
  drain_inbox(s);
  fire_timers(s);
  // Ready fds. With nothing runnable, idle_wait polls them (one epoll_wait,
  // which returns at once if one is ready); a busy shard still notices them,
  // at least every kBusyPollUs, instead of at every fiber switch (a `call`
  // and its reply made three epoll_waits per request, each finding little).
  if (s->io_waiting && !s->runq.empty() && now_us() - s->polled_us >= kBusyPollUs) poll_io(s, 0);
  act_on_stop(s);
  while (!s->runq.empty()) {
    Runnable r = s->runq.front();
    s->runq.pop_front();
    if (r.actor) {
      Actor* a = r.actor;
      a->queued = false;
      if (a->dead.load(std::memory_order_relaxed) || a->mailbox.empty()) {
        count_active(a, -1);
        continue;
      }
      a->running = true;
    }
    *out = r;
    // A busy shard's suspects (collect.cpp), now and then. Not inside a
    // collection already under way (an item's drops may have switched here).
    if (!s->suspects.empty() && ++s->takes_since_recheck >= kRecheckTakes && !collect_deferred()) recheck_suspects(s);
    note_take(s);  // placement.cpp: an idle shard may take some of what is queued behind this
    return true;
  }
  return false;
}

// The fiber that will run `r`: its own, or a pooled one given the delivery.
Fiber* fiber_for(Shard* s, Runnable r) {
  if (!r.actor) return r.fiber;
  Fiber* f = take_idle(s);
  f->task = r.actor;
  return f;
}

// Ends everything this shard owns (runtime.md §3.10): parked and runnable
// fibers are unwound through their drops, pooled fibers finish, unfired
// timers and the actors' state, mailboxes and notices are released. No
// monitor fires. Runs in the shard's scheduler context.
void teardown(Shard* s) {
  s->runq.clear();
  for (size_t i = 0; i < s->all.size(); ++i) {
    Fiber* f = s->all[i];
    if (f->finished || f == s->sched || f->is_main || f->pooled) continue;
    f->cancel = true;
    f->parked = false;
    switch_to(s->sched, f);  // unwinds into Unwind, returns to the pool
  }
  for (Fiber* f : s->idle) {
    f->task = nullptr;
    f->exit_to = s->sched;
    switch_to(s->sched, f);  // its loop ends; the fiber finishes
  }
  s->idle.clear();
  while (!s->timers.empty()) {
    Timer t = s->timers.top();
    s->timers.pop();
    release_value(t.msg, t.type);
    unref_actor(t.target);
  }
  s->park_deadlines.clear();  // every parked fiber has unwound above
  for (Actor* a : actors_of(s)) release_actor(a);
  wo_gc_collect();
}

void run_loop(Shard* s) {
  for (;;) {
    if (g_rt->shutdown.load(std::memory_order_acquire)) {
      teardown(s);
      return;
    }
    Runnable r;
    if (take_next(s, &r)) {
      local().budget = reductions();
      switch_to(s->sched, fiber_for(s, r));
      continue;
    }
    idle_wait(s);
  }
}

void worker_main(Shard* s) {
  t_shard = s;
  auto* sched = new Fiber;
  sched->shard = s;
  thread_stack(sched);
  sched->stack_limit = sched->stack_lo ? reinterpret_cast<uintptr_t>(sched->stack_lo) + kStackMargin : 0;
  sched->tsan = wo_tsan_fiber_current();
  sched->native = true;
  init_thread_local(sched->stack_limit);
  s->sched = sched;
  t_cur = sched;
  run_loop(s);
}

void shard0_sched_body(Fiber* f) { run_loop(f->shard); }

}  // namespace

// ---- switching ------------------------------------------------------------------

void switch_to(Fiber* from, Fiber* to) {
  observed_outside();  // the fiber resumed later may find the world changed
  t_prev = from;
  t_cur = to;
  local().stack_limit = to->stack_limit;
  wo_asan_start_switch(&from->asan_fake, to->stack_lo, to->stack_size);
  wo_tsan_fiber_switch(to->tsan);
  boost::context::fiber back = std::move(to->cont).resume();
  // Running `from` again: whoever switched here left itself in t_prev.
  wo_asan_finish_switch(from->asan_fake);
  t_prev->cont = std::move(back);
}

Shard* current_shard() { return t_shard; }
Fiber* current_fiber() { return t_cur; }

}  // namespace wo::sched

// core/backtrace.h's question, answered here where the fibers are known:
// no fiber (a thread outside the scheduler) records like `main`.
wo::StackKind wo::current_stack_kind() {
  const sched::Fiber* f = sched::current_fiber();
  if (!f || f->is_main) return StackKind::Main;
  return f->serving ? StackKind::Receive : StackKind::Scheduler;
}

namespace wo::sched {
bool started() { return g_started.load(std::memory_order_acquire); }
int64_t mailbox_cap() { return g_rt->mailbox_cap; }

int64_t now_us() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000 + ts.tv_nsec / 1000;
}

int64_t deadline_after_ms(int64_t ms) {
  constexpr int64_t kMaxMs = INT64_C(1) << 40;
  return now_us() + (ms > kMaxMs ? kMaxMs : ms) * 1000;
}

void push_run(Shard* s, Runnable r) { s->runq.push_back(r); }

void post(Shard* to, InboxItem item) { post_all(to, &item, 1); }

void post_all(Shard* to, const InboxItem* items, size_t n) {
  {
    std::lock_guard lk(to->mu);
    for (size_t i = 0; i < n; ++i) to->inbox.push_back(items[i]);
    to->has_mail.store(true, std::memory_order_seq_cst);
  }
  if (to->sleeping.load(std::memory_order_seq_cst)) {
    uint64_t one = 1;
    if (::write(to->efd, &one, sizeof one) < 0) { /* the counter is saturated: already awake */ }
  }
}

void add_timer(Timer t) {
  Shard* s = t_shard;
  t.seq = s->timer_seq++;
  s->timers.push(t);
}

// The running fiber `from` (already queued, parked or pooled) gives the
// thread to whatever runs next, directly; only when nothing is runnable does
// the scheduler take over (and wait). Resuming `from` itself is a no-op.
void switch_away(Fiber* from, Shard* s) {
  Runnable r;
  if (!take_next(s, &r)) {
    switch_to(from, s->sched);
    return;
  }
  local().budget = reductions();
  Fiber* to = fiber_for(s, r);
  if (to != from) switch_to(from, to);
}

bool shutting_down() { return g_rt && g_rt->shutdown.load(std::memory_order_acquire); }

bool stop_ends_current() {
  if (!(stop_armed() && stop_requested())) return false;
  return !started() || !t_cur || t_cur->is_main;
}

void park(int64_t deadline_us, bool stop_ends) {
  Fiber* f = t_cur;
  Shard* s = t_shard;
  if (stop_ends && stop_ends_current()) throw Unwind{};  // f is the current fiber
  ++f->park_id;
  f->parked = true;
  f->stop_proof = !stop_ends;
  if (deadline_us >= 0) s->park_deadlines.add(f, deadline_us, s->timer_seq++);
  switch_away(f, s);
  f->parked = false;
  f->stop_proof = false;
  s->park_deadlines.remove(f);  // woken early (fd ready, a reply): the deadline goes now
  if (f->cancel) throw Unwind{};
}

void wake(Fiber* f, uint64_t park_id) {
  if (!f->parked || f->park_id != park_id) return;  // a stale wake-up
  f->parked = false;
  push_run(f->shard, Runnable{f, nullptr});
}

std::vector<Actor*> actors_of(Shard* s) { return s->homed; }  // a copy: releasing may collect

Runtime* runtime_record() { return g_rt; }

void ensure_started() {
  if (started()) return;
  // Publish the TLS offset before any worker reads it (wo_start normally has).
  if (wo_fiber_local_offset == 0) init_thread_local(local().stack_limit);
  static uint64_t epochs = 0;  // only the thread starting the scheduler writes it
  g_rt = new Runtime;
  g_rt->epoch = ++epochs;
  g_rt->mailbox_cap = read_mailbox_cap();
  g_rt->spread = read_spread(false);
  int n = shard_count();
  for (int i = 0; i < n; ++i) {
    auto* s = new Shard;
    s->id = i;
    s->efd = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    s->epfd = ::epoll_create1(EPOLL_CLOEXEC);
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.ptr = nullptr;  // the eventfd: no fiber to wake
    if (s->efd < 0 || s->epfd < 0 || ::epoll_ctl(s->epfd, EPOLL_CTL_ADD, s->efd, &ev) < 0)
      raise(static_cast<int64_t>(TrapCode::IO), nullptr, "cannot create the scheduler's event loop");
    g_rt->shards.push_back(s);
  }
  Shard* s0 = g_rt->shards[0];
  t_shard = s0;
  auto* m = new Fiber;
  m->shard = s0;
  m->is_main = true;
  m->native = true;
  m->stack_limit = local().stack_limit;
  thread_stack(m);
  m->tsan = wo_tsan_fiber_current();
  g_rt->main = m;
  t_cur = m;
  s0->sched = make_fiber(s0, shard0_sched_body);
  s0->sched->exit_to = m;
  set_stop_wake_fd(s0->efd);
  open_external_waits(g_rt);
  g_started.store(true, std::memory_order_release);
  for (int i = 1; i < n; ++i) {
    Shard* s = g_rt->shards[i];
    s->thread = std::thread(worker_main, s);
  }
}

// ---- program end ----------------------------------------------------------------

void shutdown() {
  if (!started()) return;
  Runtime* rt = g_rt;
  if (stop_armed() && stop_requested()) {
    // A stop ended `main`: deliveries in progress get the grace period to
    // finish (shard 0's take_next ends the drain), then the program ends.
    rt->drain_deadline_us = now_us() + kStopGraceMs * 1000;
    rt->draining.store(true, std::memory_order_relaxed);
  } else {
    begin_shutdown();
  }
  // Shard 0's own teardown runs in its scheduler fiber, which ends by
  // switching back here.
  Shard* s0 = rt->shards[0];
  if (!s0->sched->finished) switch_to(rt->main, s0->sched);
  for (size_t i = 1; i < rt->shards.size(); ++i) rt->shards[i]->thread.join();
  print_sched_stats(rt->shards);  // every shard has stopped: their counts are final
  set_stop_wake_fd(-1);
  close_external_waits();  // before the inboxes are emptied and the shards freed
  // Single-threaded from here: what is left in an inbox was posted to a
  // shard that had already torn down.
  for (Shard* s : rt->shards) {
    for (InboxItem& it : s->inbox) {
      switch (it.kind) {
        case InboxItem::Mail:
          release_value(it.env.msg, it.env.type);
          if (it.env.wait) unref_wait(it.env.wait);
          break;
        case InboxItem::Wake:
          release_reply(it.wait);  // its caller unwound: nobody reads it
          unref_wait(it.wait);
          break;
        case InboxItem::Watch: release_value(it.env.msg, it.env.type); break;
        case InboxItem::Stop: break;
        case InboxItem::Durable: break;
        case InboxItem::Collect: break;
        case InboxItem::Adopt:   // moved, or spawned for another shard, as that one tore down:
        case InboxItem::Enlist:  // in no shard's list
          release_actor(it.actor);
          drop_held(it.actor);
          delete it.actor;
          break;
      }
    }
    s->inbox.clear();
  }
  for (Shard* s : rt->shards)
    for (Actor* a : s->homed) {
      drop_held(a);  // none left: teardown dropped them (release_actor)
      delete a;
    }
  free_shells();
  for (Shard* s : rt->shards) {
    for (Fiber* f : s->all) {
      wo_tsan_fiber_destroy(f->tsan);
      delete f;
    }
    if (s->id != 0) delete s->sched;  // the worker's own stack: nothing to free
    ::close(s->efd);
    ::close(s->epfd);
    delete s;
  }
  t_shard = nullptr;
  t_cur = nullptr;
  local().stack_limit = rt->main->stack_limit;
  delete rt->main;
  delete rt;
  g_rt = nullptr;
  g_started.store(false, std::memory_order_release);
}

}  // namespace wo::sched

extern "C" {

void wo_yield(void) {
  using namespace wo::sched;
  local().budget = reductions();
  Shard* s = t_shard;
  if (!s) return;
  Fiber* f = t_cur;
  if (f == s->sched || wo_tx_active()) return;  // a transaction never parks (decision 0018)
  push_run(s, Runnable{f, nullptr});
  switch_away(f, s);
  if (f->cancel) throw Unwind{};
}

void wo_sched_shutdown(void) { wo::sched::shutdown(); }

}  // extern "C"
