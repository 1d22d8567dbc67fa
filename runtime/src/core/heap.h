// Allocation helpers shared by the runtime's files: every failure becomes the
// OOM trap, and Text objects are laid out in one block (header, len, bytes, NUL).
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "small_heap.h"
#include "wo_runtime.h"

namespace wo {

void* heap_malloc(size_t n);            // traps OOM; never returns NULL
void* heap_realloc(void* p, size_t n);  // traps OOM (p is left untouched then)

// A Text with rc 1, `len` uninitialised bytes and the trailing NUL in place.
WoText* text_alloc(int64_t len);
WoText* text_from(const char* bytes, size_t len);

// wo_release's body, inline for the runtime's own loops over owned slots
// (a list's or map's destroy): one call per element saved. rc < 0: immortal.
inline void release(void* obj) {
  if (!obj) return;
  auto* h = static_cast<WoHeader*>(obj);
  if (h->rc < 0) return;
  if (--h->rc != 0) return;
  if (h->destroy) h->destroy(obj);
  heap_free(obj);
}

// Releases a heap value at scope exit unless disowned: keeps partly built
// results from leaking when an allocation traps midway.
class OwnedGuard {
 public:
  explicit OwnedGuard(void* p) : p_(p) {}
  OwnedGuard(const OwnedGuard&) = delete;
  OwnedGuard& operator=(const OwnedGuard&) = delete;
  ~OwnedGuard() { wo_release(p_); }
  void* disown() {
    void* p = p_;
    p_ = nullptr;
    return p;
  }

 private:
  void* p_;
};

}  // namespace wo
