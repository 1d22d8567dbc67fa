// `multi T`: a growable array of 64-bit slots (builtins.md §6). A list whose
// elem_kind has the heap bit (WO_ELEM_IS_HEAP) owns its elements: it releases
// them when destroyed or overwritten (wo_list_set); pop/shift hand ownership
// to the caller; get/latest lend. A value passed to push/set is owned by the
// list from the call on, even when the call traps (it is then released).
//
// `shift` is O(1): it advances `data` and counts the freed front slots in
// `off`; growth reuses them (compacting to the front) before reallocating.
//
// A list's slots of 2 MiB or more (256Ki slots) are a mapping of their own,
// advised huge and grown with mremap (core/huge_pages.h); smaller ones are malloc's. A
// program that reads a big list at random (`keys[r]` in a loop of lookups)
// paid a TLB miss and a nested page walk on each read besides the cache miss
// on malloc's 4 KiB pages (docs/perf/store-lang.md, "Through the language, round 5").
// Which of the two an allocation is follows from its size alone, cap + off
// slots, which only wo_list_new and list_grow change. Off under ASan/TSan,
// which must see each allocation (as the small heap).
#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "../core/gc.h"
#include "../core/heap.h"
#include "../core/huge_pages.h"
#include "../core/trap.h"
#include "../inline/helpers.h"

namespace {

using wo::huge_map;
using wo::huge_remap;
using wo::huge_unmap;
using wo::kHugePage;
using wo::kSanitizedBuild;

constexpr int64_t kMaxCap = INT64_MAX / 16;

uint64_t* base_of(const WoList* xs) { return xs->data ? xs->data - xs->off : nullptr; }

// Whether an allocation of `slots` slots is a mapping of its own.
bool mapped(int64_t slots) { return !kSanitizedBuild && static_cast<size_t>(slots) * sizeof(uint64_t) >= kHugePage; }

// Slots count against WO_HEAP_MB (core/heap_cap.h): malloc's blocks by the size
// asked for (sized_alloc and friends), a mapping by its whole 2 MiB pages.

// Room for `slots` slots (contents undefined), or NULL.
uint64_t* slots_alloc(int64_t slots) {
  size_t bytes = static_cast<size_t>(slots) * sizeof(uint64_t);
  if (!mapped(slots)) return static_cast<uint64_t*>(wo::sized_alloc(bytes));
  if (!wo::heap_charge(wo::huge_round(bytes))) return nullptr;
  void* p = huge_map(bytes);
  if (!p) wo::heap_credit(wo::huge_round(bytes));
  return static_cast<uint64_t*>(p);
}

void slots_free(uint64_t* base, int64_t slots) {
  if (!base) return;
  if (mapped(slots)) {
    size_t bytes = static_cast<size_t>(slots) * sizeof(uint64_t);
    huge_unmap(base, bytes);
    wo::heap_credit(wo::huge_round(bytes));
  } else {
    wo::sized_free(base, static_cast<size_t>(slots) * sizeof(uint64_t));
  }
}

// realloc for slots: `base` holds `from` slots and gets room for `to` > from,
// keeping them; NULL (base untouched) on failure. A mapping grows by mremap:
// its pages move, none is copied or touched again.
uint64_t* slots_grow(uint64_t* base, int64_t from, int64_t to) {
  if (!mapped(to)) {
    return static_cast<uint64_t*>(wo::sized_realloc(base, static_cast<size_t>(from) * sizeof(uint64_t),
                                                    static_cast<size_t>(to) * sizeof(uint64_t)));
  }
  if (base && mapped(from)) {
    size_t had = wo::huge_round(static_cast<size_t>(from) * sizeof(uint64_t));
    size_t more = wo::huge_round(static_cast<size_t>(to) * sizeof(uint64_t)) - had;
    if (!wo::heap_charge(more)) return nullptr;
    void* q = huge_remap(base, static_cast<size_t>(from) * sizeof(uint64_t), static_cast<size_t>(to) * sizeof(uint64_t));
    if (!q) wo::heap_credit(more);
    return static_cast<uint64_t*>(q);
  }
  uint64_t* p = slots_alloc(to);
  if (p && base) {
    std::memcpy(p, base, static_cast<size_t>(from) * sizeof(uint64_t));
    wo::sized_free(base, static_cast<size_t>(from) * sizeof(uint64_t));  // malloc's: mapped(from) is false
  }
  return p;
}

void list_destroy(void* self) {
  auto* xs = static_cast<WoList*>(self);
  if (WO_ELEM_IS_HEAP(xs->elem_kind))
    for (int64_t i = 0; i < xs->len; ++i) wo::release(reinterpret_cast<void*>(xs->data[i]));
  slots_free(base_of(xs), xs->cap + xs->off);
}

void drop_slot(const WoList* xs, uint64_t v) {
  if (WO_ELEM_IS_HEAP(xs->elem_kind)) wo_release(reinterpret_cast<void*>(v));
}

[[noreturn]] void wrong_container(const WoSite* site) { wo::raise(6, site, "wrong container type"); }

// Bytewise order of two Text/Bytes objects (same layout), shorter prefix first.
bool bytes_less(uint64_t a, uint64_t b) {
  auto* x = reinterpret_cast<const WoText*>(a);
  auto* y = reinterpret_cast<const WoText*>(b);
  int64_t n = std::min(x->len, y->len);
  int c = n ? std::memcmp(x->bytes, y->bytes, static_cast<size_t>(n)) : 0;
  return c < 0 || (c == 0 && x->len < y->len);
}

double as_double(uint64_t v) {
  double d;
  std::memcpy(&d, &v, sizeof d);
  return d;
}

}  // namespace

