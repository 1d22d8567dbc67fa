// Huge-page backed memory for the store's large structures (see huge.h).
#include "huge.h"

#include <cstdlib>
#include <cstring>
#include <utility>

#include "../core/asan_poison.h"
#include "../core/trap.h"
#include "boot_memory.h"

namespace wo::db {
namespace {

// A region: from 2 MiB up its own mapping advised huge (boot_memory.h),
// below that calloc. Zeroed either way.
void* region_alloc(size_t bytes) {
  void* p = bytes >= kHugeFrom ? huge_map(bytes) : std::calloc(1, bytes);
  if (!p) wo::raise_oom();
  return p;
}

void region_free(void* p, size_t bytes) noexcept {
  if (bytes >= kHugeFrom)
    huge_unmap(p, bytes);
  else
    std::free(p);
}

}  // namespace

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

// Under ASan a block is poisoned from its free (and a region's rest until it
// is carved) to its alloc: a freed row page or chunk read through a stale
// pointer is reported, not quietly read or reused (decision 0077).
void* BlockArena::alloc() {
  if (free_) {
    void* p = free_;
    asan_unpoison(p, block_);
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
    if (bytes > kHugeFrom) bytes = kHugeFrom;
    if (bytes < block_) bytes = block_;
    regions_.reserve(regions_.size() + 1);
    char* base = static_cast<char*>(region_alloc(bytes));
    regions_.push_back(Region{base, bytes});
    next_ = base;
    end_ = base + bytes;
    asan_poison(base, bytes);
  }
  void* p = next_;  // fresh region memory is zero
  next_ += block_;
  asan_unpoison(p, block_);
  return p;
}

void BlockArena::free(void* p) noexcept {
  if (!p) return;
  std::memcpy(p, &free_, sizeof free_);
  free_ = p;
  asan_poison(p, block_);
}

void BlockArena::release_all() noexcept {
  for (const Region& r : regions_) {
    asan_unpoison(r.base, r.bytes);  // back to its allocator as it came
    region_free(r.base, r.bytes);
  }
  regions_.clear();
  free_ = nullptr;
  next_ = end_ = nullptr;
}

}  // namespace wo::db
