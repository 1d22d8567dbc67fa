// Object emission and the link step of `woc build`.
//
// The link uses the system `c++` (override: WOC_CXX) rather than invoking ld
// directly: it knows the C++ runtime, the unwinder and the crt files of the
// host. It is asked for lld or gold when installed (linker_flag). When woc itself was built with sanitizers, the runtime archive is
// instrumented, so the program is linked with the same -fsanitize flags.
#include "tools/woc/native_build.h"

#include <algorithm>
#include <cstdlib>
#include <sstream>
#include <thread>
#include <vector>

#include <llvm/ADT/SmallString.h>
#include <llvm/ADT/StringRef.h>
#include <llvm/Bitcode/BitcodeReader.h>
#include <llvm/Bitcode/BitcodeWriter.h>
#include <llvm/CodeGen/MachineModuleInfo.h>
#include <llvm/CodeGen/Passes.h>
#include <llvm/CodeGen/TargetPassConfig.h>
#include <llvm/IR/DebugProgramInstruction.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Module.h>
#include <llvm/Pass.h>
#include <llvm/Support/Error.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Support/Threading.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/Path.h>
#include <llvm/Support/Program.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/Transforms/Utils/SplitModule.h>

#include "codegen/codegen.h"
#include "tools/woc/lld_link.h"
#include "tools/woc/time_report.h"
#include "woc_config.h"

