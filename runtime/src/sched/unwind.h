// sched::Unwind: what a fiber that must end without running further user
// code is thrown (shutdown, or a stop signal that ended a park). Its own
// header so the trap machinery (trap.cpp) can let it pass without the whole
// scheduler interface.
#pragma once

namespace wo::sched {

// Not a trap: wo_catch lets it pass, so `.wo` `try` never catches it; drops
// still run.
struct Unwind {};

}  // namespace wo::sched
