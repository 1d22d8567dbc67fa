// The program's small heap objects (Text, lists' and maps' headers, class
// instances: wo_alloc and text_alloc, up to kSmallMax bytes) on transparent
// huge pages (docs/decisions/0069). glibc's heap is 4 KiB pages, and a
// program that reads its own objects at random (a loop of lookups by keys it
// holds in a list) paid a TLB miss and a nested page walk on each, as much
// as the cache miss itself; glibc only moves to huge pages through an
// environment variable read at start-up (GLIBC_TUNABLES).
//
// Size classes of 16 bytes; each thread carves 64 KiB runs of one class out
// of 64 MiB regions (advised MADV_HUGEPAGE past the first 4 MiB, so a small
// program stays on a few 4 KiB pages) and keeps a free list per class. A
// block freed on another thread joins that thread's list; a list longer than
// two batches gives one to a shared depot, which a thread whose list is
// empty takes from before it carves a new run (so a producer thread and a
// consumer thread reuse each other's blocks instead of growing the heap). Memory is kept
// for reuse, never returned to the system (as glibc rarely returns its
// heap's). Larger objects, and everything under ASan or TSan (which must
// see each allocation), stay with malloc; heap_free tells them apart by
// address.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "heap_cap.h"

namespace wo {

inline constexpr size_t kSmallMax = 512;
inline constexpr unsigned kRegionBits = 26;  // 64 MiB

// Which 64 MiB regions of the address space are the small heap's (one byte
// per region of the 47-bit user address space; set before any block of a
// region is handed out, never cleared).
extern uint8_t g_small_regions[size_t{1} << (47 - kRegionBits)];

inline bool small_owns(const void* p) {
  auto a = reinterpret_cast<uintptr_t>(p);
  return (a >> 47) == 0 && g_small_regions[a >> kRegionBits] != 0;
}

// Runs handed out to threads so far (tests: frees on another thread are reused).
size_t small_runs_taken();

// A block of at least n bytes (n <= kSmallMax), or NULL when no region can
// be mapped, the heap's cap refuses a new run (heap_cap.h: a run is charged
// when a thread takes it), or the small heap is off (sanitizers): the caller
// uses malloc.
void* small_alloc(size_t n);
void small_free(void* p);          // p: small_owns(p)
size_t small_usable(const void* p);  // p: small_owns(p)

// malloc() for a heap object of n bytes: the small heap's block when it
// serves n, else malloc's, counted against WO_HEAP_MB (NULL when the cap or
// malloc refuses; heap_cap.h). heap_free gives it back.
inline void* heap_block(size_t n) {
  void* p = n <= kSmallMax ? small_alloc(n) : nullptr;
  return p ? p : big_alloc(n);
}

// free() for any block of the program's heap objects.
inline void heap_free(void* p) {
  if (small_owns(p))
    small_free(p);
  else
    big_free(p);
}

}  // namespace wo
