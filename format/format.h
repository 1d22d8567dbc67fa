// woc fmt as a library: one .wo file's text in, its canonical layout out
// (docs/decisions/0037-fmt-layout.md). Used by `woc fmt` (tools/woc/fmt_verb.cpp)
// and by the language server's formatting request.
#pragma once
#include <string>
#include <string_view>

namespace wo::format {

struct Result {
  bool ok = false;
  std::string text;   // ok: the formatted file (ends with one line feed; "" for an empty file)
  std::string error;  // !ok: the rendered diagnostics (a syntax error), or why formatting refused
};

// Formats `source`; `path` is only what diagnostics show. Never changes the
// meaning: the result lexes to the same token stream (kinds, spellings,
// literal values, both branches of every #if) and keeps every comment, or
// the call fails with an internal error instead of returning it.
Result format_source(std::string_view source, std::string_view path);

}  // namespace wo::format
