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

// The return addresses of the calling thread's stack, innermost first, when
// enabled and running `main` (an actor's trap ends in its death line, which
// has no extra lines, so fibers skip the walk).
void capture_backtrace(std::vector<uintptr_t>& pcs);

// The lines after `trap N in FN at line L: MSG`, each ending in '\n':
//   "  at FILE:L:C", then the detail, then "  call chain, innermost first:"
//   and one "    FN at FILE:L:C" per .wo frame. Empty when disabled.
std::string trap_extra_lines(const Trap& t);

}  // namespace wo
