// Held messages (docs/decisions/0045): a commit made in an actor's receive
// returns at once, and the actor's messages (sends, the reply to a `call`, a
// `call` it makes) wait until the store's log writer has made the commit
// durable. The log writer is held (GroupCommit::hold_writer) to show what
// is not let out before the fdatasync; probes through the target's shard
// show that a message would have arrived by then, had it not been held.
#include <doctest/doctest.h>

#include <atomic>
#include <cstddef>
#include <mutex>
#include <vector>

#include "spawned.h"
#include "runtime/src/db/engine.h"
#include "runtime/src/sched/sched.h"
#include "runtime/src/core/trap.h"
#include "tests/db/db_test_support.h"
#include "tests/db/one_int_actor.h"
#include "wo_actor.h"

using namespace dbtest;

namespace {

const WoSite kSite{"db_held_messages_test", 1, nullptr, 0};
const WoTypeDesc& kInt = kIntDesc;
const WoTypeDesc& kState = kOneIntState;

struct Items {
  Schema s;
  Items() {
    int t = s.table("items");
    s.field(t, "key", WO_DB_INT);
    s.field(t, "n", WO_DB_INT);
    s.index(t, {0}, true);
  }
};

wo::db::GroupCommit& gc() { return *wo::db::Engine::instance()->group_commit(); }

// Addresses the actors' receives use (set before any message is sent).
std::atomic<int64_t> g_recorder{0}, g_target{0}, g_committer{0};
std::atomic<int> g_seen{0};       // Committer deliveries begun
std::atomic<int64_t> g_woken{0};  // the Caller's call returned (its reply)
std::atomic<int> g_called{0};     // Echo deliveries
std::atomic<int> g_died{0};       // the Caller saw its callee die
std::mutex g_mu;
std::vector<int64_t> g_log;       // what the Recorder received, in order

// Recorder: m >= 0 is logged; m < 0 is a probe that replies the log's size.
uint64_t recorder(void*, uint64_t w) {
  auto m = static_cast<int64_t>(w);
  std::lock_guard lk(g_mu);
  if (m >= 0) g_log.push_back(m);
  return g_log.size();
}
const WoActorType kRecorder{"Recorder", recorder, &kState, &kInt, 0};

// Committer: m > 0 inserts row m, then sends the Recorder m*10+1 and m*10+2
// and replies m; m == -1 sends the Recorder 99 without committing; m == -2
// inserts row 2000 and calls the Echo; m == -3 inserts row 3000, sends the
// Recorder 7 and traps.
uint64_t committer(void*, uint64_t w) {
  auto m = static_cast<int64_t>(w);
  g_seen++;
  if (m > 0) {
    ins(0, {m, 0});
    wo_send(g_recorder, static_cast<uint64_t>(m * 10 + 1), &kInt, &kSite);
    wo_send(g_recorder, static_cast<uint64_t>(m * 10 + 2), &kInt, &kSite);
    return static_cast<uint64_t>(m);
  }
  if (m == -1) {
    wo_send(g_recorder, 99, &kInt, &kSite);
  } else if (m == -2) {
    ins(0, {int64_t{2000}, 0});
    return wo_call(g_target, 5, &kInt, &kSite);
  } else if (m == -3) {
    ins(0, {int64_t{3000}, 0});
    wo_send(g_recorder, 7, &kInt, &kSite);
    wo::raise(6, &kSite, "after the commit");
  }
  return 0;
}
const WoActorType kCommitter{"Committer", committer, &kState, &kInt, 0};

// Caller: calls the Committer with its message; records the reply, or the
// callee's death.
uint64_t caller(void*, uint64_t w) {
  try {
    g_woken = static_cast<int64_t>(wo_call(g_committer, w, &kInt, &kSite));
  } catch (const wo::sched::Unwind&) {
    throw;
  } catch (...) {
    g_died++;
  }
  return 0;
}
const WoActorType kCaller{"Caller", caller, &kState, &kInt, 0};

uint64_t echo(void*, uint64_t w) {
  g_called++;
  return w;
}
const WoActorType kEcho{"Echo", echo, &kState, &kInt, 0};

// Spawns an actor of `type` homed on shard `shard` (placement is
// round-robin, WO_PLACEMENT=spread below: actors spawned on the way stay idle).
int64_t spawn_on(const WoActorType* type, int shard) {
  for (;;) {
    int64_t a = wotest::spawn(new_one_int_state(), type, &kSite);
    if (wo::sched::ref_actor(a)->home_shard()->id == shard) return a;  // a handle (decision 0079)
  }
}

struct Shards {
  Shards() {
    setenv("WO_SHARDS", "2", 1);
    setenv("WO_PLACEMENT", "spread", 1);
    g_seen = 0;
    g_woken = 0;
    g_called = 0;
    g_died = 0;
    std::lock_guard lk(g_mu);
    g_log.clear();
  }
  ~Shards() {
    wo_sched_shutdown();
    unsetenv("WO_SHARDS");
    unsetenv("WO_PLACEMENT");
  }
};


std::vector<int64_t> logged() {
  std::lock_guard lk(g_mu);
  return g_log;
}

// A round trip through the Recorder's mailbox: whatever was sent to it
// before is in its log when this returns.
int64_t probe_recorder() { return static_cast<int64_t>(wo_call(g_recorder, static_cast<uint64_t>(-1), &kInt, &kSite)); }

}  // namespace

