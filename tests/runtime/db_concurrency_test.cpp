// Several threads on one durable store: group commit acknowledges every
// write, transactions from different threads serialise (money is neither
// created nor lost by concurrent transfers, aborted ones included), and a
// reopen replays exactly what was acknowledged.
#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "runtime/src/db/engine.h"
#include "runtime/src/db/log_file.h"
#include "tests/db/db_test_support.h"

using namespace dbtest;

namespace {

// accounts { name: Text @unique, balance: Int }, index: [balance]
struct Accounts {
  Schema s;
  Accounts() {
    int t = s.table("accounts");
    s.field(t, "name", WO_DB_TEXT);
    s.field(t, "balance", WO_DB_INT);
    s.index(t, {0}, true);
    s.index(t, {1});
  }
};

int64_t total() {
  int64_t sum = 0;
  for (int64_t id : scan(0)) sum += get_int(0, id, 1);
  return sum;
}

// Polls `ok` for up to `ms` milliseconds.
template <class F>
bool within(int ms, F ok) {
  auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
  while (!ok()) {
    if (std::chrono::steady_clock::now() > end) return false;
    std::this_thread::yield();
  }
  return true;
}

std::atomic<int> g_in_sync{0};
std::atomic<bool> g_release{false};

}  // namespace

// Followers sleep on the round counter (docs/decisions/0072): none may
// return while the round ahead of theirs is still in its fdatasync, and the
// next round takes all of them in one frame.
TEST_CASE("thread followers return only after the fdatasync of their round, and one round covers them") {
  TempDir dir;
  Accounts a;
  Open db(a.s.get(), dir.path());
  REQUIRE(db.rc == 0);
  g_in_sync = 0;
  g_release = false;
  wo::db::testing::before_sync = [] {
    g_in_sync++;
    within(10000, [] { return g_release.load(); });
  };
  std::thread leader([] { ins(0, {"lead", 1}); });
  REQUIRE(within(10000, [] { return g_in_sync.load() == 1; }));  // the leader's round is in its sync
  wo::db::GroupCommit& gc = *wo::db::Engine::instance()->group_commit();
  uint64_t batches = gc.stats().batches;
  std::atomic<int> back{0};
  std::vector<std::thread> followers;
  for (int t = 0; t < 4; ++t)
    followers.emplace_back([&back, t] {
      ins(0, {"f" + std::to_string(t), 2});
      back++;
    });
  CHECK(within(10000, [&] { return gc.stats().peak_staged >= 4; }));  // all four staged behind the round
  CHECK_FALSE(within(50, [&] { return back.load() > 0; }));          // and none returned
  g_release = true;
  leader.join();
  for (auto& th : followers) th.join();
  wo::db::testing::before_sync = nullptr;
  CHECK(back == 4);
  wo::db::CommitStats s = gc.stats();
  CHECK(s.batches == batches + 1);  // the four in one round
  CHECK(s.peak_batch >= 4);
  CHECK(probe(0, 0, "f3").size() == 1);
}

