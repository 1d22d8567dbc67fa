// `woc build`: writes the module as an object file and links it with the
// runtime archive (libwo_runtime.a, found next to the woc executable or in
// ../lib/woc from it: runtime_archive_candidates) using
// the system `c++` driver, into a native executable.
#pragma once
#include <string>
#include <vector>

#include <llvm/ADT/SmallVector.h>

#include "codegen/opt_level.h"

namespace llvm {
class Module;
class TargetMachine;
}  // namespace llvm

namespace wo::driver {

// Returns "" on success, else a one-line message (woc exits 2). `machine`
// generates code at `level` (target.h: target_machine for object files).
// When `unoptimised_parts` is not empty, `module` and those are the
// partitions of the program (parallel_optimise.h), each optimised at `level`
// (-O2: pipeline.cpp partitions no other level) and compiled on a thread of
// its own.
std::string build_executable(llvm::Module& module, llvm::TargetMachine& machine, codegen::OptLevel level,
                             const std::string& out_path,
                             const std::vector<llvm::SmallVector<char, 0>>& unoptimised_parts = {});

// Threads for the machine code (and the optimiser) of a large module: the
// machine's cores, at most 4; WOC_CODEGEN_THREADS=N caps them (1: one).
unsigned build_threads();

// "" if an executable can be written at `out_path` as far as can be told
// before compiling (its directory exists, it is not a directory), else why not.
std::string check_output_path(const std::string& out_path);

// Where woc looks for the runtime archive it links programs with, in order:
// next to its own executable (/proc/self/exe: the build tree, build/bin), then
// <that directory>/../lib/woc (the installed layout, docs/decisions/0093).
std::vector<std::string> runtime_archive_candidates();
// The first candidate that exists, else the first one.
std::string runtime_archive_path();

}  // namespace wo::driver
