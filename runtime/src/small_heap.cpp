// The small heap (small_heap.h): size-class runs in huge-page regions.
#include "small_heap.h"

#include <sys/mman.h>

#include <mutex>

#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define WO_SMALL_HEAP_OFF 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define WO_SMALL_HEAP_OFF 1
#endif

namespace wo {

uint8_t g_small_regions[size_t{1} << (47 - kRegionBits)];

namespace {

constexpr size_t kRegion = size_t{1} << kRegionBits;
constexpr unsigned kRunBits = 16;  // 64 KiB runs of one class
constexpr size_t kRun = size_t{1} << kRunBits;
constexpr size_t kClasses = kSmallMax / 16;
constexpr size_t kPlainHead = size_t{4} << 20;  // the first region's first 4 MiB stay on 4 KiB pages

// A region's first run is its header: the class of each run (index + 1; 0
// for the header itself and runs not handed out yet).
struct RegionHead {
  uint8_t cls[kRegion / kRun];
};

size_t class_of(size_t n) { return n == 0 ? 0 : (n - 1) / 16; }
size_t class_size(size_t c) { return (c + 1) * 16; }

std::mutex g_mu;  // the runs not handed out yet
char* g_next = nullptr;
char* g_end = nullptr;
bool g_failed = false;  // a region could not be mapped: malloc from then on
bool g_first = true;

// A fresh 64 MiB region aligned to its size (map twice the size, trim).
char* map_region() {
  void* m = ::mmap(nullptr, 2 * kRegion, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (m == MAP_FAILED) return nullptr;
  auto a = reinterpret_cast<uintptr_t>(m);
  uintptr_t r = (a + kRegion - 1) & ~(kRegion - 1);
  if (r > a) ::munmap(m, r - a);
  if (a + 2 * kRegion > r + kRegion) ::munmap(reinterpret_cast<void*>(r + kRegion), a + 2 * kRegion - (r + kRegion));
  if ((r >> 47) != 0) {  // outside the map's range (not on x86-64 Linux's default 47-bit layout)
    ::munmap(reinterpret_cast<void*>(r), kRegion);
    return nullptr;
  }
  char* region = reinterpret_cast<char*>(r);
  size_t plain = g_first ? kPlainHead : 0;  // a small program's heap stays on a few 4 KiB pages
  g_first = false;
  ::madvise(region + plain, kRegion - plain, MADV_HUGEPAGE);  // advice only: THP `never` ignores it
  g_small_regions[r >> kRegionBits] = 1;
  return region;
}

// A run for class c, or NULL.
char* take_run(size_t c) {
  std::lock_guard lk(g_mu);
  if (g_next == g_end) {
    if (g_failed) return nullptr;
    char* r = map_region();
    if (!r) {
      g_failed = true;
      return nullptr;
    }
    g_next = r + kRun;  // after the header
    g_end = r + kRegion;
  }
  char* run = g_next;
  g_next += kRun;
  auto base = reinterpret_cast<uintptr_t>(run) & ~(kRegion - 1);
  reinterpret_cast<RegionHead*>(base)->cls[(reinterpret_cast<uintptr_t>(run) - base) >> kRunBits] =
      static_cast<uint8_t>(c + 1);
  return run;
}

// One thread's free lists and current runs. Blocks left on a thread's lists
// when it exits stay unused (threads here live as long as the program).
struct Cache {
  void* free[kClasses] = {};
  char* bump[kClasses] = {};
  char* end[kClasses] = {};
};
thread_local Cache t_cache;

size_t class_at(const void* p) {
  auto a = reinterpret_cast<uintptr_t>(p);
  uintptr_t base = a & ~(kRegion - 1);
  return reinterpret_cast<const RegionHead*>(base)->cls[(a - base) >> kRunBits] - 1u;
}

}  // namespace

void* small_alloc(size_t n) {
#ifdef WO_SMALL_HEAP_OFF
  (void)n;
  return nullptr;
#else
  size_t c = class_of(n);
  Cache& k = t_cache;
  if (void* p = k.free[c]) {
    void* next;
    __builtin_memcpy(&next, p, sizeof next);
    k.free[c] = next;
    return p;
  }
  size_t sz = class_size(c);
  if (static_cast<size_t>(k.end[c] - k.bump[c]) < sz) {
    char* run = take_run(c);
    if (!run) return nullptr;
    k.bump[c] = run;
    k.end[c] = run + kRun / sz * sz;
  }
  void* p = k.bump[c];
  k.bump[c] += sz;
  return p;
#endif
}

void small_free(void* p) {
  size_t c = class_at(p);
  Cache& k = t_cache;
  __builtin_memcpy(p, &k.free[c], sizeof(void*));
  k.free[c] = p;
}

size_t small_usable(const void* p) { return class_size(class_at(p)); }

}  // namespace wo
