// The diagnostic renderer (common/render.h) and the did-you-mean helpers
// (common/suggest.h): columns under tabs and UTF-8, the span underline, help
// and explain lines, colour escapes, JSON escaping, the count line.
// Expected strings are written by hand from docs/decisions/0040.
#include <doctest/doctest.h>

#include <sstream>

#include "common/diagnostics.h"
#include "common/render.h"
#include "common/suggest.h"

using namespace wo;

TEST_CASE("render: display columns expand tabs to stops of 4 and give UTF-8 one column") {
  CHECK(display_col("\tx", 2) == 5);
  CHECK(display_col("a\tb", 3) == 5);
  CHECK(display_col("abc\td", 5) == 5);
  CHECK(display_col("abcd\te", 6) == 9);
  CHECK(display_col("\xc3\xa9x", 3) == 2);  // é is two bytes, one column
  CHECK(display_col("ab", 5) == 5);         // past the end: one column per byte
  CHECK(expand_tabs("\ta\tb") == "    a   b");
  CHECK(expand_tabs("\xc3\xa9\tx") == "\xc3\xa9   x");
  CHECK(expand_tabs("a\x1b[2Jb\x7f") == "a?[2Jb?");  // control bytes never reach the terminal
}

TEST_CASE("render: the span is underlined and the caret sits at the wrong part") {
  SourceManager sm;
  sm.add(SourceFile{"m.wo", "fn f() {\n  let s = a + 1\n\tlet t = \"\xc3\xa9\" .. b\n}\n", ""});
  Diagnostics d(sm);
  // `a + 1`: span from col 11, 5 bytes; the caret at the `+` (col 13)
  d.error(DiagCode::E201, Loc{0, 2, 13, 0}, "bad +").with_span(Span{Loc{0, 2, 11, 0}, 5}).hint("use `..`");
  CHECK(d.format(d.all()[0]) ==
        "m.wo:2:13: error WO-E201: bad +\n"
        "  let s = a + 1\n"
        "          ~~^~~\n"
        "help: use `..`\n"
        "see: woc explain WO-E201\n");
  // A tab and a two-byte character before the caret: `"é" .. b` from byte 10, caret at `..` (byte 15)
  d.error(DiagCode::E201, Loc{0, 3, 15, 0}, "t").with_span(Span{Loc{0, 3, 10, 0}, 9});
  CHECK(d.format(d.all()[1]) ==
        "m.wo:3:15: error WO-E201: t\n"
        "    let t = \"\xc3\xa9\" .. b\n"
        "            ~~~~^~~~\n"
        "see: woc explain WO-E201\n");
  // A span running past the end of the line is cut at the line's end.
  d.error(DiagCode::E101, Loc{0, 2, 3, 0}, "u").with_span(Span{Loc{0, 2, 3, 0}, 40});
  CHECK(d.format(d.all()[2]) == "m.wo:2:3: error WO-E101: u\n  let s = a + 1\n  ^~~~~~~~~~~~~\nsee: woc explain WO-E101\n");
  // A span on another line than the caret is not drawn.
  d.error(DiagCode::E101, Loc{0, 2, 3, 0}, "v").with_span(Span{Loc{0, 1, 1, 0}, 4});
  CHECK(d.format(d.all()[3]) == "m.wo:2:3: error WO-E101: v\n  let s = a + 1\n  ^\nsee: woc explain WO-E101\n");
}

TEST_CASE("render: colour escapes, related sites, count line") {
  SourceManager sm;
  sm.add(SourceFile{"m.wo", "let x = 1\n", ""});
  Diagnostics d(sm);
  d.error(DiagCode::E201, Loc{0, 1, 5, 0}, "m").note(Loc{0, 1, 1, 0}, "here").hint("h");
  d.report(DiagCode::W202, Loc{0, 1, 1, 0}, "w");
  std::ostringstream out;
  RenderOptions o;
  o.color = true;
  o.count_line = true;
  d.render(out, o);
  CHECK(out.str() ==
        "\x1b[1mm.wo:1:1:\x1b[0m \x1b[1;33mwarning WO-W202\x1b[0m: w\n"
        "let x = 1\n"
        "\x1b[1;33m^\x1b[0m\n"
        "\x1b[1;36msee:\x1b[0m woc explain WO-W202\n"
        "\n"
        "\x1b[1mm.wo:1:5:\x1b[0m \x1b[1;31merror WO-E201\x1b[0m: m\n"
        "let x = 1\n"
        "\x1b[1;31m    ^\x1b[0m\n"
        "  \x1b[1mm.wo:1:1:\x1b[0m here\n"
        "  let x = 1\n"
        "  \x1b[1;36m^\x1b[0m\n"
        "\x1b[1;32mhelp:\x1b[0m h\n"
        "\x1b[1;36msee:\x1b[0m woc explain WO-E201\n"
        "\n"
        "\x1b[1m1 error, 1 warning\x1b[0m\n");
  CHECK(count_line(0, 0) == "");
  CHECK(count_line(1, 0) == "1 error");
  CHECK(count_line(2, 1) == "2 errors, 1 warning");
  CHECK(count_line(0, 3) == "3 warnings");
  // The plain render() keeps no count line (the driver asks for it).
  std::ostringstream plain;
  d.render(plain);
  CHECK(plain.str().find("1 error") == std::string::npos);
}

