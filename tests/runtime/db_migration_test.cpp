// Schema migration at start-up (runtime.md §1.14): added and dropped fields
// migrate (the log is rewritten), every other change is refused with a
// message and leaves the log as it was.
#include <doctest/doctest.h>

#include "support.h"
#include "tests/db/db_test_support.h"

using namespace dbtest;

namespace {

// v1: items { a: Int, b: Text, c: Float } + owners { name: Text }
Schema v1() {
  Schema s;
  int t = s.table("items");
  s.field(t, "a", WO_DB_INT);
  s.field(t, "b", WO_DB_TEXT);
  s.field(t, "c", WO_DB_FLOAT);
  s.index(t, {1}, true);
  int o = s.table("owners");
  s.field(o, "name", WO_DB_TEXT);
  return s;
}

void seed(const std::string& path) {
  Schema s = v1();
  Open db(s.get(), path);
  REQUIRE(db.rc == 0);
  ins(0, {1, "one", 1.5});
  ins(0, {2, "two", 2.5});
  wo_db_delete(0, 1, nullptr);
  ins(1, {"o"});
}

}  // namespace

TEST_CASE("adding and dropping fields migrates, reordered, with one line per table") {
  TempDir dir;
  std::string path = dir.file("m.wal");
  seed(path);
  Schema v2;  // owners first now; items: b kept, c dropped, a kept, d and e added
  int o = v2.table("owners");
  v2.field(o, "name", WO_DB_TEXT);
  int t = v2.table("items");
  v2.field(t, "b", WO_DB_TEXT);
  v2.field(t, "d", WO_DB_INT, WO_DB_NULLABLE);
  v2.field(t, "a", WO_DB_INT);
  v2.field(t, "e", WO_DB_TEXT);
  v2.field(t, "f", WO_DB_REF, WO_DB_NULLABLE, o);
  v2.index(t, {0}, true);
  std::string err = wotest::capture_fd(2, [&] {
    WoDbConfig cfg{};
    cfg.data = path.c_str();
    REQUIRE(wo_db_open(v2.get(), &cfg, nullptr, 0) == 0);
  });
  CHECK(err == "wo: migrating table items: -c +d +e +f\nwo: schema migrated (" + path + ")\n");
  CHECK(scan(t) == std::vector<int64_t>{2});
  CHECK(get_text(t, 2, 0) == "two");
  CHECK(get_int(t, 2, 1) == WO_NIL_SCALAR);
  CHECK(get_int(t, 2, 2) == 2);
  CHECK(get_text(t, 2, 3) == "");
  CHECK(get_int(t, 2, 4) == 0);
  CHECK(get_text(o, 1, 0) == "o");
  CHECK(ins(t, {"three", 5, 3, "x", 1}) == 3);  // the id sequence survived
  wo_db_close();
  Open again(v2.get(), path);  // the log now carries the new head: no second migration
  REQUIRE(again.rc == 0);
  CHECK(scan(t) == std::vector<int64_t>{2, 3});
  CHECK(get_int(t, 3, 4) == 1);
}

TEST_CASE("other schema changes are refused and leave the log untouched") {
  TempDir dir;
  std::string path = dir.file("m.wal");
  seed(path);
  std::string log = read_file(path);
  auto refused = [&](Schema s, const std::string& words) {
    Open db(s.get(), path);
    CHECK(db.rc == 2);
    CHECK_MESSAGE(db.err.find(words) != std::string::npos, db.err);
    CHECK(read_file(path) == log);
  };
  {
    Schema s = v1();  // items.a retyped
    Schema r;
    int t = r.table("items");
    r.field(t, "a", WO_DB_FLOAT);
    r.field(t, "b", WO_DB_TEXT);
    r.field(t, "c", WO_DB_FLOAT);
    int o = r.table("owners");
    r.field(o, "name", WO_DB_TEXT);
    refused(r, "field items.a changed type from Int to Float");
  }
  {
    Schema r;  // c dropped and g added, both Float: a rename in disguise
    int t = r.table("items");
    r.field(t, "a", WO_DB_INT);
    r.field(t, "b", WO_DB_TEXT);
    r.field(t, "g", WO_DB_FLOAT);
    int o = r.table("owners");
    r.field(o, "name", WO_DB_TEXT);
    refused(r, "looks like a rename");
  }
  {
    Schema r;  // owners gone
    int t = r.table("items");
    r.field(t, "a", WO_DB_INT);
    r.field(t, "b", WO_DB_TEXT);
    r.field(t, "c", WO_DB_FLOAT);
    refused(r, "declares no such table");
  }
  {
    Schema r = v1();
    Schema w;  // owners now durable: false
    int t = w.table("items");
    w.field(t, "a", WO_DB_INT);
    w.field(t, "b", WO_DB_TEXT);
    w.field(t, "c", WO_DB_FLOAT);
    int o = w.table("owners", WO_DB_TABLE | WO_DB_VOLATILE);
    w.field(o, "name", WO_DB_TEXT);
    refused(w, "\"owners\" is durable in the log but not in the program");
  }
  {
    Schema r;  // a non-nullable ref added
    int t = r.table("items");
    r.field(t, "a", WO_DB_INT);
    r.field(t, "b", WO_DB_TEXT);
    r.field(t, "c", WO_DB_FLOAT);
    int o = r.table("owners");
    r.field(o, "name", WO_DB_TEXT);
    r.field(t, "owner", WO_DB_REF, 0, o);
    refused(r, "declare it ?ref");
  }
  Schema s = v1();
  Open db(s.get(), path);
  CHECK(db.rc == 0);
  CHECK(scan(0) == std::vector<int64_t>{2});
}

TEST_CASE("index changes need no migration; a new unique index the rows break is refused") {
  TempDir dir;
  std::string path = dir.file("m.wal");
  seed(path);
  {
    Schema s = v1();
    Open db(s.get(), path);
    ins(0, {2, "dup-a", 0.0});  // a == 2 twice
  }
  Schema idx;
  int t = idx.table("items");
  idx.field(t, "a", WO_DB_INT);
  idx.field(t, "b", WO_DB_TEXT);
  idx.field(t, "c", WO_DB_FLOAT);
  idx.index(t, {0});  // secondary on a; the unique on b dropped
  int o = idx.table("owners");
  idx.field(o, "name", WO_DB_TEXT);
  {
    Open db(idx.get(), path);
    REQUIRE(db.rc == 0);
    CHECK(probe(0, 0, 2) == std::vector<int64_t>{2, 3});
    ins(0, {9, "two", 0.0});  // b is no longer unique
  }
  Schema uq = v1();  // b unique again, but two rows now share "two"
  Open db(uq.get(), path);
  CHECK(db.rc == 2);
  CHECK(db.err.find("unique index items.b violated") != std::string::npos);
}
