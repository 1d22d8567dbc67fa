// In-process execution with ORC LLJIT on JITLink (see jit.h for the why).
#include "tools/woc/jit.h"

#include <llvm/ExecutionEngine/JITLink/EHFrameSupport.h>
#include <llvm/ExecutionEngine/Orc/Debugging/DebuggerSupport.h>
#include <llvm/ExecutionEngine/Orc/CompileUtils.h>
#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/ExecutionEngine/Orc/ObjectLinkingLayer.h>
#include <llvm/ExecutionEngine/Orc/ThreadSafeModule.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Target/TargetMachine.h>

#include "codegen/codegen.h"
#include "tools/woc/jit_symbolizer.h"
#include "tools/woc/time_report.h"
#include "wo_runtime.h"

namespace wo::driver {
namespace {

using namespace llvm;
using namespace llvm::orc;

// JITLink with explicit in-process EH-frame registration: without it the
// unwinder cannot see JIT'd frames and a trap would terminate the process.
Expected<std::unique_ptr<ObjectLayer>> make_object_layer(ExecutionSession& es, const Triple&) {
  auto layer = std::make_unique<ObjectLinkingLayer>(es);
  layer->addPlugin(std::make_unique<EHFrameRegistrationPlugin>(
      es, std::make_unique<jitlink::InProcessEHFrameRegistrar>()));
  return std::unique_ptr<ObjectLayer>(std::move(layer));
}

// LLJIT's default compiler (no compile threads), with its machine code
// generation shown as a phase of --time-report.
class TimedCompiler : public TMOwningSimpleCompiler {
 public:
  using TMOwningSimpleCompiler::TMOwningSimpleCompiler;
  Expected<CompileResult> operator()(Module& m) override {
    Phase p("machine code (isel, regalloc, emit)");
    return TMOwningSimpleCompiler::operator()(m);
  }
};


// `with_initializers`: the module has llvm.global_ctors/dtors (codegen emits
// none today). Without them no platform is set up: LLJIT's generic one
// compiles a support module of its own at initialize() and another at
// deinitialize(), ~5 ms of machine code generation on every `woc run`.
// The JIT compiles with `tm`, the target machine the module was optimised
// with (or its -O0 twin, verbs.cpp), and takes its data layout from it: left
// to itself LLJIT makes two more (one only to ask for the data layout), each
// ~1 ms of subtarget set-up.
Expected<std::unique_ptr<LLJIT>> make_jit(std::unique_ptr<JITTargetMachineBuilder> machine,
                                          std::unique_ptr<TargetMachine> tm, bool debugger,
                                          bool with_initializers) {
  LLJITBuilder builder;
  DataLayout layout = tm->createDataLayout();
  auto shared_tm = std::make_shared<std::unique_ptr<TargetMachine>>(std::move(tm));
  builder.setJITTargetMachineBuilder(std::move(*machine))
      .setDataLayout(std::move(layout))
      .setObjectLinkingLayerCreator(make_object_layer)
      .setCompileFunctionCreator(
          [shared_tm](JITTargetMachineBuilder) -> Expected<std::unique_ptr<IRCompileLayer::IRCompiler>> {
            return std::make_unique<TimedCompiler>(std::move(*shared_tm));
          });
  if (!with_initializers) builder.setPlatformSetUp(setUpInactivePlatform);
  auto jit = builder.create();
  if (!jit) return jit.takeError();
  // Everything generated code does not define comes from the woc process.
  auto process = DynamicLibrarySearchGenerator::GetForCurrentProcess(
      (*jit)->getDataLayout().getGlobalPrefix());
  if (!process) return process.takeError();
  (*jit)->getMainJITDylib().addGenerator(std::move(*process));
  // Every object is registered with gdb's JIT interface: `woc run -g` can be
  // debugged, and a trap's call chain is symbolized from the same objects
  // (jit_symbolizer.h). Without it only -g fails; a run goes on, its traps
  // then listing no .wo frames.
  if (auto e = enableDebuggerSupport(**jit)) {
    if (debugger) return e;
    consumeError(std::move(e));
  }
  return jit;
}

std::string failure(Error e) { return "JIT: " + toString(std::move(e)); }

}  // namespace

JitResult run_in_jit(std::unique_ptr<LLVMContext> ctx, std::unique_ptr<Module> module,
                     std::unique_ptr<JITTargetMachineBuilder> machine, std::unique_ptr<TargetMachine> tm,
                     const std::string& program_path, const std::vector<std::string>& args, bool debugger) {
  JitResult r;
  Phase setup("JIT setup");
  bool with_initializers = module->getNamedGlobal("llvm.global_ctors") || module->getNamedGlobal("llvm.global_dtors");
  auto jit = make_jit(std::move(machine), std::move(tm), debugger, with_initializers);
  setup.stop();
  if (!jit) return {0, failure(jit.takeError())};
  // Compiling to machine code and linking in memory happen on the look-up.
  Phase materialise("JIT materialise (codegen, link in memory)");
  JITDylib& main_jd = (*jit)->getMainJITDylib();
  if (auto e = (*jit)->addIRModule(ThreadSafeModule(std::move(module), std::move(ctx))))
    return {0, failure(std::move(e))};
  // Static constructors of the module (llvm.global_ctors), if codegen emits
  // any (a no-op with the inactive platform, see make_jit).
  if (auto e = (*jit)->initialize(main_jd)) return {0, failure(std::move(e))};
  auto entry = (*jit)->lookup(codegen::kEntrySymbol);
  if (!entry) return {0, failure(entry.takeError())};
  materialise.stop();

  std::vector<std::string> storage;
  storage.reserve(args.size() + 1);
  storage.push_back(program_path);
  storage.insert(storage.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& s : storage) argv.push_back(s.data());
  argv.push_back(nullptr);

  wo_set_symbolizer(jit_symbolize);
  Phase run("run (the program)");
  r.status = wo_start(static_cast<int>(storage.size()), argv.data(), entry->toPtr<WoEntry>());
  run.stop();
  // The program has run and its status stands; a failing destructor pass
  // (there are none today) must not turn it into a driver error.
  consumeError((*jit)->deinitialize(main_jd));
  return r;
}

}  // namespace wo::driver
