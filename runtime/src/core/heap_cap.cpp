// The VM heap's ceiling (heap_cap.h, docs/decisions/0081).
#include "heap_cap.h"

#include <malloc.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>

#include "cgroup.h"

namespace wo {

namespace {

constexpr int64_t kMiB = int64_t{1} << 20;
constexpr int64_t kMaxMiB = 1048576;              // runtime.md §5.1's range: 1..1048576
constexpr int64_t kFloor = 64 * kMiB;             // the spec's default: no default is below it
constexpr int64_t kChunk = int64_t{256} << 10;    // credit a thread takes from the count at once
constexpr int64_t kKeep = 4 * kChunk;             // credit above this goes back to the count
constexpr int64_t kTooBig = INT64_MAX / 4;        // a request no cap can serve (and no sum overflows)

// Charged bytes: what the heap's values hold plus every thread's unused
// credit, so never more than the cap but for exempt charges, and never less
// than the live bytes but for malloc's rounding of the blocks a thread was
// granted since its last slow path (charge_over: a few bytes each).
std::atomic<int64_t> g_used{0};
// The cap. Until the first charge it would refuse, the default is not
// worked out (reading cgroup files costs a start-up nothing): it stands at
// kFloor, which no default is below, and `g_resolved` is false.
std::atomic<int64_t> g_cap{kFloor};
std::atomic<bool> g_resolved{false};
std::once_flag g_resolve_once;

thread_local int64_t t_credit = 0;  // trivial: the fast paths read it without a guard
thread_local int t_exempt = 0;
thread_local bool t_refused = false;

// A thread's credit goes back to the count when the thread ends (armed on
// the slow paths, as the small heap's ExitFlush).
struct CreditReturn {
  ~CreditReturn() {
    if (t_credit) g_used.fetch_sub(t_credit, std::memory_order_relaxed);
    t_credit = 0;
  }
};
thread_local CreditReturn t_credit_return;
void arm_credit_return() {
  CreditReturn* r = &t_credit_return;
  asm volatile("" : : "r"(r));
}

// WO_HEAP_MB's value as MiB, or 0 when it is not a whole number in range.
int64_t parse_mb(const char* v) {
  int64_t n = 0;
  for (const char* p = v; *p; ++p) {
    if (*p < '0' || *p > '9') return 0;
    n = n * 10 + (*p - '0');
    if (n > kMaxMiB) return 0;
  }
  return n;
}

// The memory this process may use: the machine's RAM, or less where its
// cgroup (v2 memory.max, v1 memory.limit_in_bytes) or an ancestor's says so;
// `self` lists the process's cgroups (/proc/self/cgroup), `sys` is where
// they are mounted.
int64_t memory_limit(const char* self, const std::string& sys) {
  long pages = sysconf(_SC_PHYS_PAGES);
  long page = sysconf(_SC_PAGE_SIZE);
  int64_t limit = pages > 0 && page > 0 ? static_cast<int64_t>(pages) * page : INT64_MAX;
  int64_t v = cgroup_smallest(
      self, sys, "memory", [](const std::string& dir) { return read_cgroup_number(dir + "/memory.max"); },
      [](const std::string& dir) { return read_cgroup_number(dir + "/memory.limit_in_bytes"); });
  return v > 0 && v < limit ? v : limit;
}

// The cap when WO_HEAP_MB is not set: half of what the process may use,
// in whole MiB, at least kFloor, at most the range's top.
int64_t default_cap(const char* self = "/proc/self/cgroup", const std::string& sys = "/sys/fs/cgroup") {
  int64_t half = memory_limit(self, sys) / 2 / kMiB * kMiB;
  return std::clamp(half, kFloor, kMaxMiB * kMiB);
}

void resolve() {
  std::call_once(g_resolve_once, [] {
    if (!g_resolved.load(std::memory_order_acquire)) {  // heap_cap_start did not set it
      const char* v = std::getenv("WO_HEAP_MB");
      int64_t mb = v && *v ? parse_mb(v) : 0;  // a bad value exits at wo_start; elsewhere: the default
      g_cap.store(mb ? mb * kMiB : default_cap(), std::memory_order_relaxed);
      g_resolved.store(true, std::memory_order_release);
    }
  });
}

// Takes at least `short_by` more bytes of credit from the count (a chunk
// more when there is room); false when the cap leaves less than short_by.
bool take_credit(int64_t short_by) {
  arm_credit_return();
  int64_t used = g_used.load(std::memory_order_relaxed);
  for (;;) {
    int64_t room = g_cap.load(std::memory_order_relaxed) - used;
    int64_t take = std::min(short_by + kChunk, room);
    if (take < short_by) {
      if (t_exempt) {
        g_used.fetch_add(short_by, std::memory_order_relaxed);
        t_credit += short_by;
        return true;
      }
      if (!g_resolved.load(std::memory_order_acquire)) {
        resolve();
        used = g_used.load(std::memory_order_relaxed);
        continue;
      }
      return false;
    }
    if (g_used.compare_exchange_weak(used, used + take, std::memory_order_relaxed)) {
      t_credit += take;
      return true;
    }
  }
}

// heap_charge's and heap_credit's slow paths: out of line, so that their
// fast paths (a thread-local compare and subtract) stay a few instructions
// wherever they are inlined (big_alloc and the rest, below).
[[gnu::noinline, gnu::cold]] bool charge_slow(int64_t need) {
  if (need >= kTooBig || !take_credit(need - t_credit)) {
    t_refused = true;
    return false;
  }
  t_refused = false;
  t_credit -= need;
  return true;
}

[[gnu::noinline, gnu::cold]] void give_back() {
  arm_credit_return();
  g_used.fetch_sub(t_credit - kChunk, std::memory_order_relaxed);
  t_credit = kChunk;
}

// The fast paths, inlined into the functions below (the exported
// heap_charge/heap_credit are not: -fPIC keeps them interposable).
// charge_over charges what malloc rounded a granted block up by, past the
// cap if need be: the credit may go a little below zero until the thread's
// next slow path takes it back from the count.
inline bool charge(size_t n) {
  auto need = static_cast<int64_t>(std::min<size_t>(n, kTooBig));
  if (t_credit >= need) [[likely]] {
    t_credit -= need;
    return true;
  }
  return charge_slow(need);
}

inline void charge_over(size_t n) { t_credit -= static_cast<int64_t>(n); }

inline void credit(size_t n) {
  if (t_credit <= 0) [[unlikely]]
    arm_credit_return();  // a thread that only frees keeps credit too
  t_credit += static_cast<int64_t>(n);
  if (t_credit > kKeep) [[unlikely]]
    give_back();
}

}  // namespace

bool heap_charge(size_t n) { return charge(n); }
void heap_credit(size_t n) { credit(n); }

void* big_alloc(size_t n) {
  if (!charge(n)) return nullptr;
  void* p = std::malloc(n);
  if (!p) [[unlikely]] {
    credit(n);
    return nullptr;
  }
  size_t u = malloc_usable_size(p);
  if (u > n) charge_over(u - n);
  return p;
}

void* big_realloc(void* p, size_t n) {
  if (n == 0) n = 1;  // realloc(p, 0) would free p
  size_t old = p ? malloc_usable_size(p) : 0;
  size_t extra = n > old ? n - old : 0;
  if (extra && !charge(extra)) return nullptr;
  void* q = std::realloc(p, n);
  if (!q) [[unlikely]] {
    if (extra) credit(extra);
    return nullptr;
  }
  size_t u = malloc_usable_size(q);  // charged so far: old + extra
  if (u > old + extra)
    charge_over(u - old - extra);
  else if (u < old + extra)
    credit(old + extra - u);
  return q;
}

void big_free(void* p) {
  if (!p) return;
  size_t u = malloc_usable_size(p);
  std::free(p);
  credit(u);
}

void* sized_alloc(size_t n) {
  if (!charge(n)) return nullptr;
  void* p = std::malloc(n);
  if (!p) [[unlikely]]
    credit(n);
  return p;
}

void* sized_calloc(size_t count, size_t size) {
  size_t n = 0;
  if (__builtin_mul_overflow(count, size, &n) || !charge(n)) return nullptr;
  void* p = std::calloc(count, size);
  if (!p) [[unlikely]]
    credit(n);
  return p;
}

void* sized_realloc(void* p, size_t old_n, size_t n) {
  if (n == 0) n = 1;  // realloc(p, 0) would free p
  if (!p) old_n = 0;
  if (n > old_n && !charge(n - old_n)) return nullptr;
  void* q = std::realloc(p, n);
  if (!q) [[unlikely]] {
    if (n > old_n) credit(n - old_n);
    return nullptr;
  }
  if (n < old_n) credit(old_n - n);
  return q;
}

void sized_free(void* p, size_t n) {
  if (!p) return;
  std::free(p);
  credit(n);
}

void heap_cap_start() {
  const char* v = std::getenv("WO_HEAP_MB");
  if (!v || !*v) return;  // the default, worked out when it first matters
  int64_t mb = parse_mb(v);
  if (mb == 0) {
    std::fflush(stdout);
    std::fprintf(stderr,
                 "wo: WO_HEAP_MB must be a whole number of MiB from 1 to %lld, the VM heap's ceiling "
                 "(it is \"%s\"; unset, it is half of the memory this process may use)\n",
                 static_cast<long long>(kMaxMiB), v);
    std::exit(2);
  }
  g_cap.store(mb * kMiB, std::memory_order_relaxed);
  g_resolved.store(true, std::memory_order_release);
}

int64_t heap_cap_bytes() {
  if (!g_resolved.load(std::memory_order_acquire)) resolve();
  return g_cap.load(std::memory_order_relaxed);
}

int64_t heap_default_cap_for_tests(const char* self, const char* sys) { return default_cap(self, sys); }

void heap_cap_set_for_tests(int64_t bytes) {
  g_cap.store(bytes, std::memory_order_relaxed);
  g_resolved.store(true, std::memory_order_release);
}

int64_t heap_used_bytes() { return g_used.load(std::memory_order_relaxed) - t_credit; }

bool heap_cap_refused() {
  bool r = t_refused;
  t_refused = false;
  return r;
}

HeapCapExempt::HeapCapExempt() { ++t_exempt; }
HeapCapExempt::~HeapCapExempt() { --t_exempt; }

}  // namespace wo
