// ThreadSanitizer's view of fiber switches. TSan tracks one shadow stack and
// one happens-before clock per thread; Boost.Context switches stacks behind
// its back, so every switch is announced (create / switch / destroy). No-ops
// in builds without -fsanitize=thread.
#pragma once

#if defined(__SANITIZE_THREAD__)
#define WO_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define WO_TSAN 1
#endif
#endif

#ifdef WO_TSAN
extern "C" {
void* __tsan_get_current_fiber(void);
void* __tsan_create_fiber(unsigned flags);
void __tsan_destroy_fiber(void* fiber);
void __tsan_switch_to_fiber(void* fiber, unsigned flags);
}
inline void* wo_tsan_fiber_current() { return __tsan_get_current_fiber(); }
inline void* wo_tsan_fiber_create() { return __tsan_create_fiber(0); }
inline void wo_tsan_fiber_destroy(void* f) { if (f) __tsan_destroy_fiber(f); }
inline void wo_tsan_fiber_switch(void* f) { if (f) __tsan_switch_to_fiber(f, 0); }
#else
inline void* wo_tsan_fiber_current() { return nullptr; }
inline void* wo_tsan_fiber_create() { return nullptr; }
inline void wo_tsan_fiber_destroy(void*) {}
inline void wo_tsan_fiber_switch(void*) {}
#endif