namespace wo::driver {
namespace {

// A private temporary directory, removed with everything in it on scope exit.
class TempDir {
 public:
  TempDir() {
    llvm::SmallString<128> dir;
    if (!llvm::sys::fs::createUniqueDirectory("woc-build", dir)) path_ = std::string(dir);
  }
  ~TempDir() {
    if (!path_.empty()) llvm::sys::fs::remove_directories(path_);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// Does the module describe any variable to the debugger (-g: dbg.declare or
// dbg.value, as intrinsics or as debug records)? Without -g only the line
// tables and subprograms are there (docs/decisions/0036).
bool has_debug_variables(const llvm::Module& module) {
  for (const llvm::Function& f : module)
    for (const llvm::BasicBlock& bb : f)
      for (const llvm::Instruction& i : bb)
        if (llvm::isa<llvm::DbgVariableIntrinsic>(i) || !llvm::filterDbgVars(i.getDbgRecordRange()).empty())
          return true;
  return false;
}

// Machine code for `module` into `object` ("" or why not). The pipeline is
// LLVMTargetMachine::addPassesToEmitFile's, step by step, so that one pass
// can be left out: LiveDebugValues, which extends the ranges of variables'
// locations (DBG_VALUEs) across blocks, when the module has no variable.
// It walks every machine instruction all the same (register definitions,
// spills, restores) to find nothing: 8% of an -O0 build's machine code time
// (`--time-report=passes`: "Live DEBUG_VALUE analysis"). The object is the
// same byte for byte.
std::string generate(llvm::Module& module, llvm::TargetMachine& machine, llvm::SmallVector<char, 0>& object) {
  llvm::raw_svector_ostream os(object);
  llvm::legacy::PassManager pm;
  // At -O0 the machine writes every branch in its long form at once (MC
  // relax-all: target_machine in target.cpp).
  auto& target = static_cast<llvm::LLVMTargetMachine&>(machine);
  auto* mmi = new llvm::MachineModuleInfoWrapperPass(&target);  // owned by pm
  llvm::TargetPassConfig* config = target.createPassConfig(pm);
  config->setDisableVerify(true);  // the module was verified after codegen (pipeline.cpp)
  pm.add(config);
  pm.add(mmi);
  if (!has_debug_variables(module)) config->disablePass(&llvm::LiveDebugValuesID);
  if (config->addISelPasses()) return "the target cannot select instructions";
  config->addMachinePasses();
  config->setInitialized();
  if (target.addAsmPrinter(pm, os, nullptr, llvm::CodeGenFileType::ObjectFile, mmi->getMMI().getContext()))
    return "the target cannot emit object files";
  pm.add(llvm::createFreeMachineFunctionPass());
  pm.run(module);
  return "";
}

// Machine code for a large module is generated on several threads
// (docs/decisions/0063): LLVM's code generator takes about half of an -O2
// build and works function by function, so the module is split into
// partitions (llvm::SplitModule, as LTO's parallel code generation does:
// internal symbols become hidden ones shared by the partitions), each handed
// to a thread as bitcode, read into its own LLVMContext and compiled by its
// own target machine. The objects are linked together. A module under
// kSplitMinInstructions per partition is not worth the bitcode round trip
// (a few % of its code generation); hello and the kernels stay one object.
// WOC_CODEGEN_THREADS=N caps the threads (1: never split; default: the
// machine's cores, at most 4).
constexpr size_t kSplitMinInstructions = 2000;
constexpr unsigned kMaxPartitions = 4;

unsigned partitions_for(const llvm::Module& module, codegen::OptLevel level) {
  // -O0 (FastISel) is cheap; LLVM's -time-passes timers are not thread-safe.
  if (!codegen::optimising(level) || llvm::TimePassesIsEnabled) return 1;
  unsigned most = build_threads();
  size_t n = 0;
  for (const llvm::Function& f : module) n += f.getInstructionCount();
  return static_cast<unsigned>(std::clamp<size_t>(n / kSplitMinInstructions, 1, most));
}

// Internal globals get external (hidden) names when split. Text literals and
// trap sites are named `.text`, `.site`…, which as symbols would clash with
// the sections of those names: they are renamed first.
void name_locals_for_split(llvm::Module& module) {
  for (llvm::GlobalVariable& g : module.globals())
    if (g.hasLocalLinkage() && g.getName().starts_with(".")) g.setName("wo" + g.getName());
}

// Machine code for each partition, on as many threads: `first` (a module of
// the caller's context, or null) and each of `bitcode`, read into a context
// of its own. With `optimise`, each partition goes through the pipeline at
// `level` first, in its thread (docs/decisions/0067). Every thread has its
// own target machine, a copy of `machine` (at `level`) made here: code
// generation writes to the one it uses.
std::string generate_parts(llvm::Module* first, const std::vector<llvm::SmallVector<char, 0>>& bitcode,
                           llvm::TargetMachine& machine, codegen::OptLevel level, bool optimise,
                           std::vector<llvm::SmallVector<char, 0>>& objects) {
  size_t skip = first ? 1 : 0;
  size_t n = bitcode.size() + skip;
  std::vector<std::unique_ptr<llvm::TargetMachine>> machines(n);
  for (auto& tm : machines) {
    tm.reset(machine.getTarget().createTargetMachine(
        machine.getTargetTriple().str(), machine.getTargetCPU(), machine.getTargetFeatureString(), machine.Options,
        machine.getRelocationModel(), machine.getCodeModel(), codegen::llvm_codegen_level(level)));
    if (!tm) return "internal error: no target machine for a code generation partition";
  }
  objects.resize(n);
  std::vector<std::string> errors(n);
  auto work = [&](size_t i) {
    llvm::LLVMContext ctx;
    std::unique_ptr<llvm::Module> read;
    llvm::Module* part = first;
    if (i >= skip) {
      const auto& bc = bitcode[i - skip];
      auto parsed = llvm::parseBitcodeFile(llvm::MemoryBufferRef(llvm::StringRef(bc.data(), bc.size()), "partition"), ctx);
      if (!parsed) {
        errors[i] = "internal error: a code generation partition did not read back: " + llvm::toString(parsed.takeError());
        return;
      }
      read = std::move(*parsed);
      part = read.get();
    }
    if (optimise) codegen::run_pipeline(*part, machines[i].get(), level);
    errors[i] = generate(*part, *machines[i], objects[i]);
  };
  std::vector<std::thread> threads;
  for (size_t i = 1; i < n; ++i) threads.emplace_back(work, i);
  work(0);
  for (std::thread& t : threads) t.join();
  for (const std::string& e : errors)
    if (!e.empty()) return e;
  return "";
}

std::string generate_split(llvm::Module& module, llvm::TargetMachine& machine, codegen::OptLevel level, unsigned n,
                           std::vector<llvm::SmallVector<char, 0>>& objects) {
  name_locals_for_split(module);
  std::vector<llvm::SmallVector<char, 0>> bitcode;
  llvm::SplitModule(module, n, [&](std::unique_ptr<llvm::Module> part) {
    llvm::raw_svector_ostream os(bitcode.emplace_back());
    llvm::WriteBitcodeToFile(*part, os);
  });
  return generate_parts(nullptr, bitcode, machine, level, false, objects);
}

// Writes the module's machine code as one object file or, split, several;
// `paths` gets their names.
std::string emit_objects(llvm::Module& module, const std::vector<llvm::SmallVector<char, 0>>& unoptimised_parts,
                         llvm::TargetMachine& machine, codegen::OptLevel level, const std::string& dir,
                         std::vector<std::string>& paths) {
  // Generated in memory first, so that --time-report tells machine code
  // generation and the file write apart.
  std::vector<llvm::SmallVector<char, 0>> objects;
  if (!unoptimised_parts.empty()) {
    Phase p("optimise + machine code (partitions in parallel)");
    if (std::string err = generate_parts(&module, unoptimised_parts, machine, level, true, objects); !err.empty())
      return err;
  } else {
    Phase p("machine code (isel, regalloc, emit)");
    unsigned n = partitions_for(module, level);
    std::string err = n > 1 ? generate_split(module, machine, level, n, objects)
                            : generate(module, machine, objects.emplace_back());
    if (!err.empty()) return err;
  }
  Phase p("object write");
  for (size_t i = 0; i < objects.size(); ++i) {
    std::string path = dir + "/program" + std::to_string(i) + ".o";
    std::error_code ec;
    llvm::raw_fd_ostream os(path, ec, llvm::sys::fs::OF_None);
    if (ec) return "cannot write " + path + ": " + ec.message();
    os.write(objects[i].data(), objects[i].size());
    os.flush();
    if (os.has_error()) return "cannot write " + path + ": " + os.error().message();
    paths.push_back(path);
  }
  return "";
}

std::vector<std::string> split_words(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

// The linker the C++ driver is asked to use (docs/decisions/0055): WOC_LINKER
// when set (a -fuse-ld= name: lld, gold, bfd; empty: the driver's default),
// else ld.lld or ld.gold when installed. Linking a program with the runtime
// took GNU ld ~160-200 ms of CPU, lld or gold ~50 ms: at -O0 that was half
// of a 1,000-line build.
std::string linker_flag() {
  if (const char* chosen = std::getenv("WOC_LINKER")) return *chosen ? std::string("-fuse-ld=") + chosen : "";
  for (const char* name : {"lld", "gold"})
    if (llvm::sys::findProgramByName(std::string("ld.") + name)) return std::string("-fuse-ld=") + name;
  return "";
}

// Start-up (docs/decisions/0063): libstdc++ and libgcc are linked statically,
// so a program's start loads no C++ runtime library (~0.5 ms of the dynamic
// loader's time: a woc-built hello started in 2.2 ms against C's 0.4), and
// --as-needed leaves out every library no linked object uses. Kept shared:
// under a sanitizer (its runtime interposes the C++ runtime's allocation),
// and when the program decodes JSON: json.decode's fast path links
// libsimdjson.so, which needs libstdc++.so, and one process should hold one
// C++ runtime, not a static copy beside the shared one.
// Used, not declared: at -O0 every runtime function is declared, and
// asking for the declaration linked libstdc++.so into every -O0 program.
bool static_cxx_runtime(const llvm::Module& module) {
  const llvm::Function* decode = module.getFunction("wo_json_decode");
  return !*WOC_SANITIZE && (!decode || decode->use_empty());
}

std::string link(const std::vector<std::string>& objects, const std::string& archive, const std::string& out,
                 bool static_cxx) {
  const char* override_cxx = std::getenv("WOC_CXX");
  // lld in woc's own process (docs/decisions/0071) unless a C++ driver or a
  // linker is asked for by name.
  if (!override_cxx && !std::getenv("WOC_LINKER") && in_process_link_available(static_cxx)) {
    Phase p("link (lld in process)");
    return link_in_process(objects, archive, out, static_cxx);
  }
  std::string cxx_name = override_cxx && *override_cxx ? override_cxx : "c++";
  auto cxx = llvm::sys::findProgramByName(cxx_name);
  if (!cxx) return "cannot find the C++ driver `" + cxx_name + "` used to link (install build-essential)";

  std::vector<std::string> args = {*cxx};
  if (std::string fuse = linker_flag(); !fuse.empty()) args.push_back(fuse);
  args.insert(args.end(), objects.begin(), objects.end());
  args.insert(args.end(), {archive, "-Wl,--as-needed"});
  for (auto& w : split_words(WOC_RUNTIME_LINK_FLAGS)) args.push_back(w);
  if (static_cxx) args.insert(args.end(), {"-static-libstdc++", "-static-libgcc"});
  args.insert(args.end(), {"-lpthread", "-lm"});
  if (*WOC_SANITIZE) args.push_back(std::string("-fsanitize=") + WOC_SANITIZE);
  args.insert(args.end(), {"-o", out});

  std::vector<llvm::StringRef> refs(args.begin(), args.end());
  Phase p("link (external linker)");
  std::string exec_error;
  int rc = llvm::sys::ExecuteAndWait(*cxx, refs, std::nullopt, {}, 0, 0, &exec_error);
  if (rc == 0) return "";
  if (!exec_error.empty()) return "link failed: " + exec_error;
  return "link failed (`" + cxx_name + "` exited with status " + std::to_string(rc) + ")";
}

}  // namespace

unsigned build_threads() {
  if (const char* env = std::getenv("WOC_CODEGEN_THREADS"); env && *env) return std::max(1, std::atoi(env));
  return std::min(std::max(1u, llvm::heavyweight_hardware_concurrency().compute_thread_count()), kMaxPartitions);
}

std::vector<std::string> runtime_archive_candidates() {
  llvm::SmallString<256> exe;
  if (llvm::sys::fs::real_path("/proc/self/exe", exe)) return {WOC_RUNTIME_ARCHIVE};
  llvm::sys::path::remove_filename(exe);
  llvm::SmallString<256> beside(exe), installed(exe);
  llvm::sys::path::append(beside, WOC_RUNTIME_ARCHIVE);
  llvm::sys::path::remove_filename(installed);  // <prefix>/bin -> <prefix>
  llvm::sys::path::append(installed, "lib", "woc", WOC_RUNTIME_ARCHIVE);
  return {std::string(beside), std::string(installed)};
}

std::string runtime_archive_path() {
  auto candidates = runtime_archive_candidates();
  for (const auto& c : candidates)
    if (llvm::sys::fs::exists(c)) return c;
  return candidates.front();
}

std::string check_output_path(const std::string& out_path) {
  if (llvm::sys::fs::is_directory(out_path)) return "cannot write " + out_path + ": it is a directory";
  llvm::StringRef parent = llvm::sys::path::parent_path(out_path);
  if (!parent.empty() && !llvm::sys::fs::is_directory(parent))
    return "cannot write " + out_path + ": no directory " + parent.str();
  return "";
}

std::string build_executable(llvm::Module& module, llvm::TargetMachine& machine, codegen::OptLevel level,
                             const std::string& out_path,
                             const std::vector<llvm::SmallVector<char, 0>>& unoptimised_parts) {
  std::string archive = runtime_archive_path();
  if (!llvm::sys::fs::exists(archive)) {
    std::string tried;
    for (const auto& c : runtime_archive_candidates()) tried += (tried.empty() ? "" : ", ") + c;
    return "cannot find the runtime library (tried " + tried + ")";
  }
  TempDir tmp;
  if (tmp.path().empty()) return "cannot create a temporary directory";
  bool static_cxx = static_cxx_runtime(module);  // before splitting moves the module's functions
  std::vector<std::string> objects;
  if (auto err = emit_objects(module, unoptimised_parts, machine, level, tmp.path(), objects); !err.empty()) return err;
  return link(objects, archive, out_path, static_cxx);
}

}  // namespace wo::driver
