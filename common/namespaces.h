// The reserved standard-library namespaces (language.md §5.4, builtins.md):
// `use fs`, `use net`, … name these, never a module folder; a package may not
// take one of these names either (decision 0022). Declared once here for the
// front end (packages) and sema (`use` resolution).
#pragma once
#include <string_view>

namespace wo {

inline constexpr std::string_view kStdlibNamespaces[] = {"fs", "proc", "net", "time", "json", "env", "signal", "term"};

inline bool is_stdlib_namespace(std::string_view n) {
  for (std::string_view x : kStdlibNamespaces)
    if (n == x) return true;
  return false;
}

}  // namespace wo
