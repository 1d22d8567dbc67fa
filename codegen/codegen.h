// Code generation: the analysed program -> one LLVM module, and the new pass
// manager pipeline. The module defines `wo_main_entry` (the WoEntry of the
// runtime) and, when `with_c_main` is set, a C `main` that calls wo_start.
#pragma once
#include <memory>
#include <string>

#include "codegen/opt_level.h"

namespace llvm {
class LLVMContext;
class Module;
class TargetMachine;
}  // namespace llvm

namespace wo {
class SourceManager;
}
namespace wo::sema {
struct ProgramInfo;
}

namespace wo::codegen {

// DWARF the module carries (debug_info.cpp, docs/decisions/0035 and 0036).
// Line tables are always emitted: an uncaught trap symbolizes its call chain
// from them. Full adds types, locals and parameters for a debugger (-g).
enum class DebugInfo { LineTables, Full };

struct Options {
  OptLevel opt_level = kDefaultOptLevel;
  bool with_c_main = false; // woc build: emit `int main(int, char**)`
  DebugInfo debug = DebugInfo::LineTables;
  const SourceManager* sources = nullptr;  // file paths for DWARF and trap sites (null: no DWARF)
};

// The module is NOT verified: run llvm::verifyModule before using it (the
// driver reports a failure as an internal error; fuzz/ counts it as a finding).
std::unique_ptr<llvm::Module> lower(const sema::ProgramInfo& program, llvm::LLVMContext& ctx,
                                    const Options& opts);

// Runs the -O pipeline of the new pass manager over `m` for target `tm`.
// Returns true when some function was too large to optimise (optimize.cpp):
// machine code for `m` should then be generated without optimisation too.
// `sanitize` is a -fsanitize list ("thread", "address,undefined"): with
// `thread` (or `address`) every function of `m` is instrumented like clang's
// -fsanitize does, so that generated code is checked with the runtime.
bool optimize(llvm::Module& m, llvm::TargetMachine* tm, OptLevel opt_level, const std::string& sanitize = "");

// optimize() in two steps, for `woc build` to run the second on partitions
// of the module in parallel (tools/woc/parallel_optimise.cpp): the module-wide
// preparation (which calls stay calls, the runtime's helpers linked in, the
// too-large functions; returns what optimize() returns), then the pipeline
// itself and the STACK checks it leaves implied.
bool prepare_optimize(llvm::Module& m, OptLevel opt_level);
void run_pipeline(llvm::Module& m, llvm::TargetMachine* tm, OptLevel opt_level, const std::string& sanitize = "");

// Drops the STACK checks that a call made just before them has already made
// (implied_stack_checks.cpp, docs/decisions/0063): after tail-recursion
// elimination, fib's loop checked its raised limit right after passing it to
// a call that checks it on entry. optimize() runs it last at -O1 and above.
// Returns how many were dropped.
unsigned drop_implied_stack_checks(llvm::Module& m);

// Links the definitions of the runtime's hot helpers that `m` calls
// (runtime/src/inline/helpers.cpp, embedded as bitcode) into `m` as
// available_externally, so the optimiser can inline them (runtime_inline.cpp,
// docs/decisions/0052). optimize() does it at -O1 and above. False when the
// bitcode could not be linked (the calls then stay calls).
bool link_runtime_helpers(llvm::Module& m);

// The name of the entry function generated code defines.
inline constexpr const char* kEntrySymbol = "wo_main_entry";

}  // namespace wo::codegen
