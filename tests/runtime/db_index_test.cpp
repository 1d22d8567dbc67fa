// Index maintenance and queries: unique and secondary indexes stay right
// through inserts, updates and deletes (checked against a scan); probes,
// ranges and sorts order and compare as runtime.md §1.6/§1.7 say; ids;
// FK restrict; the trap codes and messages.
#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <random>
#include <set>

#include "runtime/src/db/ordered.h"

#include "tests/db/db_test_support.h"

using namespace dbtest;

namespace {

// people { email: Text @unique, age: Int, city: ?Text, score: Float }
//   index: [age], index: [city, age], @unique score
struct People {
  Schema s;
  People(uint32_t flags = WO_DB_TABLE) {
    int t = s.table("people", flags);
    s.field(t, "email", WO_DB_TEXT);
    s.field(t, "age", WO_DB_INT);
    s.field(t, "city", WO_DB_TEXT, WO_DB_NULLABLE);
    s.field(t, "score", WO_DB_FLOAT);
    s.index(t, {0}, true);
    s.index(t, {1});
    s.index(t, {2, 1});
    s.index(t, {3}, true);
  }
};
enum { EMAIL, AGE, CITY, SCORE };

std::vector<int64_t> range(uint32_t f, const V* lo, const V* hi, uint32_t flags, int64_t limit = -1) {
  Words l(lo ? *lo : V(0)), h(hi ? *hi : V(0));
  return ids(wo_db_range(0, f, l[0], h[0], flags | (lo ? WO_DB_LO : 0) | (hi ? WO_DB_HI : 0), limit, nullptr));
}

}  // namespace

TEST_CASE("ids start at 1, are never reused, and a failed insert takes none") {
  People p;
  Open db(p.s.get());
  REQUIRE(db.rc == 0);
  CHECK(ins(0, {"a@x", 30, "Oslo", 1.0}) == 1);
  CHECK(ins(0, {"b@x", 31, "Oslo", 2.0}) == 2);
  wo::Trap t = trap_of([] { ins(0, {"a@x", 1, "Rome", 3.0}); });
  CHECK(t.code == 10);
  CHECK(t.msg == "unique constraint violated: people.email");
  CHECK(ins(0, {"c@x", 32, V::nil_text(), 3.0}) == 3);  // the failed insert took no id
  wo_db_delete(0, 3, nullptr);
  CHECK(ins(0, {"d@x", 33, "Rome", 4.0}) == 4);  // 3 is gone for good
  CHECK(scan(0) == std::vector<int64_t>{1, 2, 4});
  CHECK(wo_db_count(0, nullptr) == 3);
}

TEST_CASE("a unique violation on update leaves the row and its indexes untouched") {
  People p;
  Open db(p.s.get());
  ins(0, {"a@x", 30, "Oslo", 1.0});
  ins(0, {"b@x", 31, "Oslo", 2.0});
  wo::Trap t = trap_of([] { set(0, 2, EMAIL, "a@x"); });
  CHECK(t.code == 10);
  CHECK(t.msg == "unique constraint violated: people.email");
  CHECK(get_text(0, 2, EMAIL) == "b@x");
  CHECK(probe(0, EMAIL, "b@x") == std::vector<int64_t>{2});
  set(0, 2, EMAIL, "b@x");  // the same value again is no conflict
  set(0, 2, EMAIL, "c@x");
  CHECK(probe(0, EMAIL, "b@x").empty());
  CHECK(probe(0, EMAIL, "c@x") == std::vector<int64_t>{2});
  CHECK(wo_db_find(0, EMAIL, Words(V("c@x"))[0], nullptr) == 2);
  CHECK(wo_db_find(0, EMAIL, Words(V("zz"))[0], nullptr) == 0);
}

TEST_CASE("Float keys: -0.0 and 0.0 are one unique key; NaNs collide") {
  People p;
  Open db(p.s.get());
  ins(0, {"a", 1, V::nil_text(), 0.0});
  CHECK(trap_of([] { ins(0, {"b", 1, V::nil_text(), -0.0}); }).msg == "unique constraint violated: people.score");
  ins(0, {"c", 1, V::nil_text(), std::nan("1")});
  CHECK(trap_of([] { ins(0, {"d", 1, V::nil_text(), std::nan("2")}); }).code == 10);
  CHECK(probe(0, SCORE, -0.0) == std::vector<int64_t>{1});
  CHECK(std::signbit(get_float(0, 1, SCORE)) == false);  // stored bits are the inserted ones
}

