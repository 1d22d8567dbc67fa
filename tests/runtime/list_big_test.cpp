// Big lists (2 MiB of slots and more) live on a mapping of their own grown
// by mremap (list.cpp): growth across the threshold, shift's compaction,
// slices, initial capacities and freeing keep every element and release the
// owned ones exactly once.
#include <doctest/doctest.h>

#include <cstdint>

#include "support.h"

using namespace wotest;

namespace {

const WoSite kSite{"big", 7, nullptr, 0};
constexpr int64_t kBig = int64_t{1} << 18;  // slots in 2 MiB

#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define BIG_TEST_MALLOC 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define BIG_TEST_MALLOC 1
#endif

// A mapping starts on a 2 MiB boundary (malloc's large blocks start 16 bytes
// past a page), so this tells the two apart in a build that maps.
bool on_mapping(const WoList* xs) {
#ifdef BIG_TEST_MALLOC
  (void)xs;
  return true;
#else
  return (reinterpret_cast<uintptr_t>(xs->data - xs->off) & ((uintptr_t{2} << 20) - 1)) == 0;
#endif
}

int destroyed = 0;
void count_destroy(void*) { ++destroyed; }

}  // namespace

TEST_CASE("a list grows past 2 MiB onto its own mapping and keeps every slot") {
  OList xs(wo_list_new(WO_ELEM_SCALAR, 0));
  for (int64_t i = 0; i < 3 * kBig; ++i) wo_list_push(xs, static_cast<uint64_t>(i * 7 + 1));
  CHECK(xs->len == 3 * kBig);
  CHECK(on_mapping(xs));
  bool same = true;
  for (int64_t i = 0; i < xs->len; ++i) same = same && wo_list_get(xs, i, &kSite) == static_cast<uint64_t>(i * 7 + 1);
  CHECK(same);
  CHECK(wo_list_pop(xs, &kSite) == static_cast<uint64_t>((3 * kBig - 1) * 7 + 1));
}

TEST_CASE("a queue on a big list: shift, then growth compacts to the front") {
  OList xs(wo_list_new(WO_ELEM_SCALAR, 0));
  int64_t next = 0, head = 0;
  for (; next < kBig + 5; ++next) wo_list_push(xs, static_cast<uint64_t>(next));  // past the threshold, off 0
  CHECK(on_mapping(xs));
  for (; head < kBig; ++head) REQUIRE(wo_list_shift(xs, &kSite) == static_cast<uint64_t>(head));
  CHECK(xs->off == kBig);
  // Pushing until full compacts (at least half is free at the front).
  int64_t total = xs->cap + xs->off;
  while (xs->len < xs->cap) wo_list_push(xs, static_cast<uint64_t>(next++));
  wo_list_push(xs, static_cast<uint64_t>(next++));
  CHECK(xs->off == 0);
  CHECK(xs->cap == total);
  CHECK(on_mapping(xs));
  bool same = true;
  for (int64_t i = 0; i < xs->len; ++i) same = same && wo_list_get(xs, i, &kSite) == static_cast<uint64_t>(head + i);
  CHECK(same);
  // Empty by shift: the whole mapping is free again, and reused.
  while (xs->len > 0) REQUIRE(wo_list_shift(xs, &kSite) == static_cast<uint64_t>(head++));
  CHECK(xs->off == 0);
  CHECK(xs->cap == total);
  wo_list_push(xs, 42);
  CHECK(wo_list_get(xs, 0, &kSite) == 42);
}

TEST_CASE("growth of a big list with slots shifted off moves the live ones to the front") {
  OList xs(wo_list_new(WO_ELEM_SCALAR, 0));
  for (int64_t i = 0; i < 2 * kBig; ++i) wo_list_push(xs, static_cast<uint64_t>(i));
  for (int64_t i = 0; i < 10; ++i) wo_list_shift(xs, &kSite);
  while (xs->len < xs->cap) wo_list_push(xs, static_cast<uint64_t>(xs->len + 10));
  int64_t total = xs->cap + xs->off;
  wo_list_push(xs, 0);  // fewer free at the front than live: doubles (mremap), then moves them down
  CHECK(xs->off == 0);
  CHECK(xs->cap == 2 * total);
  CHECK(on_mapping(xs));
  bool same = true;
  for (int64_t i = 0; i + 1 < xs->len; ++i) same = same && wo_list_get(xs, i, &kSite) == static_cast<uint64_t>(i + 10);
  CHECK(same);
}

TEST_CASE("a big list owning heap objects releases each once when freed; slices share them") {
  destroyed = 0;
  int64_t n = kBig + 3;
  {
    OList xs(wo_list_new(WO_ELEM_TEXT, 0));
    for (int64_t i = 0; i < n; ++i)
      wo_list_push(xs, reinterpret_cast<uint64_t>(wo_alloc(sizeof(WoHeader) + 8, count_destroy)));
    CHECK(on_mapping(xs));
    OList part(wo_list_slice(xs, 1, n, &kSite));  // n - 1 slots: its own mapping
    CHECK(part->len == n - 1);
    CHECK(on_mapping(part));
    CHECK(wo_list_get(part, 0, &kSite) == wo_list_get(xs, 1, &kSite));
    CHECK(reinterpret_cast<WoHeader*>(wo_list_get(xs, 1, &kSite))->rc == 2);
  }
  CHECK(destroyed == n);
}

TEST_CASE("a big initial capacity is a mapping from the start") {
  OList xs(wo_list_new(WO_ELEM_SCALAR, kBig * 2 + 1));
  CHECK(xs->cap == kBig * 2 + 1);
  CHECK(on_mapping(xs));
  for (int64_t i = 0; i <= kBig * 2; ++i) wo_list_push(xs, static_cast<uint64_t>(i));
  CHECK(xs->cap == kBig * 2 + 1);
  wo_list_push(xs, 9);  // grows from a length that is not whole 2 MiB pages
  CHECK(wo_list_get(xs, kBig * 2, &kSite) == static_cast<uint64_t>(kBig * 2));
  CHECK(wo_list_latest(xs, &kSite) == 9);
  CHECK(on_mapping(xs));
}
