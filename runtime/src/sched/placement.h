// The placement knob (docs/decisions/0083), for wo_start's check of the
// environment; the rest of placement.cpp is declared in sched.h.
#pragma once

namespace wo::sched {

// WO_PLACEMENT: true for "spread" (round-robin, nothing moves), false for
// "follow" or unset (the default). A bad value exits 2 with a message when
// `strict` (wo_start), else reads as the default.
bool read_spread(bool strict);

}  // namespace wo::sched
