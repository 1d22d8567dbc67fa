// The small heap (small_heap.h): size-class runs in huge-page regions.
#include "small_heap.h"

#include <sys/mman.h>

#include <array>
#include <atomic>
#include <mutex>

#include "heap_cap.h"
#include "huge_pages.h"


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
size_t g_runs = 0;  // runs handed out, for the tests

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
  ++g_runs;
  auto base = reinterpret_cast<uintptr_t>(run) & ~(kRegion - 1);
  reinterpret_cast<RegionHead*>(base)->cls[(reinterpret_cast<uintptr_t>(run) - base) >> kRunBits] =
      static_cast<uint8_t>(c + 1);
  return run;
}

// Blocks freed on one thread and allocated on another (an actor's message is
// copied by its sender and released by its receiver) would pile up on the
// receiver's lists while the sender carved fresh runs: a producer and a
// consumer would grow the heap without bound. So a thread keeps at most two
// batches of a class; past that it hands a batch to the depot, where a
// thread whose list is empty takes one before carving a new run. A chain in
// the depot is linked by the blocks' first words; its first block's second
// word links the next chain (blocks are at least 16 bytes).
constexpr size_t batch_for(size_t c) {
  size_t n = (kRun / 2) / ((c + 1) * 16);
  return n < 32 ? 32 : n;
}
constexpr auto kBatch = [] {
  std::array<uint32_t, kClasses> b{};
  for (size_t c = 0; c < kClasses; ++c) b[c] = static_cast<uint32_t>(batch_for(c));
  return b;
}();
size_t batch_of(size_t c) { return kBatch[c]; }
std::atomic<void*> g_depot[kClasses];  // chains, pushed and taken under g_mu

void* next_of(void* p) {
  void* next;
  __builtin_memcpy(&next, p, sizeof next);
  return next;
}
void set_next(void* p, void* next) { __builtin_memcpy(p, &next, sizeof next); }
void* chain_link(void* head) { return next_of(static_cast<char*>(head) + sizeof(void*)); }
void set_chain_link(void* head, void* link) { set_next(static_cast<char*>(head) + sizeof(void*), link); }

void depot_push(size_t c, void* head) {
  std::lock_guard lk(g_mu);
  set_chain_link(head, g_depot[c].load(std::memory_order_relaxed));
  g_depot[c].store(head, std::memory_order_relaxed);
}

// One thread's free lists (with their lengths) and current runs. Trivial,
// so its fast paths read it without a guard; the lists go to the depot when
// the thread exits (ExitFlush, armed on the slow paths).
struct Cache {
  void* free[kClasses] = {};
  size_t count[kClasses] = {};
  char* bump[kClasses] = {};
  char* end[kClasses] = {};
  // Moves up to one batch from the front of this class's list to the depot.
  void give_batch(size_t c) {
    void* head = free[c];
    void* tail = head;
    size_t n = 1;
    for (size_t want = batch_of(c); n < want && next_of(tail); ++n) tail = next_of(tail);
    free[c] = next_of(tail);
    count[c] = count[c] > n ? count[c] - n : 0;
    set_next(tail, nullptr);
    depot_push(c, head);
  }
  // A chain from the depot onto the (empty) list; false when there is none.
  bool take_batch(size_t c) {
    if (!g_depot[c].load(std::memory_order_relaxed)) return false;
    std::lock_guard lk(g_mu);
    void* head = g_depot[c].load(std::memory_order_relaxed);
    if (!head) return false;
    g_depot[c].store(chain_link(head), std::memory_order_relaxed);
    free[c] = head;
    count[c] = batch_of(c);  // at most: a thread's last chain may be shorter
    return true;
  }
};
thread_local Cache t_cache;

struct ExitFlush {
  ~ExitFlush() {
    for (size_t c = 0; c < kClasses; ++c)
      while (t_cache.free[c]) t_cache.give_batch(c);
  }
};
thread_local ExitFlush t_exit_flush;
// Registers this thread's ExitFlush (its first use does; later ones are a check).
void arm_exit_flush() {
  ExitFlush* f = &t_exit_flush;
  asm volatile("" : : "r"(f));
}

size_t class_at(const void* p) {
  auto a = reinterpret_cast<uintptr_t>(p);
  uintptr_t base = a & ~(kRegion - 1);
  return reinterpret_cast<const RegionHead*>(base)->cls[(a - base) >> kRunBits] - 1u;
}

}  // namespace

void* small_alloc(size_t n) {
  if (kSanitizedBuild) return nullptr;  // compiled all the same, so both builds see the same code
  size_t c = class_of(n);
  Cache& k = t_cache;
  if (k.free[c] || k.take_batch(c)) {
    void* p = k.free[c];
    k.free[c] = next_of(p);
    if (k.count[c]) --k.count[c];
    return p;
  }
  size_t sz = class_size(c);
  if (static_cast<size_t>(k.end[c] - k.bump[c]) < sz) {
    arm_exit_flush();
    if (!heap_charge(kRun)) return nullptr;  // WO_HEAP_MB: the run is what the heap grows by
    char* run = take_run(c);
    if (!run) {
      heap_credit(kRun);
      return nullptr;
    }
    k.bump[c] = run;
    k.end[c] = run + kRun / sz * sz;
  }
  void* p = k.bump[c];
  k.bump[c] += sz;
  return p;
}

void small_free(void* p) {
  size_t c = class_at(p);
  Cache& k = t_cache;
  set_next(p, k.free[c]);
  k.free[c] = p;
  if (++k.count[c] >= 2 * batch_of(c)) {
    arm_exit_flush();
    k.give_batch(c);
  }
}

size_t small_runs_taken() {
  std::lock_guard lk(g_mu);
  return g_runs;
}

size_t small_usable(const void* p) { return class_size(class_at(p)); }

}  // namespace wo
