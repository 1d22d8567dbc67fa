// The one description of the machine woc compiles for: the host (triple, CPU
// name and features), position-independent code, at the requested -O level.
// `woc run` hands it to the JIT, `woc build` makes a TargetMachine from it, and
// both optimise for the same target.
#pragma once
#include <memory>
#include <string>

#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/Target/TargetMachine.h>

#include "codegen/opt_level.h"

namespace wo::driver {

// Initialises LLVM's native target, asm printer and asm parser, and sets the
// LLVM options woc compiles with at `level` (once per process: woc
// compiles one program, at one level, per process; the first call decides).
void init_native_target(codegen::OptLevel level);

// The builder for the host machine at `level`. Errors (no target
// registered for the host) are returned as a message in `error`.
std::unique_ptr<llvm::orc::JITTargetMachineBuilder> host_machine(codegen::OptLevel level, std::string& error);

// What a target machine's code is for: the JIT (`woc run`) or object files
// (`woc build`, `woc test`).
enum class CodeFor { Jit, ObjectFile };

// A target machine for the host described by `host`, generating machine code
// at `level` (which may differ from the builder's: -O0 for a module with a
// function too large to optimise, pipeline.h). Made with its level and its
// options; never changed afterwards. Null with a message in `error`.
std::unique_ptr<llvm::TargetMachine> target_machine(const llvm::orc::JITTargetMachineBuilder& host,
                                                    codegen::OptLevel level, CodeFor use, std::string& error);

}  // namespace wo::driver
