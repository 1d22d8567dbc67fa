// The extra lines of an uncaught trap in `main` (docs/decisions/0035): the
// site's file and column, the values that matter, and the call chain of .wo
// frames. Nothing is done per call: a trap records the return addresses on
// the stack (the unwinder walks .eh_frame, which every function has), and
// only an uncaught one turns them into names and lines, through the line
// tables every module carries (DWARF, codegen/debug_info.cpp).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace wo {

struct Trap;

// False when WO_BACKTRACE=0 (read once).
bool backtrace_enabled();

// What the calling thread runs, as far as capture_backtrace cares: `main`
// (or code on no fiber at all: a thread of its own, a C ABI user), an
// actor's receive on a delivery fiber, or the scheduler's own code (a shard's
// loop, a delivery fiber between receives), for which nothing is recorded.
// Declared here and answered by the scheduler, which knows its fibers
// (sched/shard.cpp): the core asks without including anything of sched.
enum class StackKind { Main, Receive, Scheduler };
StackKind current_stack_kind();

// The return addresses of the calling thread's stack, innermost first, when
// enabled and running `main` (the innermost 128) or an actor's receive
// (the innermost 112 and the outermost 16, where the receive is: its death
// line is followed by the receive's frame, docs/decisions/0092).
void capture_backtrace(std::vector<uintptr_t>& pcs);

// The lines after `trap N in FN at line L: MSG`, each ending in '\n':
//   "  at FILE:L:C", then the detail, then "  call chain, innermost first:"
//   and one "    FN at FILE:L:C" per .wo frame. Empty when disabled.
std::string trap_extra_lines(const Trap& t);

// The outermost .wo frame named `fn` (`Worker.receive`) among the trap's
// return addresses, as "  in FN at FILE:LINE\n" - the line after an actor's
// death line (docs/decisions/0092). Empty when disabled or not found.
std::string trap_frame_line(const Trap& t, const std::string& fn);

}  // namespace wo
