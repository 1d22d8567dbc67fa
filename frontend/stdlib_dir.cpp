// find_stdlib_dir (stdlib_dir.h): WO_STDLIB, then next to the executable,
// then the source tree woc was built from.
#include "frontend/stdlib_dir.h"

#include <cstdlib>
#include <filesystem>

namespace wo {
namespace fs = std::filesystem;

namespace {

bool holds_framework(const fs::path& dir) {
  std::error_code ec;
  return fs::is_directory(dir / "framework", ec);
}

}  // namespace

std::string find_stdlib_dir(std::vector<std::string>& tried) {
  if (const char* env = std::getenv("WO_STDLIB"); env && *env) {
    tried.push_back(std::string(env) + " (WO_STDLIB)");
    return holds_framework(env) ? std::string(env) : std::string();
  }
  std::error_code ec;
  fs::path exe = fs::canonical("/proc/self/exe", ec);
  if (!ec) {
    fs::path installed = (exe.parent_path().parent_path() / "share" / "woc" / "stdlib").lexically_normal();
    tried.push_back(installed.string());
    if (holds_framework(installed)) return installed.string();
  }
#ifdef WO_SOURCE_STDLIB
  tried.push_back(WO_SOURCE_STDLIB);
  if (holds_framework(WO_SOURCE_STDLIB)) return WO_SOURCE_STDLIB;
#endif
  return "";
}

}  // namespace wo
