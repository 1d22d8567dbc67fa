// The builtin table (common/builtins.def) as data, shared by sema (lookup and
// WO-E209 checks) and codegen (runtime declarations and calls).
#pragma once
#include <string_view>
#include <vector>

namespace wo::sema {

enum BuiltinFlags : unsigned { PURE = 1, TRAPS = 2, BORROWED = 4, MUTATES = 8, ACTOR = 16, NO_TX = 32 };

struct BuiltinSig {
  std::string_view ns;       // "" for a bare builtin, else the namespace (`time`)
  std::string_view name;     // the .wo name (the member for a namespaced one)
  std::string_view symbol;   // the runtime's C symbol
  std::string_view result;   // type code (see builtins.def)
  std::string_view params;   // one type code per parameter
  unsigned flags;
};

const std::vector<BuiltinSig>& builtin_table();
bool is_builtin_name(std::string_view name);          // bare builtins only
bool is_ns_member(std::string_view ns, std::string_view member);

}  // namespace wo::sema