TEST_CASE("concurrent inserts and transfers keep every acknowledged write and the total") {
  TempDir dir;
  Accounts a;
  constexpr int kThreads = 8, kAccounts = 20, kSteps = 60;
  std::atomic<int64_t> inserted{0};
  std::string before;
  {
    Open db(a.s.get(), dir.path(), 0, true);
    REQUIRE(db.rc == 0);
    for (int i = 0; i < kAccounts; ++i) ins(0, {"acct" + std::to_string(i), 100});
    std::vector<std::thread> ts;
    for (int t = 0; t < kThreads; ++t)
      ts.emplace_back([&, t] {
        for (int step = 0; step < kSteps; ++step) {
          int64_t from = 1 + (t * 7 + step) % kAccounts, to = 1 + (t * 3 + step * 5 + 1) % kAccounts;
          wo_tx_begin(nullptr);
          int64_t fb = get_int(0, from, 1);
          set(0, from, 1, fb - 5);
          set(0, to, 1, get_int(0, to, 1) + 5);
          if (step % 4 == 3) wo_tx_abort();  // as if a trap left the block
          else wo_tx_commit(nullptr);
          ins(0, {"t" + std::to_string(t) + "-" + std::to_string(step), 0});
          inserted++;
        }
      });
    for (auto& th : ts) th.join();
    CHECK(total() == kAccounts * 100);
    CHECK(wo_db_count(0, nullptr) == kAccounts + inserted);
    std::string rows;
    for (int64_t id : scan(0)) rows += std::to_string(id) + "=" + std::to_string(get_int(0, id, 1)) + ";";
    before = rows;
  }
  Open db(a.s.get(), dir.path());
  REQUIRE(db.rc == 0);
  std::string rows;
  for (int64_t id : scan(0)) rows += std::to_string(id) + "=" + std::to_string(get_int(0, id, 1)) + ";";
  CHECK(rows == before);
  CHECK(total() == kAccounts * 100);
  CHECK(probe(0, 0, "t7-59").size() == 1);
}

// run_as_leader (checkpoint) waits for the round in flight and no longer: a
// thread committing back to back used to retake the commit mutex before the
// woken caller ran, and kept a checkpoint's install out for hundreds of
// rounds (a 205 ms checkpoint in db_checkpoint_test, the log never short).
TEST_CASE("run_as_leader gets in after the round in flight while a thread commits back to back") {
  TempDir dir;
  Accounts a;
  Open db(a.s.get(), dir.path());
  REQUIRE(db.rc == 0);
  ins(0, {"busy", 0});
  std::atomic<bool> stop{false};
  std::atomic<int> done{0};
  std::thread writer([&] {
    for (int i = 1; !stop.load(); ++i) {
      set(0, 1, 1, i);
      done++;
    }
  });
  REQUIRE(within(10000, [&] { return done.load() >= 10; }));
  wo::db::GroupCommit& gc = *wo::db::Engine::instance()->group_commit();
  std::vector<int> passed;  // the writer's commits while run_as_leader waited
  for (int k = 0; k < 41; ++k) {
    int asked = done.load();
    int got = 0;
    gc.run_as_leader([&] { got = done.load(); });
    passed.push_back(got - asked);
    int next = done.load() + 2;
    REQUIRE(within(10000, [&] { return done.load() >= next; }));  // it commits again in between
  }
  stop = true;
  writer.join();
  std::sort(passed.begin(), passed.end());
  std::string all;
  for (int p : passed) all += std::to_string(p) + " ";
  // One round may be in flight when it asks (so 0 or 1); one outlier is let
  // pass for an asker preempted before it asked. Before: 7 to 63 here, up to 595.
  CHECK_MESSAGE(passed[passed.size() - 2] <= 4, all);
}

// The transaction gate is the same kind of wait: a thread running
// transactions back to back retook the store's mutex before a statement
// woken at the end of one ran, and kept it out for thousands of them
// (seen: 17,524). Now whoever waited for the transaction goes first.
TEST_CASE("a statement waiting at the gate goes before the next transaction of the thread that held it") {
  Accounts a;
  Open db(a.s.get());  // ephemeral: a commit does not wait for a disk
  REQUIRE(db.rc == 0);
  ins(0, {"busy", 0});
  wo::db::Engine& e = *wo::db::Engine::instance();
  for (int round = 0; round < 20; ++round) {
    std::string name = "waiter" + std::to_string(round);
    wo_tx_begin(nullptr);
    set(0, 1, 1, round);
    std::thread other([&] { ins(0, {name, round}); });
    REQUIRE(within(10000, [&] { return e.gate_waiters() == 1; }));  // it waits for this transaction
    wo_tx_commit(nullptr);
    wo_tx_begin(nullptr);  // back to back: behind the statement
    CHECK_MESSAGE(probe(0, 0, name).size() == 1, "round " << round);
    wo_tx_commit(nullptr);
    other.join();
  }
}
