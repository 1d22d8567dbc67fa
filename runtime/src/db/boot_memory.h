// Memory for boot, which fills hundreds of MiB at once (a 1M-row open took
// 90,000 page faults, a third of its CPU time, docs/perf/restart.md).
//
// - HugeAllocator: a std::allocator for large arrays (hash slots, sort
//   buffers): from 2 MiB up they get their own mapping advised for
//   transparent huge pages, so filling them takes one fault per 2 MiB
//   instead of one per 4 KiB; smaller ones come from malloc.
// - BootArena: the blobs of the rows boot loads, bump-allocated from one
//   huge-page mapping instead of two mallocs per row. blob_free (row.h) does
//   not free a blob inside it (boot_arena_owns; under ASan it poisons it,
//   decision 0077): its bytes stay until the store closes, so a process
//   that later replaces every loaded row holds at most the loaded blobs'
//   size once more (decision 0066).
#pragma once
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <new>
#include <type_traits>
#include <utility>

#include "../core/huge_pages.h"

namespace wo::db {

inline constexpr size_t kHugeFrom = kHugePage;
using wo::huge_map;  // core/huge_pages.h
using wo::huge_unmap;

// Memory it hands out is zeroed (a fresh mapping, or calloc), and an
// element constructed without arguments is left as that zero (default-
// initialised, for the trivial types used here): `resize(n)` of a fresh
// vector touches nothing, so the threads that fill it take its page faults,
// in parallel, instead of one thread zeroing it first.
template <class T>
struct HugeAllocator {
  using value_type = T;
  HugeAllocator() = default;
  template <class U>
  HugeAllocator(const HugeAllocator<U>&) {}
  T* allocate(size_t n) {
    size_t bytes = n * sizeof(T);
    void* p = bytes >= kHugeFrom ? huge_map(bytes) : std::calloc(bytes ? bytes : 1, 1);
    if (!p) throw std::bad_alloc();
    return static_cast<T*>(p);
  }
  template <class U>
  void construct(U* p) {
    static_assert(std::is_trivially_default_constructible_v<U>, "left as the allocation's zeros");
    ::new (static_cast<void*>(p)) U;
  }
  template <class U, class... A>
  void construct(U* p, A&&... a) {
    ::new (static_cast<void*>(p)) U(std::forward<A>(a)...);
  }
  void deallocate(T* p, size_t n) {
    size_t bytes = n * sizeof(T);
    if (bytes >= kHugeFrom)
      huge_unmap(p, bytes);
    else
      std::free(p);
  }
  template <class U>
  bool operator==(const HugeAllocator<U>&) const { return true; }
};

// Whether `p` lies in the live boot arena (one per process at a time).
bool boot_arena_owns(const void* p);

// The blobs of one boot. open() reserves address space (nothing is touched
// until used); a second arena while one is live, or a failed mapping, leaves
// this one closed and every allocation to malloc. The destructor unmaps it:
// the owner keeps it until every row that may point into it is gone.
class BootArena {
 public:
  BootArena() = default;
  ~BootArena();
  BootArena(const BootArena&) = delete;
  BootArena& operator=(const BootArena&) = delete;

  void open(size_t reserve);
  bool is_open() const { return base_ != nullptr; }

  // One thread's bump pointer: takes 1 MiB pieces of the arena (an atomic
  // add per piece, not per blob).
  class Cursor {
   public:
    explicit Cursor(BootArena* a) : a_(a) {}
    // `n` bytes, 8-aligned, or NULL (closed or full: use malloc).
    void* alloc(size_t n) {
      n = (n + 7) & ~size_t{7};
      if (static_cast<size_t>(end_ - at_) < n && !refill(n)) return nullptr;
      void* p = at_;
      at_ += n;
      return p;
    }

   private:
    bool refill(size_t n);
    BootArena* a_;
    char* at_ = nullptr;
    char* end_ = nullptr;
  };

 private:
  char* base_ = nullptr;
  size_t size_ = 0;
  alignas(64) std::atomic_size_t used_{0};
};

}  // namespace wo::db
