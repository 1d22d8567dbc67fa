// map<K, V>: insertion order, lookups, optional reads, traps, ownership.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "support.h"

using namespace wotest;

namespace {

const WoSite kSite{"lookup", 12, nullptr, 0};

int destroyed = 0;
void count_destroy(void*) { ++destroyed; }
uint64_t new_obj() { return pslot(wo_alloc(sizeof(WoHeader) + 8, count_destroy)); }

// Keys in enumeration order, through key_at.
std::vector<std::string> text_keys(WoMap* m) {
  std::vector<std::string> v;
  for (int64_t i = 0; i < wo_map_len(m); ++i) v.push_back(str(tslot(wo_map_key_at(m, i, &kSite))));
  return v;
}

// "k=v" pairs in iteration order, through wo_map_iter.
std::vector<std::string> pairs(WoMap* m) {
  std::vector<std::string> v;
  uint64_t k, val;
  for (int64_t p = wo_map_iter(m, 0, &k, &val); p >= 0; p = wo_map_iter(m, p + 1, &k, &val))
    v.push_back(str(tslot(k)) + "=" + std::to_string(static_cast<int64_t>(val)));
  return v;
}

void set_tk(WoMap* m, std::string_view k, int64_t v) {
  OText key(text(k));
  wo_map_set(m, pslot(key.get()), islot(v), &kSite);
}

uint64_t get_tk(WoMap* m, std::string_view k) {
  OText key(text(k));
  return wo_map_get_opt(m, pslot(key.get()));
}

}  // namespace

TEST_CASE("Text keys: set, get, has, len, optional read, insertion order") {
  OMap m(wo_map_new(WO_ELEM_TEXT, WO_ELEM_INT));
  CHECK(wo_map_len(m) == 0);
  set_tk(m, "bolt", 40);
  set_tk(m, "anchor", 3);
  set_tk(m, "nut", 0);
  CHECK(wo_map_len(m) == 3);
  CHECK(text_keys(m) == std::vector<std::string>{"bolt", "anchor", "nut"});
  CHECK(static_cast<int64_t>(get_tk(m, "bolt")) == 40);
  CHECK(static_cast<int64_t>(get_tk(m, "nut")) == 0);  // 0 is a value, not nil
  CHECK(static_cast<int64_t>(get_tk(m, "screw")) == WO_NIL_SCALAR);
  OText bolt(text("bolt")), screw(text("screw"));
  CHECK(wo_map_has(m, pslot(bolt.get())));
  CHECK_FALSE(wo_map_has(m, pslot(screw.get())));
  CHECK(wo_map_get(m, pslot(bolt.get()), &kSite) == 40);
  uint64_t out = 99;
  CHECK(wo_map_find(m, pslot(bolt.get()), &out));
  CHECK(out == 40);
  CHECK_FALSE(wo_map_find(m, pslot(screw.get()), &out));
  CHECK(out == 40);  // untouched
}

TEST_CASE("get of a missing key traps KEY 7 `missing map key` at the call site") {
  OMap m(wo_map_new(WO_ELEM_TEXT, WO_ELEM_INT));
  OText k(text("nope"));
  wo::Trap t = trapped([&] { wo_map_get(m, pslot(k.get()), &kSite); });
  CHECK(t.code == 7);
  CHECK(t.msg == "missing map key");
  CHECK(t.method == "lookup");
  CHECK(t.line == 12);
  set_tk(m, "other", 1);
  CHECK(trapped([&] { wo_map_get(m, pslot(k.get()), &kSite); }).code == 7);
}

TEST_CASE("replacing keeps the position and the original key object; the old value is dropped") {
  destroyed = 0;
  OMap m(wo_map_new(WO_ELEM_TEXT, WO_ELEM_HEAP));
  WoText* k1 = text("k");
  WoText* k2 = text("k");
  uint64_t a = new_obj(), b = new_obj();
  wo_map_set(m, pslot(k1), a, &kSite);
  CHECK(k1->h.rc == 2);  // the map holds its own reference
  wo_release(k1);        // the caller drops its copy; the map keeps the key alive
  CHECK(str(tslot(wo_map_key_at(m, 0, &kSite))) == "k");
  wo_map_set(m, pslot(k2), b, &kSite);
  CHECK(destroyed == 1);  // a dropped
  CHECK(k2->h.rc == 1);   // not retained: the original key stays
  CHECK(wo_map_key_at(m, 0, &kSite) == pslot(k1));
  CHECK(wo_map_val_at(m, 0, &kSite) == b);
  CHECK(wo_map_get_opt(m, pslot(k2)) == b);  // borrowed: no count change
  CHECK(reinterpret_cast<WoHeader*>(b)->rc == 1);
  wo_release(k2);
}