TEST_CASE("nil never collides in a unique index, and probes find nils") {
  Schema s2;
  int t = s2.table("u", WO_DB_TABLE | WO_DB_VOLATILE);
  s2.field(t, "k", WO_DB_TEXT, WO_DB_NULLABLE);
  s2.index(t, {0}, true);
  Open db(s2.get());
  ins(0, {V::nil_text()});
  ins(0, {V::nil_text()});
  ins(0, {""});
  CHECK(trap_of([] { ins(0, {""}); }).code == 10);  // empty is a value, not nil
  CHECK(probe(0, 0, V::nil_text()) == std::vector<int64_t>{1, 2});
  CHECK(probe(0, 0, "") == std::vector<int64_t>{3});
}

TEST_CASE("secondary and composite indexes follow inserts, updates and deletes") {
  People p;
  Open db(p.s.get());
  std::mt19937 rng(7);
  const char* cities[] = {"Oslo", "Rome", "Lima"};
  std::map<int64_t, std::pair<int64_t, std::string>> model;  // id -> (age, city)
  int next = 0;
  for (int step = 0; step < 3000; ++step) {
    unsigned op = rng() % 10;
    if (op < 5 || model.empty()) {
      int64_t age = rng() % 20;
      std::string city = rng() % 4 ? cities[rng() % 3] : "<nil>";
      V c = city == "<nil>" ? V::nil_text() : V(city);
      int64_t id = ins(0, {"e" + std::to_string(next++), age, c, double(next)});
      model[id] = {age, city};
    } else {
      auto it = model.begin();
      std::advance(it, rng() % model.size());
      if (op < 7) {
        int64_t age = rng() % 20;
        set(0, it->first, AGE, age);
        it->second.first = age;
      } else if (op < 8) {
        std::string city = cities[rng() % 3];
        set(0, it->first, CITY, city);
        it->second.second = city;
      } else {
        wo_db_delete(0, it->first, nullptr);
        model.erase(it);
      }
    }
  }
  for (int64_t age = 0; age < 20; ++age) {
    std::vector<int64_t> want;
    for (auto& [id, r] : model)
      if (r.first == age) want.push_back(id);
    CHECK(probe(0, AGE, age) == want);  // ascending ids
    CHECK(wo_db_probe_count(0, AGE, uint64_t(age), nullptr) == int64_t(want.size()));
    for (const char* city : cities) {
      std::vector<int64_t> want2;
      for (auto& [id, r] : model)
        if (r.first == age && r.second == city) want2.push_back(id);
      Words keys({V(city), V(age)});
      CHECK(ids(wo_db_probe_index(0, 2, keys.data(), nullptr)) == want2);
    }
  }
  std::vector<int64_t> nil_city;
  for (auto& [id, r] : model)
    if (r.second == "<nil>") nil_city.push_back(id);
  CHECK(probe(0, CITY, V::nil_text()) == nil_city);  // no single index on city: a scan, same answer
}

