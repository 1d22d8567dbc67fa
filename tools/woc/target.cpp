// Host target selection shared by `woc run` and `woc build`.
#include "tools/woc/target.h"

#include <vector>

#include <llvm/Support/CommandLine.h>
#include <llvm/Support/Error.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Support/TargetSelect.h>

#include "tools/woc/time_report.h"

namespace wo::driver {

void init_native_target(int opt_level) {
  static const bool done = [opt_level] {
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
    if (opt_level == 2) args.insert(args.end(), {"-unroll-full-max-count=0", "-disable-post-ra"});
    llvm::cl::ParseCommandLineOptions(static_cast<int>(args.size()), args.data(), "", &llvm::nulls());
    return true;
  }();
  (void)done;
}

static llvm::CodeGenOptLevel codegen_level(int opt_level) {
  switch (opt_level) {
    case 0: return llvm::CodeGenOptLevel::None;
    case 1: return llvm::CodeGenOptLevel::Less;
    case 3: return llvm::CodeGenOptLevel::Aggressive;
    default: return llvm::CodeGenOptLevel::Default;
  }
}

std::unique_ptr<llvm::orc::JITTargetMachineBuilder> host_machine(int opt_level, std::string& error) {
  Phase p("target setup (LLVM init, host detection)");
  init_native_target(opt_level);
  // detectHost fills in the triple, sys::getHostCPUName() and the host's features.
  auto jtmb = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!jtmb) {
    error = llvm::toString(jtmb.takeError());
    return nullptr;
  }
  auto out = std::make_unique<llvm::orc::JITTargetMachineBuilder>(std::move(*jtmb));
  out->setRelocationModel(llvm::Reloc::PIC_);
  out->setCodeModel(llvm::CodeModel::Small);
  out->setCodeGenOptLevel(codegen_level(opt_level));
  return out;
}

}  // namespace wo::driver
