// Host target selection shared by `woc run` and `woc build`.
#include "tools/woc/target.h"

#include <llvm/Support/Error.h>
#include <llvm/Support/TargetSelect.h>

#include "tools/woc/time_report.h"

namespace wo::driver {

void init_native_target() {
  static const bool done = [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    llvm::InitializeNativeTargetAsmParser();
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
  init_native_target();
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