TEST_CASE("ordered scans: signed Ints, bytewise Texts, Float total order, stable ties, desc, limits") {
  Schema s;
  int t = s.table("r", WO_DB_TABLE | WO_DB_VOLATILE);
  s.field(t, "i", WO_DB_INT);
  s.field(t, "s", WO_DB_TEXT);
  s.field(t, "f", WO_DB_FLOAT);
  s.field(t, "n", WO_DB_INT, WO_DB_NULLABLE);
  s.index(t, {0});
  s.index(t, {1});  // f and n have no index: scan + stable sort, same order
  Open db(s.get());
  double inf = INFINITY;
  ins(0, {5, "b", 1.0, 5});                         // 1
  ins(0, {-3, "ab", std::nan(""), V::nil_int()});   // 2
  ins(0, {5, "a", -inf, 5});                        // 3
  ins(0, {0, "", -0.0, -1});                        // 4
  ins(0, {-3, "b", 0.0, V::nil_int()});             // 5
  ins(0, {100, "\xff", inf, 2});                    // 6
  CHECK(range(0, nullptr, nullptr, 0) == std::vector<int64_t>{2, 5, 4, 1, 3, 6});
  CHECK(range(0, nullptr, nullptr, WO_DB_DESC) == std::vector<int64_t>{6, 1, 3, 4, 2, 5});  // ties stay ascending
  CHECK(range(1, nullptr, nullptr, 0) == std::vector<int64_t>{4, 3, 2, 1, 5, 6});
  CHECK(range(2, nullptr, nullptr, 0) == std::vector<int64_t>{3, 4, 5, 1, 6, 2});  // -0.0 == 0.0, NaN last
  CHECK(range(3, nullptr, nullptr, 0) == std::vector<int64_t>{2, 5, 4, 6, 1, 3});  // nil first
  CHECK(range(2, nullptr, nullptr, WO_DB_DESC) == std::vector<int64_t>{2, 6, 1, 4, 5, 3});
  V lo(-3), hi(5);
  CHECK(range(0, &lo, &hi, 0) == std::vector<int64_t>{2, 5, 4, 1, 3});
  CHECK(range(0, &lo, &hi, WO_DB_LO_OPEN | WO_DB_HI_OPEN) == std::vector<int64_t>{4});
  CHECK(range(0, &lo, nullptr, 0, 3) == std::vector<int64_t>{2, 5, 4});
  CHECK(range(0, nullptr, &hi, WO_DB_DESC, 2) == std::vector<int64_t>{1, 3});
  CHECK(range(0, &hi, &lo, 0).empty());  // lo > hi
  V a("a"), b("b");
  CHECK(range(1, &a, &b, WO_DB_HI_OPEN) == std::vector<int64_t>{3, 2});  // "a" <= s < "b": prefix first
  V z(0.0);
  CHECK(range(2, &z, &z, 0) == std::vector<int64_t>{4, 5});  // the unindexed path agrees on equality
  WoList* xs = wo_db_scan(0, nullptr);
  wo_db_sort(0, xs, 2, false, nullptr);
  CHECK(ids(xs) == std::vector<int64_t>{3, 4, 5, 1, 6, 2});
  WoList* ys = wo_list_new(WO_ELEM_INT, 0);
  for (int64_t id : {6, 5, 1, 3}) wo_list_push(ys, uint64_t(id));
  wo_db_sort(0, ys, 0, true, nullptr);
  CHECK(ids(ys) == std::vector<int64_t>{6, 1, 3, 5});  // keys 100, -3, 5, 5: the tie keeps its input order
}

TEST_CASE("FK: restrict on delete, missing targets refused, no such row") {
  Schema s;
  int c = s.table("customers");
  s.field(c, "email", WO_DB_TEXT);
  int inv = s.table("invoices");
  s.field(inv, "customer", WO_DB_REF, 0, c);
  s.field(inv, "parent", WO_DB_REF, WO_DB_NULLABLE, inv);
  s.index(inv, {0});
  Open db(s.get());
  int64_t ana = ins(c, {"ana"});
  int64_t bob = ins(c, {"bob"});
  int64_t i1 = ins(inv, {ana, 0});
  int64_t i2 = ins(inv, {ana, i1});
  wo::Trap t = trap_of([&] { wo_db_delete(c, ana, nullptr); });
  CHECK(t.code == 11);
  CHECK(t.msg == "row is still referenced (restrict)");
  CHECK(wo_db_exists(c, ana));
  wo_db_delete(c, bob, nullptr);  // nothing refers to bob
  t = trap_of([&] { ins(inv, {bob, 0}); });
  CHECK(t.code == 11);
  CHECK(t.msg == "referenced row does not exist: invoices.customer");
  CHECK(trap_of([&] { set(inv, i1, 1, 77); }).code == 11);
  CHECK(trap_of([&] { wo_db_delete(inv, i1, nullptr); }).code == 11);  // i2.parent
  set(inv, i2, 1, 0);  // ?ref nil
  wo_db_delete(inv, i1, nullptr);
  t = trap_of([&] { wo_db_delete(inv, i1, nullptr); });
  CHECK(t.code == 5);
  CHECK(t.msg == "no such row");
  CHECK(trap_of([&] { wo_db_get(inv, i1, 0, nullptr); }).msg == "no such row");
  CHECK(ids(wo_db_probe(inv, 0, uint64_t(ana), nullptr)) == std::vector<int64_t>{i2});  // a backlink
  set(inv, i2, 1, i2);  // a row referring to itself restricts its own delete
  CHECK(trap_of([&] { wo_db_delete(inv, i2, nullptr); }).code == 11);
  set(inv, i2, 1, 0);
  wo_db_delete(inv, i2, nullptr);
  wo_db_delete(c, ana, nullptr);
  CHECK(trap_of([] { wo_db_count(9, nullptr); }).msg == "no such class");
  CHECK(trap_of([&] { wo_db_get(c, 1, 5, nullptr); }).msg == "no such field");
}

