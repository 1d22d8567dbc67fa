// `multi T`: a growable array of 64-bit slots (builtins.md §6). A list of
// WO_ELEM_HEAP owns its elements: it releases them when destroyed or
// overwritten (wo_list_set); wo_list_pop hands ownership to the caller;
// get/latest lend. A value passed to push/set is owned by the list from the
// call on, even when the call traps (it is then released).
#include <cstdlib>

#include "heap.h"
#include "trap.h"

namespace {

constexpr int64_t kMaxCap = INT64_MAX / 16;

void list_destroy(void* self) {
  auto* xs = static_cast<WoList*>(self);
  if (xs->elem_kind == WO_ELEM_HEAP)
    for (int64_t i = 0; i < xs->len; ++i) wo_release(reinterpret_cast<void*>(xs->data[i]));
  std::free(xs->data);
}

void drop_slot(const WoList* xs, uint64_t v) {
  if (xs->elem_kind == WO_ELEM_HEAP) wo_release(reinterpret_cast<void*>(v));
}

[[gnu::noinline, gnu::cold]] void grow(WoList* xs, uint64_t pending) {
  int64_t cap = xs->cap < 4 ? 4 : xs->cap * 2;
  void* data = cap > kMaxCap ? nullptr : std::realloc(xs->data, static_cast<size_t>(cap) * sizeof(uint64_t));
  if (!data) {
    drop_slot(xs, pending);
    wo::raise_oom();
  }
  xs->data = static_cast<uint64_t*>(data);
  xs->cap = cap;
}

}  // namespace

extern "C" {

WoList* wo_list_new(int64_t elem_kind, int64_t capacity) {
  if (capacity < 0) capacity = 0;
  if (capacity > kMaxCap) wo::raise_oom();
  uint64_t* data = nullptr;
  if (capacity > 0)
    data = static_cast<uint64_t*>(wo::heap_malloc(static_cast<size_t>(capacity) * sizeof(uint64_t)));
  WoList* xs;
  try {
    xs = static_cast<WoList*>(wo_alloc(sizeof(WoList), list_destroy));
  } catch (...) {
    std::free(data);
    throw;
  }
  xs->len = 0;
  xs->cap = capacity;
  xs->elem_kind = elem_kind;
  xs->data = data;
  return xs;
}

int64_t wo_list_len(WoList* xs) {
  wo::need(xs);
  return xs->len;
}

void wo_list_push(WoList* xs, uint64_t v) {
  wo::need(xs);
  if (xs->len == xs->cap) [[unlikely]]
    grow(xs, v);
  xs->data[xs->len++] = v;
}

uint64_t wo_list_get(WoList* xs, int64_t i, const WoSite* site) {
  wo::need(xs, site);
  if (static_cast<uint64_t>(i) >= static_cast<uint64_t>(xs->len)) [[unlikely]]
    wo::raise(6, site, "multi index out of range");
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

void wo_list_set(WoList* xs, int64_t i, uint64_t v, const WoSite* site) {
  wo::need(xs, site);
  if (static_cast<uint64_t>(i) >= static_cast<uint64_t>(xs->len)) [[unlikely]] {
    drop_slot(xs, v);
    wo::raise(6, site, "multi index out of range");
  }
  uint64_t old = xs->data[i];
  xs->data[i] = v;
  drop_slot(xs, old);
}

}  // extern "C"
