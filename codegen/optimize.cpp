// The -O0..-O3 pipeline of LLVM's new pass manager.
#include <llvm/IR/Function.h>
#include <llvm/IR/Module.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Passes/StandardInstrumentations.h>
#include <llvm/Target/TargetMachine.h>

#include "codegen/codegen.h"

namespace wo::codegen {

namespace {

// LLVM's optimiser and code generator are superlinear on very large functions
// (SimplifyCFG, InstCombine, the register coalescer and allocator grow by
// 2.5-3x per doubling past ~50,000 instructions: a 20,000-hole interpolation
// took 140 s at -O2 and 5 s at -O0; a 20,000-term `or` 13 s in the coalescer
// alone). A function that large is generated code; it is not optimised
// (optnone), like HotSpot's limit on huge methods, and the caller generates
// machine code for the module without optimisation (the register allocator
// has no per-function switch). Semantics are the same.
constexpr unsigned kMaxOptimizedInstructions = 50000;

bool skip_giant_functions(llvm::Module& m) {
  bool any = false;
  for (llvm::Function& f : m) {
    if (f.isDeclaration() || f.getInstructionCount() <= kMaxOptimizedInstructions) continue;
    f.removeFnAttr(llvm::Attribute::AlwaysInline);
    f.removeFnAttr(llvm::Attribute::InlineHint);
    f.addFnAttr(llvm::Attribute::NoInline);  // optnone requires it
    f.addFnAttr(llvm::Attribute::OptimizeNone);
    any = true;
  }
  return any;
}

}  // namespace

bool optimize(llvm::Module& m, llvm::TargetMachine* tm, int opt_level) {
  bool giant = opt_level > 0 && skip_giant_functions(m);
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  // The standard instrumentation is what makes the pipeline skip optnone functions.
  llvm::PassInstrumentationCallbacks pic;
  llvm::StandardInstrumentations si(m.getContext(), /*DebugLogging=*/false);
  si.registerCallbacks(pic, &mam);
  llvm::PassBuilder pb(tm, llvm::PipelineTuningOptions(), std::nullopt, &pic);
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  llvm::OptimizationLevel level = llvm::OptimizationLevel::O2;
  switch (opt_level) {
    case 0: level = llvm::OptimizationLevel::O0; break;
    case 1: level = llvm::OptimizationLevel::O1; break;
    case 2: level = llvm::OptimizationLevel::O2; break;
    default: level = llvm::OptimizationLevel::O3; break;
  }
  llvm::ModulePassManager mpm = opt_level == 0 ? pb.buildO0DefaultPipeline(level)
                                               : pb.buildPerModuleDefaultPipeline(level);
  mpm.run(m, mam);
  return giant;
}

}  // namespace wo::codegen
