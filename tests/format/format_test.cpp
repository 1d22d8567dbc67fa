// The formatter (format/format.h): hand-written golden cases (messy input ->
// canonical output), and over every .wo file of the repository (corpus,
// stdlib, examples): it formats (or refuses a file that does not parse),
// formatting twice changes nothing, and the result means the same. "Means
// the same" is checked here independently of the library's own self-check:
// the formatted text must lex to the same tokens (kinds, spellings, values,
// both #if branches) and keep the same comments; the parser is a function
// of that stream, so the AST is the same (docs/decisions/0037-fmt-layout.md).
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/diagnostics.h"
#include "format/format.h"
#include "frontend/token.h"

namespace fs = std::filesystem;

namespace {

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// "kind spelling|value" per token, and the comments, one per line.
std::string fingerprint(const std::string& text) {
  wo::SourceManager sm;
  sm.add(wo::SourceFile{"f.wo", text, ""});
  wo::Diagnostics diags(sm);
  std::vector<wo::Comment> comments;
  wo::LexOptions opts;
  opts.keep_directives = true;
  opts.comments = &comments;
  std::ostringstream os;
  for (const wo::Token& t : wo::lex_file(0, text, diags, opts)) {
    os << wo::tok_spelling(t.kind) << ' ' << t.text << '|' << t.int_value << '|' << t.float_value << '|'
       << t.raw;
    for (const auto& p : t.pieces) os << '{' << int(p.kind) << p.text << '}';
    os << '\n';
  }
  for (auto& c : comments) {
    std::string s = c.text;
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.pop_back();
    os << "comment " << s << '\n';
  }
  return os.str();
}

}  // namespace

TEST_CASE("golden: messy input becomes the canonical layout") {
  fs::path dir = fs::path(WO_SOURCE_DIR) / "tests/format/golden";
  int n = 0;
  for (const auto& e : fs::directory_iterator(dir)) {
    std::string name = e.path().filename().string();
    if (name.size() < 7 || name.substr(name.size() - 6) != ".in.wo") continue;
    fs::path want = dir / (name.substr(0, name.size() - 6) + ".out.wo");
    CAPTURE(name);
    auto r = wo::format::format_source(slurp(e.path()), name);
    REQUIRE_MESSAGE(r.ok, r.error);
    CHECK(r.text == slurp(want));
    auto again = wo::format::format_source(r.text, name);
    CHECK(again.text == r.text);
    ++n;
  }
  CHECK(n >= 3);
}

TEST_CASE("a syntax error is refused with its diagnostic") {
  auto r = wo::format::format_source("fn main() {\n  let = 3\n}\n", "bad.wo");
  CHECK_FALSE(r.ok);
  CHECK(r.error.find("bad.wo:2:") != std::string::npos);
  CHECK(r.error.find("WO-E101") != std::string::npos);
}

TEST_CASE("an empty file stays empty; a file ends with one line feed") {
  CHECK(wo::format::format_source("", "e.wo").text == "");
  CHECK(wo::format::format_source("\n\n  \n", "e.wo").text == "");
  CHECK(wo::format::format_source("fn main() {}", "e.wo").text == "fn main() {}\n");
}

TEST_CASE("every corpus, stdlib and example file: idempotent and the same tokens") {
  fs::path root = WO_SOURCE_DIR;
  int formatted = 0, refused = 0;
  for (const char* sub : {"corpus", "stdlib", "examples"}) {
    for (const auto& e : fs::recursive_directory_iterator(root / sub)) {
      if (!e.is_regular_file() || e.path().extension() != ".wo") continue;
      std::string path = e.path().string();
      CAPTURE(path);
      std::string src = slurp(e.path());
      auto r = wo::format::format_source(src, path);
      if (!r.ok) {
        // Only compile-fail fixtures may fail to parse; never an internal error.
        CHECK(path.find("/compile-fail/") != std::string::npos);
        CHECK(r.error.find("internal error") == std::string::npos);
        ++refused;
        continue;
      }
      ++formatted;
      CHECK(fingerprint(r.text) == fingerprint(src));
      auto again = wo::format::format_source(r.text, path);
      REQUIRE(again.ok);
      CHECK(again.text == r.text);
    }
  }
  MESSAGE(formatted << " formatted, " << refused << " refused (syntax errors)");
  CHECK(formatted > 600);
}

TEST_CASE("fuzz regressions: refused or formatted, never an internal error") {
  // Inputs that once crashed the front end: odd bytes, deep nesting, broken
  // literals. The formatter must refuse them with diagnostics or format them
  // idempotently to the same tokens.
  fs::path root = fs::path(WO_SOURCE_DIR) / "fuzz/regressions";
  int n = 0;
  for (const auto& e : fs::recursive_directory_iterator(root)) {
    if (!e.is_regular_file() || e.path().filename() == "README.md") continue;
    std::string path = e.path().string();
    CAPTURE(path);
    std::string src = slurp(e.path());
    auto r = wo::format::format_source(src, path);
    ++n;
    if (!r.ok) {
      CHECK(r.error.find("internal error") == std::string::npos);
      continue;
    }
    CHECK(fingerprint(r.text) == fingerprint(src));
    CHECK(wo::format::format_source(r.text, path).text == r.text);
  }
  CHECK(n > 0);
}
