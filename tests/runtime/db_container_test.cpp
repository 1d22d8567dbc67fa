// Container fields (`multi T`, `map<K, V>`; runtime.md §1.3): copied element
// by element into the store and out again, through insert, read, update,
// restart (replay), checkpoint and migration; never shared with the program.
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "tests/db/db_test_support.h"

using namespace dbtest;

namespace {

// bags { tags: multi Text, counts: map<Text, Int>, xs: multi Float, maybe: ?multi Int }
struct Bags {
  Schema s;
  explicit Bags(bool with_maybe = true) {
    int t = s.table("bags");
    s.field(t, "tags", WO_DB_MULTI, 0, -1, WO_DB_TEXT);
    s.field(t, "counts", WO_DB_MAP, 0, -1, WO_DB_TEXT, WO_DB_INT);
    s.field(t, "xs", WO_DB_MULTI, 0, -1, WO_DB_FLOAT);
    if (with_maybe) s.field(t, "maybe", WO_DB_MULTI, WO_DB_NULLABLE, -1, WO_DB_INT);
  }
};

WoList* text_list(std::vector<std::string> v) {
  WoList* xs = wo_list_new(WO_ELEM_TEXT, 0);
  for (auto& t : v) wo_list_push(xs, reinterpret_cast<uint64_t>(wo_text_new(t.data(), static_cast<int64_t>(t.size()))));
  return xs;
}

WoList* float_list(std::vector<double> v) {
  WoList* xs = wo_list_new(WO_ELEM_FLOAT, 0);
  for (double d : v) {
    uint64_t b;
    std::memcpy(&b, &d, 8);
    wo_list_push(xs, b);
  }
  return xs;
}

WoMap* counts(std::vector<std::pair<std::string, int64_t>> v) {
  WoMap* m = wo_map_new(WO_ELEM_TEXT, WO_ELEM_SCALAR);
  for (auto& [k, n] : v) {
    WoText* key = wo_text_new(k.data(), static_cast<int64_t>(k.size()));
    wo_map_set(m, reinterpret_cast<uint64_t>(key), static_cast<uint64_t>(n), nullptr);
    wo_release(key);
  }
  return m;
}

std::string show_texts(uint64_t w) {
  auto* xs = reinterpret_cast<WoList*>(w);
  if (!xs) return "<nil>";
  std::string out;
  for (int64_t i = 0; i < xs->len; ++i) {
    auto* t = reinterpret_cast<WoText*>(xs->data[i]);
    out += std::string(t->bytes, static_cast<size_t>(t->len)) + ";";
  }
  wo_release(xs);
  return out;
}

std::string show_counts(uint64_t w) {
  auto* m = reinterpret_cast<WoMap*>(w);
  if (!m) return "<nil>";
  std::string out;
  uint64_t k = 0, v = 0;
  for (int64_t p = wo_map_iter(m, 0, &k, &v); p >= 0; p = wo_map_iter(m, p + 1, &k, &v)) {
    auto* t = reinterpret_cast<WoText*>(k);
    out += std::string(t->bytes, static_cast<size_t>(t->len)) + "=" + std::to_string(static_cast<int64_t>(v)) + ";";
  }
  wo_release(m);
  return out;
}

std::string show_floats(uint64_t w) {
  auto* xs = reinterpret_cast<WoList*>(w);
  std::string out;
  for (int64_t i = 0; i < xs->len; ++i) {
    double d;
    std::memcpy(&d, &xs->data[i], 8);
    out += std::isnan(d) ? "nan;" : std::signbit(d) && d == 0 ? "-0;" : std::isinf(d) ? "inf;" : std::to_string(d) + ";";
  }
  wo_release(xs);
  return out;
}

std::string show_ints(uint64_t w) {
  auto* xs = reinterpret_cast<WoList*>(w);
  if (!xs) return "<nil>";
  std::string out;
  for (int64_t i = 0; i < xs->len; ++i) out += std::to_string(static_cast<int64_t>(xs->data[i])) + ";";
  wo_release(xs);
  return out;
}

// Row `id` of bags as text.
std::string row(int64_t id, bool with_maybe = true) {
  std::string out = show_texts(wo_db_get(0, id, 0, nullptr)) + "|" + show_counts(wo_db_get(0, id, 1, nullptr)) + "|" +
                    show_floats(wo_db_get(0, id, 2, nullptr));
  if (with_maybe) out += "|" + show_ints(wo_db_get(0, id, 3, nullptr));
  return out;
}

int64_t insert_bag(WoList* tags, WoMap* cs, WoList* xs, WoList* maybe) {
  uint64_t w[4] = {reinterpret_cast<uint64_t>(tags), reinterpret_cast<uint64_t>(cs), reinterpret_cast<uint64_t>(xs),
                   reinterpret_cast<uint64_t>(maybe)};
  return wo_db_insert(0, w, nullptr);
}

}  // namespace

