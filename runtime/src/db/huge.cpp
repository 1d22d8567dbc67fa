// Huge-page backed memory for the store's large structures (see huge.h).
#include "huge.h"

#include <sys/mman.h>

#include <cstdlib>
#include <cstring>
#include <utility>

#include "../trap.h"

namespace wo::db {
namespace {

constexpr size_t kHuge = size_t{2} << 20;

}  // namespace

void* huge_alloc_zeroed(size_t bytes) {
  if (bytes < kHuge) {
    void* p = std::calloc(1, bytes ? bytes : 1);
    if (!p) wo::raise_oom();
    return p;
  }
  size_t len = (bytes + kHuge - 1) & ~(kHuge - 1);
  // Over-map by one huge page and trim, so the range is 2 MiB aligned.
  void* m = mmap(nullptr, len + kHuge, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (m == MAP_FAILED) wo::raise_oom();
  auto a = reinterpret_cast<uintptr_t>(m);
  uintptr_t b = (a + kHuge - 1) & ~(kHuge - 1);
  if (b > a) munmap(m, b - a);
  if (a + kHuge > b) munmap(reinterpret_cast<void*>(b + len), a + kHuge - b);
  madvise(reinterpret_cast<void*>(b), len, MADV_HUGEPAGE);  // advice: no huge pages is not an error
  return reinterpret_cast<void*>(b);
}

void huge_free(void* p, size_t bytes) noexcept {
  if (!p) return;
  if (bytes < kHuge) {
    std::free(p);
    return;
  }
  munmap(p, (bytes + kHuge - 1) & ~(kHuge - 1));
}

BlockArena::BlockArena(BlockArena&& o) noexcept
    : block_(o.block_), free_(o.free_), next_(o.next_), end_(o.end_), regions_(std::move(o.regions_)) {
  o.free_ = nullptr;
  o.next_ = o.end_ = nullptr;
  o.regions_.clear();
}

BlockArena& BlockArena::operator=(BlockArena&& o) noexcept {
  if (this != &o) {
    release_all();
    block_ = o.block_;
    free_ = std::exchange(o.free_, nullptr);
    next_ = std::exchange(o.next_, nullptr);
    end_ = std::exchange(o.end_, nullptr);
    regions_ = std::move(o.regions_);
    o.regions_.clear();
  }
  return *this;
}

void* BlockArena::alloc() {
  if (free_) {
    void* p = free_;
    std::memcpy(&free_, p, sizeof free_);
    std::memset(p, 0, block_);
    return p;
  }
  if (static_cast<size_t>(end_ - next_) < block_) {
    // The next region: twice the last (4 blocks at first), up to 2 MiB or
    // one block if that is larger. Room in the list first: a failure then
    // changes nothing.
    size_t last = regions_.empty() ? 0 : regions_.back().bytes;
    size_t bytes = last ? last * 2 : 4 * block_;
    if (bytes > kHuge) bytes = kHuge;
    if (bytes < block_) bytes = block_;
    regions_.reserve(regions_.size() + 1);
    char* base = static_cast<char*>(huge_alloc_zeroed(bytes));
    regions_.push_back(Region{base, bytes});
    next_ = base;
    end_ = base + bytes;
  }
  void* p = next_;  // fresh region memory is zero
  next_ += block_;
  return p;
}

void BlockArena::free(void* p) noexcept {
  if (!p) return;
  std::memcpy(p, &free_, sizeof free_);
  free_ = p;
}

void BlockArena::release_all() noexcept {
  for (const Region& r : regions_) huge_free(r.base, r.bytes);
  regions_.clear();
  free_ = nullptr;
  next_ = end_ = nullptr;
}

}  // namespace wo::db