TEST_CASE("remove drops key and value; a removed key set again moves to the end") {
  destroyed = 0;
  OMap m(wo_map_new(WO_ELEM_TEXT, WO_ELEM_INT));
  set_tk(m, "a", 1);
  set_tk(m, "b", 2);
  set_tk(m, "c", 3);
  OText b(text("b")), zz(text("zz"));
  CHECK(wo_map_remove(m, pslot(b.get())));
  CHECK_FALSE(wo_map_remove(m, pslot(b.get())));
  CHECK_FALSE(wo_map_remove(m, pslot(zz.get())));
  CHECK(wo_map_len(m) == 2);
  CHECK(pairs(m) == std::vector<std::string>{"a=1", "c=3"});
  CHECK(text_keys(m) == std::vector<std::string>{"a", "c"});
  set_tk(m, "b", 20);
  CHECK(pairs(m) == std::vector<std::string>{"a=1", "c=3", "b=20"});
  set_tk(m, "a", 10);  // replace: stays first
  CHECK(pairs(m) == std::vector<std::string>{"a=10", "c=3", "b=20"});
  OText a(text("a"));
  CHECK(wo_map_remove(m, pslot(a.get())));
  CHECK(static_cast<int64_t>(wo_map_val_at(m, 0, &kSite)) == 3);
  CHECK(static_cast<int64_t>(wo_map_val_at(m, 1, &kSite)) == 20);

  OMap h(wo_map_new(WO_ELEM_INT, WO_ELEM_HEAP));
  wo_map_set(h, 1, new_obj(), &kSite);
  wo_map_set(h, 2, new_obj(), &kSite);
  CHECK(wo_map_remove(h, 1));
  CHECK(destroyed == 1);
}

TEST_CASE("key_at / val_at out of range trap BOUNDS") {
  OMap m(wo_map_new(WO_ELEM_INT, WO_ELEM_INT));
  auto check = [](const wo::Trap& t) {
    CHECK(t.code == 6);
    CHECK(t.msg == "map index out of range");
    CHECK(t.line == 12);
  };
  check(trapped([&] { wo_map_key_at(m, 0, &kSite); }));
  wo_map_set(m, 5, 50, &kSite);
  CHECK(wo_map_key_at(m, 0, &kSite) == 5);
  CHECK(wo_map_val_at(m, 0, &kSite) == 50);
  check(trapped([&] { wo_map_key_at(m, 1, &kSite); }));
  check(trapped([&] { wo_map_val_at(m, -1, &kSite); }));
  check(trapped([&] { wo_map_val_at(m, INT64_MIN, &kSite); }));
}

TEST_CASE("Int keys compare by value, including 0, negatives and the extremes") {
  OMap m(wo_map_new(WO_ELEM_INT, WO_ELEM_INT));
  for (int64_t k : {int64_t{0}, int64_t{-1}, INT64_MIN, INT64_MAX, int64_t{42}}) wo_map_set(m, islot(k), islot(k) * 2, &kSite);
  CHECK(wo_map_len(m) == 5);
  CHECK(static_cast<int64_t>(wo_map_get(m, 0, &kSite)) == 0);
  CHECK(static_cast<int64_t>(wo_map_get(m, islot(-1), &kSite)) == -2);
  CHECK(wo_map_has(m, islot(INT64_MIN)));
  CHECK_FALSE(wo_map_has(m, 1));
  CHECK(static_cast<int64_t>(wo_map_get_opt(m, 7)) == WO_NIL_SCALAR);
}