TEST_CASE("plain classes: RAM only, own ids, @unique enforced, no start-up rules") {
  Schema s;
  int t = s.table("Tag", 0);  // no WO_DB_TABLE
  s.field(t, "name", WO_DB_TEXT);
  s.index(t, {0}, true);
  WoDbConfig cfg{};  // neither WO_DATA nor WO_EPHEMERAL
  char err[256];
  REQUIRE(wo_db_open(s.get(), &cfg, err, sizeof err) == 0);
  CHECK(ins(t, {"x"}) == 1);
  CHECK(trap_of([&] { ins(t, {"x"}); }).code == 10);
  CHECK(ins(t, {"y"}) == 2);
  wo_db_close();
}

TEST_CASE("calls without an open store trap DB") {
  wo::Trap t = trap_of([] { wo_db_insert(0, nullptr, nullptr); });
  CHECK(t.code == 5);
  CHECK(t.msg == "database engine not initialized");
  CHECK_FALSE(wo_db_exists(0, 1));
  wo_tx_abort();  // no-ops
  wo_tx_commit(nullptr);
  CHECK_FALSE(wo_db_checkpoint());
}

TEST_CASE("OrderedIndex agrees with std::set through inserts, erases, lower_bound and both directions") {
  wo::db::OrderedIndex ix;
  std::set<std::pair<std::string, int64_t>> model;
  std::mt19937 rng(11);
  // Short keys (held in the entry) and long ones (past OrdEntry::kInline, on
  // the heap), mixed in one order.
  auto key = [&] {
    std::string k(1 + rng() % 3, static_cast<char>('a' + rng() % 6));
    if (rng() % 3 == 0) k += std::string(10 + rng() % 8, static_cast<char>('a' + rng() % 2));
    return k;
  };
  for (int step = 0; step < 20000; ++step) {
    std::string k = key();
    int64_t id = rng() % 500;
    if (rng() % 3 && !model.count({k, id})) {
      ix.insert(k, id);
      model.insert({k, id});
    } else if (!model.empty() && rng() % 2) {
      auto it = model.begin();
      std::advance(it, rng() % model.size());
      ix.erase(it->first, it->second);
      model.erase(it);
    }
    if (step % 500 == 0) {
      std::vector<std::pair<std::string, int64_t>> got;
      for (auto it = ix.begin(); it != ix.end(); ++it) got.push_back({std::string(it->key), it->id});
      REQUIRE(got == std::vector<std::pair<std::string, int64_t>>(model.begin(), model.end()));
      std::vector<std::pair<std::string, int64_t>> back;
      for (auto it = ix.end(); it != ix.begin();) {
        --it;
        back.push_back({std::string(it->key), it->id});
      }
      std::reverse(back.begin(), back.end());
      CHECK(back == got);
    }
    std::string probe_key = key();
    auto want = model.lower_bound({probe_key, 250});
    auto got = ix.lower_bound(probe_key, 250);
    if (want == model.end()) {
      CHECK(got == ix.end());
    } else {
      REQUIRE(!(got == ix.end()));
      CHECK(got->key == want->first);
      CHECK(got->id == want->second);
    }
  }
}

