// Solo access (docs/decisions/0069): while one thread alone has used the
// store, its statements take no lock; the second thread to come waits for
// the first one's statement in flight and from then on everyone locks.
// The second case is the one TSan (unit.runtime.concurrent) and a plain
// build can catch: lookups that keep running while another thread arrives
// and grows the unique hash and the row pages under them.
#include <doctest/doctest.h>

#include <atomic>
#include <string>
#include <thread>

#include "runtime/src/db/engine.h"
#include "tests/db/db_test_support.h"

using namespace dbtest;

namespace {

// items { k: Text @unique, v: Int }, durable: false, index: [v]
struct Items {
  Schema s;
  Items() {
    int t = s.table("items", WO_DB_TABLE | WO_DB_VOLATILE);
    s.field(t, "k", WO_DB_TEXT);
    s.field(t, "v", WO_DB_INT);
    s.index(t, {0}, true);
    s.index(t, {1});
  }
};

std::string key(int64_t i) { return "key-" + std::to_string(i); }

bool solo() { return wo::db::Engine::instance()->solo_now(); }

// Looks row `i` up by its key and reads v (= 3 * i); -1 when absent.
int64_t lookup(int64_t i) {
  Words w(V(key(i)));
  WoList* xs = wo_db_probe(0, 0, w[0], nullptr);
  int64_t v = xs->len == 1 ? static_cast<int64_t>(wo_db_get(0, static_cast<int64_t>(xs->data[0]), 1, nullptr)) : -1;
  wo_release(xs);
  return v;
}

}  // namespace

TEST_CASE("the one thread that uses the store goes without the lock until a second one comes") {
  Items a;
  Open db(a.s.get());
  REQUIRE(db.rc == 0);
  for (int64_t i = 0; i < 100; ++i) ins(0, {key(i), 3 * i});
  CHECK(solo());
  CHECK(lookup(42) == 126);
  CHECK(solo());
  bool other_solo = true;
  int64_t other = 0;
  std::thread t([&] {
    other = lookup(7);
    other_solo = solo();
  });
  t.join();
  CHECK(other == 21);
  CHECK_FALSE(other_solo);
  CHECK_FALSE(solo());  // for good: the store was shared once
  CHECK(lookup(99) == 297);
  // A transaction still takes the gate: begin, read, commit on this thread.
  wo_tx_begin(nullptr);
  ins(0, {key(100), 300});
  CHECK(lookup(100) == 300);
  wo_tx_commit(nullptr);
}

TEST_CASE("a second thread arriving while the solo one reads waits for it; its writes never show torn to the reader") {
  Items a;
  Open db(a.s.get());
  REQUIRE(db.rc == 0);
  constexpr int64_t kBase = 2000, kMore = 60000;  // the writer's rows grow the hash several times over
  for (int64_t i = 0; i < kBase; ++i) ins(0, {key(i), 3 * i});
  REQUIRE(solo());
  std::atomic<bool> go{false}, done{false};
  std::atomic<int64_t> written{0};
  std::thread writer([&] {
    while (!go.load()) std::this_thread::yield();  // bounded: the reader sets it before its loop
    for (int64_t i = kBase; i < kBase + kMore; ++i) {
      ins(0, {key(i), 3 * i});
      written.store(i + 1 - kBase, std::memory_order_release);
    }
    done = true;
  });
  int64_t bad = 0, reads = 0;
  uint64_t x = 12345;
  go = true;
  // Bounded by the writer's rows: it ends, then one more pass.
  for (bool last = false; !last; ++reads) {
    last = done.load();
    x = x * 6364136223846793005u + 1442695040888963407u;
    int64_t seen = written.load(std::memory_order_acquire);
    int64_t i = static_cast<int64_t>((x >> 33) % static_cast<uint64_t>(kBase + seen));
    if (lookup(i) != 3 * i) ++bad;  // every row counted in `written` is there, whole
  }
  writer.join();
  CHECK(bad == 0);
  CHECK(reads > 0);
  CHECK(wo_db_count(0, nullptr) == kBase + kMore);
  CHECK(lookup(kBase + kMore - 1) == 3 * (kBase + kMore - 1));
  CHECK_FALSE(solo());
}
