// The diagnostic collector and renderer (format: spec diagnostics.md §2.1).
#include "common/diagnostics.h"

#include <algorithm>
#include <cstring>
#include <ostream>
#include <set>
#include <tuple>

namespace wo {

namespace {

struct CodeInfo {
  const char* text;
  Severity sev;
};

constexpr CodeInfo kCodes[] = {
#define DIAG(id, code, sev, desc) {code, Severity::sev},
#include "diagnostics.def"
#undef DIAG
};

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

}  // namespace

const char* diag_code_text(DiagCode c) { return kCodes[static_cast<size_t>(c)].text; }
Severity diag_severity(DiagCode c) { return kCodes[static_cast<size_t>(c)].sev; }

Diagnostic& Diagnostics::report(DiagCode code, Loc loc, std::string message) {
  list_.push_back(Diagnostic{code, loc, std::move(message), {}});
  return list_.back();
}

bool Diagnostics::has_errors() const {
  for (const Diagnostic& d : list_)
    if (diag_severity(d.code) == Severity::Error) return true;
  return false;
}

size_t Diagnostics::error_count() const {
  size_t n = 0;
  for (const Diagnostic& d : sorted())
    if (diag_severity(d.code) == Severity::Error) ++n;
  return n;
}

std::vector<Diagnostic> Diagnostics::sorted() const {
  // Files are ordered by the path shown to the user (then by id, for files
  // that share a path or are unknown); ties keep insertion order.
  auto path_of = [&](uint32_t file) -> const std::string* {
    static const std::string kNone;
    return file < sm_.size() ? &sm_.get(file).path : &kNone;
  };
  std::vector<Diagnostic> out = list_;
  std::stable_sort(out.begin(), out.end(), [&](const Diagnostic& a, const Diagnostic& b) {
    if (a.loc.file != b.loc.file) {
      const std::string& pa = *path_of(a.loc.file);
      const std::string& pb = *path_of(b.loc.file);
      if (pa != pb) return pa < pb;
      return a.loc.file < b.loc.file;
    }
    return std::tie(a.loc.line, a.loc.col) < std::tie(b.loc.line, b.loc.col);
  });
  // Drop exact duplicates by (code, file, line, col); the first one wins.
  std::set<std::tuple<uint16_t, uint32_t, uint32_t, uint32_t>> seen;
  std::vector<Diagnostic> uniq;
  uniq.reserve(out.size());
  for (Diagnostic& d : out) {
    auto key = std::make_tuple(static_cast<uint16_t>(d.code), d.loc.file, d.loc.line, d.loc.col);
    if (seen.insert(key).second) uniq.push_back(std::move(d));
  }
  return uniq;
}

std::string Diagnostics::format(const Diagnostic& d) const {
  std::string out;
  // One site: header, then (if the line can be fetched) the line and a caret.
  auto site = [&](const Loc& loc, const std::string& indent, const std::string& tail) {
    const SourceFile* f = loc.file < sm_.size() ? &sm_.get(loc.file) : nullptr;
    out += indent;
    out += f ? f->path : std::string("<unknown>");
    out += ':' + std::to_string(loc.line) + ':' + std::to_string(loc.col) + ": ";
    out += tail;
    out += '\n';
    if (!f || !line_exists(f->text, loc.line)) return;
    out += indent;
    out += f->line_text(loc.line);
    out += '\n';
    out += indent;
    out.append(loc.col > 1 ? loc.col - 1 : 0, ' ');
    out += "^\n";
  };
  std::string head = diag_severity(d.code) == Severity::Error ? "error " : "warning ";
  head += diag_code_text(d.code);
  head += ": ";
  head += d.message;
  site(d.loc, "", head);
  for (const Related& r : d.related) site(r.loc, "  ", r.label);
  return out;
}

void Diagnostics::render(std::ostream& out) const {
  bool first = true;
  for (const Diagnostic& d : sorted()) {
    if (!first) out << '\n';
    first = false;
    out << format(d);
  }
}

}  // namespace wo