// Makes room for one more element. Front slots freed by shift are reclaimed
// first when they are at least half of the allocation (amortised O(1) for a
// queue that pushes and shifts); otherwise the allocation doubles.
void wo::list_grow(WoList* xs, uint64_t pending) {
  uint64_t* base = base_of(xs);
  int64_t total = xs->cap + xs->off;
  if (xs->off > 0 && xs->off >= xs->len) {  // at least half free at the front: compact
    std::memmove(base, xs->data, static_cast<size_t>(xs->len) * sizeof(uint64_t));
    xs->data = base;
    xs->cap = total;
    xs->off = 0;
    return;
  }
  int64_t cap = total < 4 ? 4 : total * 2;
  void* data = cap > kMaxCap ? nullptr : slots_grow(base, total, cap);
  if (!data) {
    drop_slot(xs, pending);
    wo::raise_oom();
  }
  auto* nb = static_cast<uint64_t*>(data);
  if (xs->off > 0) std::memmove(nb, nb + xs->off, static_cast<size_t>(xs->len) * sizeof(uint64_t));
  xs->data = nb;
  xs->cap = cap;
  xs->off = 0;
}

namespace wo {
// The collector's view of a list: the heap elements it owns (core/gc.cpp).
void list_trace(void* list, WoVisit visit, void* ctx) {
  auto* xs = static_cast<WoList*>(list);
  if (!WO_ELEM_IS_HEAP(xs->elem_kind)) return;
  for (int64_t i = 0; i < xs->len; ++i) visit(reinterpret_cast<void**>(&xs->data[i]), ctx);
}
bool is_list_destroy(void (*destroy)(void*)) { return destroy == list_destroy; }
}  // namespace wo

