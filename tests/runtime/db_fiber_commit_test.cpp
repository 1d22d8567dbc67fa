// Durable commits from fibers (docs/decisions/0034): a fiber waiting for its
// fdatasync parks, its shard runs other fibers meanwhile (which stage more
// units into the same round), and the store's log writer wakes it once its
// unit is durable. Driven through the C ABIs the way generated code drives
// them: actors whose receive inserts rows or commits transactions. Since
// decision 0045 an actor's commit itself does not wait; these committers
// acknowledge each write through the durable barrier (what print or a
// socket write does before it writes), which parks the way a commit did.
// The commit that does not wait: db_held_messages_test.cpp.
#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstddef>
#include <thread>

#include "spawned.h"
#include "runtime/src/db/engine.h"
#include "runtime/src/sched/sched.h"
#include "tests/db/db_test_support.h"
#include "tests/db/one_int_actor.h"
#include "wo_actor.h"

using namespace dbtest;

namespace {

const WoSite kSite{"db_fiber_commit_test", 1, nullptr, 0};
const WoTypeDesc& kInt = kIntDesc;
const WoTypeDesc& kState = kOneIntState;
void* state() { return new_one_int_state(); }

// items { key: Int @unique, n: Int }
struct Items {
  Schema s;
  Items() {
    int t = s.table("items");
    s.field(t, "key", WO_DB_INT);
    s.field(t, "n", WO_DB_INT);
    s.index(t, {0}, true);
  }
};

constexpr int64_t kPerMsg = 1000;         // a committer's keys: msg * kPerMsg + j
std::atomic<int> g_rows_per_msg{1};        // single inserts per message
std::atomic<int64_t> g_acked{0};           // inserts/commits that returned
std::atomic<int64_t> g_ticks{0};           // Ticker deliveries

// receive(msg: Int) -> Int. msg > 0: insert g_rows_per_msg rows, each
// acknowledged once durable (the barrier); msg < 0: one transaction of 3 rows (keys from
// -msg); msg == 0: only reply (a report after the work queued before it).
uint64_t committer(void*, uint64_t word) {
  auto m = static_cast<int64_t>(word);
  if (m > 0) {
    int rows = g_rows_per_msg.load();
    for (int j = 0; j < rows; ++j) {
      ins(0, {m * kPerMsg + j, m});
      wo_sched_durable_barrier();
      g_acked++;
    }
  } else if (m < 0) {
    wo_tx_begin(&kSite);
    for (int j = 0; j < 3; ++j) ins(0, {-m * kPerMsg + j, -m});
    wo_tx_commit(&kSite);
    wo_sched_durable_barrier();
    g_acked++;
  }
  return 1;
}
const WoActorType kCommitter{"Committer", committer, &kState, &kInt, 0};

uint64_t ticker(void*, uint64_t) { return static_cast<uint64_t>(++g_ticks); }
const WoActorType kTicker{"Ticker", ticker, &kState, &kInt, 0};

wo::db::GroupCommit& gc() { return *wo::db::Engine::instance()->group_commit(); }

struct Shards {
  explicit Shards(const char* n) {
    setenv("WO_SHARDS", n, 1);
    setenv("WO_PLACEMENT", "spread", 1);  // committers round-robin over the shards (decision 0083)
    g_acked = 0;
    g_ticks = 0;
    g_rows_per_msg = 1;
  }
  ~Shards() {
    wo_sched_shutdown();
    unsetenv("WO_SHARDS");
    unsetenv("WO_PLACEMENT");
  }
};


int64_t rows() { return wo_db_count(0, nullptr); }

// Spawns `n` committers (round-robin over the shards), sends each its work
// with the log writer held, and waits until all of them are parked.
std::vector<int64_t> park_committers(int n, bool tx = false) {
  gc().hold_writer(true);
  std::vector<int64_t> cs;
  for (int i = 0; i < n; ++i) cs.push_back(wotest::spawn(state(), &kCommitter, &kSite));
  for (int i = 0; i < n; ++i) wo_send(cs[i], static_cast<uint64_t>(tx ? -(i + 1) : i + 1), &kInt, &kSite);
  return cs;
}

}  // namespace

