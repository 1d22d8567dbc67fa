// Where actors live (docs/decisions/0083). An actor starts on the shard of
// the code that spawns it, so actors that talk to each other share a
// thread and a message between them is a function call's worth of work,
// not a deep copy, an inbox post and a wake-up of another thread (which on
// a busy machine waits for a core). Actors change shards in two ways:
//
//  - an idle shard asks for work (Shard::wants_work) and a shard with work
//    queued behind what it runs next hands it some of its queued actors
//    (share_work): fresh ones at once, others after a lasting backlog;
//  - an actor that keeps getting mail from one sender on another shard
//    moves to that shard (follow_mail, move_followers).
//
// A move is done by the actor's home shard, between two deliveries of
// the actor (queued, not running): it deep-copies the state and the queued
// messages (within a shard values are shared by count, so nothing of the
// old shard's may stay reachable), and publishes the new home. It happens
// only when no message to the actor is in flight (its `pending` count equals
// its queued messages): the compare-exchange that checks it also sets the
// kMoving bit, and a sender that reserves a slot while the bit is set waits
// for the new home before it posts. So every message sent before the move
// is in the moved mailbox, every later one goes to the new home, and the
// order of each sender's messages holds.
#include <sched.h>

#include <algorithm>
#include <functional>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "placement.h"

#include "external_wait.h"
#include "shard_internal.h"

