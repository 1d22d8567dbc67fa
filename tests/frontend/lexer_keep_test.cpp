// LexOptions::comments and LexOptions::keep_directives (what the formatter
// needs from the lexer): comments come out with their position and text, and
// the #if filter can be skipped so both branches and the directives stay.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "common/diagnostics.h"
#include "frontend/token.h"

using namespace wo;

TEST_CASE("lexer keeps comments aside when asked") {
  std::string src = "-- head\nlet x = 1 -- tail\n  -- own line\nlet s = \"-- not a comment\"\n";
  SourceManager sm;
  sm.add(SourceFile{"c.wo", src, ""});
  Diagnostics diags(sm);
  std::vector<Comment> comments;
  LexOptions opts;
  opts.comments = &comments;
  auto toks = lex_file(0, src, diags, opts);
  REQUIRE(comments.size() == 3);
  CHECK(comments[0].text == "-- head");
  CHECK(comments[0].loc.line == 1);
  CHECK(comments[0].loc.col == 1);
  CHECK(comments[1].text == "-- tail");
  CHECK(comments[1].loc.line == 2);
  CHECK(comments[1].loc.col == 11);
  CHECK(comments[2].text == "-- own line");
  CHECK(comments[2].loc.line == 3);
  CHECK(comments[2].loc.col == 3);
  // The token stream is the same as without the option.
  LexOptions plain;
  CHECK(lex_file(0, src, diags, plain).size() == toks.size());
}

TEST_CASE("keep_directives skips the #if filter") {
  std::string src = "#if a\nlet x = 1\n#else\nlet x = 2\n#end\n";
  SourceManager sm;
  sm.add(SourceFile{"d.wo", src, ""});
  Diagnostics diags(sm);
  LexOptions opts;
  opts.keep_directives = true;
  auto toks = lex_file(0, src, diags, opts);
  int ifs = 0, elses = 0, ends = 0, ints = 0;
  for (const Token& t : toks) {
    ifs += t.kind == Tok::HashIf;
    elses += t.kind == Tok::HashElse;
    ends += t.kind == Tok::HashEnd;
    ints += t.kind == Tok::IntLit;
  }
  CHECK(ifs == 1);
  CHECK(elses == 1);
  CHECK(ends == 1);
  CHECK(ints == 2);  // both branches
  LexOptions filtered;
  int kept = 0;
  for (const Token& t : lex_file(0, src, diags, filtered)) kept += t.kind == Tok::IntLit;
  CHECK(kept == 1);
}