TEST_CASE("held: a call's reply and the sends wait for the fdatasync, in order; the committer goes on") {
  TempDir dir;
  Items it;
  {
    Open db(it.s.get(), dir.path());
    REQUIRE(db.rc == 0);
    Shards sh;
    gc().hold_writer(true);
    g_committer = spawn_on(&kCommitter, 0);
    g_recorder = spawn_on(&kRecorder, 1);
    int64_t c = spawn_on(&kCaller, 1);
    int64_t probe = spawn_on(&kEcho, 1);  // on the Caller's shard
    wo_send(c, 1, &kInt, &kSite);         // the Caller calls the Committer with 1
    REQUIRE(main_waits_for([] { return g_seen == 1; }));
    wo_send(g_committer, static_cast<uint64_t>(-1), &kInt, &kSite);
    // The committer takes its next message while its commit is not durable.
    REQUIRE(main_waits_for([] { return g_seen == 2; }));
    // Had the reply gone out, the Caller (woken through its shard's inbox)
    // would have run before the probe on its shard answers.
    CHECK(wo_call(probe, 1, &kInt, &kSite) == 1);
    CHECK(g_woken == 0);
    CHECK(probe_recorder() == 0);  // neither 11, 12 nor 99 arrived
    wo::db::CommitStats s = gc().stats();
    CHECK(s.batches == 0);
    CHECK(s.deferred == 1);
    CHECK(s.parked == 0);
    gc().hold_writer(false);
    CHECK(main_waits_for([] { return g_woken == 1; }));
    CHECK(main_waits_for([] { return logged().size() == 3; }));
    CHECK(logged() == std::vector<int64_t>{11, 12, 99});  // FIFO per sender, 99 held behind
    CHECK(gc().stats().batches >= 1);
  }
  Open db(it.s.get(), dir.path());
  REQUIRE(db.rc == 0);
  CHECK(probe(0, 0, V(int64_t{1})).size() == 1);
}

TEST_CASE("held: a call made after a commit leaves only once the commit is durable") {
  TempDir dir;
  Items it;
  Open db(it.s.get(), dir.path());
  REQUIRE(db.rc == 0);
  Shards sh;
  gc().hold_writer(true);
  g_committer = spawn_on(&kCommitter, 0);
  g_target = spawn_on(&kEcho, 1);
  g_recorder = spawn_on(&kRecorder, 1);
  wo_send(g_committer, static_cast<uint64_t>(-2), &kInt, &kSite);
  REQUIRE(main_waits_for([] { return g_seen == 1; }));
  // The Echo's shard answers a probe after any call posted to it before.
  CHECK(wo_call(g_target, 1, &kInt, &kSite) == 1);
  CHECK(g_called == 1);  // only the probe
  gc().hold_writer(false);
  CHECK(main_waits_for([] { return g_called == 2; }));
}

TEST_CASE("held: a trap after the commit: the sends go first, the death's answer after the fdatasync") {
  TempDir dir;
  Items it;
  Open db(it.s.get(), dir.path());
  REQUIRE(db.rc == 0);
  Shards sh;
  gc().hold_writer(true);
  g_committer = spawn_on(&kCommitter, 0);
  g_recorder = spawn_on(&kRecorder, 1);
  int64_t c = spawn_on(&kCaller, 1);
  int64_t probe = spawn_on(&kEcho, 1);
  wo_send(c, static_cast<uint64_t>(-3), &kInt, &kSite);
  REQUIRE(main_waits_for([] { return g_seen == 1; }));
  CHECK(wo_call(probe, 1, &kInt, &kSite) == 1);
  CHECK(g_died == 0);
  CHECK(probe_recorder() == 0);
  gc().hold_writer(false);
  CHECK(main_waits_for([] { return g_died == 1; }));
  CHECK(probe_recorder() == 1);
  CHECK(logged() == std::vector<int64_t>{7});
}