TEST_CASE("a unique index builds its ordered side on first use and maintains it after") {
  Schema s;
  int t = s.table("u", WO_DB_TABLE | WO_DB_VOLATILE);
  s.field(t, "n", WO_DB_INT);
  s.index(t, {0}, true);
  Open db(s.get());
  std::mt19937 rng(3);
  std::map<int64_t, int64_t> by_n;  // n -> id
  auto check_order = [&] {
    std::vector<int64_t> want;
    for (auto& [n, id] : by_n) want.push_back(id);
    CHECK(range(0, nullptr, nullptr, 0) == want);
  };
  for (int i = 0; i < 1000; ++i) {
    int64_t n = rng() % 100000;
    if (by_n.count(n)) continue;
    by_n[n] = ins(0, {n});
  }
  check_order();  // built here
  for (int i = 0; i < 1000; ++i) {
    auto it = by_n.begin();
    std::advance(it, rng() % by_n.size());
    if (i % 3 == 0) {
      wo_db_delete(0, it->second, nullptr);
      by_n.erase(it);
    } else {
      int64_t n = rng() % 100000;
      if (by_n.count(n)) continue;
      set(0, it->second, 0, n);
      by_n[n] = it->second;
      by_n.erase(it);
    }
  }
  check_order();
  V lo(20000), hi(40000);
  std::vector<int64_t> want;
  for (auto it = by_n.lower_bound(20000); it != by_n.end() && it->first <= 40000; ++it) want.push_back(it->second);
  CHECK(range(0, &lo, &hi, 0) == want);
}

TEST_CASE("unique Text keys with NUL bytes: a prefix, an escape look-alike and the bytes themselves stay distinct") {
  People p;
  Open db(p.s.get());
  REQUIRE(db.rc == 0);
  // "\0" encodes as 00 FF 00 00, which a compare of raw bytes could take for "\0\xFF".
  std::vector<std::string> keys = {std::string("a"), std::string("a\0", 2), std::string("\0", 1),
                                   std::string("\0\xFF", 2), std::string("\0\0", 2), std::string()};
  for (size_t i = 0; i < keys.size(); ++i)
    CHECK(ins(0, {keys[i], static_cast<int64_t>(i), V::nil_text(), static_cast<double>(i)}) == static_cast<int64_t>(i + 1));
  for (size_t i = 0; i < keys.size(); ++i) {
    CHECK(probe(0, EMAIL, keys[i]) == std::vector<int64_t>{static_cast<int64_t>(i + 1)});
    wo::Trap t = trap_of([&] { ins(0, {keys[i], 99, V::nil_text(), 99.0 + static_cast<double>(i)}); });
    CHECK(t.code == 10);
  }
  CHECK(probe(0, EMAIL, std::string("\0\xFF\xFF", 3)).empty());
  wo_db_delete(0, 4, nullptr);  // "\0\xFF" goes; "\0" stays found
  CHECK(probe(0, EMAIL, std::string("\0\xFF", 2)).empty());
  CHECK(probe(0, EMAIL, std::string("\0", 1)) == std::vector<int64_t>{3});
  CHECK(ins(0, {std::string("\0\xFF", 2), 7, V::nil_text(), 7.0}) == 7);
}

TEST_CASE("unique Text keys held in the hash slot and past it: probes, collisions, updates, long-key ranges") {
  // Encoded keys of up to 15 bytes live in the unique hash's slot and are
  // compared there; longer ones are confirmed on the row. Keys that agree
  // on their first 15 bytes must still be told apart.
  Schema s;
  int t = s.table("k", WO_DB_TABLE | WO_DB_VOLATILE);
  s.field(t, "key", WO_DB_TEXT);
  s.field(t, "n", WO_DB_INT);
  s.index(t, {0}, true);
  s.index(t, {1});
  Open db(s.get());
  std::vector<std::string> keys = {"a", "short", std::string("nul\0in", 6), "exactly13char",
                                   "exactly14chars", "abcdefghijklmnopq", "abcdefghijklmnopr",
                                   std::string(40, 'x')};
  for (size_t i = 0; i < keys.size(); ++i) CHECK(ins(0, {V(keys[i]), int64_t(i)}) == int64_t(i + 1));
  for (size_t i = 0; i < keys.size(); ++i) {
    Words w{V(keys[i])};
    CHECK(ids(wo_db_probe(0, 0, w[0], nullptr)) == std::vector<int64_t>{int64_t(i + 1)});
    wo::Trap tr = trap_of([&] { ins(0, {V(keys[i]), 99}); });
    CHECK(tr.code == 10);
  }
  Words missing{V(std::string("abcdefghijklmnops"))};
  CHECK(ids(wo_db_probe(0, 0, missing[0], nullptr)).empty());
  // A changed key leaves the slot's old copy behind: the old key is free again.
  Words renamed{V(std::string("renamed-to-a-long-key"))};
  wo_db_set(0, 6, 0, renamed[0], nullptr);
  Words old{V(keys[5])};
  CHECK(ids(wo_db_probe(0, 0, old[0], nullptr)).empty());
  CHECK(ids(wo_db_probe(0, 0, renamed[0], nullptr)) == std::vector<int64_t>{6});
  CHECK(ins(0, {V(keys[5]), 50}) == 9);
  wo_db_delete(0, 9, nullptr);
  CHECK(ids(wo_db_probe(0, 0, old[0], nullptr)).empty());
  // The ordered side of the Text index (built on first use) with long keys;
  // row 6 now sorts as "renamed...", the lower bound is no row's key.
  V lo(std::string("abcdefghijklmnopq")), hi(std::string(40, 'x'));
  CHECK(range(0, &lo, &hi, 0) == std::vector<int64_t>{7, 4, 5, 3, 6, 2, 8});
  CHECK(range(0, &lo, &hi, WO_DB_LO_OPEN | WO_DB_HI_OPEN) == std::vector<int64_t>{7, 4, 5, 3, 6, 2});
  V r7(std::string("abcdefghijklmnopr"));  // row 7's own key, as an open lower bound
  CHECK(range(0, &r7, &hi, WO_DB_LO_OPEN | WO_DB_HI_OPEN) == std::vector<int64_t>{4, 5, 3, 6, 2});
  CHECK(range(0, &lo, &hi, WO_DB_DESC) == std::vector<int64_t>{8, 2, 6, 3, 5, 4, 7});
}

