// The one definition of "whitespace" for the Text builtins (trim, words,
// split_ws): space, tab, LF, CR — builtins.md §2–§3.
#pragma once

namespace wo {
inline bool is_ws(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
}  // namespace wo
