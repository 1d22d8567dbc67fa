// Recovery: a store reopened from its log holds what was acknowledged; a log
// cut at every byte offset replays exactly the frames wholly before the cut;
// damage in the middle refuses to start, naming the file and the offset.
#include <doctest/doctest.h>

#include <map>

#include "runtime/src/db/model.h"
#include "runtime/src/db/file_header.h"
#include "runtime/src/db/frame.h"
#include "tests/db/db_test_support.h"

using namespace dbtest;

namespace {

// notes { key: Int @unique, text: ?Text, x: Float }
struct Notes {
  Schema s;
  Notes() {
    int t = s.table("notes");
    s.field(t, "key", WO_DB_INT);
    s.field(t, "text", WO_DB_TEXT, WO_DB_NULLABLE);
    s.field(t, "x", WO_DB_FLOAT);
    s.index(t, {0}, true);
  }
};

// The store's rows as text: "id:key:text;" in id order.
std::string dump() {
  std::string out;
  for (int64_t id : scan(0))
    out += std::to_string(id) + ":" + std::to_string(get_int(0, id, 0)) + ":" + get_text(0, id, 1) + ";";
  return out;
}

// Offsets where frames end, by walking the log's frames (after its header).
std::vector<size_t> frame_ends(const std::string& log) {
  std::vector<size_t> ends;
  size_t off = wo::db::kHeaderSize, next;
  std::string_view p;
  while (wo::db::read_frame(reinterpret_cast<const uint8_t*>(log.data()), log.size(), off, &p, &next)) {
    ends.push_back(next);
    off = next;
  }
  return ends;
}

}  // namespace

TEST_CASE("a reopened store holds every write and continues the id sequence") {
  TempDir dir;
  Notes n;
  {
    Open db(n.s.get(), dir.path());
    REQUIRE(db.rc == 0);
    CHECK(ins(0, {1, "one", 1.5}) == 1);
    CHECK(ins(0, {2, V::nil_text(), -0.0}) == 2);
    CHECK(ins(0, {3, "three", 3.0}) == 3);
    set(0, 1, 1, "uno");
    wo_db_delete(0, 3, nullptr);
  }
  CHECK(exists(dir.file("shard-0.wal")));
  Open db(n.s.get(), dir.path());
  REQUIRE(db.rc == 0);
  CHECK(dump() == "1:1:uno;2:2:<nil>;");
  CHECK(std::signbit(get_float(0, 2, 2)));
  CHECK(ins(0, {4, "four", 0.0}) == 4);  // 3 was deleted, never reused
  CHECK(trap_of([] { ins(0, {1, "dup", 0.0}); }).code == 10);  // the unique index was rebuilt
}

TEST_CASE("a log torn at every byte offset replays exactly the frames before the cut") {
  TempDir dir;
  Notes n;
  std::string log_path = dir.file("notes.wal");
  std::vector<std::string> states{""};  // the store after 0, 1, 2, ... frames
  {
    Open db(n.s.get(), log_path);
    REQUIRE(db.rc == 0);
    ins(0, {10, "a", 1.0});
    states.push_back(dump());
    ins(0, {20, std::string("b\0c", 3), 2.0});
    states.push_back(dump());
    set(0, 1, 1, "a2");
    states.push_back(dump());
    wo_tx_begin(nullptr);  // one frame for the whole block
    ins(0, {30, "c", 3.0});
    ins(0, {40, V::nil_text(), 4.0});
    set(0, 2, 1, "b2");
    wo_db_delete(0, 1, nullptr);
    wo_tx_commit(nullptr);
    states.push_back(dump());
    wo_db_delete(0, 3, nullptr);
    states.push_back(dump());
    ins(0, {50, "e", 5.0});
    states.push_back(dump());
  }
  std::string log = read_file(log_path);
  std::vector<size_t> ends = frame_ends(log);
  REQUIRE(ends.size() == states.size() - 1);
  size_t used = ends.back();
  CHECK(log.find_first_not_of('\0', used) == std::string::npos);  // zero-filled preallocation after
  std::string cut_path = dir.file("cut.wal");
  for (size_t len = 0; len <= used; ++len) {
    size_t whole = 0;
    while (whole < ends.size() && ends[whole] <= len) ++whole;
    write_file(cut_path, log.substr(0, len));
    Open db(n.s.get(), cut_path);
    REQUIRE_MESSAGE(db.rc == 0, "cut at " << len << ": " << db.err);
    CHECK_MESSAGE(dump() == states[whole], "cut at " << len);
    // The next write lands right after the intact prefix (checked on a
    // sample of cuts: each write preallocates 1 MiB of zeros).
    if (len % 11 == 0 || len == used) {
      const int64_t next_id[] = {1, 2, 3, 3, 5, 5, 6};  // past the largest id replayed, deleted ones too
      CHECK_MESSAGE(ins(0, {99, "next", 0.0}) == next_id[whole], "cut at " << len);
    }
  }
  // Every cut store is still a valid log after that write.
  Open db(n.s.get(), cut_path);
  CHECK(db.rc == 0);
  CHECK(dump() == states.back() + "6:99:next;");
}

