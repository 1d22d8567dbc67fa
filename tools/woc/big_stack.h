// Runs woc on a thread with a large stack. The stages walk the AST
// recursively; the nesting gate (frontend/nesting.h) bounds how deep, and this
// stack is sized for that bound with headroom (docs/decisions/0014).
#pragma once
#include <cstddef>
#include <functional>

namespace wo::driver {

// Reserved, not committed: only the pages a deep program touches are used.
// Measured worst case at the gate's limits (docs/decisions/0014): ~60 MiB in
// a release build, ~480 MiB with AddressSanitizer, whose frames are ~10x
// larger; both get a reserve well above that.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
inline constexpr size_t kCompilerStackBytes = size_t(4) << 30;
#else
inline constexpr size_t kCompilerStackBytes = size_t(1) << 30;
#endif

// Runs `body` on a fresh thread with `bytes` of stack and returns its result.
// Asynchronous signals are routed to that thread (the calling thread blocks
// them while it waits), so a program run by `woc run` sees SIGINT/SIGTERM
// interrupt its blocking calls as it would on the main thread. If no thread
// with that stack can be created (e.g. a low RLIMIT_AS), smaller ones are
// tried down to 64 MiB, and then `body` runs right here.
int run_on_big_stack(size_t bytes, const std::function<int()>& body);

}  // namespace wo::driver
