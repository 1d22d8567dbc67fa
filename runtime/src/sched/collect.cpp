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
// An actor that holds its own address in a field of its state (the usual
// way to hand children a reply address: `me: ?actor M`) is unreachable
// when every count left is such a field: a handle held by that field alone
// (its own count 1) naming the actor itself. Longer cycles of idle actors
// are not collected (the decision says what that costs and why).
#include <cstring>
#include <mutex>

#include "../core/heap.h"
#include "shard_internal.h"

namespace wo::sched {

Runtime* runtime_record();  // shard.cpp

namespace {

// A handle dropped after its scheduler ended (a traced cycle reclaimed at
// exit, a C test's leftover) names a shell that is gone: nothing to count.
void ref_destroy(void* self) {
  auto* r = static_cast<ActorRef*>(self);
  Runtime* rt = runtime_record();
  if (rt && rt->epoch == r->epoch) unref_actor(r->actor);
}

bool collecting(Runtime* rt) {
  return rt && !rt->shutdown.load(std::memory_order_acquire) && !rt->draining.load(std::memory_order_relaxed);
}

// Destroying an actor releases its state, which may drop the last handle
// of another actor homed here: that one waits in this list instead of
// recursing, so a long chain of actors is freed in a loop.
// Entries carry the shell's life: one listed again while it is being
// destroyed (its own `me` released) is skipped afterwards, also once the
// shell serves another spawn.
struct Doomed {
  Actor* actor;
  uint64_t life;
};
thread_local bool t_collecting = false;
thread_local std::vector<Doomed> t_doomed;

bool idle(const Actor* a) {
  return !a->queued && !a->running && a->mailbox.empty() && a->pending.load(std::memory_order_acquire) == 0 &&
         (!a->held || a->held->empty());
}

bool is_address(const WoTypeDesc* t) {
  return t->kind == WO_TY_ACTOR || (t->kind == WO_TY_NULLABLE && t->elem->kind == WO_TY_ACTOR);
}

// The state's address fields that name `a` itself (home shard: the state
// and its handles are this shard's): how many hold their handle alone (so
// many of `refs` keep nothing reachable), and whether one shares its handle
// with something else on this shard (a caller's local passed in `me: s`).
struct OwnFields {
  int64_t alone = 0;
  bool shared = false;
};

OwnFields own_fields(const Actor* a) {
  OwnFields out;
  if (!a->addr_fields || !a->state) return out;
  const WoClassDesc* cls = a->type->state->cls;
  for (int64_t i = 0; i < cls->nfields; ++i) {
    if (!is_address(cls->fields[i].type)) continue;
    ActorRef* r;
    std::memcpy(&r, static_cast<const char*>(a->state) + cls->fields[i].offset, sizeof r);
    if (!r || r->actor != a) continue;
    if (r->h.rc == 1)
      ++out.alone;
    else
      out.shared = true;
  }
  return out;
}

// Idle, and nothing but its own fields could name it.
bool idle_with_few_refs(const Actor* a) {
  return a->refs.load(std::memory_order_acquire) <= a->addr_fields && idle(a);
}

bool unreachable(const Actor* a) {
  int64_t refs = a->refs.load(std::memory_order_acquire);
  return refs <= a->addr_fields && idle(a) && refs == own_fields(a).alone;
}

// An own field shares its handle: when the other copy goes, the handle's
// count falls but the actor's does not, and nothing tells the runtime. Such
// an actor is listed and looked at again when the shard idles.
bool waits_on_shared_me(const Actor* a) { return idle_with_few_refs(a) && own_fields(a).shared; }

void maybe_suspect(Actor* a) {
  if (a->suspect || !waits_on_shared_me(a)) return;
  a->suspect = true;
  a->home_shard()->suspects.emplace_back(a, a->life.load(std::memory_order_relaxed));
}

// Asks `home` to look at `a` (of life `life`): the Collect item.
void post_collect(Shard* home, Actor* a, uint64_t life) {
  InboxItem it{InboxItem::Collect};
  it.actor = a;
  it.env.msg = life;
  post(home, it);
}

void destroy(Actor* a) {
  release_actor(a);  // state (its own `me` too), monitors (their observers' counts)
  a->mailbox.reset();
  std::vector<Monitor>().swap(a->monitors);
  drop_held(a);
  a->type = nullptr;
  a->life.fetch_add(1, std::memory_order_release);  // entries and Collect items of this life are void now
  Shard* home = current_shard();
  delist(home, a);
  home->shells.push_back(a);
}

}  // namespace

ActorRef* new_ref(Actor* a, bool adopt) {
  auto* r = static_cast<ActorRef*>(wo_alloc(sizeof(ActorRef), ref_destroy));
  r->actor = a;
  r->epoch = runtime_record()->epoch;
  if (!adopt) a->refs.fetch_add(1, std::memory_order_relaxed);
  return r;
}

void retain_actor(Actor* a) { a->refs.fetch_add(1, std::memory_order_relaxed); }

void unref_actor(Actor* a) {
  // Read while the count still holds the shell: once it is dropped another
  // shard may destroy the actor and a spawn reuse the shell.
  const int64_t own = a->addr_fields;
  Shard* home = a->home_shard();
  const uint64_t life = a->life.load(std::memory_order_relaxed);
  // What is left may be the actor's own `me` fields (addr_fields is fixed
  // at spawn): worth a look by the home shard.
  if (a->refs.fetch_sub(1, std::memory_order_acq_rel) - 1 > own) return;
  if (!collecting(runtime_record())) return;
  if (home == current_shard()) {
    maybe_collect(a);
    return;
  }
  post_collect(home, a, life);
}

bool collect_deferred() { return t_collecting; }

DeferCollect::DeferCollect() : outer_(!t_collecting) { t_collecting = true; }

DeferCollect::~DeferCollect() {
  if (!outer_) return;
  try {
    while (!t_doomed.empty()) {
      Doomed x = t_doomed.back();
      t_doomed.pop_back();
      // Looked at now, not when listed: the same actor may be listed twice,
      // and one destroyed since has another life.
      if (x.actor->life.load(std::memory_order_relaxed) != x.life || !x.actor->type) continue;
      if (unreachable(x.actor))
        destroy(x.actor);
      else
        maybe_suspect(x.actor);
    }
  } catch (...) {
    t_doomed.clear();  // out of memory while freeing: what is left stays until the end
  }
  t_collecting = false;
}

void maybe_collect(Actor* a) {
  if (!a->type || !collecting(runtime_record())) return;
  t_doomed.push_back(Doomed{a, a->life.load(std::memory_order_relaxed)});
  DeferCollect now;  // destroys it here, unless an outer scope defers it
}

void recheck_suspects(Shard* s) {
  s->takes_since_recheck = 0;
  if (s->suspects.empty() || !collecting(runtime_record())) return;
  DeferCollect later;
  auto& v = s->suspects;
  size_t checks = v.size() < 1024 ? v.size() : 1024;  // a slice per idle moment, round robin
  for (size_t k = 0; k < checks && !v.empty(); ++k) {
    if (s->suspect_at >= v.size()) s->suspect_at = 0;
    auto [a, life] = v[s->suspect_at];
    bool same = a->life.load(std::memory_order_relaxed) == life && a->type;
    if (same && waits_on_shared_me(a)) {
      ++s->suspect_at;  // still shared: look again later
      continue;
    }
    v[s->suspect_at] = v.back();
    v.pop_back();
    if (!same) continue;  // collected or reused since: not this list's business
    a->suspect = false;
    maybe_collect(a);  // unreachable now, or named again (then listed again when it idles)
  }
}

void collect_item(Actor* a, uint64_t life) {
  // A shell collected and reused since the item was posted is another actor
  // now, maybe homed elsewhere: only the life the item names is looked at.
  if (a->life.load(std::memory_order_acquire) != life) return;
  Shard* home = a->home_shard();
  if (home != current_shard()) {  // it moved since the item was posted (placement.cpp): its home looks
    post_collect(home, a, life);
    return;
  }
  maybe_collect(a);
}

void release_reply(CallWait* w) {
  if (!w->reply_ref || w->died || !w->reply) return;
  wo_release(reinterpret_cast<void*>(w->reply));
  w->reply = 0;
}

Actor* take_shell(const WoActorType* type, Shard* home, void* state) {
  // A shell this thread's shard collected (any shard's would do: a shell is
  // only memory; the per-shard list takes no lock).
  std::vector<Actor*>& shells = current_shard()->shells;
  Actor* a = nullptr;
  if (!shells.empty()) {
    a = shells.back();
    shells.pop_back();
  } else {
    a = new Actor;
  }
  a->type = type;
  a->home.store(home, std::memory_order_release);
  a->state = state;
  a->refs.store(1, std::memory_order_relaxed);  // the spawn's own handle (new_ref adopts it)
  a->pending.store(0, std::memory_order_relaxed);
  a->dead.store(false, std::memory_order_relaxed);
  a->waiting_on.store(0);
  a->call_tag = 0;
  a->queued = a->running = false;
  a->fresh = true;
  a->moved = false;
  a->mail_from = nullptr;
  a->mail_sender = nullptr;
  a->mail_streak = 0;
  a->need = a->asked = 0;
  a->suspect = false;
  a->addr_fields = 0;
  const WoClassDesc* cls = type->state->cls;
  for (int64_t i = 0; i < cls->nfields; ++i) a->addr_fields += is_address(cls->fields[i].type);
  if (home == current_shard()) {
    enlist(home, a);
  } else {  // WO_PLACEMENT=spread: its home lists it (before any mail the spawner sends it)
    InboxItem it{InboxItem::Enlist};
    it.actor = a;
    post(home, it);
  }
  return a;
}

void enlist(Shard* s, Actor* a) {
  a->slot = s->homed.size();
  s->homed.push_back(a);
}

void delist(Shard* s, Actor* a) {
  Actor* last = s->homed.back();
  s->homed[a->slot] = last;
  last->slot = a->slot;
  s->homed.pop_back();
}

void free_shells() {
  for (Shard* s : runtime_record()->shards) {
    for (Actor* a : s->shells) delete a;
    s->shells.clear();
  }
}

}  // namespace wo::sched

extern "C" bool wo_actor_same(int64_t a, int64_t b) {
  if (!a || !b) return a == b;
  return wo::sched::ref_actor(a) == wo::sched::ref_actor(b);
}
