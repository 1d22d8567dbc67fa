// Row pages and ordered chunks on transparent huge pages. A lookup or
// insert touches a few random places in tens of megabytes; on 4 KiB pages
// each of those is also a TLB miss, whose page walk (two-dimensional under
// a hypervisor) cost about a third of a unique-key lookup (docs/perf/store-lang.md,
// "Through the language, round 3"). The unique hash's slots get the same
// from HugeAllocator (boot_memory.h); the regions here come from its
// huge_map, so where the kernel gives no huge pages this is ordinary memory.
#pragma once
#include <cstddef>
#include <vector>

namespace wo::db {

// Fixed-size blocks carved from regions that grow geometrically up to
// 2 MiB (advised huge); freed blocks are kept for reuse by this arena and
// the regions are returned only when it goes (a table whose rows come and
// go reuses its pages; decision 0065). A small structure costs a small region.
// Under ASan a freed block is poisoned until it is handed out again (0077).
class BlockArena {
 public:
  explicit BlockArena(size_t block_bytes) : block_((block_bytes + 15) & ~size_t{15}) {}
  ~BlockArena() { release_all(); }
  BlockArena(const BlockArena&) = delete;
  BlockArena& operator=(const BlockArena&) = delete;
  BlockArena(BlockArena&& o) noexcept;
  BlockArena& operator=(BlockArena&& o) noexcept;

  // A zeroed block; traps OOM.
  void* alloc();
  void free(void* p) noexcept;
  // Returns every region at once (the blocks must no longer be used).
  void release_all() noexcept;

 private:
  struct Region {
    char* base;
    size_t bytes;
  };
  size_t block_;
  void* free_ = nullptr;          // singly linked through the blocks' first word
  char* next_ = nullptr;          // the unused rest of the last region
  char* end_ = nullptr;
  std::vector<Region> regions_;
};

}  // namespace wo::db
