// AddressSanitizer's view of fiber switches: ASan keeps the bounds of "the"
// stack per thread (to unpoison on a throw, to check stack accesses), so
// each switch to a Boost.Context stack is announced with its bounds. No-ops
// in builds without -fsanitize=address.
#pragma once
#include <cstddef>

#if defined(__SANITIZE_ADDRESS__)
#define WO_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define WO_ASAN 1
#endif
#endif

#ifdef WO_ASAN
extern "C" {
void __sanitizer_start_switch_fiber(void** fake_stack_save, const void* bottom, size_t size);
void __sanitizer_finish_switch_fiber(void* fake_stack_save, const void** bottom_old, size_t* size_old);
void __asan_unpoison_memory_region(void const volatile* addr, size_t size);
}
// Before switching to the stack [bottom, bottom + size). `save` is null when
// the current fiber ends for good.
inline void wo_asan_start_switch(void** save, const void* bottom, size_t size) {
  __sanitizer_start_switch_fiber(save, bottom, size);
}
// First thing on the new stack (and after each return to an old one).
inline void wo_asan_finish_switch(void* save) {
  const void* bottom_old = nullptr;
  size_t size_old = 0;
  __sanitizer_finish_switch_fiber(save, &bottom_old, &size_old);
}
// Before a fiber stack is unmapped: the poison ASan left on it (the
// stack-use-after-scope marks of frames that never returned normally) would
// otherwise stay in the shadow and fire on whatever is mapped there next
// (a store's log file read by replay, in the unit tests).
inline void wo_asan_forget_stack(const void* bottom, size_t size) { __asan_unpoison_memory_region(bottom, size); }
#else
inline void wo_asan_start_switch(void**, const void*, size_t) {}
inline void wo_asan_finish_switch(void*) {}
inline void wo_asan_forget_stack(const void*, size_t) {}
#endif
