// `woc run`: executes a compiled module in the woc process with ORC LLJIT.
//
// The runtime is linked into woc itself (whole archive, exported with
// -rdynamic), so every `wo_*` symbol, the C++ personality routine and the
// __cxa_* functions generated code calls are resolved from the process. EH
// frames of JIT'd code are registered with the unwinder so that a trap thrown
// by the runtime unwinds through generated frames into their landing pads.
#pragma once
#include <memory>
#include <string>
#include <vector>

namespace llvm {
class LLVMContext;
class Module;
class TargetMachine;
namespace orc {
class JITTargetMachineBuilder;
}
}  // namespace llvm

namespace wo::driver {

struct JitResult {
  int status = 0;     // the program's exit status (from wo_start)
  std::string error;  // non-empty: the JIT failed before or instead of running
};

// Runs `module` (which must define codegen::kEntrySymbol; optimised for `tm`,
// which compiles it to machine code, `machine` describing the same target) with argv[0] =
// `program_path` and argv[1..] = `args`. Takes ownership of the context and
// the module. `debugger` (woc run -g): failing to register the JIT'd code
// with gdb's JIT interface is an error rather than a missing trap call chain.
JitResult run_in_jit(std::unique_ptr<llvm::LLVMContext> ctx, std::unique_ptr<llvm::Module> module,
                     std::unique_ptr<llvm::orc::JITTargetMachineBuilder> machine,
                     std::unique_ptr<llvm::TargetMachine> tm, const std::string& program_path, const std::vector<std::string>& args,
                     bool debugger = false);

}  // namespace wo::driver
