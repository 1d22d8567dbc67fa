// Glue between the pipeline and the two back ends (JIT, native executable).
#include "tools/woc/verbs.h"

#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Target/TargetMachine.h>

#include "tools/woc/jit.h"
#include "tools/woc/native_build.h"
#include "tools/woc/pipeline.h"
#include "tools/woc/target.h"
#include "tools/woc/time_report.h"

namespace wo::driver {
namespace {

std::unique_ptr<llvm::TargetMachine> make_machine(const llvm::orc::JITTargetMachineBuilder& builder,
                                                  codegen::OptLevel level, CodeFor use, std::string& error) {
  Phase p("target machine");
  return target_machine(builder, level, use, error);
}

// The machine that generates the code of `c`: `machine` (which optimised it)
// when its level is the code's, else a new one at the code's level (-O0: a
// function was too large to optimise). Null with a message in `error`.
std::unique_ptr<llvm::TargetMachine> code_machine(const Compiled& c, const Options& opts,
                                                  std::unique_ptr<llvm::TargetMachine> machine,
                                                  const llvm::orc::JITTargetMachineBuilder& builder, CodeFor use,
                                                  std::string& error) {
  if (c.machine_code_level == opts.opt_level) return machine;
  Phase p("target machine (-O0 machine code)");
  return target_machine(builder, c.machine_code_level, use, error);
}

}  // namespace

int check_verb(const Options& opts) {
  // Diagnostics only, unless --emit-llvm asks for the IR as well.
  if (opts.emit_llvm.empty()) return compile(opts, nullptr, false).status;
  std::string error;
  auto builder = host_machine(opts.opt_level, error);
  auto machine = builder ? make_machine(*builder, opts.opt_level, CodeFor::Jit, error) : nullptr;
  if (!machine) return driver_failure("no target for this host: " + error);
  return compile(opts, machine.get(), false).status;
}

int run_verb(const Options& opts) {
  std::string error;
  auto builder = host_machine(opts.opt_level, error);
  auto machine = builder ? make_machine(*builder, opts.opt_level, CodeFor::Jit, error) : nullptr;
  if (!machine) return driver_failure("no target for this host: " + error);
  Compiled c = compile(opts, machine.get(), false);
  if (c.status != 0) return c.status;
  machine = code_machine(c, opts, std::move(machine), *builder, CodeFor::Jit, error);
  if (!machine) return driver_failure("no target for this host: " + error);
  JitResult r = run_in_jit(std::move(c.ctx), std::move(c.module), std::move(builder), std::move(machine), opts.path,
                           opts.program_args, opts.debug_info);
  if (!r.error.empty()) return driver_failure(r.error);
  return r.status;
}

int build_verb(const Options& opts) {
  if (auto bad = check_output_path(opts.output); !bad.empty()) return driver_failure(bad);
  std::string error;
  auto builder = host_machine(opts.opt_level, error);
  auto machine = builder ? make_machine(*builder, opts.opt_level, CodeFor::ObjectFile, error) : nullptr;
  if (!machine) return driver_failure("no target for this host: " + error);
  Compiled c = compile(opts, machine.get(), true);
  if (c.status != 0) return c.status;
  machine = code_machine(c, opts, std::move(machine), *builder, CodeFor::ObjectFile, error);
  if (!machine) return driver_failure("no target for this host: " + error);
  std::string failed = build_executable(*c.module, *machine, c.machine_code_level, opts.output, c.unoptimised_parts);
  if (leave_to_exit(opts)) {
    (void)c.module.release();
    (void)c.ctx.release();
  }
  return failed.empty() ? 0 : driver_failure(failed);
}

}  // namespace wo::driver