namespace wo::sched {

namespace {

constexpr size_t kMaxHandOff = 16;  // actors one hand-off moves at most
constexpr int kFreshBacklog = 2;    // takes in a row with work queued behind before fresh actors may go
constexpr int kBacklogTakes = 64;   // ... before any may go; and takes between two hand-offs
// An actor with more mail queued stays: each message is copied when it moves,
// and a backlog says the actor is busy where it is.
constexpr size_t kMaxMovedMail = 16;
constexpr int kFollowAfter = 64;    // mails in a row from one sender on another shard before an actor follows it
constexpr size_t kLookAhead = 64;   // the longest run queue shared from; how far from its tail a follower is looked for

// Another shard that is idle and asked for work, claimed (nobody else hands
// it work until it asks again), or nullptr.
Shard* claim_idle(Shard* self) {
  const std::vector<Shard*>& shards = runtime_record()->shards;
  size_t n = shards.size();
  for (size_t k = 1; k < n; ++k) {
    Shard* s = shards[(static_cast<size_t>(self->id) + k) % n];
    if (s->wants_work.load(std::memory_order_relaxed) && s->wants_work.exchange(false, std::memory_order_acq_rel))
      return s;
  }
  return nullptr;
}

bool anyone_idle(Shard* self) {
  for (Shard* s : runtime_record()->shards)
    if (s != self && s->wants_work.load(std::memory_order_relaxed)) return true;
  return false;
}

// Between two deliveries, with nothing of it tied to this shard: no parked
// receive, no held messages or uncommitted-to-disk work (decision 0045), no
// monitors (their notices are this shard's values), not listed as a suspect.
bool movable(const Actor* a) {
  return a->queued && !a->running && !a->moved && a->mailbox.size() <= kMaxMovedMail &&
         !a->dead.load(std::memory_order_relaxed) && !a->suspect &&
         a->monitors.empty() && (!a->held || a->held->empty()) && a->need <= durable_seq() &&
         a->waiting_on.load(std::memory_order_relaxed) == 0;
}

// A `call` from a fiber of this shard is queued for it: its caller waits
// here, so moving it would send every answer across (the callee of a
// ping-pong pair; the caller cannot move, being a parked fiber).
bool called_from_here(const Actor* a, const Shard* s) {
  bool here = false;
  a->mailbox.each([&](const Envelope& e) { here = here || (e.wait && e.wait->shard == s); });
  return here;
}

// Worth handing to another shard: movable, and not tied here by a caller.
bool shareable(const Actor* a, const Shard* s) { return movable(a) && !called_from_here(a, s); }

void release_box(Mailbox& box) {
  while (!box.empty()) {
    Envelope e = box.pop();
    release_value(e.msg, e.type);  // its call record (if any) is the moved envelope's
  }
}

InboxItem adopt_item(Actor* a) {
  InboxItem it{InboxItem::Adopt};
  it.actor = a;
  return it;
}

// Moves the queued actor `a` from this shard to `to`. False, with nothing
// changed, when a message to it is in flight or a copy runs out of memory.
bool move_actor(Actor* a, Shard* to) {
  void* state = nullptr;
  Mailbox box;
  try {
    state = reinterpret_cast<void*>(copy_value(reinterpret_cast<uint64_t>(a->state), a->type->state));
    a->mailbox.each([&](const Envelope& e) {
      uint64_t msg = copy_value(e.msg, e.type);
      try {
        box.push(Envelope{msg, e.type, e.wait});
      } catch (...) {
        release_value(msg, e.type);
        throw;
      }
    });
  } catch (...) {
    wo_release(state);
    release_box(box);
    return false;
  }
  auto queued = static_cast<int64_t>(a->mailbox.size());
  int64_t expect = queued;
  if (!a->pending.compare_exchange_strong(expect, queued | kMoving, std::memory_order_acq_rel)) {
    wo_release(state);
    release_box(box);
    return false;
  }
  a->moved = true;
  delist(current_shard(), a);  // the new home lists it when the Adopt item arrives
  std::swap(a->state, state);
  a->mailbox.swap(box);
  a->home.store(to, std::memory_order_release);  // from here on `a` is not this shard's to touch
  a->pending.fetch_sub(kMoving, std::memory_order_release);
  // The originals: this shard's values (maybe shared with others here).
  wo_release(state);
  release_box(box);
  return true;
}

// Called by a shard with work queued behind what it runs next (after
// kFreshBacklog takes in a row): hands some queued actors to an idle shard.
void share_work(Shard* s) {
  // A long queue is many small deliveries, where moving one actor costs about
  // what running it does and its answers come back across: it stays (skynet:
  // sharing out of a queue of 100,000 leaves made it 1.5x slower than one
  // shard; sharing only from a short queue splits the tree at the top).
  if (s->runq.empty() || s->runq.size() > kLookAhead || runtime_record()->spread || !anyone_idle(s) ||
      collect_deferred())
    return;
  // Fresh actors (no delivery yet) may go as soon as the queue holds more
  // than one thing: nothing depends on where they are yet, and in a tree of
  // spawns the oldest are the highest, whose subtrees then grow on the other
  // shard. Others only after a backlog that lasted kBacklogTakes takes, the
  // newest first. The candidates' run-queue indices, in that order:
  bool any = s->backlog >= kBacklogTakes;
  std::vector<size_t> order, rest;
  for (size_t i = 0; i < s->runq.size(); ++i) {
    Actor* a = s->runq[i].actor;
    if (a && (any || a->fresh) && shareable(a, s)) (a->fresh ? order : rest).push_back(i);
  }
  order.insert(order.end(), rest.rbegin(), rest.rend());
  if (order.size() < 2) {
    if (any) s->backlog = 0;  // nothing to give: look again a backlog later
    return;
  }
  Shard* to = claim_idle(s);
  if (!to) return;
  s->backlog = 0;
  s->share_pause = kBacklogTakes;
  // Half of what could go, rounded down (the other half stays: this shard is
  // busy too). One alone stays: a token passed round a ring of fresh actors
  // is one candidate at a time, and moving it would split the ring.
  size_t want = std::min(order.size() / 2, kMaxHandOff);
  std::vector<InboxItem> moved;
  std::vector<size_t> gone;
  for (size_t i : order) {
    if (moved.size() == want) break;
    if (!move_actor(s->runq[i].actor, to)) continue;  // a message in flight: it stays
    moved.push_back(adopt_item(s->runq[i].actor));
    gone.push_back(i);
  }
  if (moved.empty()) {
    to->wants_work.store(true, std::memory_order_release);  // still idle: someone else may feed it
    return;
  }
  std::sort(gone.begin(), gone.end(), std::greater<>());  // erased from the back: the others keep their index
  for (size_t i : gone) s->runq.erase(s->runq.begin() + static_cast<std::ptrdiff_t>(i));
  count_active(s, -static_cast<int64_t>(moved.size()));
  s->moved_shared += static_cast<int64_t>(moved.size());
  post_all(to, moved.data(), moved.size());
}

}  // namespace

bool read_spread(bool strict) {
  const char* v = std::getenv("WO_PLACEMENT");
  if (!v || !*v || std::strcmp(v, "follow") == 0) return false;
  if (std::strcmp(v, "spread") == 0) return true;
  if (strict) {
    std::fflush(stdout);
    std::fprintf(stderr,
                 "wo: WO_PLACEMENT must be \"follow\" (the default: an actor starts on its spawner's shard and "
                 "idle shards are handed work) or \"spread\" (round-robin over the shards); it is \"%s\"\n",
                 v);
    std::exit(2);
  }
  return false;
}

Shard* shard_for_spawn() {
  Runtime* rt = runtime_record();
  if (rt->spread) {
    uint64_t n = rt->next_spawn.fetch_add(1, std::memory_order_relaxed);
    return rt->shards[n % rt->shards.size()];
  }
  return current_shard();
}

void note_take(Shard* s) {
  s->load.store(static_cast<int64_t>(s->runq.size()), std::memory_order_relaxed);
  if (s->share_pause > 0) --s->share_pause;
  if (s->runq.empty())
    s->backlog = 0;
  else if (++s->backlog >= kFreshBacklog && s->share_pause == 0)
    share_work(s);
}

void follow_mail(Actor* a, Shard* from, const void* sender) {
  if (a->mail_from != from || a->mail_sender != sender) {
    a->mail_from = from;
    a->mail_sender = sender;
    a->mail_streak = 0;
  }
  if (++a->mail_streak < kFollowAfter || runtime_record()->spread) return;
  a->mail_streak = 0;
  current_shard()->follow.push_back(Shard::Follow{a, from, a->life.load(std::memory_order_relaxed)});
}

void move_followers(Shard* s) {
  std::vector<Shard::Follow> list;
  list.swap(s->follow);
  if (collect_deferred()) return;
  for (const Shard::Follow& f : list) {
    Actor* a = f.actor;
    // Still the same actor, still here and movable, and not towards a shard
    // busier than this one (a worker fed by a busy shard stays where the
    // work was shared out to) nor towards a sleeping one: the burst that came
    // from it has ended, and a consumer moved to a sleeping shard was flooded
    // by this one's senders before that shard woke (a mailbox-full trap). A
    // shard that only spins between a call and its reply is not asleep.
    if (a->life.load(std::memory_order_relaxed) != f.life || !a->type || a->home_shard() != s || !movable(a) ||
        f.to == s || f.to->load.load(std::memory_order_relaxed) > s->load.load(std::memory_order_relaxed) ||
        f.to->sleeping.load(std::memory_order_relaxed))
      continue;
    // Its run-queue entry: queued by the inbox just drained, so near the tail.
    size_t stop = s->runq.size() > kLookAhead ? s->runq.size() - kLookAhead : 0;
    size_t i = s->runq.size();
    while (i > stop && s->runq[i - 1].actor != a) --i;
    if (i == stop || !move_actor(a, f.to)) continue;
    s->runq.erase(s->runq.begin() + static_cast<std::ptrdiff_t>(i - 1));
    count_active(s, -1);
    ++s->moved_followed;
    post(f.to, adopt_item(a));
  }
}

void print_sched_stats(const std::vector<Shard*>& shards) {
  const char* v = std::getenv("WO_SCHED_STATS");
  if (!v || !*v || std::strcmp(v, "0") == 0) return;
  int64_t shared = 0, followed = 0;
  for (const Shard* s : shards) {
    shared += s->moved_shared;
    followed += s->moved_followed;
  }
  std::fflush(stdout);
  std::fprintf(stderr, "wo: sched: %zu shards (%s), %lld actors handed to idle shards, %lld moved after their mail\n",
               shards.size(), runtime_record()->spread ? "spread" : "follow", static_cast<long long>(shared),
               static_cast<long long>(followed));
}

void adopt(Actor* a) {
  Shard* s = current_shard();
  enlist(s, a);
  count_active(s, 1);
  push_run(s, Runnable{nullptr, a});
}

void wait_for_move(Actor* a) {
  for (int i = 0; a->pending.load(std::memory_order_acquire) & kMoving; ++i) {
    if (i < 128)
      cpu_relax();
    else
      sched_yield();  // the mover lost its core: let it finish
  }
}

}  // namespace wo::sched
