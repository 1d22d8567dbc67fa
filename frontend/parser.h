// The parser: tokens -> AST for one file (bison grammar in frontend/parser.yy).
#pragma once
#include <vector>

#include "frontend/ast.h"
#include "frontend/token.h"

namespace wo {
class Diagnostics;

// Parses one file. Syntax errors are reported (WO-E101 and the other E1xx codes)
// and recovered from; the returned File holds every declaration that parsed.
ast::Ptr<ast::File> parse_file(uint32_t file_id, std::vector<Token> tokens, Diagnostics& diags);

}  // namespace wo
