// Heap objects: allocation, reference counting and release (wo_alloc,
// wo_retain, wo_release) plus the internal allocation helpers of heap.h.
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
  auto* t = static_cast<WoText*>(heap_malloc(sizeof(WoText) + static_cast<size_t>(len) + 1));
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

// `size` is the whole object, header included.
void* wo_alloc(int64_t size, void (*destroy)(void*)) {
  if (size < static_cast<int64_t>(sizeof(WoHeader))) size = sizeof(WoHeader);
  auto* h = static_cast<WoHeader*>(wo::heap_malloc(static_cast<size_t>(size)));
  h->rc = 1;
  h->destroy = destroy;
  std::memset(h + 1, 0, static_cast<size_t>(size) - sizeof(WoHeader));
  return h;
}

void wo_retain(void* obj) {
  if (!obj) return;
  auto* h = static_cast<WoHeader*>(obj);
  if (h->rc >= 0) ++h->rc;
}

void wo_release(void* obj) {
  if (!obj) return;
  auto* h = static_cast<WoHeader*>(obj);
  if (h->rc < 0) return;
  if (--h->rc != 0) return;
  if (h->destroy) h->destroy(obj);
  std::free(obj);
}

}  // extern "C"
