// Host target selection shared by `woc run` and `woc build`.
#include "tools/woc/target.h"

#include <vector>

#include <llvm/Support/CommandLine.h>
#include <llvm/Support/Error.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Support/TargetSelect.h>

#include "tools/woc/time_report.h"

namespace wo::driver {

void init_native_target(codegen::OptLevel level) {
  static const bool done = [level] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    llvm::InitializeNativeTargetAsmParser();
    // LLVM's own options, for compile time (docs/decisions/0055):
    // - on AVX-512 hosts the X86 back end runs its domain reassignment pass
    //   (general-purpose to mask-register operations), a third of the machine
    //   code time of a 1,000-line -O2 build (0.36 of 1.1 s CPU), with no
    //   measured effect on the kernels;
    // - at -O2, loops are not fully unrolled (partial and runtime unrolling
    //   stay; -O3 keeps LLVM's full pipeline): every iteration of a .wo loop
    //   carries its preemption check, so a fully unrolled loop is that many
    //   checks and yield calls. On the 1,000-line program this was 30% of the
    //   optimised IR and ~40% of -O2's optimise + machine code time; the
    //   kernels' executables came out byte for byte the same without it.
    // - at -O2, no post-register-allocation scheduling (docs/decisions/0063):
    //   LLVM runs it only for the host CPUs that ask for it (AMD Zen 3/4 among
    //   them; clang's default x86-64 target does not), ~10% of machine code
    //   time on an out-of-order core that reorders the instructions anyway.
    std::vector<const char*> args = {"woc", "-disable-x86-domain-reassignment"};
    if (level == codegen::OptLevel::O2) args.insert(args.end(), {"-unroll-full-max-count=0", "-disable-post-ra"});
    llvm::cl::ParseCommandLineOptions(static_cast<int>(args.size()), args.data(), "", &llvm::nulls());
    return true;
  }();
  (void)done;
}

std::unique_ptr<llvm::orc::JITTargetMachineBuilder> host_machine(codegen::OptLevel level, std::string& error) {
  Phase p("target setup (LLVM init, host detection)");
  init_native_target(level);
  // detectHost fills in the triple, sys::getHostCPUName() and the host's features.
  auto jtmb = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!jtmb) {
    error = llvm::toString(jtmb.takeError());
    return nullptr;
  }
  auto out = std::make_unique<llvm::orc::JITTargetMachineBuilder>(std::move(*jtmb));
  out->setRelocationModel(llvm::Reloc::PIC_);
  out->setCodeModel(llvm::CodeModel::Small);
  out->setCodeGenOptLevel(codegen::llvm_codegen_level(level));
  return out;
}

std::unique_ptr<llvm::TargetMachine> target_machine(const llvm::orc::JITTargetMachineBuilder& host,
                                                    codegen::OptLevel level, CodeFor use, std::string& error) {
  llvm::orc::JITTargetMachineBuilder at(host);
  at.setCodeGenOptLevel(codegen::llvm_codegen_level(level));
  // Object files at -O0 have every branch written in its long form at once
  // (the assembler's "relax all", which clang's driver passed at -O0 until
  // LLVM 19): no fragment per jump and no relaxation passes over them and
  // the line table at the end (MCAssembler::layout was 5% of an -O0 build's
  // instructions). The code is ~5% larger, which -O0 does not mind.
  if (use == CodeFor::ObjectFile && !codegen::optimising(level)) at.getOptions().MCOptions.MCRelaxAll = true;
  auto tm = at.createTargetMachine();
  if (!tm) {
    error = llvm::toString(tm.takeError());
    return nullptr;
  }
  return std::move(*tm);
}

}  // namespace wo::driver
