// The link of `woc build` in woc's own process (docs/decisions/0071).
//
// `c++ -fuse-ld=lld` ran three programs (the driver, collect2, ld.lld) and
// ld.lld spent ~25 ms of CPU loading its shared libLLVM before reading an
// input: about as much as the link itself. lld's ELF driver is a library
// (liblld-19-dev); woc calls it with the line the C++ driver would have
// given the linker, asked for once when woc was configured
// (tools/woc/CMakeLists.txt) with placeholders for the objects, the runtime
// archive and the output.
#include "tools/woc/lld_link.h"

#include "woc_config.h"

#if WOC_HAVE_LLD
#include <lld/Common/Driver.h>
#include <llvm/ADT/StringRef.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/raw_ostream.h>

LLD_HAS_DRIVER(elf)
#endif

namespace wo::driver {

#if WOC_HAVE_LLD
namespace {

const char* const kStaticCxx[] = {WOC_LLD_LINE_STATIC_CXX nullptr};
const char* const kSharedCxx[] = {WOC_LLD_LINE_SHARED_CXX nullptr};

const char* const* line_for(bool static_cxx) { return static_cxx ? kStaticCxx : kSharedCxx; }

}  // namespace

bool in_process_link_available(bool static_cxx) {
  for (const char* const* a = line_for(static_cxx); *a; ++a)
    if (**a == '/' && !llvm::sys::fs::exists(*a)) return false;
  return true;
}

std::string link_in_process(const std::vector<std::string>& objects, const std::string& archive,
                            const std::string& out, bool static_cxx) {
  // One thread: lld's thread pool cost more CPU than it saved on this
  // 2-core machine (a 1,000-line -O0 build's link: 16.3 ms CPU with the
  // pool, 11.6 ms without; its parallel steps are ~5 ms a worker at this
  // size), and the link is the last step, so no other work overlaps it.
  std::vector<const char*> args = {"ld.lld", "--threads=1"};
  for (const char* const* a = line_for(static_cxx); *a; ++a) {
    llvm::StringRef arg(*a);
    if (arg == "__woc_objects__.o")
      for (const std::string& o : objects) args.push_back(o.c_str());
    else if (arg == "__woc_archive__.a")
      args.push_back(archive.c_str());
    else if (arg == "__woc_output__")
      args.push_back(out.c_str());
    else
      args.push_back(*a);
  }
  lld::Result r = lld::lldMain(args, llvm::outs(), llvm::errs(), {{lld::Gnu, &lld::elf::link}});
  llvm::outs().flush();
  llvm::errs().flush();
  return r.retCode == 0 ? "" : "link failed (lld exited with status " + std::to_string(r.retCode) + ")";
}

#else

bool in_process_link_available(bool) { return false; }

std::string link_in_process(const std::vector<std::string>&, const std::string&, const std::string&, bool) {
  return "internal error: this woc was built without lld's libraries";
}

#endif

}  // namespace wo::driver