TEST_CASE("render: JSON, one object per line, strings escaped") {
  // nlohmann::json's escaping: control bytes (below 0x20), `"` and `\`;
  // DEL (0x7f) needs none in JSON and stays.
  CHECK(json_quote("a\"b\\c\n\t\x01\x7f") == "\"a\\\"b\\\\c\\n\\t\\u0001\x7f\"");
  CHECK(json_quote("\xc3\xa9 \xf0\x9f\x98\x80") == "\"\xc3\xa9 \xf0\x9f\x98\x80\"");  // é and an emoji stay
  // Invalid UTF-8: one U+FFFD (written as UTF-8, EF BF BD) per bad byte.
#define FFFD "\xef\xbf\xbd"
  CHECK(json_quote("\xff") == "\"" FFFD "\"");
  CHECK(json_quote("x\xc3") == "\"x" FFFD "\"");                  // cut short
  CHECK(json_quote("\xc0\xaf") == "\"" FFFD FFFD "\"");           // overlong
  CHECK(json_quote("\xed\xa0\x80") == "\"" FFFD FFFD FFFD "\"");  // a surrogate
#undef FFFD
  SourceManager sm;
  sm.add(SourceFile{"dir/\"q\".wo", "x\n", ""});
  Diagnostics d(sm);
  d.error(DiagCode::E403, Loc{0, 1, 1, 0}, "unknown name `x`");
  d.report(DiagCode::W202, Loc{0, 1, 1, 0}, "w").with_span(Span{Loc{0, 1, 1, 0}, 1}).note(Loc{3, 2, 2, 0}, "l").hint("h1").hint("h2");
  std::ostringstream out;
  RenderOptions o;
  o.format = RenderOptions::Format::Json;
  o.count_line = true;  // ignored for JSON: every line is an object
  o.color = true;       // ignored for JSON
  d.render(out, o);
  CHECK(out.str() ==
        "{\"file\":\"dir/\\\"q\\\".wo\",\"line\":1,\"col\":1,\"severity\":\"error\",\"code\":\"WO-E403\","
        "\"message\":\"unknown name `x`\",\"span\":null,\"related\":[],\"help\":[],\"explain\":\"woc explain WO-E403\"}\n"
        "{\"file\":\"dir/\\\"q\\\".wo\",\"line\":1,\"col\":1,\"severity\":\"warning\",\"code\":\"WO-W202\","
        "\"message\":\"w\",\"span\":{\"line\":1,\"col\":1,\"len\":1},"
        "\"related\":[{\"file\":\"<unknown>\",\"line\":2,\"col\":2,\"label\":\"l\"}],"
        "\"help\":[\"h1\",\"h2\"],\"explain\":\"woc explain WO-W202\"}\n");
}

TEST_CASE("suggest: edit distance and the closest name") {
  CHECK(edit_distance("kitten", "sitting") == 3);
  CHECK(edit_distance("ab", "ba") == 1);  // a swap of neighbours is one edit
  CHECK(edit_distance("", "abc") == 3);
  CHECK(edit_distance("same", "same") == 0);
  CHECK(closest_name("cuont", {"total", "count", "main"}) == "count");
  CHECK(closest_name("nmae", {"age", "name"}) == "name");
  CHECK(closest_name("x", {"y", "z"}) == "");          // one letter: anything is one edit away
  CHECK(closest_name("abcd", {"wxyz"}) == "");
  CHECK(closest_name("frobnicate", {"frobnicator"}) == "frobnicator");
  CHECK(closest_name("count", {"count"}) == "");       // the name itself is no suggestion
  CHECK(closest_name("lenght", {"len", "length"}) == "length");
  CHECK(closest_name("cat", {"cut", "cot"}) == "cot");  // a tie: the alphabetically first
}

TEST_CASE("suggest: words of other languages, by position") {
  REQUIRE(foreign_word("func", ForeignWord::Keyword));
  CHECK(std::string(foreign_word("func", ForeignWord::Keyword)->wo) == "fn");
  CHECK(std::string(foreign_word("null", ForeignWord::Value)->wo) == "nil");
  CHECK(std::string(foreign_word("string", ForeignWord::Type)->wo) == "Text");
  CHECK(foreign_word("string", ForeignWord::Value) == nullptr);  // a local may be called `string`
  CHECK(foreign_word("float", ForeignWord::Call) == nullptr);    // `float(x)` is a builtin
  CHECK(foreign_word("fn", ForeignWord::Keyword) == nullptr);
  CHECK(foreign_help(*foreign_word("elif", ForeignWord::Keyword)) == "did you mean `else if`?");
}
