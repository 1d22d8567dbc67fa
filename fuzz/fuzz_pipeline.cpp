// Fuzz target (b): a .wo program through the whole compiler up to LLVM IR
// verification — what `woc check --emit-llvm` runs before optimising. In:
// program text, best mutated from the seed corpus by the token-level mutator
// (mutator.h) installed as libFuzzer's custom mutator and cross-over. Out:
// nothing; a crash, abort, sanitizer report, leak, timeout or a module that
// fails llvm::verifyModule (reported, then abort) is the finding.
//
// The generated code is not run (docs/decisions/0016-fuzzing.md): mutated
// programs call fs/proc builtins, loop forever and exit through traps.
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <thread>

#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>

#include "codegen/codegen.h"
#include "fuzz/harness.h"
#include "fuzz/mutator.h"

namespace {

// The mutator runs sema on its candidates (mutator.h), outside libFuzzer's
// view: a crash there would leave an empty crash file, a hang would never
// time out. So each candidate is first written to a file of its own
// (mutant-PID.wo in $WO_FUZZ_MUTANT_DIR, default .), removed at a clean exit;
// a watchdog aborts when one check takes over 20 s. fuzz/run.sh replays a
// leftover file and keeps it when it crashes.
std::string g_mutant_path;
std::atomic<int64_t> g_check_started{0};  // steady-clock seconds + 1 while a check runs

int64_t now_s() {
  return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

bool passes_sema(std::string_view src) {
  if (FILE* f = std::fopen(g_mutant_path.c_str(), "wb")) {
    std::fwrite(src.data(), 1, src.size(), f);
    std::fclose(f);
  }
  g_check_started = now_s() + 1;
  bool ok = wo::fuzz::analyze_source(src, false)->info != nullptr;
  g_check_started = 0;
  return ok;
}

void start_watchdog() {
  std::thread([] {
    for (;;) {
      std::this_thread::sleep_for(std::chrono::seconds(1));  // a timer, not synchronisation
      int64_t started = g_check_started;
      if (started && now_s() + 1 - started > 20) {
        std::fprintf(stderr, "fuzz_pipeline: the mutator's sema check has run for 20 s on %s\n", g_mutant_path.c_str());
        std::abort();
      }
    }
  }).detach();
}

// Fragments and names for the mutator: the programs of the seed corpus (or
// the directories in WO_FUZZ_POOL, separated by ':').
const wo::fuzz::Mutator& mutator() {
  static const wo::fuzz::Mutator m = [] {
    std::vector<std::string> dirs;
    if (const char* env = std::getenv("WO_FUZZ_POOL")) {
      std::string s = env;
      for (size_t b = 0, e; b <= s.size(); b = e + 1) {
        e = s.find(':', b);
        if (e == std::string::npos) e = s.size();
        if (e > b) dirs.push_back(s.substr(b, e - b));
      }
    } else {
      dirs = {WO_SOURCE_DIR "/corpus", WO_SOURCE_DIR "/examples"};
    }
    return wo::fuzz::Mutator(wo::fuzz::read_wo_files(dirs), passes_sema);
  }();
  return m;
}

// How far inputs get, printed at exit: a mutator whose programs rarely pass
// sema tests the code generator little.
size_t g_inputs = 0, g_lowered = 0;

void at_exit() {
  std::fprintf(stderr, "fuzz_pipeline: %zu inputs, %zu passed sema and were lowered to IR\n", g_inputs, g_lowered);
  std::remove(g_mutant_path.c_str());
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  const char* dir = std::getenv("WO_FUZZ_MUTANT_DIR");
  g_mutant_path = std::string(dir && *dir ? dir : ".") + "/mutant-" + std::to_string(getpid()) + ".wo";
  std::atexit(at_exit);
  start_watchdog();
  // As woc's main does: codegen asks the registry for the host's data layout.
  llvm::InitializeNativeTarget();
  std::fprintf(stderr, "fuzz_pipeline: %zu programs in the mutator's pool\n", mutator().pool_size());
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  ++g_inputs;
  auto a = wo::fuzz::analyze_source(std::string_view(reinterpret_cast<const char*>(data), size));
  if (!a->info) return 0;
  ++g_lowered;
  llvm::LLVMContext ctx;
  wo::codegen::Options cg;  // as `woc check --emit-llvm` / `woc run`: no C main
  std::unique_ptr<llvm::Module> m = wo::codegen::lower(*a->info, ctx, cg);
  if (!m) {
    std::fprintf(stderr, "fuzz_pipeline: code generation produced no module\n");
    std::abort();
  }
  std::string why;
  llvm::raw_string_ostream os(why);
  if (llvm::verifyModule(*m, &os)) {
    std::fprintf(stderr, "fuzz_pipeline: invalid IR generated:\n%s\n", os.str().c_str());
    std::abort();
  }
  return 0;
}

extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t max_size);

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size, unsigned int seed) {
  // One in ten mutations stays byte-level (libFuzzer's own, with the
  // dictionary): it reaches the odd spellings the token edits never produce.
  if (seed % 10 == 0) return LLVMFuzzerMutate(data, size, max_size);
  std::string out = mutator().mutate(std::string_view(reinterpret_cast<const char*>(data), size), seed, max_size);
  std::memcpy(data, out.data(), out.size());
  return out.size();
}

extern "C" size_t LLVMFuzzerCustomCrossOver(const uint8_t* d1, size_t s1, const uint8_t* d2, size_t s2,
                                            uint8_t* out, size_t max_out, unsigned int seed) {
  std::string child = mutator().cross_over(std::string_view(reinterpret_cast<const char*>(d1), s1),
                                           std::string_view(reinterpret_cast<const char*>(d2), s2), seed, max_out);
  std::memcpy(out, child.data(), child.size());
  return child.size();
}
