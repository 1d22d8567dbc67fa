// Shared by the front-end unit tests: lex and parse one source text, keeping
// the source manager, the diagnostics and the AST alive together.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "common/diagnostics.h"
#include "frontend/ast.h"
#include "frontend/parser.h"
#include "frontend/token.h"

namespace wo_test {

using namespace wo;
using namespace wo::ast;

struct Parsed {
  SourceManager sm;
  std::unique_ptr<Diagnostics> diags;
  Ptr<File> file;
  std::vector<std::string> codes() const {
    std::vector<std::string> v;
    for (auto& d : diags->all()) v.push_back(diag_code_text(d.code));
    return v;
  }
  std::string messages() const {
    std::string s;
    for (auto& d : diags->all())
      s += std::string(diag_code_text(d.code)) + " " + std::to_string(d.loc.line) + ":" + std::to_string(d.loc.col) +
           " " + d.message + "\n";
    return s;
  }
};

inline std::unique_ptr<Parsed> parse(const std::string& src) {
  auto p = std::make_unique<Parsed>();
  SourceFile f;
  f.path = "t.wo";
  f.text = src;
  uint32_t id = p->sm.add(std::move(f));
  p->diags = std::make_unique<Diagnostics>(p->sm);
  auto toks = lex_file(id, p->sm.get(id).text, *p->diags, LexOptions{});
  p->file = parse_file(id, std::move(toks), *p->diags);
  return p;
}

}  // namespace wo_test