TEST_CASE("fibers on one shard: every committer parks, the shard runs on, one fdatasync covers them all") {
  TempDir dir;
  Items it;
  {
    Open db(it.s.get(), dir.path());
    REQUIRE(db.rc == 0);
    Shards sh("1");
    std::vector<int64_t> cs = park_committers(16);
    int64_t t = wotest::spawn(state(), &kTicker, &kSite);
    // One shard runs its queue in order: by the time the ticker replies, all
    // 16 committers have applied and staged their row and parked.
    CHECK(wo_call(t, 0, &kInt, &kSite) == 1);
    wo::db::CommitStats s = gc().stats();
    CHECK(s.parked == 16);
    CHECK(s.peak_parked == 16);
    CHECK(s.batches == 0);   // the writer is held: nothing is durable ...
    CHECK(g_acked == 0);     // ... so nothing was acknowledged
    CHECK(rows() == 16);     // though applied to RAM (readers see it early)
    gc().hold_writer(false);
    for (int64_t c : cs) CHECK(wo_call(c, 0, &kInt, &kSite) == 1);  // each one's work is done
    CHECK(g_acked == 16);
    s = gc().stats();
    CHECK(s.batches == 1);         // one frame, one fdatasync, for all 16
    CHECK(s.peak_batch == 17);     // 16 rows and the schema head
  }
  Open db(it.s.get(), dir.path());
  REQUIRE(db.rc == 0);
  CHECK(rows() == 16);
}

TEST_CASE("fibers on two shards: many committers in a loop, batches of more than one, all durable") {
  TempDir dir;
  Items it;
  constexpr int kCommitters = 12, kRows = 40;
  {
    Open db(it.s.get(), dir.path());
    REQUIRE(db.rc == 0);
    Shards sh("2");
    g_rows_per_msg = kRows;
    std::vector<int64_t> cs;
    for (int i = 0; i < kCommitters; ++i) cs.push_back(wotest::spawn(state(), &kCommitter, &kSite));
    for (int i = 0; i < kCommitters; ++i) wo_send(cs[i], static_cast<uint64_t>(i + 1), &kInt, &kSite);
    std::vector<int64_t> ticks{wotest::spawn(state(), &kTicker, &kSite), wotest::spawn(state(), &kTicker, &kSite)};
    for (int64_t t : ticks) CHECK(wo_call(t, 0, &kInt, &kSite) >= 1);  // both shards serve while commits wait
    for (int64_t c : cs) CHECK(wo_call(c, 0, &kInt, &kSite) == 1);
    CHECK(g_acked == kCommitters * kRows);
    wo::db::CommitStats s = gc().stats();
    CHECK(s.records == kCommitters * kRows + 1);
    CHECK(s.parked >= kCommitters * kRows / 2);  // most waits parked (some found their unit durable)
    CHECK(s.peak_batch > 1);
    CHECK(s.batches < s.records / 2);  // on average more than two records share an fdatasync
    MESSAGE("batches " << s.batches << " for " << s.records << " records, peak batch " << s.peak_batch);
  }
  Open db(it.s.get(), dir.path());
  REQUIRE(db.rc == 0);
  CHECK(rows() == kCommitters * kRows);
  for (int i = 1; i <= kCommitters; ++i) CHECK(probe(0, 0, V(int64_t{i} * kPerMsg + kRows - 1)).size() == 1);
}

TEST_CASE("fibers on two shards: transactions' commits park too and share a round") {
  TempDir dir;
  Items it;
  {
    Open db(it.s.get(), dir.path());
    REQUIRE(db.rc == 0);
    Shards sh("2");
    std::vector<int64_t> cs = park_committers(8, true);
    CHECK(main_waits_for([] { return gc().stats().parked == 8; }));
    std::vector<int64_t> ticks{wotest::spawn(state(), &kTicker, &kSite), wotest::spawn(state(), &kTicker, &kSite)};
    for (int64_t t : ticks) CHECK(wo_call(t, 0, &kInt, &kSite) >= 1);  // each shard runs with 4 commits parked
    CHECK(g_acked == 0);
    gc().hold_writer(false);
    for (int64_t c : cs) CHECK(wo_call(c, 0, &kInt, &kSite) == 1);
    CHECK(g_acked == 8);
    wo::db::CommitStats s = gc().stats();
    CHECK(s.batches == 1);
    CHECK(s.peak_batch == 8 * 3 + 1);
  }
  Open db(it.s.get(), dir.path());
  REQUIRE(db.rc == 0);
  CHECK(rows() == 8 * 3);
}

