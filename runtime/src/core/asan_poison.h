// AddressSanitizer and the memory the runtime hands out itself (decision
// 0077). Under ASan each block the runtime gives out and takes back is
// either the system allocator's (ASan sees its free and its reuse: the small
// heap and lists' mappings step aside, kSanitizedBuild; huge_map is calloc),
// or, where the runtime keeps a freed block to hand it out again (the
// store's block arenas, boot's blobs, the HTTP scratch buffers, actors' call
// records), poisoned from its release until it is handed out again, so that
// reading a freed block is reported as it would be in malloc's. No-ops
// without -fsanitize=address.
#pragma once
#include <cstddef>

#if defined(__SANITIZE_ADDRESS__)
#define WO_ASAN_POISON 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define WO_ASAN_POISON 1
#endif
#endif

#ifdef WO_ASAN_POISON
#include <sanitizer/asan_interface.h>
#endif

namespace wo {

#ifdef WO_ASAN_POISON
inline constexpr bool kAsanBuild = true;
// [p, p + n) is released: any access is a use after free until unpoisoned.
inline void asan_poison(const void* p, size_t n) { __asan_poison_memory_region(p, n); }
// [p, p + n) is handed out again (or given back to its allocator).
inline void asan_unpoison(const void* p, size_t n) { __asan_unpoison_memory_region(p, n); }
#else
inline constexpr bool kAsanBuild = false;
inline void asan_poison(const void*, size_t) {}
inline void asan_unpoison(const void*, size_t) {}
#endif

}  // namespace wo
