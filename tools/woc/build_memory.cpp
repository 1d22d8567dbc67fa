// use_huge_page_heap (build_memory.h).
//
// A 1,000-line -O0 build touches ~17 MB of heap once (the AST, the LLVM
// module, the machine functions, lld's symbol tables) and exits. On 4 KiB
// pages that was ~4,400 page faults, a fifth of the build's CPU in the
// kernel (sys 23 of 108 ms, load 3). The same heap on 2 MiB transparent
// huge pages faults a few dozen times: sys 23 -> 12-15 ms, CPU -8 to -10 ms
// (measured with GLIBC_TUNABLES=glibc.malloc.hugetlb=1:glibc.malloc.arena_max=1,
// which this does from inside: the tunable can only be set in the
// environment before the process starts).
//
// - One arena: woc compiles on its big-stack thread (big_stack.h), whose
//   allocations would otherwise go to a second arena, mmap'd 64 MiB at a time
//   and grown by mprotect a few pages at a time; the main arena grows by brk.
// - The main arena is grown once by kReserve (M_TOP_PAD) and that range is
//   madvise(MADV_HUGEPAGE)d; blocks up to kReserve come from it rather than
//   from mmap (M_MMAP_THRESHOLD), and freed memory is not trimmed back
//   (M_TRIM_THRESHOLD): the process ends soon.
// Without transparent huge pages (`never`) the madvise fails and the heap is
// as before on small pages. Not under a sanitizer: its allocator is not
// glibc's.
#include "tools/woc/build_memory.h"

#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>

#include "woc_config.h"

namespace wo::driver {

namespace {
constexpr size_t kHugePage = size_t(2) << 20;
constexpr size_t kReserve = size_t(64) << 20;  // address space, not memory: only touched pages count
}  // namespace

void use_huge_page_heap() {
  if (*WOC_SANITIZE) return;
  mallopt(M_ARENA_MAX, 1);
  mallopt(M_MMAP_THRESHOLD, static_cast<int>(kReserve));
  mallopt(M_TRIM_THRESHOLD, static_cast<int>(2 * kReserve));
  mallopt(M_TOP_PAD, static_cast<int>(kReserve));
  // One allocation that does not fit the current top makes malloc extend the
  // heap by it plus kReserve; freed, it goes back to the top, untouched.
  auto before = reinterpret_cast<uintptr_t>(sbrk(0));
  void* volatile grow = std::malloc(kHugePage);  // volatile: the compiler may not drop the pair
  auto after = reinterpret_cast<uintptr_t>(sbrk(0));
  std::free(grow);
  uintptr_t start = (before + kHugePage - 1) & ~(kHugePage - 1);
  uintptr_t end = after & ~(kHugePage - 1);
  if (end <= start) return;
  madvise(reinterpret_cast<void*>(start), end - start, MADV_HUGEPAGE);
  // Splitting the grown top wrote the remainder's header 2 MiB in, on a
  // small page, and a 2 MiB range with a small page in it is not made a huge
  // page on fault (~500 faults). Above `before` nothing is live now (the
  // block went back into the top, whose header is below `before`): the
  // range is dropped so that every 2 MiB of it starts empty. (The pages
  // between `before` and the first 2 MiB boundary stay small: ~350-500
  // faults left, the heap's first use.)
  madvise(reinterpret_cast<void*>(start), end - start, MADV_DONTNEED);
}

}  // namespace wo::driver
