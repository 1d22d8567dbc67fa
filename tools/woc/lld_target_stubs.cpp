// Stubs for what lld's ELF driver references but `woc build` never uses
// (docs/decisions/0071). lld initialises every target LLVM was built with and
// links Polly's pass plugin for link-time optimisation of bitcode inputs;
// woc gives it object files only, and links LLVM's X86 libraries alone (the
// host's; linking every target's would make woc several times larger). The
// stubs register nothing: a bitcode input to the in-process link would find
// no target for its triple unless it is the host's, which lld reports.
#include <llvm/Passes/PassPlugin.h>

// The host's target is real: its names are moved aside so that no stub
// stands in for LLVM's X86 libraries.
#define LLVMInitializeX86TargetInfo woc_unused_x86_target_info
#define LLVMInitializeX86Target woc_unused_x86_target
#define LLVMInitializeX86TargetMC woc_unused_x86_target_mc
#define LLVMInitializeX86AsmPrinter woc_unused_x86_asm_printer
#define LLVMInitializeX86AsmParser woc_unused_x86_asm_parser

extern "C" {
#define LLVM_TARGET(T)                   \
  void LLVMInitialize##T##TargetInfo() {} \
  void LLVMInitialize##T##Target() {}     \
  void LLVMInitialize##T##TargetMC() {}
#include <llvm/Config/Targets.def>
#define LLVM_ASM_PRINTER(T) \
  void LLVMInitialize##T##AsmPrinter() {}
#include <llvm/Config/AsmPrinters.def>
#define LLVM_ASM_PARSER(T) \
  void LLVMInitialize##T##AsmParser() {}
#include <llvm/Config/AsmParsers.def>
}

// Polly (libpolly-19-dev) is LLVM's only extension; as a plugin it adds no passes.
#define HANDLE_EXTENSION(Ext)                                                                  \
  llvm::PassPluginLibraryInfo get##Ext##PluginInfo() {                                        \
    return {LLVM_PLUGIN_API_VERSION, #Ext " (not linked into woc)", "", [](llvm::PassBuilder&) {}}; \
  }
#include <llvm/Support/Extension.def>