TEST_CASE("garbage after a torn tail is cut off before new writes") {
  TempDir dir;
  Notes n;
  std::string path = dir.file("t.wal");
  {
    Open db(n.s.get(), path);
    ins(0, {1, "a", 0.0});
    ins(0, {2, "a long text that makes this frame longer than the one replacing it", 0.0});
  }
  std::string log = read_file(path);
  std::vector<size_t> ends = frame_ends(log);
  // Tear the last frame in its middle: the first half stays, the rest is gone.
  log[ends[1] - 20] ^= 0x5A;  // inside its text
  write_file(path, log);
  {
    Open db(n.s.get(), path);
    REQUIRE(db.rc == 0);
    CHECK(dump() == "1:1:a;");
    ins(0, {3, "b", 0.0});  // shorter than the torn frame
  }
  Open db(n.s.get(), path);
  REQUIRE(db.rc == 0);
  CHECK(dump() == "1:1:a;2:3:b;");
}

TEST_CASE("damage in the middle of the log refuses to start, naming file and offset") {
  TempDir dir;
  Notes n;
  std::string path = dir.file("m.wal");
  {
    Open db(n.s.get(), path);
    for (int i = 1; i <= 4; ++i) ins(0, {i, "row", 0.0});
  }
  std::string log = read_file(path);
  std::vector<size_t> ends = frame_ends(log);
  std::string bad = log;
  bad[ends[1] + 10] ^= 0x20;  // inside the third frame
  write_file(path, bad);
  Open db(n.s.get(), path);
  CHECK(db.rc == 2);
  CHECK(db.err.find(path) != std::string::npos);
  CHECK(db.err.find("offset " + std::to_string(ends[1])) != std::string::npos);
  CHECK(wo_db_exists(0, 1) == false);  // nothing is open

  std::string zeroed = log;  // a zeroed page in the middle is damage too
  std::fill(zeroed.begin() + static_cast<long>(ends[0]), zeroed.begin() + static_cast<long>(ends[1]), '\0');
  write_file(path, zeroed);
  Open db2(n.s.get(), path);
  CHECK(db2.rc == 2);
  CHECK(db2.err.find("corrupt at offset " + std::to_string(ends[0])) != std::string::npos);
}

TEST_CASE("a well-framed record that contradicts the store is corruption") {
  TempDir dir;
  Notes n;
  std::string path = dir.file("c.wal");
  {
    Open db(n.s.get(), path);
    ins(0, {1, "a", 0.0});
  }
  std::string log = read_file(path);
  log.resize(frame_ends(log).back());
  std::string p;  // REMOVE of row 9, which never existed
  wo::db::put_u8(p, wo::db::kRemove);
  wo::db::put_u32(p, 0);
  wo::db::put_u64(p, 9);
  wo::db::append_frame(log, p);
  write_file(path, log);
  Open db(n.s.get(), path);
  CHECK(db.rc == 2);
  CHECK(db.err.find("replay found corruption beyond a torn tail") != std::string::npos);
  CHECK(db.err.find("remove of a missing row") != std::string::npos);
}

TEST_CASE("a volatile table starts empty and a durable one is untouched by it") {
  TempDir dir;
  Schema s;
  int d = s.table("durable");
  s.field(d, "n", WO_DB_INT);
  int v = s.table("scratch", WO_DB_TABLE | WO_DB_VOLATILE);
  s.field(v, "n", WO_DB_INT);
  s.field(v, "d", WO_DB_REF, 0, d);
  {
    Open db(s.get(), dir.path());
    int64_t row = ins(d, {7});
    ins(v, {1, row});
    ins(v, {2, row});
    CHECK(trap_of([&] { wo_db_delete(d, row, nullptr); }).code == 11);  // volatile refs count too
  }
  Open db(s.get(), dir.path());
  CHECK(scan(d) == std::vector<int64_t>{1});
  CHECK(scan(v).empty());
  CHECK(ins(v, {3, 1}) == 1);  // a volatile table's ids restart
  wo_db_delete(v, 1, nullptr);
  wo_db_delete(d, 1, nullptr);  // no longer referenced
}
