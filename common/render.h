// How diagnostics look: the human format (spec diagnostics.md §2.1 plus the
// additions of docs/decisions/0040: tabs expanded in the excerpt, the span
// underlined with `~` and the caret at the wrong part, `help:` lines, a last
// `see: woc explain WO-E###` line, optional ANSI colour, a closing count
// line) and the machine format (`--error-format=json`: one JSON object per
// line). Pure functions of the diagnostics and the sources: no I/O but the
// stream handed in, no knowledge of terminals (the driver decides colour).
#pragma once
#include <cstddef>
#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

#include "common/diagnostics.h"

namespace wo {

struct RenderOptions {
  enum class Format { Human, Json } format = Format::Human;
  bool color = false;       // ANSI escapes (Human only)
  bool count_line = false;  // Human: "N errors, M warnings" after the last diagnostic
};

// Tab stops of the excerpt: a tab moves to the next multiple of this width.
constexpr unsigned kTabWidth = 4;

// One diagnostic in the human format, every line ending in "\n".
std::string render_human(const Diagnostic& d, const SourceManager& sm, bool color);
// One diagnostic as one JSON object on one line (no trailing newline).
std::string render_json(const Diagnostic& d, const SourceManager& sm);
// "1 error", "2 errors, 1 warning", "3 warnings"; "" when both are zero.
std::string count_line(size_t errors, size_t warnings);
// Renders `sorted` (already sorted and de-duplicated) to `out`.
void render_all(const std::vector<Diagnostic>& sorted, const SourceManager& sm, std::ostream& out,
                const RenderOptions& opts);

// Exposed for the tests: a JSON string literal for `s` (quotes included),
// written by nlohmann::json as render_json's strings are: control bytes,
// `"` and `\` are escaped, invalid UTF-8 becomes U+FFFD.
std::string json_quote(std::string_view s);
// The display column (1-based) of byte column `col` in `line`: tabs to the
// next stop, UTF-8 continuation bytes take no width.
unsigned display_col(std::string_view line, unsigned col);
// `line` with its tabs expanded to spaces (kTabWidth stops) and other control
// bytes shown as `?`.
std::string expand_tabs(std::string_view line);

}  // namespace wo
