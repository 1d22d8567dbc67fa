// woc explain: shows one entry of the diagnostics catalog (common/explain.md,
// compiled in by embed_catalog.cmake) as plain text, or lists every code of
// common/diagnostics.def with its summary.
#include "tools/woc/explain_verb.h"

#include <cctype>
#include <iostream>
#include <string>
#include <string_view>

#include "common/diagnostics.h"
#include "tools/woc/pipeline.h"

namespace wo::driver {
extern const char* const kExplainCatalog;

namespace {

struct CodeInfo {
  const char* code;
  const char* summary;
};

constexpr CodeInfo kCodes[] = {
#define DIAG(id, code, sev, desc) {code, desc},
#include "common/diagnostics.def"
#undef DIAG
};

// "WO-E201", "E201", "e201", "201" -> "WO-E201" ("" if malformed).
std::string normalize(std::string_view s) {
  std::string u;
  for (char ch : s) u += static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  if (u.rfind("WO-", 0) == 0) u = u.substr(3);
  if (u.size() == 3) u = "E" + u;
  if (u.size() != 4 || (u[0] != 'E' && u[0] != 'W')) return "";
  for (size_t i = 1; i < 4; ++i)
    if (!std::isdigit(static_cast<unsigned char>(u[i]))) return "";
  return "WO-" + u;
}

// The catalog text of `code`, from its heading to the next one.
std::string_view entry_of(const std::string& code) {
  std::string_view cat = kExplainCatalog;
  std::string head = "\n## " + code + "\n";
  size_t b = cat.find(head);
  if (b == std::string_view::npos) return {};
  b += head.size();
  size_t e = cat.find("\n## ", b);
  return cat.substr(b, e == std::string_view::npos ? std::string_view::npos : e - b);
}

// Markdown to terminal text: fenced blocks become "Wrong:" / "Right:"
// labels with the code indented four spaces; a `### ` case heading is
// underlined.
std::string render(std::string_view body) {
  std::string out;
  bool in_code = false;
  size_t pos = 0;
  while (pos < body.size()) {
    size_t nl = body.find('\n', pos);
    std::string_view line = body.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos);
    pos = nl == std::string_view::npos ? body.size() : nl + 1;
    if (line.rfind("```", 0) == 0) {
      if (in_code) {
        in_code = false;
        continue;
      }
      in_code = true;
      std::string label = line.find(" wrong") != std::string_view::npos ? "Wrong" : "Right";
      size_t f = line.find("file=");
      if (f != std::string_view::npos) label += " (" + std::string(line.substr(f + 5, line.find(' ', f) - (f + 5))) + ")";
      else label += " (main.wo)";
      out += label + ":\n\n";
      continue;
    }
    if (in_code) {
      out += line.empty() ? "\n" : "    " + std::string(line) + "\n";
    } else if (line.rfind("### ", 0) == 0) {
      std::string_view title = line.substr(4);
      size_t width = 0;  // characters, not UTF-8 bytes
      for (char ch : title) width += (static_cast<unsigned char>(ch) & 0xC0) != 0x80;
      out += std::string(title) + "\n" + std::string(width, '-') + "\n";
    } else {
      out += std::string(line) + "\n";
    }
  }
  while (out.size() > 1 && out[out.size() - 1] == '\n' && out[out.size() - 2] == '\n') out.pop_back();
  return out;
}

}  // namespace

int explain_verb(const Options& opts) {
  if (opts.code.empty()) {
    for (const CodeInfo& c : kCodes) std::cout << c.code << "  " << c.summary << "\n";
    std::cout << "\n`woc explain CODE` shows what a code means, with an example and its fix.\n";
    return 0;
  }
  std::string code = normalize(opts.code);
  const CodeInfo* info = nullptr;
  for (const CodeInfo& c : kCodes)
    if (code == c.code) info = &c;
  if (!info)
    return driver_failure("unknown diagnostic code `" + opts.code +
                          "` (codes look like WO-E201; `woc explain` lists them)");
  std::string_view body = entry_of(code);
  if (body.empty()) return driver_failure("internal error: " + code + " has no entry in the catalog");
  std::cout << info->code << ": " << info->summary << "\n" << render(body);
  return 0;
}

}  // namespace wo::driver