namespace {

// An 8-byte key whose bytewise order is n's order (as key.h encodes Ints).
std::string word_key(uint64_t n) {
  uint64_t be = __builtin_bswap64(n);
  return std::string(reinterpret_cast<const char*>(&be), 8);
}

// Deferred entries (decision 0084) against std::set: batches of defer()s of
// every size (few against the index: placed one by one; many: one merge),
// erases of pending entries (newest first, as undo does, and from the
// middle) and of settled ones while others wait, then settle().
void check_deferred(bool eight_byte_keys, unsigned seed) {
  wo::db::OrderedIndex ix;
  std::set<std::pair<std::string, int64_t>> model;
  std::mt19937 rng(seed);
  auto key = [&]() -> std::string {
    if (eight_byte_keys) return word_key(rng() % 3 == 0 ? rng() % 50 : (uint64_t{rng()} << 20) ^ rng());
    std::string k(1 + rng() % 3, static_cast<char>('a' + rng() % 6));
    if (rng() % 3 == 0) k += std::string(10 + rng() % 8, static_cast<char>('a' + rng() % 2));
    return k;
  };
  int64_t next_id = 1;
  for (int round = 0; round < 60; ++round) {
    std::vector<std::pair<std::string, int64_t>> waiting;
    size_t batch = round % 4 == 0 ? rng() % 6000 : rng() % 40;
    for (size_t i = 0; i < batch; ++i) {
      std::string k = key();
      int64_t id = rng() % 5 == 0 && next_id > 1 ? 1 + rng() % next_id : next_id++;  // ids not always ascending
      if (model.count({k, id})) continue;
      ix.defer(k, id);
      model.insert({k, id});
      waiting.push_back({k, id});
    }
    REQUIRE(ix.pending() == waiting.size());
    for (int undo = 0; undo < 3 && !waiting.empty(); ++undo) {  // newest first
      ix.erase(waiting.back().first, waiting.back().second);
      model.erase(waiting.back());
      waiting.pop_back();
    }
    if (waiting.size() > 2) {  // one from the middle
      auto at = waiting.begin() + static_cast<std::ptrdiff_t>(rng() % waiting.size());
      ix.erase(at->first, at->second);
      model.erase(*at);
      waiting.erase(at);
    }
    size_t settled = model.size() - waiting.size();
    CHECK(ix.size() == settled);
    for (int e = 0; e < 5 && settled > 0; ++e) {  // settled ones, while others wait
      auto it = model.begin();
      std::advance(it, rng() % model.size());
      if (std::find(waiting.begin(), waiting.end(), *it) != waiting.end()) continue;
      ix.erase(it->first, it->second);
      model.erase(it);
      --settled;
    }
    REQUIRE(ix.pending() == waiting.size());
    ix.settle();
    REQUIRE(ix.pending() == 0);
    REQUIRE(ix.size() == model.size());
    std::vector<std::pair<std::string, int64_t>> got;
    for (auto it = ix.begin(); it != ix.end(); ++it) got.push_back({std::string(it->key), it->id});
    REQUIRE(got == std::vector<std::pair<std::string, int64_t>>(model.begin(), model.end()));
    if (!model.empty()) {  // lower_bound still finds its way through the new chunks
      auto want = *std::next(model.begin(), static_cast<std::ptrdiff_t>(rng() % model.size()));
      auto at = ix.lower_bound(want.first, want.second);
      REQUIRE(!(at == ix.end()));
      CHECK(at->key == want.first);
      CHECK(at->id == want.second);
    }
  }
}

}  // namespace

