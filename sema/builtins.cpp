#include "sema/builtins.h"

namespace wo::sema {

const std::vector<BuiltinSig>& builtin_table() {
  static const std::vector<BuiltinSig> table = {
#define BUILTIN(name, symbol, result, params, flags) {#name, #symbol, result, params, flags},
#include "common/builtins.def"
#undef BUILTIN
  };
  return table;
}

bool is_builtin_name(std::string_view name) {
  for (auto& b : builtin_table())
    if (b.name == name) return true;
  return false;
}

}  // namespace wo::sema
