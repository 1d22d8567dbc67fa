// The -O0..-O3 pipeline of LLVM's new pass manager.
#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <llvm/Analysis/LoopInfo.h>
#include <llvm/IR/Dominators.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/Module.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Passes/StandardInstrumentations.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/Transforms/Instrumentation/AddressSanitizer.h>
#include <llvm/Transforms/Instrumentation/ThreadSanitizer.h>

#include "codegen/codegen.h"

namespace wo::codegen {

namespace {

// LLVM's optimiser and code generator are superlinear on very large functions
// (SimplifyCFG, JumpThreading, InstCombine, the register coalescer and
// allocator grow by 2.5-3x per doubling: a 20,000-hole interpolation took
// 140 s at -O2 and 5 s at -O0; a 20,000-term `or` 13 s in the coalescer
// alone). A function that large is generated code (the largest function of
// the corpus has ~1,200 instructions): it is not optimised (optnone), like
// HotSpot's limit on huge methods, and the caller generates machine code for
// the module without optimisation (the register allocator has no
// per-function switch). Semantics are the same.
//
// The size is measured before inlining, so each call of a defined function
// counts as the part of its body the inliner would copy: a 5,000-call
// method chain is 45,000 instructions but became ten times that once its
// callee was inlined at every call (30 s).
constexpr size_t kMaxOptimizedSize = 20000;
constexpr size_t kInlinedCallSize = 100;  // roughly the largest body the -O2 inliner copies

size_t estimated_size(const llvm::Function& f, std::map<const llvm::Function*, size_t>& sizes) {
  size_t n = f.getInstructionCount();
  for (const llvm::BasicBlock& bb : f)
    for (const llvm::Instruction& i : bb) {
      const auto* call = llvm::dyn_cast<llvm::CallBase>(&i);
      const llvm::Function* callee = call ? call->getCalledFunction() : nullptr;
      if (!callee || callee->isDeclaration()) continue;
      auto [it, fresh] = sizes.emplace(callee, 0);
      if (fresh) it->second = std::min<size_t>(callee->getInstructionCount(), kInlinedCallSize);
      n += it->second;
    }
  return n;
}

bool skip_giant_functions(llvm::Module& m) {
  std::map<const llvm::Function*, size_t> sizes;
  bool any = false;
  for (llvm::Function& f : m) {
    if (f.isDeclaration() || estimated_size(f, sizes) <= kMaxOptimizedSize) continue;
    f.removeFnAttr(llvm::Attribute::AlwaysInline);
    f.removeFnAttr(llvm::Attribute::InlineHint);
    f.addFnAttr(llvm::Attribute::NoInline);  // optnone requires it
    f.addFnAttr(llvm::Attribute::OptimizeNone);
    any = true;
  }
  return any;
}

// Does the comma-separated -fsanitize list `list` name `which`?
bool names_sanitizer(const std::string& list, const std::string& which) {
  size_t start = 0;
  while (start <= list.size()) {
    size_t comma = list.find(',', start);
    if (comma == std::string::npos) comma = list.size();
    if (list.compare(start, comma - start, which) == 0) return true;
    start = comma + 1;
  }
  return false;
}

// When woc itself runs under a sanitizer (WO_SANITIZE), the code it generates
// is instrumented too (docs/decisions/0021): the inline retain/release fast
// paths of module.cpp touch reference counts without calling the runtime, so
// an uninstrumented program would hide exactly the races and use-after-frees
// the sanitizer build is there to find. The sanitizer runtime itself is in the
// woc process (JIT) or linked by `woc build` with the same -fsanitize flags.
// As clang does, the function attribute opts every function in and the passes
// run last, on optimised code.
void add_sanitizers(llvm::Module& m, llvm::ModulePassManager& mpm, const std::string& sanitize) {
  bool thread = names_sanitizer(sanitize, "thread");
  bool address = names_sanitizer(sanitize, "address");
  if (!thread && !address) return;
  for (llvm::Function& f : m) {
    if (f.isDeclaration()) continue;
    if (thread) f.addFnAttr(llvm::Attribute::SanitizeThread);
    if (address) f.addFnAttr(llvm::Attribute::SanitizeAddress);
  }
  if (thread) {
    mpm.addPass(llvm::ModuleThreadSanitizerPass());
    mpm.addPass(llvm::createModuleToFunctionPassAdaptor(llvm::ThreadSanitizerPass()));
  }
  if (address) {
    // Heap and stack accesses are checked; globals are not given redzones.
    // They are constants (literals, descriptors) that generated code only
    // reads, a redzoned global needs registering at start-up (section
    // symbols the JIT does not define), and a text literal's global is named
    // `.text`, which the redzoned copy turns into an assembler symbol that
    // clashes with the section.
    for (llvm::GlobalVariable& g : m.globals()) {
      llvm::GlobalValue::SanitizerMetadata md =
          g.hasSanitizerMetadata() ? g.getSanitizerMetadata() : llvm::GlobalValue::SanitizerMetadata();
      md.NoAddress = true;
      g.setSanitizerMetadata(md);
    }
    mpm.addPass(llvm::AddressSanitizerPass(llvm::AddressSanitizerOptions(), /*UseGlobalGC=*/false,
                                           /*UseOdrIndicator=*/false));
  }
}

// At -O0 the inline fast paths of retain/release (module.cpp's `wo.retain`,
// `wo.release`, marked alwaysinline) stay calls: copied into every use they
// were most of the -O0 IR (a 1,000-line program: 27k lines inlined) and so
// most of the time of instruction selection, for code whose speed -O0 does
// not promise (docs/decisions/0055).
void keep_helpers_out_of_line(llvm::Module& m) {
  for (llvm::Function& f : m)
    if (!f.isDeclaration() && f.hasLocalLinkage() && f.hasFnAttribute(llvm::Attribute::AlwaysInline))
      f.removeFnAttr(llvm::Attribute::AlwaysInline);
}

// At -O2, a large function called from one place, not inside a loop there,
// stays a call. LLVM's inliner inlines any internal function with a single
// call site whatever its size (a bonus for deleting the function), so a
// program of many such functions became one giant function, and the
// optimiser and code generator are superlinear in function size: a
// 1,000-line program of 72 functions called once from main optimised and
// compiled in 0.41 + 0.42 s kept apart against 0.75 + 0.67 s inlined. A call
// made once per run of its caller costs nothing next to a body this size;
// calls inside loops and small callees are left to the inliner as before,
// and -O3 keeps LLVM's choice (docs/decisions/0055).
constexpr unsigned kCalledOnceOutOfLine = 100;  // instructions before optimisation (~40-60 after: over the inliner's usual threshold)

void keep_large_called_once_out_of_line(llvm::Module& m) {
  std::map<llvm::Function*, std::unique_ptr<llvm::LoopInfo>> loops;
  std::map<llvm::Function*, std::unique_ptr<llvm::DominatorTree>> doms;
  for (llvm::Function& f : m) {
    if (f.isDeclaration() || !f.hasLocalLinkage() || !f.hasOneUse() ||
        f.getInstructionCount() < kCalledOnceOutOfLine || f.hasFnAttribute(llvm::Attribute::AlwaysInline))
      continue;
    auto* call = llvm::dyn_cast<llvm::CallBase>(f.user_back());
    if (!call || call->getCalledFunction() != &f) continue;
    llvm::Function* caller = call->getFunction();
    auto& li = loops[caller];
    if (!li) {
      auto& dt = doms[caller];
      dt = std::make_unique<llvm::DominatorTree>(*caller);
      li = std::make_unique<llvm::LoopInfo>(*dt);
    }
    if (!li->getLoopFor(call->getParent())) call->setIsNoInline();
  }
}

// At -O0 every invoke ends a block of its own. FastISel (-O0's instruction
// selector) cannot select an invoke, and a block whose terminator it cannot
// select goes to SelectionDAG whole: the calls that may trap (text
// conversions, concatenation, yields, calls of the program's functions) are
// invokes wherever owned values need releasing on unwind, so most of the
// program's code went through the slow selector (docs/decisions/0071). Split
// off, the code before each invoke is FastISel's and only the invoke is
// SelectionDAG's. The control flow and the code are the same (a branch to
// the next block falls through).
void isolate_invokes(llvm::Module& m) {
  std::vector<llvm::InvokeInst*> invokes;
  for (llvm::Function& f : m)
    for (llvm::BasicBlock& bb : f)
      if (auto* inv = llvm::dyn_cast<llvm::InvokeInst>(bb.getTerminator());
          inv && inv != bb.getFirstNonPHIOrDbg())
        invokes.push_back(inv);
  for (llvm::InvokeInst* inv : invokes) inv->getParent()->splitBasicBlock(inv, "invoke");
}

}  // namespace

bool prepare_optimize(llvm::Module& m, OptLevel opt_level) {
  if (!optimising(opt_level)) keep_helpers_out_of_line(m);
  // Before the runtime's helpers are linked in: the rule is for the
  // program's own functions only.
  if (opt_level == OptLevel::O2) keep_large_called_once_out_of_line(m);
  if (optimising(opt_level)) link_runtime_helpers(m);
  return optimising(opt_level) && skip_giant_functions(m);
}

void run_pipeline(llvm::Module& m, llvm::TargetMachine* tm, OptLevel opt_level, const std::string& sanitize) {
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
  llvm::OptimizationLevel level = llvm_pipeline_level(opt_level);
  llvm::ModulePassManager mpm = optimising(opt_level) ? pb.buildPerModuleDefaultPipeline(level)
                                                      : pb.buildO0DefaultPipeline(level);
  add_sanitizers(m, mpm, sanitize);
  mpm.run(m, mam);
  if (optimising(opt_level)) drop_implied_stack_checks(m);
  else isolate_invokes(m);
}

bool optimize(llvm::Module& m, llvm::TargetMachine* tm, OptLevel opt_level, const std::string& sanitize) {
  bool giant = prepare_optimize(m, opt_level);
  run_pipeline(m, tm, opt_level, sanitize);
  return giant;
}

}  // namespace wo::codegen
