// The diagnostic collector shared by every compiler stage.
//
// Stages report with `diags.error(DiagCode::E201, loc, "message")`; nothing
// stops at the first error. `render` sorts by (file, line, col), drops exact
// duplicates and prints the format of ../shared/spec/diagnostics.md §2.1.
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
  Loc loc;
  std::string message;
  std::vector<Related> related;
};

class Diagnostics {
 public:
  explicit Diagnostics(const SourceManager& sm) : sm_(sm) {}
  Diagnostic& report(DiagCode code, Loc loc, std::string message);
  Diagnostic& error(DiagCode code, Loc loc, std::string message) { return report(code, loc, std::move(message)); }

  bool has_errors() const;
  size_t error_count() const;
  const std::vector<Diagnostic>& all() const { return list_; }
  // Sorted, de-duplicated view used for rendering and the exit status.
  std::vector<Diagnostic> sorted() const;
  // Renders every diagnostic (sorted) to `out`.
  void render(std::ostream& out) const;
  // Renders one diagnostic (header, source line, caret, related sites).
  std::string format(const Diagnostic& d) const;

 private:
  const SourceManager& sm_;
  std::vector<Diagnostic> list_;
};

}  // namespace wo
