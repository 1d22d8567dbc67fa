#include "sema/builtins.h"

namespace wo::sema {

const std::vector<BuiltinSig>& builtin_table() {
  static const std::vector<BuiltinSig> table = {
#define BUILTIN(name, symbol, result, params, flags) {"", #name, #symbol, result, params, flags},
#define NS_BUILTIN(ns, member, symbol, result, params, flags) {#ns, #member, #symbol, result, params, flags},
#include "common/builtins.def"
#undef BUILTIN
#undef NS_BUILTIN
  };
  return table;
}

bool is_builtin_name(std::string_view name) {
  for (auto& b : builtin_table())
    if (b.ns.empty() && b.name == name) return true;
  return false;
}

bool is_ns_member(std::string_view ns, std::string_view member) {
  for (auto& b : builtin_table())
    if (b.ns == ns && b.name == member) return true;
  return false;
}

}  // namespace wo::sema
