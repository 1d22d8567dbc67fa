// Several threads on one durable store: group commit acknowledges every
// write, transactions from different threads serialise (money is neither
// created nor lost by concurrent transfers, aborted ones included), and a
// reopen replays exactly what was acknowledged.
#include <doctest/doctest.h>

#include <atomic>
#include <thread>
#include <vector>

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

}  // namespace

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
