// transaction { } (runtime.md §2.2): one frame per commit, read-your-writes,
// the undo log (inserts, updates, deletes, indexes, ids, refs), nesting,
// a caught trap inside, isolation from other threads.
#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "runtime/src/db/model.h"
#include "runtime/src/db/file_header.h"
#include "runtime/src/db/frame.h"
#include "tests/db/db_test_support.h"

using namespace dbtest;

namespace {

// accounts { name: Text @unique, balance: Int, owner: ?ref accounts }, index: [balance]
// audit (volatile) { note: Text }
struct Bank {
  Schema s;
  Bank() {
    int a = s.table("accounts");
    s.field(a, "name", WO_DB_TEXT);
    s.field(a, "balance", WO_DB_INT);
    s.field(a, "owner", WO_DB_REF, WO_DB_NULLABLE, a);
    s.index(a, {0}, true);
    s.index(a, {1});
    int v = s.table("audit", WO_DB_TABLE | WO_DB_VOLATILE);
    s.field(v, "note", WO_DB_TEXT);
  }
};
enum { NAME, BALANCE, OWNER };

std::string dump() {
  std::string out;
  for (int64_t id : scan(0))
    out += std::to_string(id) + ":" + get_text(0, id, NAME) + ":" + std::to_string(get_int(0, id, BALANCE)) + ":" +
           std::to_string(get_int(0, id, OWNER)) + ";";
  return out;
}

// Frames in the log, and the number of records in the last one.
std::pair<size_t, uint64_t> frames(const std::string& path) {
  std::string log = read_file(path);
  size_t off = wo::db::kHeaderSize, next, n = 0;
  uint64_t last = 0;
  std::string_view p;
  while (wo::db::read_frame(reinterpret_cast<const uint8_t*>(log.data()), log.size(), off, &p, &next)) {
    ++n;
    last = static_cast<uint8_t>(p[0]) == wo::db::kGroup ? wo::db::load_u64(p.data() + 5) : 1;
    off = next;
  }
  return {n, last};
}

}  // namespace

TEST_CASE("a committed block is one frame with one record per write, durable as a whole") {
  TempDir dir;
  Bank b;
  std::string path = dir.file("bank.wal");
  {
    Open db(b.s.get(), path);
    ins(0, {"ana", 100, 0});
    CHECK(frames(path).first == 1);
    wo_tx_begin(nullptr);
    CHECK(wo_tx_active());
    int64_t bo = ins(0, {"bob", 0, 1});
    CHECK(probe(0, NAME, "bob") == std::vector<int64_t>{bo});  // read-your-writes, through the index
    set(0, 1, BALANCE, 60);
    set(0, bo, BALANCE, 40);
    ins(1, {"moved 40"});  // volatile: undone on abort, never logged
    CHECK(frames(path).first == 1);  // nothing written before the closing brace
    wo_tx_commit(nullptr);
    CHECK_FALSE(wo_tx_active());
    CHECK(frames(path) == std::pair<size_t, uint64_t>{2, 3});
  }
  Open db(b.s.get(), path);
  CHECK(dump() == "1:ana:60:0;2:bob:40:1;");
}

TEST_CASE("abort undoes inserts, updates and deletes with their indexes and refs, and burns the block's ids") {
  TempDir dir;
  Bank b;
  std::string path = dir.file("bank.wal");
  Open db(b.s.get(), path);
  int64_t ana = ins(0, {"ana", 100, 0});
  int64_t bob = ins(0, {"bob", 50, ana});
  int64_t cat = ins(0, {"cat", 7, 0});
  std::string before = dump();
  std::string log_before = read_file(path);

  wo_tx_begin(nullptr);
  int64_t dan = ins(0, {"dan", 1, bob});
  CHECK(dan == 4);
  ins(0, {"eve", 2, dan});
  set(0, ana, NAME, "ana2");
  set(0, bob, OWNER, 0);  // ana is no longer referenced ...
  wo_db_delete(0, ana, nullptr);  // ... so she can go
  wo_db_delete(0, cat, nullptr);
  set(0, bob, BALANCE, 999);
  ins(1, {"note"});
  wo_tx_abort();

  CHECK_FALSE(wo_tx_active());
  CHECK(dump() == before);
  CHECK(probe(0, NAME, "ana") == std::vector<int64_t>{ana});  // unique index restored
  CHECK(probe(0, NAME, "ana2").empty());
  CHECK(probe(0, NAME, "dan").empty());
  CHECK(probe(0, BALANCE, 50) == std::vector<int64_t>{bob});
  CHECK(probe(0, BALANCE, 999).empty());
  CHECK(probe(0, BALANCE, 7) == std::vector<int64_t>{cat});
  CHECK(scan(1).empty());
  CHECK(trap_of([&] { wo_db_delete(0, ana, nullptr); }).code == 11);  // bob refers to ana again
  CHECK(read_file(path).size() == log_before.size());
  CHECK(frames(path).first == 3);  // nothing of the block
  CHECK(ins(0, {"fay", 3, 0}) == 6);  // the block's ids (4, 5) are burnt (decision 0080)
  CHECK(ins(1, {"n"}) == 2);           // in a volatile table too
  // The three inserts, then one round: the block's burnt ids (a NEXT_ID
  // mark, staged by the abort) with fay.
  CHECK(frames(path) == std::pair<size_t, uint64_t>{4, 2});
}

