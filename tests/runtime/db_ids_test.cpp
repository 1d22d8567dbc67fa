// Row ids are never reused (runtime.md §1.4; docs/decisions/0080): each
// table's next id survives every way a store comes back — a checkpoint (at
// each step of its install), the log alone, a large store loaded in blocks
// with its indexes built after open, the rewrite at open after a migration —
// each time after a SIGKILL; and ids handed out inside an aborted
// transaction are burnt, in RAM at once and on disk with the next round.
// Registered on its own as CTest `db.ids.unit` (tests/db/CMakeLists.txt).
#include <doctest/doctest.h>
#include <signal.h>

#include "runtime/src/db/checkpoint.h"
#include "runtime/src/db/model.h"
#include "runtime/src/db/engine.h"
#include "runtime/src/db/file_header.h"
#include "runtime/src/db/replay.h"
#include "support.h"
#include "tests/db/db_test_support.h"

using namespace dbtest;

namespace {

// items(k Int @unique, name Text), tags(label Text), and a volatile notes(n Int).
struct Tables {
  Schema s;
  explicit Tables(bool extra_field = false) {
    int items = s.table("items");
    s.field(items, "k", WO_DB_INT);
    s.field(items, "name", WO_DB_TEXT);
    if (extra_field) s.field(items, "added", WO_DB_INT);
    s.index(items, {0}, true);
    int tags = s.table("tags");
    s.field(tags, "label", WO_DB_TEXT);
    int notes = s.table("notes", WO_DB_TABLE | WO_DB_VOLATILE);
    s.field(notes, "n", WO_DB_INT);
  }
};
constexpr uint32_t kItems = 0, kTags = 1, kNotes = 2;

int64_t item(int64_t k) { return ins(kItems, {k, "item " + std::to_string(k)}); }
int64_t item3(int64_t k) { return ins(kItems, {k, "item " + std::to_string(k), int64_t(0)}); }

// Rows 1..5, then 3..5 deleted: the next id is 6, and no live row says so.
void one_to_five_minus_three() {
  for (int64_t k = 1; k <= 5; ++k) REQUIRE(item(k) == k);
  for (int64_t id = 3; id <= 5; ++id) wo_db_delete(kItems, id, nullptr);
}

struct InstallHook {
  explicit InstallHook(std::function<void(int)> f) { wo::db::testing::during_install = std::move(f); }
  ~InstallHook() { wo::db::testing::during_install = nullptr; }
};

}  // namespace

TEST_CASE("the next id survives a checkpoint and a SIGKILL after it") {
  TempDir dir;
  Tables t;
  std::string path = dir.file("store.wal");
  auto [status, err] = in_child([&] {
    Open db(t.s.get(), path);
    if (db.rc != 0) _exit(3);
    one_to_five_minus_three();
    for (int i = 0; i < 3; ++i) ins(kTags, {"t"});
    wo_db_delete(kTags, 3, nullptr);
    if (!wo_db_checkpoint()) _exit(5);
    ::raise(SIGKILL);
    _exit(4);  // not reached
  });
  REQUIRE(status == -1);
  CHECK_MESSAGE(err.empty(), err);
  {
    Open db(t.s.get(), path);
    REQUIRE(db.rc == 0);
    CHECK(scan(kItems) == std::vector<int64_t>{1, 2});
    CHECK(item(6) == 6);
    CHECK(ins(kTags, {"t"}) == 4);
    // Twice: a checkpoint of a log that starts with a checkpoint.
    wo_db_delete(kItems, 6, nullptr);
    REQUIRE(wo_db_checkpoint());
  }
  Open db(t.s.get(), path);
  REQUIRE(db.rc == 0);
  CHECK(item(7) == 7);
}

TEST_CASE("the next id survives a SIGKILL at each step of a checkpoint's install") {
  for (int kill_at = 1; kill_at <= 3; ++kill_at) {
    CAPTURE(kill_at);
    TempDir dir;
    Tables t;
    std::string path = dir.file("store.wal");
    auto [status, err] = in_child([&] {
      Open db(t.s.get(), path);
      if (db.rc != 0) _exit(3);
      one_to_five_minus_three();
      InstallHook hook([&](int step) {
        if (step == kill_at) ::raise(SIGKILL);
      });
      wo_db_checkpoint();
      _exit(4);  // not reached
    });
    REQUIRE(status == -1);
    CHECK_MESSAGE(err.empty(), err);
    CHECK(exists(path + ".compact") == (kill_at == 1));  // before the rename the old log is the log
    Open db(t.s.get(), path);
    REQUIRE(db.rc == 0);
    CHECK(item(6) == 6);
  }
}

TEST_CASE("the next id survives a SIGKILL with the log alone (no checkpoint)") {
  TempDir dir;
  Tables t;
  std::string path = dir.file("store.wal");
  auto [status, err] = in_child([&] {
    Open db(t.s.get(), path);
    if (db.rc != 0) _exit(3);
    one_to_five_minus_three();
    ::raise(SIGKILL);
  });
  REQUIRE(status == -1);
  Open db(t.s.get(), path);
  REQUIRE(db.rc == 0);
  CHECK(item(6) == 6);
}

TEST_CASE("the next id survives the rewrite at open after a migration, and a SIGKILL after it") {
  TempDir dir;
  std::string path = dir.file("store.wal");
  {
    Tables t;
    Open db(t.s.get(), path);
    REQUIRE(db.rc == 0);
    one_to_five_minus_three();
  }
  Tables wider(true);  // an added field: the log is rewritten under the new head at open
  auto [status, err] = in_child([&] {
    Open db(wider.s.get(), path);
    if (db.rc != 0) _exit(3);
    ::raise(SIGKILL);
  });
  REQUIRE(status == -1);
  CHECK_MESSAGE(err.empty(), err);
  Open db(wider.s.get(), path);
  REQUIRE(db.rc == 0);
  CHECK(item3(6) == 6);
}