TEST_CASE("held: the program ends with messages held: dropped undelivered, the commit is written") {
  TempDir dir;
  Items it;
  {
    Open db(it.s.get(), dir.path());
    REQUIRE(db.rc == 0);
    {
      Shards sh;
      gc().hold_writer(true);
      g_committer = spawn_on(&kCommitter, 0);
      g_recorder = spawn_on(&kRecorder, 1);
      int64_t c = spawn_on(&kCaller, 1);
      wo_send(c, 4, &kInt, &kSite);
      REQUIRE(main_waits_for([] { return g_seen == 1; }));
    }  // teardown drops the held reply and sends; the writer is still held
    CHECK(g_woken == 0);
    CHECK(logged().empty());
    gc().hold_writer(false);
    wo_db_flush();
    CHECK(gc().stats().batches >= 1);
  }
  Open db(it.s.get(), dir.path());
  REQUIRE(db.rc == 0);
  CHECK(probe(0, 0, V(int64_t{4})).size() == 1);
}

// ---- collection under release_held (docs/decisions/0079, review finding) -------
namespace {
// `class Holder { w: actor Int }`: a caller whose state holds the only
// address of the committer it calls with a short deadline.
struct Holder {
  WoHeader h;
  int64_t w;  // an address handle, released with the state
};
const WoTypeDesc kAddr{WO_TY_ACTOR, nullptr, nullptr, nullptr, 0, nullptr};
void holder_destroy(void* self) { wo_release(reinterpret_cast<void*>(static_cast<Holder*>(self)->w)); }
const WoFieldDesc kHolderFields[] = {{"w", &kAddr, offsetof(Holder, w)}};
const WoClassDesc kHolderClass{"Holder", sizeof(Holder), holder_destroy, 1, kHolderFields};
const WoTypeDesc kHolder{WO_TY_CLASS, nullptr, nullptr, &kHolderClass, 0, nullptr};

std::atomic<int> g_gave_up{0};
uint64_t holder(void* state, uint64_t w) {
  uint64_t reply = 0;
  if (!wo_call_dl(static_cast<Holder*>(state)->w, w, &kInt, 20, &reply, &kSite)) g_gave_up++;
  return 0;
}
const WoActorType kHolderActor{"Holder", holder, &kHolder, &kInt, 0};

std::atomic<int> g_committers_freed{0};
void counted_state_destroy(void*) { g_committers_freed++; }

// Inserts row m and replies m: the reply is held until the commit is durable.
uint64_t quiet_committer(void*, uint64_t w) {
  ins(0, {static_cast<int64_t>(w), 0});
  return w;
}
const WoActorType kQuietCommitter{"QuietCommitter", quiet_committer, &kState, &kInt, 0};
}  // namespace

TEST_CASE("held: a held reply to an abandoned call_dl may free its caller and then the replier: freed after the walk") {
  TempDir dir;
  Items it;
  Open db(it.s.get(), dir.path());
  REQUIRE(db.rc == 0);
  setenv("WO_SHARDS", "1", 1);
  g_gave_up = 0;
  g_committers_freed = 0;
  {
    gc().hold_writer(true);
    // The committer's only address goes into the holder's state.
    int64_t w = wo_spawn(wo_alloc(sizeof(Holder), counted_state_destroy), &kQuietCommitter, &kSite);
    auto* st = static_cast<Holder*>(wo_alloc(sizeof(Holder), holder_destroy));
    st->w = w;
    int64_t h = wo_spawn(st, &kHolderActor, &kSite);
    wo_send(h, 7, &kInt, &kSite);  // the holder calls the committer, which inserts row 7 and replies (held)
    REQUIRE(main_waits_for([] { return g_gave_up == 1; }));
    wo_release(reinterpret_cast<void*>(h));  // now only the abandoned call names the holder
    CHECK(g_committers_freed == 0);
    gc().hold_writer(false);  // the reply goes out, to nobody: the holder, then the committer, become unreachable
    CHECK(main_waits_for([] { return g_committers_freed == 1; }));
  }
  wo_sched_shutdown();
  unsetenv("WO_SHARDS");
}
