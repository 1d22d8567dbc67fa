// Freeing actors nothing can reach (docs/decisions/0079).
//
// An address is a handle (ActorRef): a heap object of the shard holding it,
// counted without atomics like every other value there. Each handle holds
// one count of its actor's atomic `refs`, and so do the runtime's own
// references: a time.after timer's target, a monitor's observer, the caller
// of a `call_dl` (the callee's shard touches it after the caller may have
// given up). When `refs` reaches zero nobody can send to the actor again:
// no handle exists and none can be made (only a handle or the runtime makes
// one). Its home shard then destroys it as soon as it is idle: not queued
// or running, mailbox empty, nothing sent to it still in flight (`pending`,
// which a sender raises while it still holds a handle), and no held
// messages of its own waiting for a commit.
//
// Shells are recycled, never freed before the end: a shard following call
// links (closes_call_cycle) may read a stale link to a collected actor, and
// its atomic `waiting_on` must stay readable memory. The pool holds at most
// as many shells as were ever alive at once.
//
// Cycles of idle actors that hold each other's addresses are not collected
// (the decision says what that costs and why).
#include <mutex>

#include "../heap.h"
#include "shard_internal.h"

namespace wo::sched {

Runtime* runtime_record();  // shard.cpp

namespace {

void ref_destroy(void* self) { unref_actor(static_cast<ActorRef*>(self)->actor); }

bool collecting(Runtime* rt) {
  return rt && !rt->shutdown.load(std::memory_order_acquire) && !rt->draining.load(std::memory_order_relaxed);
}

// Destroying an actor releases its state, which may drop the last handle
// of another actor homed here: that one waits in this list instead of
// recursing, so a long chain of actors is freed in a loop.
thread_local bool t_collecting = false;
thread_local std::vector<Actor*> t_doomed;

bool idle(const Actor* a) {
  return !a->queued && !a->running && a->mailbox.empty() && a->pending.load(std::memory_order_acquire) == 0 &&
         (!a->held || a->held->empty());
}

void destroy(Actor* a) {
  Runtime* rt = runtime_record();
  {
    std::lock_guard lk(rt->actors_mu);
    Actor* last = rt->actors.back();
    rt->actors[a->slot] = last;
    last->slot = a->slot;
    rt->actors.pop_back();
  }
  a->life.fetch_add(1, std::memory_order_release);
  release_actor(a);  // state, monitors (their observers' counts), queued nothing
  a->mailbox.reset();
  std::vector<Monitor>().swap(a->monitors);
  drop_held(a);
  a->type = nullptr;
  a->dead.store(false, std::memory_order_relaxed);
  a->need = a->asked = 0;
  a->call_tag = 0;
  std::lock_guard lk(rt->actors_mu);
  rt->free_shells.push_back(a);
}

}  // namespace

ActorRef* new_ref(Actor* a) {
  auto* r = static_cast<ActorRef*>(wo_alloc(sizeof(ActorRef), ref_destroy));
  r->actor = a;
  a->refs.fetch_add(1, std::memory_order_relaxed);
  return r;
}

void retain_actor(Actor* a) { a->refs.fetch_add(1, std::memory_order_relaxed); }

void unref_actor(Actor* a) {
  if (a->refs.fetch_sub(1, std::memory_order_acq_rel) != 1) return;
  if (!collecting(runtime_record())) return;
  if (a->home == current_shard()) {
    maybe_collect(a);
    return;
  }
  InboxItem it{InboxItem::Collect};
  it.actor = a;
  it.env.msg = a->life.load(std::memory_order_relaxed);
  post(a->home, it);
}

void maybe_collect(Actor* a) {
  if (a->refs.load(std::memory_order_acquire) != 0 || !idle(a) || !collecting(runtime_record())) return;
  if (t_collecting) {
    t_doomed.push_back(a);
    return;
  }
  t_collecting = true;
  t_doomed.push_back(a);
  while (!t_doomed.empty()) {
    Actor* x = t_doomed.back();
    t_doomed.pop_back();
    // Checked again: the same actor may have been listed twice.
    if (x->type && x->refs.load(std::memory_order_acquire) == 0 && idle(x)) destroy(x);
  }
  t_collecting = false;
}

void collect_item(Actor* a, uint64_t life) {
  // A shell collected and reused since the item was posted is another actor
  // now, maybe homed elsewhere: only the life the item names is looked at.
  if (a->life.load(std::memory_order_acquire) != life || a->home != current_shard()) return;
  maybe_collect(a);
}

void release_reply(CallWait* w) {
  if (!w->reply_ref || w->died || !w->reply) return;
  wo_release(reinterpret_cast<void*>(w->reply));
  w->reply = 0;
}

Actor* take_shell() {
  Runtime* rt = runtime_record();
  {
    std::lock_guard lk(rt->actors_mu);
    if (!rt->free_shells.empty()) {
      Actor* a = rt->free_shells.back();
      rt->free_shells.pop_back();
      return a;
    }
  }
  return new Actor;
}

void free_shells() {
  Runtime* rt = runtime_record();
  for (Actor* a : rt->free_shells) delete a;
  rt->free_shells.clear();
}

}  // namespace wo::sched

extern "C" bool wo_actor_same(int64_t a, int64_t b) {
  if (!a || !b) return a == b;
  return wo::sched::ref_actor(a) == wo::sched::ref_actor(b);
}
