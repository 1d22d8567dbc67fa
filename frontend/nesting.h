// The nesting gate: bounds how deep a parsed file's AST may be, so every later
// stage (const_subst, sema, ownership, codegen) may walk it recursively without
// overflowing the stack. docs/decisions/0014-nesting-limit.md has the numbers
// and how they were measured.
#pragma once
#include <cstdint>

#include "frontend/ast.h"

namespace wo {
class Diagnostics;

// Genuine nesting: one level per block, per operand of a unary operator, per
// right operand, call argument, list item, constructor field, switch arm,
// handler and interpolation hole. Past this, WO-E113.
inline constexpr uint32_t kMaxNesting = 1000;

// Chains that do not nest in the source but do in the AST: the left operand
// of a binary operator (`a + b + c`), the operand of `.f`, `(...)`, `[i]`
// and `as` (`x.f().g()`), and `else if`. They cost no nesting level, but
// every AST edge counts here, against the stack the stages recurse on.
inline constexpr uint32_t kMaxChain = 100000;

// Reports WO-E113 once per declaration whose body is too deep and replaces
// that body (or field default) by an empty one, so no later pass sees it.
void check_nesting(ast::File& file, Diagnostics& diags);

}  // namespace wo
