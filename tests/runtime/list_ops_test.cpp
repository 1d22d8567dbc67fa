// multi T: shift, slice, sort, reverse (builtins.md §6) and the element kinds.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "support.h"

using namespace wotest;

namespace {

const WoSite kSite{"ops", 41, nullptr, 0};

int destroyed = 0;
void count_destroy(void*) { ++destroyed; }
uint64_t new_obj() { return pslot(wo_alloc(sizeof(WoHeader) + 8, count_destroy)); }

WoList* ints(std::initializer_list<int64_t> v) {
  WoList* xs = wo_list_new(WO_ELEM_INT, 0);
  for (int64_t x : v) wo_list_push(xs, islot(x));
  return xs;
}

std::vector<int64_t> ints_of(const WoList* xs) {
  std::vector<int64_t> v;
  for (int64_t i = 0; i < xs->len; ++i) v.push_back(static_cast<int64_t>(xs->data[i]));
  return v;
}

WoList* texts_list(std::initializer_list<std::string_view> v, int64_t kind = WO_ELEM_TEXT) {
  WoList* xs = wo_list_new(kind, 0);
  for (auto s : v) wo_list_push(xs, pslot(text(s)));
  return xs;
}

void check_site(const wo::Trap& t, int64_t code, const char* msg) {
  CHECK(t.code == code);
  CHECK(t.msg == msg);
  CHECK(t.method == "ops");
  CHECK(t.line == 41);
}

}  // namespace

TEST_CASE("element kinds: the heap bit decides ownership; 0 and 1 keep their meaning") {
  CHECK(WO_ELEM_SCALAR == 0);
  CHECK(WO_ELEM_HEAP == 1);
  CHECK(WO_ELEM_INT == WO_ELEM_SCALAR);
  CHECK_FALSE(WO_ELEM_IS_HEAP(WO_ELEM_INT));
  CHECK_FALSE(WO_ELEM_IS_HEAP(WO_ELEM_FLOAT));
  CHECK(WO_ELEM_IS_HEAP(WO_ELEM_HEAP));
  CHECK(WO_ELEM_IS_HEAP(WO_ELEM_TEXT));
  CHECK(WO_ELEM_IS_HEAP(WO_ELEM_BYTES));
}

TEST_CASE("shift removes the first element and hands it over; empty traps BOUNDS") {
  OList xs(ints({1, 2, 3}));
  CHECK(wo_list_shift(xs, &kSite) == 1);
  CHECK(ints_of(xs) == std::vector<int64_t>{2, 3});
  CHECK(wo_list_get(xs, 0, &kSite) == 2);
  CHECK(wo_list_shift(xs, &kSite) == 2);
  CHECK(wo_list_shift(xs, &kSite) == 3);
  CHECK(wo_list_len(xs) == 0);
  check_site(trapped([&] { wo_list_shift(xs, &kSite); }), 6, "`shift` on an empty multi");
  wo_list_push(xs, 9);
  CHECK(wo_list_latest(xs, &kSite) == 9);
  check_site(trapped([&] { wo_list_shift(nullptr, &kSite); }), 6, "null receiver");
}

TEST_CASE("shift and push as a queue: order kept, memory bounded, no leak") {
  OList xs(wo_list_new(WO_ELEM_INT, 0));
  int64_t next_in = 0, next_out = 0;
  for (int round = 0; round < 2000; ++round) {
    for (int k = 0; k < 3; ++k) wo_list_push(xs, islot(next_in++));
    for (int k = 0; k < 2; ++k) CHECK(static_cast<int64_t>(wo_list_shift(xs, &kSite)) == next_out++);
  }
  CHECK(xs->len == 2000);
  for (int64_t i = 0; i < xs->len; ++i) REQUIRE(static_cast<int64_t>(xs->data[i]) == next_out + i);
  CHECK(xs->cap + xs->off <= 8192);  // allocation stays within a small multiple of len
  // steady state: one in, one out
  for (int i = 0; i < 100000; ++i) {
    wo_list_push(xs, islot(next_in++));
    REQUIRE(static_cast<int64_t>(wo_list_shift(xs, &kSite)) == next_out++);
  }
  CHECK(xs->cap + xs->off <= 8192);
}

TEST_CASE("shift on a heap list hands ownership over; the rest is released with the list") {
  destroyed = 0;
  WoList* xs = wo_list_new(WO_ELEM_HEAP, 0);
  uint64_t a = new_obj(), b = new_obj();
  wo_list_push(xs, a);
  wo_list_push(xs, b);
  CHECK(wo_list_shift(xs, &kSite) == a);
  CHECK(destroyed == 0);
  wo_release(reinterpret_cast<void*>(a));
  CHECK(destroyed == 1);
  wo_release(xs);
  CHECK(destroyed == 2);
}

