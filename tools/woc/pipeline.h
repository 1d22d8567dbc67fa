// The compiler pipeline shared by every verb: load (lex + parse) → sema →
// [codegen → optimise → --emit-llvm]. Diagnostics and I/O errors are printed
// here; the caller only sees the exit status to use and, when asked for, the
// optimised module.
#pragma once
#include <functional>
#include <memory>
#include <vector>

#include <llvm/ADT/SmallVector.h>

#include "tools/woc/options.h"

namespace llvm {
class LLVMContext;
class Module;
class TargetMachine;
}  // namespace llvm

namespace wo {
class Diagnostics;
class SourceManager;
namespace ast {
struct Program;
}
}  // namespace wo

namespace wo::driver {

// Runs between loading and analysis (woc test adds its entry point here);
// may report diagnostics.
using PrepareProgram = std::function<void(ast::Program&, SourceManager&, Diagnostics&)>;

struct Compiled {
  int status = 0;  // 0: go on; 1: compile errors (printed); 2: I/O or internal error (printed)
  std::unique_ptr<llvm::LLVMContext> ctx;
  std::unique_ptr<llvm::Module> module;  // set when a machine was given and status == 0
  // The level of the module's machine code: opts.opt_level, or -O0 when a
  // function was too large to optimise (codegen::optimize). The caller makes
  // the target machine that generates the code at this level.
  codegen::OptLevel machine_code_level = codegen::kDefaultOptLevel;
  // A large program built at -O2: `module` is its first partition and these
  // the others, as bitcode, all optimised by the build on several threads
  // (parallel_optimise.h); `module` is then not optimised yet.
  std::vector<llvm::SmallVector<char, 0>> unoptimised_parts;
};

// `woc build` exits once the executable is linked: its large structures (the
// AST, the analysis, the LLVM module and its context) are left for the exit
// to drop instead of being taken apart node by node, as clang's
// -disable-free does (~3.5 ms of a 1,000-line -O0 build's ~100 ms CPU). Not
// under a sanitizer, whose leak check would report them, and not for the
// other verbs (`run` frees the compiler's memory before the program runs).
bool leave_to_exit(const Options& opts);

// Compiles `opts.path`. With `machine` == nullptr stops after sema (woc check
// without --emit-llvm). Otherwise lowers for `machine` (with a C `main` when
// `with_c_main`), optimises at opts.opt_level and writes --emit-llvm if asked.
Compiled compile(const Options& opts, llvm::TargetMachine* machine, bool with_c_main,
                 const PrepareProgram& prepare = nullptr);

// Prints `woc: <message>` on stderr and returns 2.
int driver_failure(const std::string& message);

}  // namespace wo::driver
