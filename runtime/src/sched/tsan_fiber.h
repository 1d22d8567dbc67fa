// ThreadSanitizer's fiber annotations, for the scheduler's context switches.
//
// TSan models one call stack and one vector clock per thread. Boost.Context
// switches stacks behind its back, so without these calls TSan mixes the
// shadow stacks of all fibers of a shard and, worse, sees no ordering
// between a fiber that ran on one thread and the code that runs after it
// (false reports, or missed ones). With them every fiber is a TSan "fiber":
//
//   void* f = wo_tsan_fiber_create();   // when a fiber context is made
//   wo_tsan_fiber_switch(f);            // IMMEDIATELY before jump_fcontext into it
//   wo_tsan_fiber_switch(back);         // ... and before every jump back out
//   wo_tsan_fiber_destroy(f);           // when the context is freed (never the running one)
//
// `back` is what wo_tsan_fiber_current() returned on the scheduler's own
// stack (the shard thread) before it first switched. A switch synchronises
// (flags 0): everything the previous fiber did happens-before what the next
// one does, which is true on one thread. Pooled fibers keep their TSan fiber
// across reuse (their shadow call stack is balanced when the body returns or
// is unwound); a fiber whose stack was abandoned without unwinding must be
// destroyed and re-created.
//
// Every function is a no-op (nullptr) unless the translation unit is built
// with -fsanitize=thread (GCC: __SANITIZE_THREAD__; clang: __has_feature).
// docs/decisions/0021-thread-sanitizer-and-stress.md says what TSan covers.
#pragma once

#if defined(__SANITIZE_THREAD__)
#define WO_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define WO_TSAN 1
#endif
#endif

#ifdef WO_TSAN
#include <sanitizer/tsan_interface.h>
#endif

inline void* wo_tsan_fiber_create() {
#ifdef WO_TSAN
  return __tsan_create_fiber(0);
#else
  return nullptr;
#endif
}

inline void wo_tsan_fiber_switch(void* f) {
#ifdef WO_TSAN
  if (f) __tsan_switch_to_fiber(f, 0);
#else
  (void)f;
#endif
}

inline void wo_tsan_fiber_destroy(void* f) {
#ifdef WO_TSAN
  if (f) __tsan_destroy_fiber(f);
#else
  (void)f;
#endif
}

inline void* wo_tsan_fiber_current() {
#ifdef WO_TSAN
  return __tsan_get_current_fiber();
#else
  return nullptr;
#endif
}
