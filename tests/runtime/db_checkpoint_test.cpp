// Checkpoint (runtime.md §1.13): the log is rewritten to one INSERT per
// live row and swapped atomically; the trigger keeps a busy log bounded.
#include <doctest/doctest.h>

#include "runtime/src/db/checkpoint.h"
#include "runtime/src/db/engine.h"
#include "runtime/src/db/file_header.h"
#include "support.h"
#include "tests/db/db_test_support.h"

using namespace dbtest;

namespace {

struct Counters {
  Schema s;
  Counters() {
    int t = s.table("counters");
    s.field(t, "name", WO_DB_TEXT);
    s.field(t, "n", WO_DB_INT);
    s.index(t, {0}, true);
  }
};

std::string dump() {
  std::string out;
  for (int64_t id : scan(0)) out += std::to_string(id) + ":" + get_text(0, id, 0) + "=" + std::to_string(get_int(0, id, 1)) + ";";
  return out;
}

}  // namespace

TEST_CASE("checkpoint_due is a pure function of sizes") {
  using wo::db::checkpoint_due;
  const uint64_t MiB = 1 << 20;
  CHECK_FALSE(checkpoint_due(3 * MiB, 0, 4 * MiB, 3));
  CHECK(checkpoint_due(4 * MiB, 0, 4 * MiB, 3));            // never compacted
  CHECK_FALSE(checkpoint_due(5 * MiB, 2 * MiB, 4 * MiB, 3));
  CHECK(checkpoint_due(7 * MiB, 2 * MiB, 4 * MiB, 3));      // ratio
  CHECK_FALSE(checkpoint_due(7 * MiB, 2 * MiB, 4 * MiB, 0));  // ratio off
  CHECK(checkpoint_due(80 * MiB, 16 * MiB, 4 * MiB, 0));    // 64 MiB of garbage
}

TEST_CASE("a checkpoint rewrites the live rows and the store reads the same after it") {
  TempDir dir;
  Counters c;
  std::string path = dir.file("c.wal");
  std::string want;
  {
    Open db(c.s.get(), path);
    for (int i = 0; i < 50; ++i) ins(0, {"k" + std::to_string(i), 0});
    for (int round = 1; round <= 40; ++round)
      for (int64_t id = 1; id <= 50; id += 7) set(0, id, 1, round);
    for (int64_t id = 2; id <= 50; id += 5) wo_db_delete(0, id, nullptr);
    want = dump();
    std::string before = read_file(path);
    REQUIRE(wo_db_checkpoint());
    CHECK_FALSE(exists(path + ".compact"));
    size_t after = read_file(path).find_last_not_of('\0');  // the new log is grown with zeros past its end, as any log
    CHECK(after < before.find_last_not_of('\0') / 3);
    CHECK(dump() == want);
    ins(0, {"after", 1});  // appended to the new log
    want = dump();
  }
  Open db(c.s.get(), path);
  REQUIRE(db.rc == 0);
  CHECK(dump() == want);
  CHECK(ins(0, {"next", 0}) == 52);  // ids continue past the largest ever used
}

TEST_CASE("the size trigger compacts a busy log and WO_WAL_STATS reports it") {
  TempDir dir;
  Counters c;
  std::string path = dir.file("c.wal");
  int extra = 0;
  std::string err = wotest::capture_fd(2, [&] {
    Open db(c.s.get(), path, 2048, true);
    ins(0, {"a", 0});
    ins(0, {"b", 0});
    for (int i = 0; i < 600; ++i) set(0, 1 + i % 2, 1, i);
    // Checkpoints run on their own thread (decision 0050): the one in
    // flight, if any, is let finish. A checkpoint's new log keeps what was
    // written while it ran, so on a loaded machine the log can still be
    // long after it; slow statements (each let its checkpoint finish) then
    // bring the next trigger, whose checkpoint sees almost nothing written.
    // That trigger comes when the log is 3x what the last checkpoint left
    // (the ratio): ~450 statements after a checkpoint that kept 12 KiB.
    wo::db::Engine::instance()->wait_checkpoint_idle();
    while (read_file(path).find_last_not_of('\0') >= 16 * 1024 && extra < 2000) {
      set(0, 1, 1, 598);  // the value it has: the check after reopening stands
      ++extra;
      wo::db::Engine::instance()->wait_checkpoint_idle();
    }
    CHECK(read_file(path).find_last_not_of('\0') < 16 * 1024);
  });
  // 602 statements and the extra ones, one frame each; the head shares the first frame.
  std::string stats = "walstats batches=" + std::to_string(602 + extra) + " records=" + std::to_string(603 + extra) +
                      " peak_batch=2 ";
  CHECK_MESSAGE(err.rfind(stats, 0) == 0, err);
  CHECK(err.find("compactions=0 ") == std::string::npos);
  Open db(c.s.get(), path);
  CHECK(dump() == "1:a=598;2:b=599;");
}

TEST_CASE("no checkpoint while a transaction is open; a stale .compact is deleted at open") {
  TempDir dir;
  Counters c;
  std::string path = dir.file("c.wal");
  {
    Open db(c.s.get(), path);
    ins(0, {"a", 1});
    wo_tx_begin(nullptr);
    ins(0, {"b", 2});
    CHECK_FALSE(wo_db_checkpoint());
    wo_tx_commit(nullptr);
    CHECK(wo_db_checkpoint());
  }
  write_file(path + ".compact", wo::db::file_header() + "half-written garbage");  // ours, by its header
  Open db(c.s.get(), path);
  REQUIRE(db.rc == 0);
  CHECK_FALSE(exists(path + ".compact"));
  CHECK(dump() == "1:a=1;2:b=2;");
}
