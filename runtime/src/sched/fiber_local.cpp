// The per-thread WoFiberLocal that generated code reads inline (wo_actor.h):
// the back-edge budget and the running fiber's stack limit. Generated code
// finds it at llvm.thread.pointer() + wo_fiber_local_offset; the runtime's
// TLS is static (it is linked into the executable), so the offset is the
// same on every thread, and each thread checks that when it starts.
#include <cstdio>
#include <cstdlib>

#include "fiber_local.h"

namespace wo::sched {

namespace {
thread_local WoFiberLocal t_local{0, 0};
}  // namespace

WoFiberLocal& local() { return t_local; }

intptr_t thread_offset() {
  return reinterpret_cast<intptr_t>(&t_local) - reinterpret_cast<intptr_t>(__builtin_thread_pointer());
}

void init_thread_local(uintptr_t stack_limit) {
  intptr_t off = thread_offset();
  if (wo_fiber_local_offset == 0) {
    wo_fiber_local_offset = off;
  } else if (wo_fiber_local_offset != off) {
    std::fputs("wo: the runtime's thread-local block moved between threads (not statically linked?)\n", stderr);
    std::abort();
  }
  t_local.stack_limit = stack_limit;
  t_local.budget = reductions();
}

int64_t reductions() {
  static const int64_t n = [] {
    const char* v = std::getenv("WO_REDUCTIONS");
    if (!v || !*v) return int64_t{4000};
    char* end = nullptr;
    long long x = std::strtoll(v, &end, 10);
    if (*end || x < 1 || x > (1LL << 40)) return int64_t{4000};
    return static_cast<int64_t>(x);
  }();
  return n;
}

}  // namespace wo::sched

int64_t wo_fiber_local_offset = 0;  // declared in wo_actor.h
