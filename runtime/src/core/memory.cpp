// Heap objects: reference counting and release (wo_retain, wo_release; wo_alloc
// is in inline/helpers.cpp) plus the internal allocation helpers of heap.h.
// Every object starts with WoHeader {rc, destroy}; rc < 0 marks an immortal
// object (a constant emitted by codegen) that retain/release never touch.
// Counts are not atomic: an object never crosses threads by pointer.
#include <cstdlib>
#include <cstring>

#include "heap.h"
#include "trap.h"

namespace wo {

void* heap_malloc(size_t n) {
  void* p = std::malloc(n);
  if (!p) [[unlikely]]
    raise_oom();
  return p;
}

void* heap_realloc(void* p, size_t n) {
  void* q = std::realloc(p, n);
  if (!q) [[unlikely]]
    raise_oom();
  return q;
}

WoText* text_alloc(int64_t len) {
  if (len < 0 || static_cast<uint64_t>(len) > (UINT64_MAX >> 2)) [[unlikely]]
    raise_oom();
  size_t n = sizeof(WoText) + static_cast<size_t>(len) + 1;
  auto* t = static_cast<WoText*>(heap_block(n));  // small_heap.h: on huge pages
  if (!t) [[unlikely]]
    raise_oom();
  t->h.rc = 1;
  t->h.destroy = nullptr;
  t->len = len;
  t->bytes[len] = '\0';
  return t;
}

WoText* text_from(const char* bytes, size_t len) {
  WoText* t = text_alloc(static_cast<int64_t>(len));
  if (len) std::memcpy(t->bytes, bytes, len);
  return t;
}

}  // namespace wo

extern "C" {

// wo_alloc: inline/helpers.cpp.

void wo_retain(void* obj) {
  if (!obj) return;
  auto* h = static_cast<WoHeader*>(obj);
  if (h->rc >= 0) ++h->rc;
}

void wo_release(void* obj) { wo::release(obj); }

}  // extern "C"