TEST_CASE("containers: insert copies them in, reads copy them out, updates replace them") {
  Bags b;
  Open db(b.s.get());
  REQUIRE(db.rc == 0);
  WoList* tags = text_list({"a", "b"});
  WoMap* cs = counts({{"x", 1}, {"y", -2}});
  WoList* xs = float_list({-0.0, INFINITY, NAN, 2.5});
  CHECK(insert_bag(tags, cs, xs, nullptr) == 1);
  // the program's values are untouched and not shared: changing them changes nothing stored
  wo_list_push(tags, reinterpret_cast<uint64_t>(wo_text_new("c", 1)));
  CHECK(row(1) == "a;b;|x=1;y=-2;|-0;inf;nan;2.500000;|<nil>");
  // a read is a fresh copy: changing it changes nothing stored either
  auto* got = reinterpret_cast<WoList*>(wo_db_get(0, 1, 0, nullptr));
  wo_list_push(got, reinterpret_cast<uint64_t>(wo_text_new("z", 1)));
  wo_release(got);
  CHECK(row(1) == "a;b;|x=1;y=-2;|-0;inf;nan;2.500000;|<nil>");
  // whole-field updates
  wo_db_set(0, 1, 0, reinterpret_cast<uint64_t>(tags), nullptr);
  WoList* ints = wo_list_new(WO_ELEM_SCALAR, 0);
  wo_list_push(ints, 7);
  wo_db_set(0, 1, 3, reinterpret_cast<uint64_t>(ints), nullptr);
  CHECK(row(1) == "a;b;c;|x=1;y=-2;|-0;inf;nan;2.500000;|7;");
  wo_db_set(0, 1, 3, 0, nullptr);
  CHECK(row(1) == "a;b;c;|x=1;y=-2;|-0;inf;nan;2.500000;|<nil>");
  WoList* empty = text_list({});
  CHECK(insert_bag(empty, cs, xs, ints) == 2);
  CHECK(row(2) == "|x=1;y=-2;|-0;inf;nan;2.500000;|7;");
  for (void* p : {(void*)tags, (void*)cs, (void*)xs, (void*)ints, (void*)empty}) wo_release(p);
}

TEST_CASE("containers survive a restart, a checkpoint and an aborted transaction") {
  TempDir dir;
  Bags b;
  WoList* tags = text_list({"red", "", std::string("nul\0byte", 8)});
  WoMap* cs = counts({{"k", 4611686018427387904LL}, {"", 0}});
  WoList* xs = float_list({1.0, -0.0});
  WoList* ints = wo_list_new(WO_ELEM_SCALAR, 0);
  wo_list_push(ints, static_cast<uint64_t>(WO_NIL_SCALAR));  // an ordinary Int inside a multi Int
  const std::string want1 = std::string("red;;nul\0byte;", 14) + "|k=4611686018427387904;=0;|1.000000;-0;|-4611686018427387904;";
  {
    Open db(b.s.get(), dir.path());
    REQUIRE(db.rc == 0);
    CHECK(insert_bag(tags, cs, xs, ints) == 1);
    CHECK(insert_bag(tags, cs, xs, nullptr) == 2);
    WoMap* none = counts({});
    wo_db_set(0, 2, 1, reinterpret_cast<uint64_t>(none), nullptr);
    wo_release(none);
  }
  {
    Open db(b.s.get(), dir.path());
    REQUIRE(db.rc == 0);
    CHECK(row(1) == want1);
    CHECK(row(2) == std::string("red;;nul\0byte;", 14) + "||1.000000;-0;|<nil>");
    REQUIRE(wo_db_checkpoint());
    wo_tx_begin(nullptr);
    wo_db_set(0, 1, 0, reinterpret_cast<uint64_t>(tags), nullptr);
    wo_db_delete(0, 2, nullptr);
    wo_tx_abort();
    CHECK(row(1) == want1);
  }
  Open db(b.s.get(), dir.path());
  REQUIRE(db.rc == 0);
  CHECK(row(1) == want1);
  CHECK(scan(0) == std::vector<int64_t>{1, 2});
  for (void* p : {(void*)tags, (void*)cs, (void*)xs, (void*)ints}) wo_release(p);
}

