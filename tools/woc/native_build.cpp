// Object emission and the link step of `woc build`.
//
// The link uses the system `c++` (override: WOC_CXX) rather than invoking ld
// directly: it knows the C++ runtime, the unwinder and the crt files of the
// host. It is asked for lld or gold when installed (linker_flag). When woc itself was built with sanitizers, the runtime archive is
// instrumented, so the program is linked with the same -fsanitize flags.
#include "tools/woc/native_build.h"

#include <cstdlib>
#include <sstream>
#include <vector>

#include <llvm/ADT/SmallString.h>
#include <llvm/ADT/StringRef.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/Path.h>
#include <llvm/Support/Program.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>

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

std::string emit_object(llvm::Module& module, llvm::TargetMachine& machine, const std::string& path) {
  // Generated in memory first, so that --time-report tells machine code
  // generation and the file write apart.
  llvm::SmallVector<char, 0> object;
  {
    Phase p("machine code (isel, regalloc, emit)");
    llvm::raw_svector_ostream os(object);
    llvm::legacy::PassManager pm;
    if (machine.addPassesToEmitFile(pm, os, nullptr, llvm::CodeGenFileType::ObjectFile))
      return "the target cannot emit object files";
    pm.run(module);
  }
  Phase p("object write");
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec, llvm::sys::fs::OF_None);
  if (ec) return "cannot write " + path + ": " + ec.message();
  os.write(object.data(), object.size());
  os.flush();
  if (os.has_error()) return "cannot write " + path + ": " + os.error().message();
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
bool static_cxx_runtime(const llvm::Module& module) {
  return !*WOC_SANITIZE && !module.getFunction("wo_json_decode");
}

std::string link(const std::string& object, const std::string& archive, const std::string& out,
                 bool static_cxx) {
  const char* override_cxx = std::getenv("WOC_CXX");
  std::string cxx_name = override_cxx && *override_cxx ? override_cxx : "c++";
  auto cxx = llvm::sys::findProgramByName(cxx_name);
  if (!cxx) return "cannot find the C++ driver `" + cxx_name + "` used to link (install build-essential)";

  std::vector<std::string> args = {*cxx};
  if (std::string fuse = linker_flag(); !fuse.empty()) args.push_back(fuse);
  args.insert(args.end(), {object, archive, "-Wl,--as-needed"});
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

std::string runtime_archive_path() {
  llvm::SmallString<256> exe;
  if (llvm::sys::fs::real_path("/proc/self/exe", exe)) return WOC_RUNTIME_ARCHIVE;
  llvm::sys::path::remove_filename(exe);
  llvm::sys::path::append(exe, WOC_RUNTIME_ARCHIVE);
  return std::string(exe);
}

std::string check_output_path(const std::string& out_path) {
  if (llvm::sys::fs::is_directory(out_path)) return "cannot write " + out_path + ": it is a directory";
  llvm::StringRef parent = llvm::sys::path::parent_path(out_path);
  if (!parent.empty() && !llvm::sys::fs::is_directory(parent))
    return "cannot write " + out_path + ": no directory " + parent.str();
  return "";
}

std::string build_executable(llvm::Module& module, llvm::TargetMachine& machine,
                             const std::string& out_path) {
  std::string archive = runtime_archive_path();
  if (!llvm::sys::fs::exists(archive)) return "cannot find the runtime library " + archive;
  TempDir tmp;
  if (tmp.path().empty()) return "cannot create a temporary directory";
  std::string object = tmp.path() + "/program.o";
  if (auto err = emit_object(module, machine, object); !err.empty()) return err;
  return link(object, archive, out_path, static_cxx_runtime(module));
}

}  // namespace wo::driver