TEST_CASE("the program ends with commits parked: no hang, nothing acknowledged, everything applied is written") {
  TempDir dir;
  Items it;
  {
    Open db(it.s.get(), dir.path());
    REQUIRE(db.rc == 0);
    {
      Shards sh("2");
      park_committers(6);
      CHECK(main_waits_for([] { return gc().stats().parked == 6; }));
    }  // wo_sched_shutdown unwinds the parked committers; the writer is still held
    CHECK(g_acked == 0);
    CHECK(gc().stats().batches == 0);
    gc().hold_writer(false);  // the writer now fires waits whose scheduler is gone
    wo_db_flush();
    CHECK(gc().stats().records == 7);
  }
  Open db(it.s.get(), dir.path());
  REQUIRE(db.rc == 0);
  CHECK(rows() == 6);
}

TEST_CASE("threads keep a blocking wait beside parked fibers") {
  TempDir dir;
  Items it;
  {
    Open db(it.s.get(), dir.path());
    REQUIRE(db.rc == 0);
    Shards sh("1");
    g_rows_per_msg = 30;
    std::vector<int64_t> cs;
    for (int i = 0; i < 4; ++i) cs.push_back(wotest::spawn(state(), &kCommitter, &kSite));
    for (int i = 0; i < 4; ++i) wo_send(cs[i], static_cast<uint64_t>(i + 1), &kInt, &kSite);
    // A thread that is no fiber: it waits on the condition variable and
    // leads rounds itself, covering parked fibers' units too.
    std::thread th([] {
      for (int j = 0; j < 30; ++j) ins(0, {int64_t{100} * kPerMsg + j, 100});
    });
    for (int64_t c : cs) CHECK(wo_call(c, 0, &kInt, &kSite) == 1);
    th.join();
    CHECK(g_acked == 4 * 30);
  }
  Open db(it.s.get(), dir.path());
  REQUIRE(db.rc == 0);
  CHECK(rows() == 5 * 30);
}

// The stop latch is process-wide and ends the process: in a child.
TEST_CASE("a stop signal while main waits for its commit: the commit completes and is acknowledged") {
  TempDir dir;
  Items it;
  auto [status, err] = in_child([&] {
    Open db(it.s.get(), dir.path());
    if (db.rc != 0) _exit(10);
    Shards sh("1");
    wo_env_stopping();  // arms the latch
    int64_t t = wotest::spawn(state(), &kTicker, &kSite);
    gc().hold_writer(true);
    // While main is parked in its insert: SIGTERM, then a delivery on
    // main's shard (it runs after the shard saw the stop), then the writer.
    std::thread helper([t] {
      auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
      while (gc().stats().parked == 0 && std::chrono::steady_clock::now() < until) std::this_thread::yield();
      ::raise(SIGTERM);
      wo_send(t, 0, &kInt, &kSite);
      while (g_ticks == 0 && std::chrono::steady_clock::now() < until) std::this_thread::yield();
      gc().hold_writer(false);
    });
    bool acked = false;
    try {
      ins(0, {int64_t{1}, 1});
      acked = true;
    } catch (const wo::sched::Unwind&) {
    }
    helper.join();
    if (!acked) _exit(11);
    if (g_ticks != 1) _exit(12);
    try {
      wo_time_sleep(60000, &kSite);  // main's next park ends at once: the stop
    } catch (const wo::sched::Unwind&) {
      _exit(0);
    }
    _exit(13);
  });
  CHECK_MESSAGE(status == 0, err);
  Open db(it.s.get(), dir.path());
  REQUIRE(db.rc == 0);
  CHECK(rows() == 1);
}
