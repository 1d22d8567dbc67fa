// Boot's memory (see boot_memory.h).
#include "boot_memory.h"

#include <sys/mman.h>

#include <algorithm>

namespace wo::db {
namespace {

constexpr size_t kHuge = size_t{2} << 20;
constexpr size_t kPiece = size_t{1} << 20;

// The live arena's range: blob_free asks on every free, so two relaxed loads.
std::atomic<uintptr_t> g_lo{0}, g_hi{0};

size_t round_huge(size_t n) { return (n + kHuge - 1) & ~(kHuge - 1); }

}  // namespace

void* huge_map(size_t bytes) {
  size_t n = round_huge(bytes);
  void* p = ::mmap(nullptr, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) return nullptr;
  ::madvise(p, n, MADV_HUGEPAGE);  // a hint: without THP it is 4 KiB pages as before
  return p;
}

void huge_unmap(void* p, size_t bytes) { ::munmap(p, round_huge(bytes)); }

bool boot_arena_owns(const void* p) {
  auto a = reinterpret_cast<uintptr_t>(p);
  return a >= g_lo.load(std::memory_order_relaxed) && a < g_hi.load(std::memory_order_relaxed);
}

void BootArena::open(size_t reserve) {
  if (base_ || reserve == 0 || g_hi.load() != 0) return;
  size_t n = round_huge(reserve);
  auto* p = static_cast<char*>(huge_map(n));
  if (!p) return;
  base_ = p;
  size_ = n;
  used_ = 0;
  g_lo = reinterpret_cast<uintptr_t>(p);
  g_hi = reinterpret_cast<uintptr_t>(p + n);
}

BootArena::~BootArena() {
  if (!base_) return;
  g_hi = 0;
  g_lo = 0;
  huge_unmap(base_, size_);
}

bool BootArena::Cursor::refill(size_t n) {
  if (!a_ || !a_->base_) return false;
  size_t take = std::max(n, kPiece);
  size_t at = a_->used_.fetch_add(take, std::memory_order_relaxed);
  if (at > a_->size_ || a_->size_ - at < take) {
    a_ = nullptr;  // full: malloc from now on
    return false;
  }
  at_ = a_->base_ + at;
  end_ = at_ + take;
  return true;
}

}  // namespace wo::db