TEST_CASE("a large store loaded in blocks, its indexes built after open, keeps every table's next id") {
  TempDir dir;
  Tables t;
  std::string path = dir.file("store.wal");
  const int64_t n = 20000;
  auto [status, err] = in_child([&] {
    Open db(t.s.get(), path);
    if (db.rc != 0) _exit(3);
    wo_tx_begin(nullptr);
    for (int64_t k = 1; k <= n; ++k) item(k);
    for (int64_t i = 1; i <= 10; ++i) ins(kTags, {"t"});
    wo_tx_commit(nullptr);
    wo_tx_begin(nullptr);
    for (int64_t id = n - 999; id <= n; ++id) wo_db_delete(kItems, id, nullptr);
    for (int64_t id = 1; id <= 10; ++id) wo_db_delete(kTags, id, nullptr);  // a table left with no row
    wo_tx_commit(nullptr);
    if (!wo_db_checkpoint()) _exit(5);
    ::raise(SIGKILL);
  });
  REQUIRE(status == -1);
  CHECK_MESSAGE(err.empty(), err);
  int64_t rows = wo::db::testing::background_index_rows;
  size_t window = wo::db::testing::replay_window_words;
  wo::db::testing::background_index_rows = 1;   // the indexes after open (decision 0070)
  wo::db::testing::replay_window_words = 4096;  // the snapshot's blocks in many windows
  {
    Open db(t.s.get(), path);
    wo::db::testing::background_index_rows = rows;
    wo::db::testing::replay_window_words = window;
    REQUIRE(db.rc == 0);
    CHECK(wo_db_count(kItems, nullptr) == n - 1000);
    CHECK(wo_db_count(kTags, nullptr) == 0);
    CHECK(item(n + 1) == n + 1);
    CHECK(ins(kTags, {"t"}) == 11);
  }
  wo::db::testing::background_index_rows = rows;
  wo::db::testing::replay_window_words = window;
}

TEST_CASE("ids handed out inside an aborted transaction are burnt: a handle kept from the block names no later row") {
  TempDir dir;
  Tables t;
  std::string path = dir.file("store.wal");
  {
    Open db(t.s.get(), path);
    REQUIRE(db.rc == 0);
    CHECK(item(1) == 1);
    wo_tx_begin(nullptr);
    int64_t kept = item(2);  // the handle the block leaks to its caller
    CHECK(kept == 2);
    CHECK(ins(kTags, {"in the block"}) == 1);
    CHECK(ins(kNotes, {int64_t(7)}) == 1);  // a volatile table: burnt the same way
    wo_tx_abort();
    CHECK_FALSE(wo_db_exists(kItems, kept));
    CHECK(item(3) == 3);  // not 2
    CHECK_FALSE(wo_db_exists(kItems, kept));
    CHECK(trap_of([&] { get_int(kItems, kept, 0); }).code == 5);  // no such row
    CHECK(ins(kTags, {"after"}) == 2);
    CHECK(ins(kNotes, {int64_t(8)}) == 2);
    // An insert that traps consumes no id, inside a block too (§1.4).
    wo_tx_begin(nullptr);
    CHECK(trap_of([] { item(1); }).code == 10);
    CHECK(item(4) == 4);
    wo_tx_commit(nullptr);
    // A block whose last act is the abort: nothing of it is acknowledged,
    // and the burnt ids still reach the log (written at close here).
    wo_tx_begin(nullptr);
    CHECK(item(5) == 5);
    CHECK(item(6) == 6);
    wo_tx_abort();
  }
  {
    Open db(t.s.get(), path);
    REQUIRE(db.rc == 0);
    CHECK(scan(kItems) == std::vector<int64_t>{1, 3, 4});
    CHECK(item(7) == 7);
  }
  // Burnt, then a commit of another table (the record rides on its round),
  // then a SIGKILL; and burnt, then a checkpoint, then a SIGKILL.
  auto [status, err] = in_child([&] {
    Open db(t.s.get(), path);
    if (db.rc != 0) _exit(3);
    wo_tx_begin(nullptr);
    item(8);
    wo_tx_abort();
    ins(kTags, {"durable"});
    ::raise(SIGKILL);
  });
  REQUIRE(status == -1);
  {
    Open db(t.s.get(), path);
    REQUIRE(db.rc == 0);
    CHECK(item(9) == 9);
  }
  auto [status2, err2] = in_child([&] {
    Open db(t.s.get(), path);
    if (db.rc != 0) _exit(3);
    wo_tx_begin(nullptr);
    item(10);
    item(11);
    wo_tx_abort();
    if (!wo_db_checkpoint()) _exit(5);
    ::raise(SIGKILL);
  });
  REQUIRE(status2 == -1);
  CHECK_MESSAGE(err2.empty(), err2);
  Open db(t.s.get(), path);
  REQUIRE(db.rc == 0);
  CHECK(item(12) == 12);
}

TEST_CASE("ids burnt by an aborted transaction are not handed to another thread waiting for it") {
  Tables t;
  Open db(t.s.get());
  REQUIRE(db.rc == 0);
  CHECK(item(1) == 1);
  wo_tx_begin(nullptr);
  int64_t kept = item(2);
  int64_t other = 0;
  std::thread waiter([&] { other = item(100); });  // waits at the gate until the block ends
  while (wo::db::Engine::instance()->gate_waiters() == 0) std::this_thread::yield();
  wo_tx_abort();
  waiter.join();
  CHECK(kept == 2);
  CHECK(other == 3);
}
