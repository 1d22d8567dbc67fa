// Constant substitution (language.md §6.9): every Name that refers to a
// `const` of the module and is not shadowed is replaced by a copy of the
// constant's literal. Run once per module, after every file of the module
// has been parsed (constants are visible in all files of a directory).
#pragma once
#include "frontend/ast.h"

namespace wo {

void substitute_constants(ast::Module& module);

}  // namespace wo
