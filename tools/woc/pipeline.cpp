// Runs the stages in order and stops at the first one that reports an error.
#include "tools/woc/pipeline.h"

#include <iostream>

#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Pass.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>

#include "codegen/codegen.h"
#include "common/diagnostics.h"
#include "frontend/loader.h"
#include "tools/woc/diag_output.h"
#include "tools/woc/native_build.h"
#include "tools/woc/parallel_optimise.h"
#include "tools/woc/time_report.h"
#include "sema/program_info.h"
#include "sema/sema.h"
#include "woc_config.h"

namespace wo::driver {

int driver_failure(const std::string& message) {
  std::cerr << "woc: " << message << "\n";
  return 2;
}

static int write_ir(const llvm::Module& module, const std::string& path) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec, llvm::sys::fs::OF_Text);
  if (ec) return driver_failure("cannot write " + path + ": " + ec.message());
  module.print(os, nullptr);
  os.flush();
  if (os.has_error()) return driver_failure("cannot write " + path + ": " + os.error().message());
  return 0;
}

bool leave_to_exit(const Options& opts) { return opts.verb == Verb::Build && !*WOC_SANITIZE; }

Compiled compile(const Options& opts, llvm::TargetMachine* machine, bool with_c_main,
                 const PrepareProgram& prepare) {
  Compiled out;
  SourceManager sources;
  Diagnostics diags(sources);
  LexOptions lex;
  lex.defines = opts.defines;
  lex.with_tests = opts.verb == Verb::Test;

  Phase load_phase("load (read, lex, parse)");
  LoadResult loaded = load_program(opts.path, sources, diags, lex, opts.update_deps);
  load_phase.stop();
  if (!loaded.io_error.empty()) {
    out.status = driver_failure(loaded.io_error);  // already worded: "cannot read '...': why"
    return out;
  }
  if (loaded.program.library && machine && opts.verb != Verb::Check && opts.verb != Verb::Test) {
    out.status = driver_failure(opts.path + "/wo.toml: kind = \"library\" has no entry point to run or build (use `woc check`)");
    return out;
  }
  if (prepare && !diags.has_errors()) {
    Phase p("prepare (test entry point)");
    prepare(loaded.program, sources, diags);
  }
  std::unique_ptr<sema::ProgramInfo> info;
  if (!diags.has_errors()) {
    Phase p("sema");
    info = sema::analyze(loaded.program, diags);
  }
  // Warnings alone are shown and do not stop the build.
  if (!diags.all().empty()) diags.render(std::cerr, render_options(opts));
  if (diags.has_errors()) {
    out.status = 1;
    return out;
  }
  if (!info) {
    out.status = driver_failure("internal error: the analysis produced no program");
    return out;
  }
  if (!machine) return out;

  out.ctx = std::make_unique<llvm::LLVMContext>();
  codegen::Options cg;
  cg.opt_level = opts.opt_level;
  cg.with_c_main = with_c_main;
  cg.debug = opts.debug_info ? codegen::DebugInfo::Full : codegen::DebugInfo::LineTables;
  cg.sources = &sources;
  {
    Phase p("codegen (IR emission)");
    out.module = codegen::lower(*info, *out.ctx, cg);
  }
  if (!out.module) {
    out.status = driver_failure("internal error: code generation produced no module");
    return out;
  }
  out.module->setTargetTriple(machine->getTargetTriple().str());
  out.module->setDataLayout(machine->createDataLayout());

  std::string broken;
  llvm::raw_string_ostream why(broken);
  Phase verify_phase("verify");
  bool invalid = llvm::verifyModule(*out.module, &why);
  verify_phase.stop();
  if (invalid) {
    if (!opts.emit_llvm.empty()) write_ir(*out.module, opts.emit_llvm);
    out.status = driver_failure("internal error: invalid IR generated:\n" + why.str());
    return out;
  }
  {
    Phase p("optimise (-O pipeline)");
    // An executable at -O2: a large program is optimised in partitions, on
    // several threads, by the build (docs/decisions/0067). Not when the
    // optimised module is asked for (--emit-llvm), nor under a sanitizer or
    // LLVM's pass timers (not thread-safe): those see the one module.
    bool too_large = false;
    if (with_c_main && opts.opt_level == codegen::OptLevel::O2 && opts.emit_llvm.empty() && !*WOC_SANITIZE &&
        !llvm::TimePassesIsEnabled) {
      too_large = codegen::prepare_optimize(*out.module, opts.opt_level);
      if (!too_large) out.unoptimised_parts = partition_for_optimising(*out.module, build_threads());
      if (out.unoptimised_parts.empty()) codegen::run_pipeline(*out.module, machine, opts.opt_level);
    } else {
      too_large = codegen::optimize(*out.module, machine, opts.opt_level, WOC_SANITIZE);
    }
    out.machine_code_level = too_large ? codegen::OptLevel::O0 : opts.opt_level;
  }
  if (!opts.emit_llvm.empty()) {
    Phase p("write --emit-llvm");
    out.status = write_ir(*out.module, opts.emit_llvm);
  }
  if (leave_to_exit(opts)) {
    new ast::Program(std::move(loaded.program));  // NOLINT: left to the exit on purpose
    (void)info.release();
  }
  return out;
}

}  // namespace wo::driver
