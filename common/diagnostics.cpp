// The diagnostic collector; rendering is in render.cpp.
#include "common/diagnostics.h"

#include "common/render.h"

#include <algorithm>
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

}  // namespace

const char* diag_code_text(DiagCode c) { return kCodes[static_cast<size_t>(c)].text; }
Severity diag_severity(DiagCode c) { return kCodes[static_cast<size_t>(c)].sev; }

Diagnostic& Diagnostics::report(DiagCode code, Loc loc, std::string message) {
  Diagnostic d{};
  d.code = code;
  d.loc = loc;
  d.message = std::move(message);
  list_.push_back(std::move(d));
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

std::string Diagnostics::format(const Diagnostic& d) const { return render_human(d, sm_, false); }

void Diagnostics::render(std::ostream& out) const { render_all(sorted(), sm_, out, RenderOptions{}); }

void Diagnostics::render(std::ostream& out, const RenderOptions& opts) const { render_all(sorted(), sm_, out, opts); }

size_t Diagnostics::warning_count() const {
  size_t n = 0;
  for (const Diagnostic& d : sorted())
    if (diag_severity(d.code) == Severity::Warning) ++n;
  return n;
}

}  // namespace wo
