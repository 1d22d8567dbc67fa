// Huge-page mappings (see huge_pages.h).
#include "huge_pages.h"

#include <sys/mman.h>

namespace wo {

void* huge_map(size_t bytes) {
  size_t n = huge_round(bytes);
  void* p = ::mmap(nullptr, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) return nullptr;
  ::madvise(p, n, MADV_HUGEPAGE);  // a hint: without THP it is 4 KiB pages
  return p;
}

void huge_unmap(void* p, size_t bytes) { ::munmap(p, huge_round(bytes)); }

void* huge_remap(void* p, size_t from, size_t to) {
  void* q = ::mremap(p, huge_round(from), huge_round(to), MREMAP_MAYMOVE);
  return q == MAP_FAILED ? nullptr : q;
}

}  // namespace wo
