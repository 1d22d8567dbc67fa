// multi T: push/get/latest/pop/set, their traps, and element ownership.
#include <doctest/doctest.h>

#include <cstring>

#include "runtime/src/core/trap.h"
#include "support.h"

using namespace wotest;

namespace {

const WoSite kSite{"fill", 23, nullptr, 0};

int destroyed = 0;
void count_destroy(void*) { ++destroyed; }
uint64_t new_obj() { return reinterpret_cast<uint64_t>(wo_alloc(sizeof(WoHeader) + 8, count_destroy)); }
WoHeader* hdr(uint64_t slot) { return reinterpret_cast<WoHeader*>(slot); }

template <class F>
wo::Trap trap_of(F f) {
  try {
    f();
  } catch (const wo::Trap& t) {
    return t;
  }
  return wo::Trap{0, 0, "", ""};
}

void check_bounds(const wo::Trap& t, const char* msg) {
  CHECK(t.code == 6);
  CHECK(t.msg == msg);
  CHECK(t.method == "fill");
  CHECK(t.line == 23);
}

}  // namespace

TEST_CASE("push / get / len / latest / pop / set on scalars") {
  OList xs(wo_list_new(WO_ELEM_SCALAR, 0));
  CHECK(wo_list_len(xs) == 0);
  for (int64_t i = 0; i < 1000; ++i) wo_list_push(xs, static_cast<uint64_t>(i * 3));
  CHECK(wo_list_len(xs) == 1000);
  CHECK(xs->cap >= 1000);
  for (int64_t i = 0; i < 1000; ++i) CHECK(wo_list_get(xs, i, &kSite) == static_cast<uint64_t>(i * 3));
  CHECK(wo_list_latest(xs, &kSite) == 2997);
  CHECK(wo_list_pop(xs, &kSite) == 2997);
  CHECK(wo_list_len(xs) == 999);
  CHECK(wo_list_latest(xs, &kSite) == 2994);
  wo_list_set(xs, 0, 77, &kSite);
  CHECK(wo_list_get(xs, 0, &kSite) == 77);
  wo_list_push(xs, static_cast<uint64_t>(-5));
  CHECK(static_cast<int64_t>(wo_list_latest(xs, &kSite)) == -5);
}

TEST_CASE("initial capacity is honoured; Float slots keep their bits") {
  OList xs(wo_list_new(WO_ELEM_SCALAR, 10));
  CHECK(xs->cap == 10);
  CHECK(xs->len == 0);
  double f = -0.1;
  uint64_t bits;
  std::memcpy(&bits, &f, sizeof bits);
  wo_list_push(xs, bits);
  uint64_t back = wo_list_get(xs, 0, &kSite);
  double g;
  std::memcpy(&g, &back, sizeof g);
  CHECK(g == -0.1);
}

TEST_CASE("index and emptiness traps carry the spec messages and the site") {
  OList xs(wo_list_new(WO_ELEM_SCALAR, 0));
  check_bounds(trap_of([&] { wo_list_latest(xs, &kSite); }), "latest of an empty multi");
  check_bounds(trap_of([&] { wo_list_pop(xs, &kSite); }), "`pop` on an empty multi");
  check_bounds(trap_of([&] { wo_list_get(xs, 0, &kSite); }), "multi index out of range");
  wo_list_push(xs, 1);
  wo_list_push(xs, 2);
  check_bounds(trap_of([&] { wo_list_get(xs, 2, &kSite); }), "multi index out of range");
  check_bounds(trap_of([&] { wo_list_get(xs, -1, &kSite); }), "multi index out of range");
  check_bounds(trap_of([&] { wo_list_get(xs, INT64_MIN, &kSite); }), "multi index out of range");
  check_bounds(trap_of([&] { wo_list_set(xs, 2, 9, &kSite); }), "multi index out of range");
  check_bounds(trap_of([&] { wo_list_set(xs, -1, 9, &kSite); }), "multi index out of range");
  CHECK(wo_list_get(xs, 1, &kSite) == 2);  // unchanged by the failed set
}

TEST_CASE("a nil multi traps BOUNDS `null receiver`") {
  wo::Trap t = trap_of([] { wo_list_get(nullptr, 0, &kSite); });
  CHECK(t.code == 6);
  CHECK(t.msg == "null receiver");
  CHECK(t.line == 23);
}

TEST_CASE("a heap list owns its elements") {
  destroyed = 0;
  WoList* xs = wo_list_new(WO_ELEM_HEAP, 0);
  uint64_t a = new_obj(), b = new_obj(), c = new_obj();
  wo_list_push(xs, a);
  wo_list_push(xs, b);
  wo_list_push(xs, c);

  // get and latest lend: no count change
  CHECK(wo_list_get(xs, 1, &kSite) == b);
  CHECK(wo_list_latest(xs, &kSite) == c);
  CHECK(hdr(b)->rc == 1);
  CHECK(hdr(c)->rc == 1);

  // set releases the old element
  uint64_t d = new_obj();
  wo_list_set(xs, 1, d, &kSite);
  CHECK(destroyed == 1);

  // pop hands ownership to the caller: not released by the list
  uint64_t popped = wo_list_pop(xs, &kSite);
  CHECK(popped == c);
  CHECK(destroyed == 1);
  CHECK(hdr(c)->rc == 1);
  wo_release(hdr(c));
  CHECK(destroyed == 2);

  // a failed set still takes (and releases) the value it was given
  wo::Trap t = trap_of([&] { wo_list_set(xs, 5, new_obj(), &kSite); });
  CHECK(t.code == 6);
  CHECK(destroyed == 3);

  // destroying the list releases the rest (a and d)
  wo_release(xs);
  CHECK(destroyed == 5);
}

TEST_CASE("a heap list of Texts releases them; immortal elements are left alone") {
  static struct {
    WoHeader h;
    int64_t len;
    char bytes[4];
  } literal{{-1, nullptr}, 3, "lit"};
  WoList* xs = wo_list_new(WO_ELEM_HEAP, 1);
  wo_list_push(xs, reinterpret_cast<uint64_t>(text("owned")));
  wo_list_push(xs, reinterpret_cast<uint64_t>(&literal));
  OText sep(text("+"));
  OText joined(wo_join(xs, sep));
  CHECK(str(joined) == "owned+lit");
  wo_release(xs);
  CHECK(literal.h.rc == -1);
}
