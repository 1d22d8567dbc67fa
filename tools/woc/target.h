// The one description of the machine woc compiles for: the host (triple, CPU
// name and features), position-independent code, at the requested -O level.
// `woc run` hands it to the JIT, `woc build` makes a TargetMachine from it, and
// both optimise for the same target.
#pragma once
#include <memory>
#include <string>

#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/Target/TargetMachine.h>

namespace wo::driver {

// Initialises LLVM's native target, asm printer and asm parser, and sets the
// LLVM options woc compiles with at `opt_level` (once per process: woc
// compiles one program, at one level, per process; the first call decides).
void init_native_target(int opt_level);

// The builder for the host machine at `opt_level` (0..3). Errors (no target
// registered for the host) are returned as a message in `error`.
std::unique_ptr<llvm::orc::JITTargetMachineBuilder> host_machine(int opt_level, std::string& error);

}  // namespace wo::driver