TEST_CASE("containers: migration adds empty (or nil) containers and refuses a retyped element") {
  TempDir dir;
  {
    Bags old(false);
    Open db(old.s.get(), dir.path());
    REQUIRE(db.rc == 0);
    WoList* tags = text_list({"t"});
    WoMap* cs = counts({{"a", 1}});
    WoList* xs = float_list({});
    uint64_t w[3] = {reinterpret_cast<uint64_t>(tags), reinterpret_cast<uint64_t>(cs), reinterpret_cast<uint64_t>(xs)};
    CHECK(wo_db_insert(0, w, nullptr) == 1);
    for (void* p : {(void*)tags, (void*)cs, (void*)xs}) wo_release(p);
  }
  {
    Bags added;  // + maybe: ?multi Int -> nil
    Open db(added.s.get(), dir.path());
    REQUIRE(db.rc == 0);
    CHECK(row(1) == "t;|a=1;||<nil>");
  }
  {
    Schema more;  // + extra: multi Int -> empty
    int t = more.table("bags");
    more.field(t, "tags", WO_DB_MULTI, 0, -1, WO_DB_TEXT);
    more.field(t, "counts", WO_DB_MAP, 0, -1, WO_DB_TEXT, WO_DB_INT);
    more.field(t, "xs", WO_DB_MULTI, 0, -1, WO_DB_FLOAT);
    more.field(t, "maybe", WO_DB_MULTI, WO_DB_NULLABLE, -1, WO_DB_INT);
    more.field(t, "extra", WO_DB_MULTI, 0, -1, WO_DB_INT);
    Open db(more.get(), dir.path());
    REQUIRE(db.rc == 0);
    CHECK(show_ints(wo_db_get(0, 1, 4, nullptr)) == "");
  }
  Schema retyped;  // tags: multi Int
  int t = retyped.table("bags");
  retyped.field(t, "tags", WO_DB_MULTI, 0, -1, WO_DB_INT);
  retyped.field(t, "counts", WO_DB_MAP, 0, -1, WO_DB_TEXT, WO_DB_INT);
  retyped.field(t, "xs", WO_DB_MULTI, 0, -1, WO_DB_FLOAT);
  retyped.field(t, "maybe", WO_DB_MULTI, WO_DB_NULLABLE, -1, WO_DB_INT);
  retyped.field(t, "extra", WO_DB_MULTI, 0, -1, WO_DB_INT);
  Open db(retyped.get(), dir.path());
  CHECK(db.rc == 2);
  CHECK(db.err.find("multi Text") != std::string::npos);
}

TEST_CASE("containers: the schema refuses elements the store cannot keep and indexes on containers") {
  auto refused = [](Schema& s) {
    Open db(s.get());
    return db.rc;
  };
  Schema a;
  a.field(a.table("t"), "m", WO_DB_MAP, 0, -1, WO_DB_FLOAT, WO_DB_INT);  // Float keys
  CHECK(refused(a) == 2);
  Schema b;
  b.field(b.table("t"), "xs", WO_DB_MULTI, 0, -1, WO_DB_REF);  // row ids inside a container
  CHECK(refused(b) == 2);
  Schema c;
  int t = c.table("t");
  c.field(t, "xs", WO_DB_MULTI, 0, -1, WO_DB_INT);
  c.index(t, {0});
  CHECK(refused(c) == 2);
}