TEST_CASE("a nested begin traps DB and leaves the outer transaction open") {
  Bank b;
  Open db(b.s.get());
  wo_tx_begin(nullptr);
  ins(0, {"ana", 1, 0});
  WoSite site{"inner", 12, nullptr, 0};
  wo::Trap t = trap_of([&] { wo_tx_begin(&site); });
  CHECK(t.code == 5);
  CHECK(t.msg == "nested transaction");
  CHECK(t.method == "inner");
  CHECK(t.line == 12);
  CHECK(wo_tx_active());
  wo_tx_commit(nullptr);
  CHECK(wo_db_count(0, nullptr) == 1);
}

TEST_CASE("a trap caught inside the block keeps the transaction alive") {
  TempDir dir;
  Bank b;
  Open db(b.s.get(), dir.path());
  ins(0, {"ana", 1, 0});
  wo_tx_begin(nullptr);
  ins(0, {"bob", 2, 0});
  CHECK(trap_of([] { ins(0, {"ana", 3, 0}); }).code == 10);  // stages nothing, takes no id
  CHECK(trap_of([] { wo_db_delete(0, 9, nullptr); }).code == 5);
  CHECK(ins(0, {"cat", 4, 0}) == 3);
  wo_tx_commit(nullptr);
  CHECK(dump() == "1:ana:1:0;2:bob:2:0;3:cat:4:0;");
}

TEST_CASE("an empty or volatile-only block writes nothing") {
  TempDir dir;
  Bank b;
  std::string path = dir.file("bank.wal");
  Open db(b.s.get(), path);
  ins(0, {"ana", 1, 0});
  std::string log = read_file(path);
  wo_tx_begin(nullptr);
  wo_tx_commit(nullptr);
  wo_tx_begin(nullptr);
  ins(1, {"x"});
  set(1, 1, 0, "y");
  wo_tx_commit(nullptr);
  CHECK(read_file(path) == log);
  CHECK(get_text(1, 1, 0) == "y");
}

TEST_CASE("other threads wait while a transaction is open, then see all of it") {
  Bank b;
  Open db(b.s.get());
  ins(0, {"ana", 10, 0});
  wo_tx_begin(nullptr);
  set(0, 1, BALANCE, 0);
  ins(0, {"bob", 10, 0});
  std::atomic<int> seen{-1};
  std::thread reader([&] { seen = static_cast<int>(wo_db_count(0, nullptr)) * 100 + int(get_int(0, 1, BALANCE)); });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  CHECK(seen == -1);  // blocked: it would otherwise see the half-done transfer
  set(0, 2, BALANCE, 20);
  wo_tx_commit(nullptr);
  reader.join();
  CHECK(seen == 200);
}

TEST_CASE("a transaction can move between threads (fibers) with detach/attach") {
  Bank b;
  Open db(b.s.get());
  wo_tx_begin(nullptr);
  ins(0, {"ana", 1, 0});
  void* tx = wo_tx_detach();
  CHECK_FALSE(wo_tx_active());
  std::thread other([&] {
    wo_tx_attach(tx);
    ins(0, {"bob", 2, 0});  // the transaction's owner now runs here
    wo_tx_abort();
  });
  other.join();
  CHECK(wo_db_count(0, nullptr) == 0);
  CHECK(ins(0, {"cat", 3, 0}) == 3);  // 1 and 2 are burnt
}
