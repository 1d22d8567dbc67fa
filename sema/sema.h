// Semantic analysis: resolves names, checks types and the rules of the
// language (every WO-E2xx/E3xx/E4xx check), annotates the AST in place
// (Expr::type, Expr::sym, Stmt::sym) and returns the program-wide tables
// that codegen needs.
#pragma once
#include <memory>

#include "common/diagnostics.h"
#include "frontend/ast.h"

namespace wo::sema {

struct ProgramInfo;  // sema/program_info.h

// Returns null only if the program is too broken to describe (errors reported).
std::unique_ptr<ProgramInfo> analyze(ast::Program& program, Diagnostics& diags);

}  // namespace wo::sema
