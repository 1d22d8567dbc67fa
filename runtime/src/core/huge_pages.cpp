// Huge-page mappings (see huge_pages.h).
#include "huge_pages.h"

#include <sys/mman.h>

#include <cstdlib>
#include <cstring>

#include "asan_poison.h"

namespace wo {

void* huge_map(size_t bytes) {
  if (kAsanBuild) return std::calloc(1, bytes ? bytes : 1);  // ASan's: calloc of a mapping's size touches nothing
  size_t n = huge_round(bytes);
  void* p = ::mmap(nullptr, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) return nullptr;
  ::madvise(p, n, MADV_HUGEPAGE);  // a hint: without THP it is 4 KiB pages
  return p;
}

void huge_unmap(void* p, size_t bytes) {
  if (kAsanBuild) {
    std::free(p);
    return;
  }
  ::munmap(p, huge_round(bytes));
}

void* huge_remap(void* p, size_t from, size_t to) {
  if (kAsanBuild) {
    void* q = std::realloc(p, to);
    if (q && to > from) std::memset(static_cast<char*>(q) + from, 0, to - from);
    return q;
  }
  void* q = ::mremap(p, huge_round(from), huge_round(to), MREMAP_MAYMOVE);
  return q == MAP_FAILED ? nullptr : q;
}

}  // namespace wo
