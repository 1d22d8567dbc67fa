// Only in ThreadSanitizer builds (docs/decisions/0021): woc instruments the
// code it generates with LLVM 19's ThreadSanitizer pass, which lowers the
// memset/memcpy/memmove intrinsics to __tsan_memset & co. Those entry points
// are newer than GCC 12's libtsan, which serves the rest, so the runtime
// provides them (for `woc run` through woc's exported symbols, for `woc build`
// from libwo_runtime.a): each forwards to the C library function, which
// libtsan intercepts and checks like any other access. Weak, so a libtsan
// that has them wins.
#if defined(__SANITIZE_THREAD__)
#include <cstddef>
#include <cstring>

extern "C" {

__attribute__((weak)) void* __tsan_memset(void* dst, int c, size_t n) { return std::memset(dst, c, n); }

__attribute__((weak)) void* __tsan_memcpy(void* dst, const void* src, size_t n) {
  return std::memcpy(dst, src, n);
}

__attribute__((weak)) void* __tsan_memmove(void* dst, const void* src, size_t n) {
  return std::memmove(dst, src, n);
}

}  // extern "C"
#endif