TEST_CASE("optional reads give the nil of the value kind") {
  OMap f(wo_map_new(WO_ELEM_INT, WO_ELEM_FLOAT));
  wo_map_set(f, 1, fslot(2.5), &kSite);
  CHECK(fval(wo_map_get_opt(f, 1)) == 2.5);
  CHECK(wo_map_get_opt(f, 2) == WO_NIL_FLOAT_BITS);
  CHECK(std::isnan(fval(WO_NIL_FLOAT_BITS)));
  OMap t(wo_map_new(WO_ELEM_INT, WO_ELEM_TEXT));
  CHECK(wo_map_get_opt(t, 1) == 0);
  OMap h(wo_map_new(WO_ELEM_TEXT, WO_ELEM_HEAP));
  CHECK(get_tk(h, "x") == 0);
  CHECK(WO_NIL_SCALAR == -(int64_t{1} << 62));
}

TEST_CASE("Text values and keys are owned and released with the map") {
  WoMap* m = wo_map_new(WO_ELEM_TEXT, WO_ELEM_TEXT);
  WoText* k = text("key");
  WoText* v = text("value");
  wo_retain(k);
  wo_retain(v);
  wo_map_set(m, pslot(k), pslot(v), &kSite);  // the map took over one reference to v
  CHECK(k->h.rc == 3);
  CHECK(v->h.rc == 2);
  wo_release(m);
  CHECK(k->h.rc == 2);
  CHECK(v->h.rc == 1);
  wo_release(k);
  wo_release(k);
  wo_release(v);
}

TEST_CASE("immortal Text keys (literals) work and are never counted") {
  static struct {
    WoHeader h;
    int64_t len;
    char bytes[4];
  } lit{{-1, nullptr}, 3, "abc"};
  OMap m(wo_map_new(WO_ELEM_TEXT, WO_ELEM_INT));
  wo_map_set(m, pslot(&lit), 1, &kSite);
  CHECK(static_cast<int64_t>(get_tk(m, "abc")) == 1);
  OText k(text("abc"));
  CHECK(wo_map_remove(m, pslot(k.get())));
  CHECK(lit.h.rc == -1);
}

TEST_CASE("nil maps and nil Text keys") {
  CHECK(trapped([] { wo_map_len(nullptr); }).msg == "null receiver");
  wo::Trap t = trapped([] { wo_map_get(nullptr, 1, &kSite); });
  CHECK(t.code == 6);
  CHECK(t.line == 12);
  OMap m(wo_map_new(WO_ELEM_TEXT, WO_ELEM_HEAP));
  CHECK_FALSE(wo_map_has(m, 0));
  CHECK(wo_map_get_opt(m, 0) == 0);
  CHECK_FALSE(wo_map_remove(m, 0));
  CHECK(trapped([&] { wo_map_get(m, 0, &kSite); }).code == 7);
  destroyed = 0;
  wo::Trap s = trapped([&] { wo_map_set(m, 0, new_obj(), &kSite); });
  CHECK(s.code == 6);
  CHECK(s.msg == "null receiver");
  CHECK(destroyed == 1);  // set owned the value even though it trapped
  CHECK(wo_map_len(m) == 0);
}

TEST_CASE("iteration survives removals inside the loop and ends at -1") {
  OMap m(wo_map_new(WO_ELEM_INT, WO_ELEM_INT));
  for (int64_t i = 0; i < 10; ++i) wo_map_set(m, islot(i), islot(i * i), &kSite);
  std::vector<int64_t> seen;
  uint64_t k, v;
  for (int64_t p = wo_map_iter(m, 0, &k, &v); p >= 0; p = wo_map_iter(m, p + 1, &k, &v)) {
    seen.push_back(static_cast<int64_t>(k));
    if (k % 2 == 0) wo_map_remove(m, k + 1);  // drop the next (odd) key
  }
  CHECK(seen == std::vector<int64_t>{0, 2, 4, 6, 8});
  CHECK(wo_map_len(m) == 5);
  OMap empty(wo_map_new(WO_ELEM_INT, WO_ELEM_INT));
  CHECK(wo_map_iter(empty, 0, &k, &v) == -1);
}

