// The diagnostic renderer (see render.h and docs/decisions/0040).
#include "common/render.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <ostream>

#include <nlohmann/json.hpp>

namespace wo {
namespace {

// ANSI escapes; an empty string when colour is off keeps call sites flat.
struct Palette {
  const char* bold = "";
  const char* error = "";
  const char* warning = "";
  const char* note = "";
  const char* help = "";
  const char* reset = "";
};

Palette palette(bool color) {
  if (!color) return {};
  return Palette{"\x1b[1m", "\x1b[1;31m", "\x1b[1;33m", "\x1b[1;36m", "\x1b[1;32m", "\x1b[0m"};
}

bool is_continuation(unsigned char c) { return (c & 0xC0) == 0x80; }

const SourceFile* file_of(const SourceManager& sm, const Loc& loc) {
  return loc.file < sm.size() ? &sm.get(loc.file) : nullptr;
}

// True if `line` (1-based) exists in `text`: a file with k line feeds has
// k + 1 lines (the last possibly empty, e.g. where end of file is reported).
bool line_exists(const std::string& text, uint32_t line) {
  if (line == 0) return false;
  uint32_t lines = 1;
  const char* p = text.data();
  const char* end = p + text.size();
  while (lines < line) {
    const void* nl = std::memchr(p, '\n', static_cast<size_t>(end - p));
    if (!nl) return false;
    p = static_cast<const char*>(nl) + 1;
    ++lines;
  }
  return true;
}

// The marker line under an excerpt: `~` over [span_from, span_to) and `^` at
// `caret` (byte columns, 1-based; span_to == span_from: no span).
std::string marker(std::string_view line, unsigned caret, unsigned span_from, unsigned span_to) {
  unsigned c = display_col(line, caret);
  unsigned from = c, to = c + 1;  // display columns, [from, to)
  if (span_to > span_from) {
    from = std::min(from, display_col(line, span_from));
    to = std::max(to, display_col(line, span_to));
  }
  std::string out(from - 1, ' ');
  for (unsigned i = from; i < to; ++i) out += i == c ? '^' : '~';
  return out;
}

void site(std::string& out, const SourceManager& sm, const Loc& loc, const Span* span, const std::string& indent,
          const std::string& tail, const Palette& p, const char* mark_color) {
  const SourceFile* f = file_of(sm, loc);
  out += indent;
  out += p.bold;
  out += f ? f->path : std::string("<unknown>");
  out += ':' + std::to_string(loc.line) + ':' + std::to_string(loc.col) + ":";
  out += p.reset;
  out += ' ';
  out += tail;
  out += '\n';
  if (!f || !line_exists(f->text, loc.line)) return;
  std::string_view line = f->line_text(loc.line);
  unsigned caret = loc.col > 0 ? loc.col : 1;
  unsigned from = 0, to = 0;
  if (span && span->len > 0 && span->begin.file == loc.file && span->begin.line == loc.line && span->begin.col > 0) {
    // Only the part of the span on the caret's line is underlined.
    from = span->begin.col;
    to = static_cast<unsigned>(std::min<uint64_t>(uint64_t{from} + span->len, uint64_t{line.size()} + 1));
    if (to <= from) from = to = 0;
  }
  out += indent;
  out += expand_tabs(line);
  out += '\n';
  out += indent;
  out += mark_color;
  out += marker(line, caret, from, to);
  out += p.reset;
  out += '\n';
}


}  // namespace

unsigned display_col(std::string_view line, unsigned col) {
  unsigned dc = 1;
  for (unsigned i = 0; i + 1 < col; ++i) {
    if (i >= line.size()) {
      ++dc;  // past the end (end of line or file): one column per byte
    } else if (line[i] == '\t') {
      dc += kTabWidth - (dc - 1) % kTabWidth;
    } else if (!is_continuation(static_cast<unsigned char>(line[i]))) {
      ++dc;
    }
  }
  return dc;
}

std::string expand_tabs(std::string_view line) {
  std::string out;
  unsigned dc = 1;
  for (char ch : line) {
    if (ch == '\t') {
      unsigned n = kTabWidth - (dc - 1) % kTabWidth;
      out.append(n, ' ');
      dc += n;
    } else {
      // A control byte from the source (an ESC, say) would act on the
      // terminal: shown as `?`, still one column.
      unsigned char u = static_cast<unsigned char>(ch);
      out += u < 0x20 || u == 0x7f ? '?' : ch;
      if (!is_continuation(u)) ++dc;
    }
  }
  return out;
}

std::string render_human(const Diagnostic& d, const SourceManager& sm, bool color) {
  Palette p = palette(color);
  bool is_error = diag_severity(d.code) == Severity::Error;
  const char* sev = is_error ? p.error : p.warning;
  std::string out;
  std::string head = sev;
  head += is_error ? "error " : "warning ";
  head += diag_code_text(d.code);
  head += p.reset;
  head += ": ";
  head += d.message;
  site(out, sm, d.loc, &d.span, "", head, p, sev);
  for (const Related& r : d.related) site(out, sm, r.loc, nullptr, "  ", r.label, p, p.note);
  for (const std::string& h : d.help) {
    out += p.help;
    out += "help:";
    out += p.reset;
    out += ' ' + h + '\n';
  }
  out += p.note;
  out += "see:";
  out += p.reset;
  out += " woc explain ";
  out += diag_code_text(d.code);
  out += '\n';
  return out;
}

namespace {

using Json = nlohmann::ordered_json;  // keys in the order written: file, line, col, ...

// Compact (no spaces), UTF-8 kept as is, invalid UTF-8 replaced by U+FFFD:
// what the language server writes too (tools/woc/lsp/server.cpp).
std::string dump(const Json& j) { return j.dump(-1, ' ', false, Json::error_handler_t::replace); }

}  // namespace

std::string json_quote(std::string_view s) { return dump(Json(s)); }

std::string render_json(const Diagnostic& d, const SourceManager& sm) {
  auto path = [&](const Loc& l) {
    const SourceFile* f = file_of(sm, l);
    return f ? f->path : std::string("<unknown>");
  };
  Json out;
  out["file"] = path(d.loc);
  out["line"] = d.loc.line;
  out["col"] = d.loc.col;
  out["severity"] = diag_severity(d.code) == Severity::Error ? "error" : "warning";
  out["code"] = diag_code_text(d.code);
  out["message"] = d.message;
  if (d.span.len > 0) out["span"] = Json{{"line", d.span.begin.line}, {"col", d.span.begin.col}, {"len", d.span.len}};
  else out["span"] = nullptr;
  Json& related = out["related"] = Json::array();
  for (const Related& r : d.related)
    related.push_back(Json{{"file", path(r.loc)}, {"line", r.loc.line}, {"col", r.loc.col}, {"label", r.label}});
  out["help"] = d.help;
  out["explain"] = std::string("woc explain ") + diag_code_text(d.code);
  return dump(out);
}

std::string count_line(size_t errors, size_t warnings) {
  auto part = [](size_t n, const char* word) {
    return std::to_string(n) + " " + word + (n == 1 ? "" : "s");
  };
  if (errors && warnings) return part(errors, "error") + ", " + part(warnings, "warning");
  if (errors) return part(errors, "error");
  if (warnings) return part(warnings, "warning");
  return "";
}

void render_all(const std::vector<Diagnostic>& sorted, const SourceManager& sm, std::ostream& out,
                const RenderOptions& opts) {
  if (opts.format == RenderOptions::Format::Json) {
    for (const Diagnostic& d : sorted) out << render_json(d, sm) << '\n';
    return;
  }
  size_t errors = 0, warnings = 0;
  bool first = true;
  for (const Diagnostic& d : sorted) {
    (diag_severity(d.code) == Severity::Error ? errors : warnings)++;
    if (!first) out << '\n';
    first = false;
    out << render_human(d, sm, opts.color);
  }
  if (opts.count_line && (errors || warnings)) {
    Palette p = palette(opts.color);
    out << '\n' << p.bold << count_line(errors, warnings) << p.reset << '\n';
  }
}

}  // namespace wo
