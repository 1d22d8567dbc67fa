// The layout pass of the formatter (layout.cpp): raw tokens + comments -> text.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "frontend/token.h"

namespace wo::format::detail {

// `toks`: lex_file with keep_directives (NEWLINE tokens are ignored, lines come
// from the positions); `comments`: every comment of the file, in order.
std::string layout(std::string_view src, const std::vector<Token>& toks,
                   const std::vector<Comment>& comments);

}  // namespace wo::format::detail
