// The calling thread's WoFiberLocal (fiber_local.cpp).
#pragma once
#include <cstdint>

#include "wo_actor.h"

namespace wo::sched {

WoFiberLocal& local();
// Sets wo_fiber_local_offset on the first call (checks it on later ones) and
// loads this thread's stack limit and a fresh budget.
void init_thread_local(uintptr_t stack_limit);
int64_t reductions();  // WO_REDUCTIONS (default 4000; garbage keeps the default)

}  // namespace wo::sched
