// Held messages (docs/decisions/0045): a commit made in an actor's receive
// stages its record and returns at once; the actor remembers the highest
// seq it depends on (`need`). Until the store's durable seq reaches it,
// every message the actor sends (send, the reply to a `call`, a `call` it
// makes) waits here, on the actor's home shard, in send order; once one is
// held, later ones queue behind it (FIFO per sender). The store's log writer
// publishes each round's durable seq (publish_durable, external_wait.cpp)
// and posts a Durable item to every shard that holds something; the shard
// then lets out what the seq covers. Every other visible effect of the
// actor (print, socket and file writes, time.after, its death) first passes
// durable_barrier(), which parks until durable as a commit did before.
//
// A held message was already counted against its target's mailbox bound
// when it was sent (a full mailbox traps the sender then, as always).
#include <algorithm>

#include "external_wait.h"
#include "shard_internal.h"
#include "wo_db.h"

namespace wo::sched {

namespace {

void dispatch(Held& h) {
  if (h.reply_to) {
    complete_call(h.reply_to, h.reply, h.died);
    return;
  }
  try {
    enqueue(h.to, h.env.msg, h.env.type, h.env.wait);
  } catch (...) {
    // enqueue released the message (a deep copy ran out of memory): the
    // call it carried, if any, ends as if the target had died.
    if (h.env.wait) complete_call(h.env.wait, 0, true);
  }
}

void hold(Actor* from, const Held& h) {
  if (!from->held) from->held = new std::deque<Held>;
  if (from->held->empty()) {
    from->home_shard()->holding.push_back(from);
    from->home_shard()->held_actors.fetch_add(1, std::memory_order_seq_cst);
  }
  from->held->push_back(h);
  ask_durable(from);
  // Pairs with publish_durable (store the seq, then read held_actors): a
  // round that ended before we counted ourselves is seen here.
  release_held(from);
}

bool must_hold(Actor* from) {
  if (!from) return false;
  if (from->held && !from->held->empty()) release_held(from);
  return from->need > durable_seq() || (from->held && !from->held->empty());
}

}  // namespace

void send_or_hold(Actor* from, Actor* to, uint64_t msg, const WoTypeDesc* type, CallWait* wait) {
  if (!must_hold(from)) {
    enqueue(to, msg, type, wait);
    return;
  }
  hold(from, Held{from->need, to, Envelope{msg, type, wait}, nullptr, 0, false});
}

void reply_or_hold(Actor* from, CallWait* w, uint64_t reply, bool died) {
  if (!must_hold(from)) {
    complete_call(w, reply, died);
    return;
  }
  hold(from, Held{from->need, nullptr, Envelope{}, w, reply, died});
}

void release_held(Actor* a) {
  // What dispatch sets off (a reply to an abandoned call_dl drops its
  // caller's last count, ...) may make `a` unreachable: it is freed only
  // once this loop is done with its queue.
  DeferCollect later;
  std::deque<Held>* q = a->held;
  if (!q || q->empty()) return;
  uint64_t durable = durable_seq();
  while (!q->empty() && q->front().need <= durable) {
    Held h = q->front();
    q->pop_front();
    dispatch(h);
  }
  if (!q->empty()) return;
  std::vector<Actor*>& hs = a->home_shard()->holding;
  hs.erase(std::find(hs.begin(), hs.end(), a));
  a->home_shard()->held_actors.fetch_sub(1, std::memory_order_seq_cst);
  maybe_collect(a);  // its last held message may have been all that kept it
}

void release_held_all(Shard* s) {
  DeferCollect later;                   // no actor of the list is freed while it is walked
  std::vector<Actor*> hs = s->holding;  // release_held edits the list
  for (Actor* a : hs) release_held(a);
}

void drop_held(Actor* a) {
  std::deque<Held>* q = a->held;
  if (!q) return;
  for (Held& h : *q) {
    if (h.reply_to) {
      h.reply_to->reply = h.reply;  // an address reply is a handle to release
      h.reply_to->died = h.died;
      release_reply(h.reply_to);
      unref_wait(h.reply_to);
    } else {
      release_value(h.env.msg, h.env.type);
      if (h.env.wait) unref_wait(h.env.wait);
    }
  }
  if (!q->empty()) a->home_shard()->held_actors.fetch_sub(1, std::memory_order_seq_cst);
  delete q;
  a->held = nullptr;
}

void ask_durable(Actor* a) {
  if (a->need <= a->asked || a->need <= durable_seq()) return;
  a->asked = a->need;
  wo_db_want_durable(a->need);
}

void durable_barrier_for(Actor* a) {
  if (!a) return;
  if (a->need > durable_seq()) wo_db_wait_durable(a->need);  // parks; the durable seq is published first
  release_held(a);
}

void durable_barrier() {
  Fiber* f = current_fiber();
  if (f) durable_barrier_for(f->serving);
}

bool defer_commit(uint64_t seq) {
  if (!can_park_here()) return false;
  Actor* a = current_fiber()->serving;
  if (!a) return false;  // `main` and other fibers keep waiting
  a->need = std::max(a->need, seq);
  return true;
}

}  // namespace wo::sched

extern "C" void wo_sched_durable_barrier(void) { wo::sched::durable_barrier(); }
