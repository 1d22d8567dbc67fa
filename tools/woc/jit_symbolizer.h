// The trap symbolizer of `woc run` (docs/decisions/0035): JIT'd code is not in
// /proc/self/exe, so the runtime's default (libbacktrace on the executable)
// cannot see it. ORC's debugger support registers every JIT'd object with
// gdb's JIT interface (__jit_debug_descriptor), section addresses patched to
// where the code was loaded; this symbolizer reads the DWARF line tables of
// those same objects with LLVM's DebugInfo library.
#pragma once
#include <cstdint>

#include "wo_runtime.h"

namespace wo::driver {

// A WoSymbolizer (wo_runtime.h): installed with wo_set_symbolizer by run_in_jit.
void jit_symbolize(uintptr_t pc, WoFrameFn frame, void* ctx);

}  // namespace wo::driver
