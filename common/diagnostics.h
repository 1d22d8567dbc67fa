// The diagnostic collector shared by every compiler stage.
//
// Stages report with `diags.error(DiagCode::E201, loc, "message")`; nothing
// stops at the first error. `render` sorts by (file, line, col), drops exact
// duplicates and prints through common/render.h (the format of
// ../shared/spec/diagnostics.md §2.1, extended by docs/decisions/0040).
#pragma once
#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "source.h"

namespace wo {

enum class Severity : uint8_t { Error, Warning };

enum class DiagCode : uint16_t {
#define DIAG(id, code, sev, desc) id,
#include "diagnostics.def"
#undef DIAG
};

const char* diag_code_text(DiagCode c);      // "WO-E201"
Severity diag_severity(DiagCode c);

struct Related {
  Loc loc;
  std::string label;  // "`x` moved here"
};

struct Diagnostic {
  DiagCode code;
  Loc loc;                        // the caret: the operator, field or argument that is wrong
  std::string message;
  std::vector<Related> related;
  Span span{};                    // the whole construct, underlined with `~` (len 0: caret only)
  std::vector<std::string> help;  // "help: ..." lines: did you mean, targeted hints
  // Builders for the stages: `error(...).with_span(e.span).hint("...")`.
  Diagnostic& with_span(const Span& s) { span = s; return *this; }
  Diagnostic& hint(std::string h) { if (!h.empty()) help.push_back(std::move(h)); return *this; }
  Diagnostic& note(Loc at, std::string label) { related.push_back(Related{at, std::move(label)}); return *this; }
};

struct RenderOptions;  // common/render.h

class Diagnostics {
 public:
  explicit Diagnostics(const SourceManager& sm) : sm_(sm) {}
  Diagnostic& report(DiagCode code, Loc loc, std::string message);
  Diagnostic& error(DiagCode code, Loc loc, std::string message) { return report(code, loc, std::move(message)); }

  bool has_errors() const;
  size_t error_count() const;
  const std::vector<Diagnostic>& all() const { return list_; }
  // The diagnostic reported last (call only after a report), to attach a span or note to it.
  Diagnostic& last() { return list_.back(); }
  // Sorted, de-duplicated view used for rendering and the exit status.
  std::vector<Diagnostic> sorted() const;
  // Renders every diagnostic (sorted) to `out`: plain text, no count line.
  void render(std::ostream& out) const;
  // The same with colour, JSON or the closing count line (common/render.h).
  void render(std::ostream& out, const RenderOptions& opts) const;
  size_t warning_count() const;
  const SourceManager& sources() const { return sm_; }
  // Renders one diagnostic (header, source line, caret, related sites).
  std::string format(const Diagnostic& d) const;

 private:
  const SourceManager& sm_;
  std::vector<Diagnostic> list_;
};

}  // namespace wo
