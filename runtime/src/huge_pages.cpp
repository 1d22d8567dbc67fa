// Huge-page mappings (see huge_pages.h).
#include "huge_pages.h"

#include <sys/mman.h>

namespace wo {
namespace {
size_t round_huge(size_t n) { return (n + kHugePage - 1) & ~(kHugePage - 1); }
}  // namespace

void* huge_map(size_t bytes) {
  size_t n = round_huge(bytes);
  void* p = ::mmap(nullptr, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) return nullptr;
  ::madvise(p, n, MADV_HUGEPAGE);  // a hint: without THP it is 4 KiB pages
  return p;
}

void huge_unmap(void* p, size_t bytes) { ::munmap(p, round_huge(bytes)); }

void* huge_remap(void* p, size_t from, size_t to) {
  void* q = ::mremap(p, round_huge(from), round_huge(to), MREMAP_MAYMOVE);
  return q == MAP_FAILED ? nullptr : q;
}

}  // namespace wo