TEST_CASE("OrderedIndex: deferred entries settle into the order inserted ones would have") {
  SUBCASE("8-byte keys (radix sort), many equal") { check_deferred(true, 5); }
  SUBCASE("Text keys, short and long (comparison sort)") { check_deferred(false, 6); }
}

TEST_CASE("a transaction's ordered entries are merged at commit, before its own reads, and undone on abort") {
  People p;
  Open db(p.s.get());
  REQUIRE(db.rc == 0);
  std::mt19937 rng(9);
  std::map<int64_t, int64_t> age_of;  // id -> age
  auto by_age = [&] {                 // ids in (age, id) order, as a range on `age` answers
    std::vector<std::pair<int64_t, int64_t>> v;
    for (auto& [id, age] : age_of) v.push_back({age, id});
    std::sort(v.begin(), v.end());
    std::vector<int64_t> out;
    for (auto& [age, id] : v) out.push_back(id);
    return out;
  };
  int serial = 0;
  auto add = [&] {
    int64_t age = rng() % 90;
    int64_t id = ins(0, {"p" + std::to_string(serial++) + "@x", age, rng() % 2 ? V("Oslo") : V::nil_text(),
                         static_cast<double>(serial)});
    age_of[id] = age;
  };
  for (int i = 0; i < 300; ++i) add();  // settled before the transaction
  wo_tx_begin(nullptr);
  for (int i = 0; i < 2000; ++i) add();
  V lo(30), hi(40);
  std::vector<int64_t> mid;  // a read inside the transaction sees every insert so far
  for (int64_t id : by_age()) {
    if (age_of[id] >= 30 && age_of[id] <= 40) mid.push_back(id);
  }
  CHECK(range(AGE, &lo, &hi, 0) == mid);
  for (int i = 0; i < 500; ++i) add();
  for (int i = 0; i < 50; ++i) {  // deletes and updates of the indexed field, pending or not
    auto it = std::next(age_of.begin(), static_cast<std::ptrdiff_t>(rng() % age_of.size()));
    if (i % 2) {
      wo_db_delete(0, it->first, nullptr);
      age_of.erase(it);
    } else {
      it->second = rng() % 90;
      set(0, it->first, AGE, V(it->second));
    }
  }
  std::vector<int64_t> equal_17;
  for (int64_t id : by_age())
    if (age_of[id] == 17) equal_17.push_back(id);
  CHECK(probe(0, AGE, V(17)) == equal_17);
  wo_tx_commit(nullptr);
  CHECK(range(AGE, nullptr, nullptr, 0) == by_age());
  std::vector<int64_t> before = by_age();

  wo_tx_begin(nullptr);  // inserts (one undo run), a delete inside the run, more inserts, an update; abandoned
  std::vector<int64_t> added;
  for (int i = 0; i < 1500; ++i) {
    int64_t age = rng() % 90;
    added.push_back(ins(0, {"q" + std::to_string(i) + "@x", age, V::nil_text(), 1e6 + i}));
  }
  wo_db_delete(0, added[700], nullptr);
  for (int i = 0; i < 10; ++i) ins(0, {"r" + std::to_string(i) + "@x", 5, V::nil_text(), 2e6 + i});
  set(0, before.front(), AGE, V(200));
  set(0, added[3], AGE, V(201));
  wo_tx_abort();
  for (int64_t id : added) CHECK_FALSE(wo_db_exists(0, id));
  CHECK(range(AGE, nullptr, nullptr, 0) == before);
  CHECK(wo_db_count(0, nullptr) == static_cast<int64_t>(before.size()));
}
