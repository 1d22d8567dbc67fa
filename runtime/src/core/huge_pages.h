// Mappings of their own on transparent huge pages, for the runtime's large
// arrays that are read at random (a big list's slots, a unique hash's slots,
// boot's arenas): on 4 KiB pages each random read was a TLB miss and a
// nested page walk besides its cache miss (docs/perf/store-lang.md,
// "Through the language", rounds 3 and 5). Where the kernel gives no huge pages the
// advice is ignored and this is ordinary memory.
#pragma once
#include <cstddef>

namespace wo {

inline constexpr size_t kHugePage = size_t{2} << 20;
inline constexpr size_t huge_round(size_t n) { return (n + kHugePage - 1) & ~(kHugePage - 1); }  // whole 2 MiB pages

// Built with ASan or TSan: their allocators must see every block, so the
// runtime's own heaps (the small heap, lists' mappings) step aside. Only
// where the code is compiled with the sanitizer: runtime/src/inline/helpers.cpp's
// bitcode (codegen/CMakeLists.txt) is compiled without -fsanitize, so there
// this is false, and nothing in it may use it (its allocation stays a call
// to small_alloc; decision 0077).
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
inline constexpr bool kSanitizedBuild = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
inline constexpr bool kSanitizedBuild = true;
#else
inline constexpr bool kSanitizedBuild = false;
#endif
#else
inline constexpr bool kSanitizedBuild = false;
#endif

// `bytes` rounded up to whole 2 MiB pages (so the kernel places the mapping
// on a 2 MiB boundary), zeroed, advised huge; NULL on failure. Under ASan
// the three are calloc, free and realloc (exactly `bytes`): a block given
// back is then in ASan's quarantine, where a mapping given back would be
// mapped again by the next huge_map and read quietly (decision 0077).
void* huge_map(size_t bytes);
void huge_unmap(void* p, size_t bytes);
// Grows a huge_map mapping of `from` bytes to `to`: its pages move, none is
// copied or touched again, the new part is zero. NULL on failure (p kept).
void* huge_remap(void* p, size_t from, size_t to);

}  // namespace wo