TEST_CASE("slice: [from, to) clamped; scalars copied; Texts shared; heap lists trap") {
  OList xs(ints({10, 20, 30, 40, 50}));
  auto sl = [&](int64_t f, int64_t t) {
    OList r(wo_list_slice(xs, f, t, &kSite));
    CHECK(r->elem_kind == WO_ELEM_INT);
    return ints_of(r);
  };
  CHECK(sl(1, 3) == std::vector<int64_t>{20, 30});
  CHECK(sl(0, 5) == std::vector<int64_t>{10, 20, 30, 40, 50});
  CHECK(sl(-3, 2) == std::vector<int64_t>{10, 20});
  CHECK(sl(3, 99) == std::vector<int64_t>{40, 50});
  CHECK(sl(4, 2).empty());
  CHECK(sl(5, 9).empty());
  CHECK(sl(99, 100).empty());
  CHECK(sl(INT64_MIN, INT64_MAX).size() == 5);
  CHECK(sl(2, 2).empty());

  OList ts(texts_list({"a", "b", "c"}));
  {
    OList r(wo_list_slice(ts, 1, 3, &kSite));
    CHECK(r->elem_kind == WO_ELEM_TEXT);
    CHECK(texts(r) == std::vector<std::string>{"b", "c"});
    CHECK(tslot(ts->data[1])->h.rc == 2);  // shared with the slice
  }
  CHECK(tslot(ts->data[1])->h.rc == 1);

  OList objs(wo_list_new(WO_ELEM_HEAP, 0));
  check_site(trapped([&] { wo_list_slice(objs, 0, 1, &kSite); }), 6, "wrong container type");
  check_site(trapped([&] { wo_list_slice(nullptr, 0, 1, &kSite); }), 6, "null receiver");
}

TEST_CASE("sort Int: signed, stable, in place") {
  OList xs(ints({3, -1, INT64_MAX, 0, INT64_MIN, -1, 2}));
  wo_list_sort(xs, &kSite);
  CHECK(ints_of(xs) == std::vector<int64_t>{INT64_MIN, -1, -1, 0, 2, 3, INT64_MAX});
  OList empty(ints({}));
  wo_list_sort(empty, &kSite);
  CHECK(empty->len == 0);
}

TEST_CASE("sort Float: -inf < finite < +inf < NaN, -0.0 == 0.0 (stable)") {
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::nan("");
  OList xs(wo_list_new(WO_ELEM_FLOAT, 0));
  for (double d : {2.5, nan, -0.0, -inf, 1e-300, -2.5, inf, 0.0, -1e300})
    wo_list_push(xs, fslot(d));
  wo_list_sort(xs, &kSite);
  std::vector<double> v;
  for (int64_t i = 0; i < xs->len; ++i) v.push_back(fval(xs->data[i]));
  CHECK(v[0] == -inf);
  CHECK(v[1] == -1e300);
  CHECK(v[2] == -2.5);
  CHECK(v[3] == 0.0);
  CHECK(std::signbit(v[3]));  // -0.0 came first and the sort is stable
  CHECK(v[4] == 0.0);
  CHECK_FALSE(std::signbit(v[4]));
  CHECK(v[5] == 1e-300);
  CHECK(v[6] == 2.5);
  CHECK(v[7] == inf);
  CHECK(std::isnan(v[8]));
}

TEST_CASE("sort Text: bytes, shorter prefix first, bytes >= 0x80 after ASCII") {
  OList xs(texts_list({"bolt", "anchor", "b", "", "Zed", "\xc3\xa9", "bo", "anchor"}));
  wo_list_sort(xs, &kSite);
  CHECK(texts(xs) == std::vector<std::string>{"", "Zed", "anchor", "anchor", "b", "bo", "bolt", "\xc3\xa9"});
}

TEST_CASE("sort Bytes by content; heap lists of objects trap") {
  OList xs(wo_list_new(WO_ELEM_BYTES, 0));
  for (auto s : {"\x02", "\x01\xff", "\x01"}) wo_list_push(xs, pslot(bytes(s)));
  wo_list_sort(xs, &kSite);
  CHECK(texts(xs) == std::vector<std::string>{"\x01", "\x01\xff", "\x02"});

  OList objs(wo_list_new(WO_ELEM_HEAP, 0));
  wo_list_push(objs, new_obj());
  check_site(trapped([&] { wo_list_sort(objs, &kSite); }), 6, "wrong container type");
}

TEST_CASE("reverse in place, any kind") {
  OList xs(ints({1, 2, 3, 4}));
  wo_list_reverse(xs);
  CHECK(ints_of(xs) == std::vector<int64_t>{4, 3, 2, 1});
  OList one(ints({7}));
  wo_list_reverse(one);
  CHECK(ints_of(one) == std::vector<int64_t>{7});
  OList ts(texts_list({"a", "b", "c"}));
  wo_list_reverse(ts);
  CHECK(texts(ts) == std::vector<std::string>{"c", "b", "a"});
  OList empty(ints({}));
  wo_list_reverse(empty);
  CHECK(trapped([] { wo_list_reverse(nullptr); }).msg == "null receiver");
}

TEST_CASE("reverse and sort after shifts see only the live elements") {
  OList xs(ints({5, 1, 4, 2}));
  wo_list_shift(xs, &kSite);
  wo_list_sort(xs, &kSite);
  CHECK(ints_of(xs) == std::vector<int64_t>{1, 2, 4});
  wo_list_reverse(xs);
  CHECK(ints_of(xs) == std::vector<int64_t>{4, 2, 1});
  OList s(wo_list_slice(xs, 1, 3, &kSite));
  CHECK(ints_of(s) == std::vector<int64_t>{2, 1});
}

TEST_CASE("join takes Text lists of either kind; split and args build WO_ELEM_TEXT lists") {
  OList a(texts_list({"x", "y"}, WO_ELEM_HEAP));
  OList b(texts_list({"x", "y"}, WO_ELEM_TEXT));
  OText sep(text("-"));
  OText ja(wo_join(a, sep)), jb(wo_join(b, sep));
  CHECK(str(ja) == "x-y");
  CHECK(str(jb) == "x-y");
  OList ns(ints({1}));
  CHECK(trapped([&] { OText r(wo_join(ns, sep)); }).msg == "not a text value");
}