TEST_CASE("a model check: random sets/removes/gets agree with std::map + order list") {
  std::mt19937_64 rng(7);
  OMap m(wo_map_new(WO_ELEM_TEXT, WO_ELEM_INT));
  std::map<std::string, int64_t> model;
  std::vector<std::string> order;
  for (int step = 0; step < 60000; ++step) {
    std::string key = "k" + std::to_string(rng() % 700);
    int op = static_cast<int>(rng() % 10);
    if (op < 5) {
      auto v = static_cast<int64_t>(rng() % 1000);
      if (!model.count(key)) order.push_back(key);
      model[key] = v;
      set_tk(m, key, v);
    } else if (op < 8) {
      OText k(text(key));
      bool had = model.erase(key) > 0;
      if (had) order.erase(std::find(order.begin(), order.end(), key));
      REQUIRE(wo_map_remove(m, pslot(k.get())) == had);
    } else {
      uint64_t got = get_tk(m, key);
      auto it = model.find(key);
      REQUIRE(static_cast<int64_t>(got) == (it == model.end() ? WO_NIL_SCALAR : it->second));
    }
    REQUIRE(wo_map_len(m) == static_cast<int64_t>(model.size()));
    if (step % 5000 == 0) REQUIRE(text_keys(m) == order);
  }
  REQUIRE(text_keys(m) == order);
  std::vector<std::string> it_keys;
  uint64_t k, v;
  for (int64_t p = wo_map_iter(m, 0, &k, &v); p >= 0; p = wo_map_iter(m, p + 1, &k, &v))
    it_keys.push_back(str(tslot(k)));
  CHECK(it_keys == order);
}

TEST_CASE("a set right after a read of the same key (the hint) updates that entry, also after removal and compaction") {
  OMap m(wo_map_new(WO_ELEM_TEXT, WO_ELEM_INT));
  set_tk(m, "a", 1);
  set_tk(m, "b", 2);
  CHECK(static_cast<int64_t>(get_tk(m, "b")) == 2);  // the hint: entry 1
  set_tk(m, "b", 3);
  CHECK(static_cast<int64_t>(get_tk(m, "b")) == 3);
  CHECK(text_keys(m) == std::vector<std::string>{"a", "b"});
  // A read, then the entry is removed: the set appends a new entry.
  CHECK(static_cast<int64_t>(get_tk(m, "a")) == 1);
  {
    OText k(text("a"));
    REQUIRE(wo_map_remove(m, pslot(k.get())));
  }
  set_tk(m, "a", 4);
  CHECK(text_keys(m) == std::vector<std::string>{"b", "a"});  // key_at compacts: entry numbers change
  // After the compaction the entry the hint named holds a stale copy: it must not be written.
  CHECK(static_cast<int64_t>(get_tk(m, "a")) == 4);
  {
    OText k(text("b"));
    REQUIRE(wo_map_remove(m, pslot(k.get())));
  }
  CHECK(text_keys(m) == std::vector<std::string>{"a"});  // compacts again: "a" moves to entry 0
  set_tk(m, "a", 5);
  CHECK(static_cast<int64_t>(get_tk(m, "a")) == 5);
  CHECK(wo_map_len(m) == 1);
}

TEST_CASE("a large map: many keys, all found, order kept") {
  OMap m(wo_map_new(WO_ELEM_INT, WO_ELEM_INT));
  const int64_t n = 200000;
  for (int64_t i = 0; i < n; ++i) wo_map_set(m, islot(i * 7919), islot(i), &kSite);
  CHECK(wo_map_len(m) == n);
  for (int64_t i = 0; i < n; i += 997) REQUIRE(static_cast<int64_t>(wo_map_get(m, islot(i * 7919), &kSite)) == i);
  CHECK(static_cast<int64_t>(wo_map_key_at(m, n - 1, &kSite)) == (n - 1) * 7919);
  for (int64_t i = 0; i < n; i += 2) wo_map_remove(m, islot(i * 7919));
  CHECK(wo_map_len(m) == n / 2);
  CHECK(static_cast<int64_t>(wo_map_key_at(m, 0, &kSite)) == 7919);
  CHECK(static_cast<int64_t>(wo_map_val_at(m, n / 2 - 1, &kSite)) == n - 1);
}
