// Boot's memory (see boot_memory.h).
#include "boot_memory.h"

#include <algorithm>

namespace wo::db {
namespace {

constexpr size_t kPiece = size_t{1} << 20;

// The live arena's range: blob_free asks on every free, so two relaxed loads.
std::atomic<uintptr_t> g_lo{0}, g_hi{0};

}  // namespace

bool boot_arena_owns(const void* p) {
  auto a = reinterpret_cast<uintptr_t>(p);
  return a >= g_lo.load(std::memory_order_relaxed) && a < g_hi.load(std::memory_order_relaxed);
}

void BootArena::open(size_t reserve) {
  if (base_ || reserve == 0 || g_hi.load() != 0) return;
  size_t n = huge_round(reserve);
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
