// sched::Unwind: what a fiber that must end without running further user
// code is thrown (shutdown, or a stop signal that ended a park). The
// scheduler throws it (hence its namespace), but the rule it exists for is
// the trap machinery's: wo_catch (trap.cpp) must let it pass. So it lives
// in the core, the bottom layer, which includes nothing of sched/.
#pragma once

namespace wo::sched {

// Not a trap: wo_catch lets it pass, so `.wo` `try` never catches it; drops
// still run.
struct Unwind {};

}  // namespace wo::sched
