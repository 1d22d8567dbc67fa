// External waits (external_wait.h) on the `call` machinery: a CallWait whose
// "reply" is posted by a thread that is no shard. The one new hazard is
// lifetime: such a thread may fire after wo_sched_shutdown has freed the
// shards, so every fire is checked, under one mutex, against the epoch the
// wait was made in, and shutdown() closes the epoch before it frees them.
#include "external_wait.h"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <vector>

#include "shard_internal.h"
#include "wo_db.h"

namespace wo::sched {

namespace {

std::mutex g_ext_mu;                    // fire() against close_external_waits()
std::atomic<uint64_t> g_ext_epoch{1};   // bumped when a scheduler ends (written under g_ext_mu)
Runtime* g_ext_rt = nullptr;            // the running scheduler (under g_ext_mu), for publish_durable
std::atomic<uint64_t> g_durable{0};     // the store's durable seq, as published by its log writer

thread_local int t_no_park = 0;          // NoParkScopes alive on this thread

}  // namespace

NoParkScope::NoParkScope() { ++t_no_park; }
NoParkScope::~NoParkScope() { --t_no_park; }

bool can_park_here() {
  if (t_no_park > 0 || !started() || shutting_down()) return false;
  Shard* s = current_shard();
  Fiber* f = current_fiber();
  return s && f && f != s->sched && !wo_tx_active();
}

CallWait* external_wait_new() {
  Fiber* me = current_fiber();
  auto* w = new CallWait;  // refs 2: the parker and the firer
  w->caller = me;
  w->shard = current_shard();
  w->park_id = me->park_id + 1;  // the id park() is about to use (nothing parks in between)
  w->epoch = g_ext_epoch.load(std::memory_order_relaxed);
  return w;
}

void external_wait_park(CallWait* w) {
  try {
    park(-1, false);
  } catch (...) {
    w->abandoned = true;  // read only on this shard (finish_wake)
    unref_wait(w);
    throw;
  }
  unref_wait(w);
}

void external_wait_fire(CallWait* w) { external_wait_fire_all(&w, 1); }

void external_wait_fire_all(CallWait* const* ws, size_t n) {
  std::vector<CallWait*> live;
  std::vector<InboxItem> items;
  std::lock_guard lk(g_ext_mu);
  uint64_t epoch = g_ext_epoch.load(std::memory_order_relaxed);
  for (size_t i = 0; i < n; ++i) {
    if (ws[i]->epoch == epoch)
      live.push_back(ws[i]);
    else
      unref_wait(ws[i]);  // its scheduler has ended: the parker unwound and let go already
  }
  // Grouped by shard (a stable sort keeps each shard's waits in fire order).
  std::stable_sort(live.begin(), live.end(), [](CallWait* a, CallWait* b) { return a->shard < b->shard; });
  for (size_t i = 0; i < live.size();) {
    Shard* s = live[i]->shard;
    items.clear();
    for (; i < live.size() && live[i]->shard == s; ++i) {
      InboxItem it{InboxItem::Wake};
      it.wait = live[i];
      items.push_back(it);
    }
    post_all(s, items.data(), items.size());  // even to the firer's own shard: the wake-ups run in its loop
  }
}

void open_external_waits(Runtime* rt) {
  std::lock_guard lk(g_ext_mu);
  g_ext_rt = rt;
}

void close_external_waits() {
  std::lock_guard lk(g_ext_mu);
  g_ext_epoch.fetch_add(1, std::memory_order_relaxed);
  g_ext_rt = nullptr;
}

bool shard_idle_but_caller() {
  Shard* s = current_shard();
  if (!s || !s->runq.empty() || s->io_waiting != 0 || s->has_mail.load(std::memory_order_acquire)) return false;
  // Nothing due either: a committer that leads round after round must not
  // starve a timer or a park deadline (only the scheduler fires them).
  int64_t now = now_us();
  if (!s->timers.empty() && s->timers.top().deadline_us <= now) return false;
  return s->park_deadlines.empty() || s->park_deadlines.top()->deadline_us > now;
}

uint64_t durable_seq() { return g_durable.load(std::memory_order_seq_cst); }

void publish_durable(uint64_t seq) {
  uint64_t cur = g_durable.load(std::memory_order_relaxed);
  while (cur < seq && !g_durable.compare_exchange_weak(cur, seq, std::memory_order_seq_cst)) {
  }
  // Pairs with held.cpp's hold(): count yourself, then read the seq.
  std::lock_guard lk(g_ext_mu);
  if (!g_ext_rt) return;
  for (Shard* s : g_ext_rt->shards)
    if (s->held_actors.load(std::memory_order_seq_cst) > 0) post(s, InboxItem{InboxItem::Durable});
}

}  // namespace wo::sched