extern "C" {

WoList* wo_list_new(int64_t elem_kind, int64_t capacity) {
  if (capacity < 0) capacity = 0;
  if (capacity > kMaxCap) wo::raise_oom();
  uint64_t* data = nullptr;
  if (capacity > 0) {
    data = slots_alloc(capacity);
    if (!data) wo::raise_oom();
  }
  WoList* xs;
  try {
    xs = static_cast<WoList*>(wo_alloc(sizeof(WoList), list_destroy));
  } catch (...) {
    slots_free(data, capacity);
    throw;
  }
  xs->len = 0;
  xs->cap = capacity;
  xs->elem_kind = elem_kind;
  xs->data = data;
  xs->off = 0;
  return xs;
}

int64_t wo_list_len(WoList* xs) {
  wo::need(xs);
  return xs->len;
}

// wo_list_push: inline/helpers.cpp.
uint64_t wo_list_get(WoList* xs, int64_t i, const WoSite* site) {
  wo::need(xs, site);
  if (static_cast<uint64_t>(i) >= static_cast<uint64_t>(xs->len)) [[unlikely]]
    wo::raise(6, site, "multi index out of range", wo::index_detail(i, xs->len));
  return xs->data[i];
}

uint64_t wo_list_latest(WoList* xs, const WoSite* site) {
  wo::need(xs, site);
  if (xs->len == 0) [[unlikely]]
    wo::raise(6, site, "latest of an empty multi");
  return xs->data[xs->len - 1];
}

uint64_t wo_list_pop(WoList* xs, const WoSite* site) {
  wo::need(xs, site);
  if (xs->len == 0) [[unlikely]]
    wo::raise(6, site, "`pop` on an empty multi");
  return xs->data[--xs->len];
}

uint64_t wo_list_shift(WoList* xs, const WoSite* site) {
  wo::need(xs, site);
  if (xs->len == 0) [[unlikely]]
    wo::raise(6, site, "`shift` on an empty multi");
  uint64_t v = xs->data[0];
  if (--xs->len == 0) {  // empty again: the whole allocation is free
    xs->cap += xs->off;
    xs->data = base_of(xs);
    xs->off = 0;
  } else {
    ++xs->data;
    ++xs->off;
    --xs->cap;
  }
  return v;
}

void wo_list_set(WoList* xs, int64_t i, uint64_t v, const WoSite* site) {
  wo::need(xs, site);
  if (static_cast<uint64_t>(i) >= static_cast<uint64_t>(xs->len)) [[unlikely]] {
    drop_slot(xs, v);
    wo::raise(6, site, "multi index out of range", wo::index_detail(i, xs->len));
  }
  uint64_t old = xs->data[i];
  xs->data[i] = v;
  drop_slot(xs, old);
}

WoList* wo_list_slice(WoList* xs, int64_t from, int64_t to, const WoSite* site) {
  wo::need(xs, site);
  if (xs->elem_kind == WO_ELEM_HEAP) [[unlikely]]
    wrong_container(site);
  from = std::clamp<int64_t>(from, 0, xs->len);
  to = std::clamp<int64_t>(to, from, xs->len);
  int64_t n = to - from;
  WoList* out = wo_list_new(xs->elem_kind, n);
  if (n) std::memcpy(out->data, xs->data + from, static_cast<size_t>(n) * sizeof(uint64_t));
  out->len = n;
  if (WO_ELEM_IS_HEAP(xs->elem_kind))  // Text/Bytes: immutable, so shared
    for (int64_t i = 0; i < n; ++i) wo_retain(reinterpret_cast<void*>(out->data[i]));
  return out;
}

void wo_list_sort(WoList* xs, const WoSite* site) {
  wo::need(xs, site);
  uint64_t* b = xs->data;
  uint64_t* e = xs->data + xs->len;
  switch (xs->elem_kind) {
    case WO_ELEM_SCALAR:
      std::stable_sort(b, e, [](uint64_t x, uint64_t y) {
        return static_cast<int64_t>(x) < static_cast<int64_t>(y);
      });
      return;
    case WO_ELEM_FLOAT:
      std::stable_sort(b, e, [](uint64_t x, uint64_t y) { return wo_float_cmp(as_double(x), as_double(y)) < 0; });
      return;
    case WO_ELEM_TEXT:
    case WO_ELEM_BYTES:
      for (int64_t i = 0; i < xs->len; ++i)
        if (!b[i]) [[unlikely]]
          wo::raise(6, site, "not a text value");
      std::stable_sort(b, e, bytes_less);
      return;
    default:
      wrong_container(site);
  }
}

void wo_list_reverse(WoList* xs) {
  wo::need(xs);
  std::reverse(xs->data, xs->data + xs->len);
}

}  // extern "C"
