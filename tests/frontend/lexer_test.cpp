// Lexer (language.md §3, Appendix A) and diagnostics renderer (diagnostics.md
// §2.1) tests. Every expected value below is worked out from the spec text.
#include <doctest/doctest.h>

#include <charconv>
#include <chrono>
#include <cmath>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "common/diagnostics.h"
#include "frontend/token.h"

using namespace wo;

namespace {

std::string quote(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      case '\0': out += "\\0"; break;
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      default:
        if (c < 0x20 || c >= 0x7F) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\x%02X", c);
          out += buf;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out + "\"";
}

// A compact, readable rendering of a token stream (Eof is left out).
std::string dump(const std::vector<Token>& toks) {
  std::string out;
  for (const Token& t : toks) {
    std::string s;
    switch (t.kind) {
      case Tok::Eof: continue;
      case Tok::Newline: s = "NL"; break;
      case Tok::Ident: s = "id:" + t.text; break;
      case Tok::IntLit: s = "int:" + std::to_string(t.int_value); break;
      case Tok::FloatLit: {
        char buf[64];
        auto r = std::to_chars(buf, buf + sizeof buf, t.float_value);
        s = "float:" + std::string(buf, r.ptr);
        break;
      }
      case Tok::TextLit:
        if (!t.has_holes) {
          s = (t.raw ? "raw:" : "text:") + quote(t.text);
        } else {
          s = t.raw ? "raw[" : "text[";
          for (size_t i = 0; i < t.pieces.size(); ++i) {
            const TextPiece& p = t.pieces[i];
            if (i) s += ' ';
            if (p.kind == TextPiece::Lit) s += quote(p.text);
            else if (p.kind == TextPiece::Hole) s += "${" + p.text + "}";
            else s += "{{" + p.text + "}}";
          }
          s += "]";
        }
        break;
      default: s = tok_spelling(t.kind); break;
    }
    if (!out.empty()) out += ' ';
    out += s;
  }
  return out;
}

struct Lexed {
  std::vector<Token> toks;
  std::string str;                 // dump(toks)
  std::vector<std::string> diags;  // "WO-E001@1:5", in report order
};

Lexed lex(const std::string& src, std::set<std::string> defines = {}) {
  SourceManager sm;
  uint32_t id = sm.add(SourceFile{"t.wo", src, ""});
  Diagnostics diags(sm);
  LexOptions opts;
  opts.defines = std::move(defines);
  Lexed r;
  r.toks = lex_file(id, sm.get(id).text, diags, opts);
  REQUIRE(!r.toks.empty());
  CHECK(r.toks.back().kind == Tok::Eof);
  r.str = dump(r.toks);
  for (const Diagnostic& d : diags.all())
    r.diags.push_back(std::string(diag_code_text(d.code)) + "@" + std::to_string(d.loc.line) + ":" +
                      std::to_string(d.loc.col));
  return r;
}

using Diags = std::vector<std::string>;

const Token& first(const Lexed& l, Tok k) {
  for (const Token& t : l.toks)
    if (t.kind == k) return t;
  FAIL("token kind not found");
  return l.toks.back();
}

}  // namespace

// ------------------------------------------------------------ §3.1 lines

TEST_CASE("lexer: empty input is just Eof") {
  Lexed l = lex("");
  CHECK(l.toks.size() == 1);
  CHECK(l.toks[0].loc.line == 1);
  CHECK(l.toks[0].loc.col == 1);
  CHECK(l.diags.empty());
}

TEST_CASE("lexer: NEWLINE runs, blank and comment-only lines collapse") {
  CHECK(lex("a\n\n\n-- c\n   \n\tb\n").str == "id:a NL id:b NL");
  CHECK(lex("a -- trailing comment\nb").str == "id:a NL id:b");
  // nothing before the first token produces a NEWLINE
  CHECK(lex("\n\n-- header\n\na").str == "id:a");
  // space, tab and carriage return only separate tokens
  CHECK(lex("a\r\nb\t c").str == "id:a NL id:b id:c");
  CHECK(lex("-- only a comment").str == "");
}

TEST_CASE("lexer: `..` at line end continues the line, comment lines between") {
  std::string src =
      "fn banner(user: Text) -> Text {\n"
      "  let s = \"Welcome, \" ..\n"
      "          user ..\n"
      "          -- a comment line between the pieces is fine\n"
      "          \"!\"\n"
      "  return s\n"
      "}\n";
  Lexed l = lex(src);
  CHECK(l.str ==
        "fn id:banner ( id:user : id:Text ) -> id:Text { NL "
        "let id:s = text:\"Welcome, \" .. id:user .. text:\"!\" NL "
        "return id:s NL } NL");
  CHECK(l.diags.empty());
  CHECK(lex("a .. -- comment after the dots\n\n b").str == "id:a .. id:b");
  // other binary operators do not continue a line
  CHECK(lex("a +\nb").str == "id:a + NL id:b");
}

// ------------------------------------------------------------ §3.2 comments, §3.3 identifiers

TEST_CASE("lexer: comments start only at token boundaries") {
  CHECK(lex("a - -b").str == "id:a - - id:b");
  CHECK(lex("a --b").str == "id:a");
  CHECK(lex("a --b\nc").str == "id:a NL id:c");
  CHECK(lex("count--x").str == "id:count--x");
  CHECK(lex("1 --2").str == "int:1");
  CHECK(lex("-- é ! $ ~ ` \" \\").diags.empty());  // anything goes in a comment
}

TEST_CASE("lexer: identifiers absorb hyphens") {
  CHECK(lex("max-len").str == "id:max-len");
  CHECK(lex("n-1").str == "id:n-1");
  CHECK(lex("n - 1").str == "id:n - int:1");
  CHECK(lex("n--x").str == "id:n--x");
  CHECK(lex("a->b").str == "id:a- > id:b");
  CHECK(lex("a -> b").str == "id:a -> id:b");
  CHECK(lex("a-=1").str == "id:a- = int:1");
  CHECK(lex("_x1 x_ A_b-C9").str == "id:_x1 id:x_ id:A_b-C9");
  CHECK(lex("3-1").str == "int:3 - int:1");  // numbers do not absorb hyphens
  CHECK(lex("x-").str == "id:x-");
}

// ------------------------------------------------------------ §3.4 reserved words

TEST_CASE("lexer: the 37 reserved words") {
  const char* words[] = {"type",  "class",    "interface", "fn",      "let",    "mut",     "take",
                         "return", "if",      "else",      "while",   "for",    "in",      "true",
                         "false", "use",      "spawn",     "using",   "pub",    "break",   "continue",
                         "do",    "const",    "and",       "or",      "not",    "inline",  "switch",
                         "case",  "default",  "typedef",   "try",     "catch",  "nil",     "as",
                         "INSERT", "SELECT"};
  CHECK(sizeof words / sizeof words[0] == 37);
  std::set<Tok> kinds;
  for (const char* w : words) {
    Lexed l = lex(w);
    REQUIRE(l.toks.size() == 2);
    CHECK(l.toks[0].kind != Tok::Ident);
    CHECK(std::string(tok_spelling(l.toks[0].kind)) == w);
    kinds.insert(l.toks[0].kind);
  }
  CHECK(kinds.size() == 37);
  // case-sensitive; contextual words and longer words are identifiers
  CHECK(lex("insert select Insert Type IF").str == "id:insert id:select id:Insert id:Type id:IF");
  CHECK(lex("self receive ref multi map static from where").str ==
        "id:self id:receive id:ref id:multi id:map id:static id:from id:where");
  CHECK(lex("types type-x fns in-place iff").str == "id:types id:type-x id:fns id:in-place id:iff");
  CHECK(lex("extends cast Dynamic").str == "id:extends id:cast id:Dynamic");
}

// ------------------------------------------------------------ §3.5 integers

TEST_CASE("lexer: integer literals") {
  CHECK(lex("0 42 007").str == "int:0 int:42 int:7");
  CHECK(lex("1_000 1_2_3").str == "int:1000 int:123");
  CHECK(lex("0x1F 0XfF 0xdead_BEEF").str == "int:31 int:255 int:3735928559");
  CHECK(lex("0b1010 0B1 0b1_0").str == "int:10 int:1 int:2");
  // prefix only when a digit of that base follows
  CHECK(lex("0xZZ").str == "int:0 id:xZZ");
  CHECK(lex("0x").str == "int:0 id:x");
  CHECK(lex("0b2").str == "int:0 id:b2");
  CHECK(lex("0x_1").str == "int:0 id:x_1");
  // `_` only between digits
  CHECK(lex("1_").str == "int:1 id:_");
  CHECK(lex("1__0").str == "int:1 id:__0");
  CHECK(lex("0x1F_").str == "int:31 id:_");
  // no sign: unary minus
  CHECK(lex("-5").str == "- int:5");
  CHECK(lex("0b102").str == "int:2 int:2");
}

TEST_CASE("lexer: integer literals beyond signed 64 bits are WO-E101") {
  Lexed ok = lex("9223372036854775807 0x7FFF_FFFF_FFFF_FFFF");
  CHECK(ok.diags.empty());
  CHECK(ok.toks[0].int_value == INT64_MAX);
  CHECK(ok.toks[1].int_value == INT64_MAX);
  CHECK(lex("9223372036854775808").diags == Diags{"WO-E101@1:1"});
  CHECK(lex("x = 0xFFFF_FFFF_FFFF_FFFF").diags == Diags{"WO-E101@1:5"});
  CHECK(lex("0x8000000000000000").diags == Diags{"WO-E101@1:1"});
  CHECK(lex("99999999999999999999999").diags == Diags{"WO-E101@1:1"});
  CHECK(lex("0b" + std::string(64, '1')).diags == Diags{"WO-E101@1:1"});
  CHECK(lex("0b" + std::string(63, '1')).diags.empty());
  // the token is still produced, so parsing goes on
  CHECK(lex("9223372036854775808 x").str == "int:0 id:x");
  SourceManager sm;
  sm.add(SourceFile{"t.wo", "99999999999999999999", ""});
  Diagnostics d(sm);
  lex_file(0, sm.get(0).text, d, {});
  REQUIRE(d.all().size() == 1);
  CHECK(d.all()[0].message.find("integer literal does not fit in 64 bits") != std::string::npos);
}

// ------------------------------------------------------------ §3.6 floats

TEST_CASE("lexer: float literals") {
  CHECK(lex("1.5").str == "float:1.5");
  CHECK(lex("1.").str == "int:1 .");
  CHECK(lex(".5").str == ". int:5");
  CHECK(lex("0..9").str == "int:0 .. int:9");
  CHECK(lex("1.x").str == "int:1 . id:x");
  CHECK(lex("3e4").str == "float:30000");
  CHECK(lex("3e4").toks[0].kind == Tok::FloatLit);
  CHECK(lex("4eggs").str == "int:4 id:eggs");
  CHECK(lex("1e+").str == "int:1 id:e +");
  CHECK(lex("1e-x").str == "int:1 id:e-x");
  CHECK(lex("2.5e-3 1E+2 6.02e23").str == "float:0.0025 float:100 float:6.02e+23");
  CHECK(lex("1_000.5").str == "float:1000.5");
  CHECK(lex("1_0e1").str == "float:100");
  CHECK(lex("1.5_0").str == "float:1.5 id:_0");   // no `_` in the fraction
  CHECK(lex("1e1_0").str == "float:10 id:_0");    // nor in the exponent
  CHECK(lex("1.5.2").str == "float:1.5 . int:2");
  Lexed inf = lex("1e999");
  CHECK(inf.diags.empty());
  CHECK(std::isinf(inf.toks[0].float_value));
  CHECK(inf.toks[0].float_value > 0);
  CHECK(lex("0.1").toks[0].float_value == 0.1);
}

// ------------------------------------------------------------ §3.7 quoted literals

TEST_CASE("lexer: quoted literals and every escape") {
  Lexed l = lex(R"("\n\t\r\0\\\"\'\$\q")");
  CHECK(l.diags.empty());
  REQUIRE(l.toks.size() == 2);
  CHECK(l.toks[0].text == std::string("\n\t\r\0\\\"'$q", 9));
  CHECK(!l.toks[0].has_holes);
  CHECK(!l.toks[0].raw);
  CHECK(lex(R"('it\'s "fine"')").str == R"(text:"it's \"fine\"")");
  CHECK(lex(R"("say 'hi'")").str == R"(text:"say 'hi'")");
  CHECK(lex(R"('a' "b")").str == R"(text:"a" text:"b")");
  CHECK(lex(R"("")").str == R"(text:"")");
  CHECK(lex(R"("")").toks[0].pieces.empty());
  CHECK(lex(R"("x")").toks[0].pieces.size() == 1);
  // bytes >= 0x80 inside literals are copied through
  Lexed u = lex("\"h\xC3\xA9\"");
  CHECK(u.diags.empty());
  CHECK(u.toks[0].text == "h\xC3\xA9");
  // `{{` is just text in a quoted literal; `$` not followed by `{` is text
  CHECK(lex(R"("{{x}} $5 and $")").str == R"(text:"{{x}} $5 and $")");
  // len covers the quotes
  CHECK(lex(R"(  "abc" x)").toks[0].len == 5);
}

TEST_CASE("lexer: WO-E005 raw line feed ends the quoted literal") {
  std::string src =
      "fn main() {\n"
      "  print(\"first line\n"
      "second line\")\n"
      "}\n";
  Lexed l = lex(src);
  // The first literal ends at the line feed (which is a NEWLINE); the quote on
  // the next line opens a second literal that also meets a line feed.
  CHECK(l.str ==
        "fn id:main ( ) { NL id:print ( text:\"first line\" NL id:second id:line text:\")\" NL } NL");
  CHECK(l.diags == Diags{"WO-E005@2:9", "WO-E005@3:12"});
  CHECK(lex("x = 'ab\ny").str == "id:x = text:\"ab\" NL id:y");
}

TEST_CASE("lexer: WO-E002 backslash as the last byte of the file") {
  Lexed l = lex("fn main() {\n  print(\"tail\\");
  CHECK(l.diags == Diags{"WO-E002@2:14"});
  CHECK(l.str == "fn id:main ( ) { NL id:print ( text:\"tail\"");
  // a backslash before the end is an escape like any other
  CHECK(lex("\"a\\\\\"").diags.empty());
}

TEST_CASE("lexer: quoted literal running into end of file is accepted") {
  Lexed l = lex("x = \"abc");
  CHECK(l.diags.empty());
  CHECK(l.str == "id:x = text:\"abc\"");
}

TEST_CASE("lexer: escaped line feed continues a quoted literal") {
  // `\` + any other character is that character (§3.7)
  Lexed l = lex("\"a\\\nb\" c");
  CHECK(l.diags.empty());
  CHECK(l.str == "text:\"a\\nb\" id:c");
  CHECK(l.toks[1].loc.line == 2);
}

// ------------------------------------------------------------ §3.8 interpolation

TEST_CASE("lexer: interpolation pieces") {
  Lexed l = lex(R"("a${x}b${y}")");
  CHECK(l.str == R"(text["a" ${x} "b" ${y}])");
  CHECK(l.toks[0].has_holes);
  CHECK(lex(R"("${x}")").str == R"(text[${x}])");
  CHECK(lex(R"("${ a + b } and ${c}!")").str == R"(text[${ a + b } " and " ${c} "!"])");
  // §3.8 example
  CHECK(lex(R"~("${qty} ${unit} at ${price} each (\${literal})")~").str ==
        R"~(text[${qty} " " ${unit} " at " ${price} " each (${literal})"])~");
}

TEST_CASE("lexer: interpolation holes track braces and nested strings") {
  CHECK(lex(R"("p=${Point { x: 1, y: {2} }}!")").str == R"(text["p=" ${Point { x: 1, y: {2} }} "!"])");
  CHECK(lex(R"("${f("}", '{')} done")").str == R"(text[${f("}", '{')} " done"])");
  CHECK(lex(R"("${g("a\"}")}z")").str == R"(text[${g("a\"}")} "z"])");
  CHECK(lex(R"("${h('\'}')}")").str == R"(text[${h('\'}')}])");
  CHECK(lex(R"("${f("in ${x} }")}!")").str == R"(text[${f("in ${x} }")} "!"])");
  CHECK(lex(R"("a ${} b")").str == R"(text["a " ${} " b"])");  // the parser rejects it
  CHECK(lex(R"("a ${} b")").diags.empty());
}

TEST_CASE("lexer: \\${ is a literal dollar") {
  Lexed l = lex(R"("cost \${x} ok")");
  CHECK(l.str == R"(text:"cost ${x} ok")");
  CHECK(!l.toks[0].has_holes);
}

TEST_CASE("lexer: interpolation piece positions") {
  Lexed l = lex("x\n  \"ab${val}cd\"");
  const Token& t = first(l, Tok::TextLit);
  CHECK(t.loc.line == 2);
  CHECK(t.loc.col == 3);
  CHECK(t.loc.offset == 4);
  CHECK(t.len == 12);
  REQUIRE(t.pieces.size() == 3);
  CHECK(t.pieces[0].loc.col == 4);   // a
  CHECK(t.pieces[1].loc.col == 8);   // v (first byte of the hole text)
  CHECK(t.pieces[1].loc.offset == 9);
  CHECK(t.pieces[2].loc.col == 12);  // c
}

TEST_CASE("lexer: a hole left open at the line feed is text") {
  Lexed l = lex("\"a ${x\ny");
  CHECK(l.str == "text:\"a ${x\" NL id:y");
  CHECK(l.diags == Diags{"WO-E005@1:1"});
}

// ------------------------------------------------------------ §3.9 raw literals

TEST_CASE("lexer: raw literals are verbatim") {
  Lexed l = lex(R"(`C:\dir "q" 'x' \n`)");
  CHECK(l.diags.empty());
  CHECK(l.str == R"(raw:"C:\\dir \"q\" 'x' \\n")");
  CHECK(l.toks[0].raw);
  CHECK(lex("`  x  `").str == R"(raw:"  x  ")");  // no line feed: unchanged
  CHECK(lex("``").str == R"(raw:"")");
  CHECK(lex(R"(`a \${x} $ { } }} b`)").str == R"(raw["a \\" ${x} " $ { } }} b"])");
  CHECK(lex("`  ${x}  `").str == R"(raw["  " ${x} "  "])");
}

TEST_CASE("lexer: raw literal card() example from §3.9") {
  std::string src =
      "fn card(title: Text, body: Text) -> Text {\n"
      "  let html = `\n"
      "      <section>\n"
      "        <h2>{{ title }}</h2>\n"
      "        <p>${body}</p>\n"
      "      </section>\n"
      "      `\n"
      "  return html\n"
      "}\n";
  Lexed l = lex(src);
  CHECK(l.diags.empty());
  const Token& t = first(l, Tok::TextLit);
  CHECK(t.raw);
  CHECK(t.has_holes);
  REQUIRE(t.pieces.size() == 5);
  CHECK(t.pieces[0].kind == TextPiece::Lit);
  CHECK(t.pieces[0].text == "<section>\n  <h2>");
  CHECK(t.pieces[1].kind == TextPiece::EscHole);
  CHECK(t.pieces[1].text == " title ");
  CHECK(t.pieces[1].loc.line == 4);
  CHECK(t.pieces[1].loc.col == 15);
  CHECK(t.pieces[2].kind == TextPiece::Lit);
  CHECK(t.pieces[2].text == "</h2>\n  <p>");
  CHECK(t.pieces[3].kind == TextPiece::Hole);
  CHECK(t.pieces[3].text == "body");
  CHECK(t.pieces[3].loc.line == 5);
  CHECK(t.pieces[3].loc.col == 14);
  CHECK(t.pieces[4].kind == TextPiece::Lit);
  CHECK(t.pieces[4].text == "</p>\n</section>\n");
  // the tokens after the literal are on the right lines
  CHECK(l.str ==
        "fn id:card ( id:title : id:Text , id:body : id:Text ) -> id:Text { NL let id:html = "
        "raw[\"<section>\\n  <h2>\" {{ title }} \"</h2>\\n  <p>\" ${body} \"</p>\\n</section>\\n\"] NL "
        "return id:html NL } NL");
  CHECK(first(l, Tok::KwReturn).loc.line == 8);
}

TEST_CASE("lexer: raw literal margin removal") {
  CHECK(lex("`\n    a\n      b\n    `").str == R"(raw:"a\n  b\n")");
  // blank lines do not count for the margin; they lose up to the margin
  CHECK(lex("`\n  a\n\n  b\n  `").str == R"(raw:"a\n\nb\n")");
  CHECK(lex("`\n  a\n     \n  b`").str == R"(raw:"a\n   \nb")");
  // tabs count as one character each, not expanded
  CHECK(lex("`\n\t\tx\n\t  y\n`").str == R"(raw:"x\n y\n")");
  // only one leading line feed is dropped
  CHECK(lex("`\n\n  x\n`").str == R"(raw:"\nx\n")");
  // the first line counts when the content does not start with a line feed
  CHECK(lex("`abc\n   def\n   `").str == R"(raw:"abc\n   def\n")");
  // a hole is non-blank content
  CHECK(lex("`\n    ${a}\n  b\n`").str == R"(raw["  " ${a} "\nb\n"])");
  CHECK(lex("`\n${a}\n  b\n`").str == R"(raw[${a} "\n  b\n"])");
  CHECK(lex("`\n  x ${a}\n  ${b} y\n  `").str == R"(raw["x " ${a} "\n" ${b} " y\n"])");
  // only blank lines: nothing to measure, the last line still loses its blanks
  CHECK(lex("`\n   \n  `").str == R"(raw:"   \n")");
  // a multi-line hole has no line feed in the text: no margin removal
  Lexed h = lex("`  a${\n  x\n}b`");
  CHECK(h.str == "raw[\"  a\" ${\n  x\n} \"b\"]");
  CHECK(h.diags.empty());
}

TEST_CASE("lexer: raw literal {{ }} holes") {
  CHECK(lex("`{{ P{x: 1} }}`").str == R"(raw[{{ P{x: 1} }}])");
  CHECK(lex("`{{ f(\"}}\") }}!`").str == R"(raw[{{ f("}}") }} "!"])");
  CHECK(lex("`<b>{{x}}</b>`").str == R"(raw["<b>" {{x}} "</b>"])");
}

TEST_CASE("lexer: WO-E004 unterminated raw literal or hole") {
  std::string src =
      "fn page() -> Text {\n"
      "  return `<p>hello</p>\n"
      "}\n";
  Lexed l = lex(src);
  CHECK(l.diags == Diags{"WO-E004@2:10"});
  CHECK(l.str == "fn id:page ( ) -> id:Text { NL return raw:\"<p>hello</p>\\n}\\n\"");
  CHECK(lex("x `a {{ b` y").diags == Diags{"WO-E004@1:3"});
  CHECK(lex("x `a {{ b` y").str == R"(id:x raw:"a {{ b" id:y)");
  CHECK(lex("`a ${ b` y").diags == Diags{"WO-E004@1:1"});
  // one report per literal
  CHECK(lex("`a {{ b").diags == Diags{"WO-E004@1:1"});
}

// ------------------------------------------------------------ §3.11 operators

TEST_CASE("lexer: every operator, maximal munch") {
  CHECK(lex("{ } ( ) [ ] , ; : . .. ? @ | -> => - + * / % & ^ << >> = += -= *= /= %= == != < <= > >=").str ==
        "{ } ( ) [ ] , ; : . .. ? @ | -> => - + * / % & ^ << >> = += -= *= /= %= == != < <= > >=");
  CHECK(lex("<<= >>= ... && || ==> =>= <> 1->2").str ==
        "<< = >> = .. . & & | | == > => = < > int:1 -> int:2");
  CHECK(lex("x -=1").str == "id:x -= int:1");
  CHECK(lex("a.b..c").str == "id:a . id:b .. id:c");
  CHECK(lex("=>").toks[0].kind == Tok::FatArrow);
}

// ------------------------------------------------------------ §3.12 WO-E001

TEST_CASE("lexer: WO-E001 unknown characters") {
  Lexed l = lex("fn main() {\n  let cost = 12 $ 3\n}");
  CHECK(l.diags == Diags{"WO-E001@2:17"});
  CHECK(l.str == "fn id:main ( ) { NL let id:cost = int:12 int:3 NL }");
  CHECK(lex("!x").diags == Diags{"WO-E001@1:1"});
  CHECK(lex("!x").str == "id:x");
  CHECK(lex("a != b").diags.empty());
  CHECK(lex("~ \\").diags == Diags{"WO-E001@1:1", "WO-E001@1:3"});
  // once per non-ASCII byte
  Lexed u = lex("x \xC3\xA9 y");
  CHECK(u.diags == Diags{"WO-E001@1:3", "WO-E001@1:4"});
  CHECK(u.str == "id:x id:y");
  // a NUL byte inside the file is a bad byte, not the end
  Lexed z = lex(std::string("a\0b", 3));
  CHECK(z.diags == Diags{"WO-E001@1:2"});
  CHECK(z.str == "id:a id:b");
  CHECK(lex("\x01 \x7F").diags == Diags{"WO-E001@1:1", "WO-E001@1:3"});
}

// ------------------------------------------------------------ §3.10 directives

TEST_CASE("lexer: #if / #else / #end with and without defines") {
  std::string src =
      "fn storage_dir() -> Text {\n"
      "#if sandbox\n"
      "  return \"/tmp/app\"\n"
      "#else\n"
      "  return \"/var/lib/app\"\n"
      "#end\n"
      "}\n";
  Lexed off = lex(src);
  CHECK(off.diags.empty());
  CHECK(off.str == "fn id:storage_dir ( ) -> id:Text { NL return text:\"/var/lib/app\" NL } NL");
  Lexed on = lex(src, {"sandbox"});
  CHECK(on.diags.empty());
  CHECK(on.str == "fn id:storage_dir ( ) -> id:Text { NL return text:\"/tmp/app\" NL } NL");
  CHECK(lex(src, {"other"}).str == off.str);
}

TEST_CASE("lexer: directive sections nest") {
  std::string src = "#if a\nx\n#if b\ny\n#else\nz\n#end\n#end\nw\n";
  CHECK(lex(src).str == "id:w NL");
  CHECK(lex(src, {"a"}).str == "id:x NL id:z NL id:w NL");
  CHECK(lex(src, {"a", "b"}).str == "id:x NL id:y NL id:w NL");
  CHECK(lex(src, {"b"}).str == "id:w NL");
  std::string src2 = "#if a\nx\n#else\n#if b\ny\n#else\nz\n#end\n#end\n";
  CHECK(lex(src2).str == "id:z NL");
  CHECK(lex(src2, {"b"}).str == "id:y NL");
  CHECK(lex(src2, {"a", "b"}).str == "id:x NL");
  CHECK(lex(src2, {"a"}).diags.empty());
}

TEST_CASE("lexer: directives mid-line and with `..` continuation") {
  CHECK(lex("let x = #if fast 1 #else 2 #end\ny", {"fast"}).str == "let id:x = int:1 NL id:y");
  CHECK(lex("let x = #if fast 1 #else 2 #end\ny").str == "let id:x = int:2 NL id:y");
  std::string src =
      "let s = \"a\" ..\n"
      "#if x\n"
      "  \"b\"\n"
      "#else\n"
      "  \"c\"\n"
      "#end\n"
      "print(s)\n";
  CHECK(lex(src, {"x"}).str == "let id:s = text:\"a\" .. text:\"b\" NL id:print ( id:s ) NL");
  CHECK(lex(src).str == "let id:s = text:\"a\" .. text:\"c\" NL id:print ( id:s ) NL");
  // lexical errors are reported in skipped sections too
  CHECK(lex("#if x\n$\n#end\n").diags == Diags{"WO-E001@2:1"});
  // a leading section that is dropped leaves no leading NEWLINE
  CHECK(lex("#if x\na\n#end\n\nb\n").str == "id:b NL");
  CHECK(lex("a\n#if x\n-- c\n#end\n\nb\n").str == "id:a NL id:b NL");
}

TEST_CASE("lexer: WO-E003 directive misuse") {
  CHECK(lex("#foo\nx").diags == Diags{"WO-E003@1:1"});
  CHECK(lex("#endif\n").diags == Diags{"WO-E003@1:1"});
  CHECK(lex("a #If b").diags == Diags{"WO-E003@1:3"});
  Lexed bare = lex("# if x");
  CHECK(bare.diags == Diags{"WO-E003@1:1"});
  CHECK(bare.str == "if id:x");
  // #if without a flag (the section still pairs with its #end)
  Lexed noflag = lex("#if\nx\n#end\ny");
  CHECK(noflag.diags == Diags{"WO-E003@1:1"});
  CHECK(noflag.str == "id:y");
  CHECK(lex("#if true\nx\n#end\n").diags == Diags{"WO-E003@1:1"});
  // second #else
  CHECK(lex("#if a\nx\n#else\ny\n#else\nz\n#end\n").diags == Diags{"WO-E003@5:1"});
  // #else / #end outside a section
  CHECK(lex("x\n#else\n").diags == Diags{"WO-E003@2:1"});
  CHECK(lex("x\n  #end\n").diags == Diags{"WO-E003@2:3"});
  // section open at end of file (fixture ifdef-unterminated)
  CHECK(lex("#if fast\nfn pick() -> Int { return 1 }\n").diags == Diags{"WO-E003@1:1"});
  CHECK(lex("#if a\n#if b\n#end\n").diags == Diags{"WO-E003@1:1"});
  // a condition after the flag of a line-starting #if: not silently section content
  CHECK(lex("#if a and b\nx\n#end\n").diags == Diags{"WO-E003@1:7"});
  CHECK(lex("#if a && b\nx\n#end\n", {"a"}).diags == Diags{"WO-E003@1:7"});
  CHECK(lex("#if a || b\nx\n#end\n").diags == Diags{"WO-E003@1:7"});
  CHECK(lex("#if a or b\nx\n#end\n").diags == Diags{"WO-E003@1:7"});
  CHECK(lex("#if a, b\nx\n#end\n").diags == Diags{"WO-E003@1:6"});
  CHECK(lex("f(x #if a , y #end)\n").diags.empty());  // mid-line: the `, y` is the section
  CHECK(lex("#if a\nand_more()\n#end\n").diags.empty());
}

// ------------------------------------------------------------ positions

TEST_CASE("lexer: locations are 1-based, columns count bytes, tab is one") {
  Lexed l = lex("fn main() {\n\tlet x = 1\n}");
  const Token& let = first(l, Tok::KwLet);
  CHECK(let.loc.line == 2);
  CHECK(let.loc.col == 2);
  CHECK(let.loc.offset == 13);
  CHECK(let.len == 3);
  const Token& nl = l.toks[5];
  CHECK(nl.kind == Tok::Newline);
  CHECK(nl.loc.line == 1);
  CHECK(nl.loc.col == 12);
  CHECK(l.toks.back().loc.offset == 24);
  CHECK(l.toks.back().loc.line == 3);
  CHECK(l.toks.back().loc.col == 2);
  Lexed r = lex("`a\nb` x");
  CHECK(r.toks[0].len == 5);
  CHECK(r.toks[1].loc.line == 2);
  CHECK(r.toks[1].loc.col == 4);
  CHECK(lex("0x1F_").toks[0].len == 4);
}

// ------------------------------------------------------------ lex_fragment

TEST_CASE("lex_fragment: positions are real file positions, no diagnostics") {
  bool ok = false;
  std::vector<Token> t = lex_fragment(3, " x + 1 ", Loc{3, 2, 10, 40}, ok);
  CHECK(ok);
  CHECK(dump(t) == "id:x + int:1");
  REQUIRE(t.size() == 4);
  CHECK(t[0].loc.file == 3);
  CHECK(t[0].loc.line == 2);
  CHECK(t[0].loc.col == 11);
  CHECK(t[0].loc.offset == 41);
  CHECK(t[2].loc.col == 15);
  CHECK(t.back().kind == Tok::Eof);

  ok = true;
  t = lex_fragment(0, "x $ y", Loc{0, 1, 1, 0}, ok);
  CHECK(!ok);
  CHECK(dump(t) == "id:x id:y");

  // a multi-line hole of a raw literal: no leading/trailing NEWLINE
  ok = false;
  t = lex_fragment(0, "\n  x\n", Loc{0, 1, 5, 4}, ok);
  CHECK(ok);
  CHECK(dump(t) == "id:x");
  CHECK(t[0].loc.line == 2);
  CHECK(t[0].loc.col == 3);
  CHECK(t[0].loc.offset == 7);
  // interior NEWLINEs stay (the parser rejects `a +` NEWLINE `b`)
  t = lex_fragment(0, "a +\nb", Loc{0, 1, 1, 0}, ok);
  CHECK(dump(t) == "id:a + NL id:b");
  // nested strings and no directive filtering
  t = lex_fragment(0, "f(\"}\") #if", Loc{0, 1, 1, 0}, ok);
  CHECK(ok);
  CHECK(dump(t) == "id:f ( text:\"}\" ) #if");
  t = lex_fragment(0, "", Loc{0, 1, 1, 0}, ok);
  CHECK(ok);
  CHECK(t.size() == 1);
  t = lex_fragment(0, "'abc\\", Loc{0, 1, 1, 0}, ok);
  CHECK(!ok);
  t = lex_fragment(0, "#bad", Loc{0, 1, 1, 0}, ok);
  CHECK(!ok);
}

TEST_CASE("lex_fragment: the hole text of a lexed literal round-trips") {
  std::string src = "let s = `\n  <p>${ user.name }</p>\n`";
  Lexed l = lex(src);
  const Token& t = first(l, Tok::TextLit);
  REQUIRE(t.pieces.size() == 3);
  const TextPiece& h = t.pieces[1];
  bool ok = false;
  std::vector<Token> f = lex_fragment(0, h.text, h.loc, ok);
  CHECK(ok);
  CHECK(dump(f) == "id:user . id:name");
  CHECK(f[0].loc.offset == src.find("user"));
  CHECK(f[0].loc.line == 2);
  CHECK(f[0].loc.col == 9);
}

// ------------------------------------------------------------ performance

TEST_CASE("lexer: a 1000-line file lexes quickly") {
  std::string src;
  for (int i = 0; i < 1000; ++i)
    src += "  let total-" + std::to_string(i) + " = compute(x, 0x1F + 3.25) .. \"v=${x} ok\" -- note\n";
  SourceManager sm;
  sm.add(SourceFile{"big.wo", src, ""});
  Diagnostics d(sm);
  std::vector<Token> toks;
  auto t0 = std::chrono::steady_clock::now();
  for (int rep = 0; rep < 10; ++rep) toks = lex_file(0, sm.get(0).text, d, {});
  auto us = std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - t0).count() / 10;
  MESSAGE("1000 lines lexed in " << us << " us");
  CHECK(d.all().empty());
  CHECK(toks.size() == 1000 * 14 + 1);
  CHECK(us < 20000);  // generous: sanitizer and debug builds
}

TEST_CASE("lexer: pathological hole nesting stays linear") {
  for (const char* unit : {"\"${", "${\"", "`${\"${", "{{\"${", "${\"${\"}"}) {
    std::string src = "\"";
    for (int i = 0; i < 20000; ++i) src += unit;
    auto t0 = std::chrono::steady_clock::now();
    Lexed l = lex(src);
    auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0).count();
    CHECK(ms < 500);
  }
}

// ------------------------------------------------------------ diagnostics renderer

TEST_CASE("diagnostics: one diagnostic, caret under a tab-containing line") {
  SourceManager sm;
  sm.add(SourceFile{"shop/main.wo", "fn main() {\n\tlet cost = 12 $ 3\n}\n", ""});
  Diagnostics d(sm);
  d.error(DiagCode::E001, Loc{0, 2, 16, 27}, "unknown character `$`");
  CHECK(d.has_errors());
  CHECK(d.error_count() == 1);
  CHECK(d.format(d.all()[0]) ==
        "shop/main.wo:2:16: error WO-E001: unknown character `$`\n"
        "    let cost = 12 $ 3\n"    // the tab expanded to the next stop (4)
        "                  ^\n"
        "see: woc explain WO-E001\n");
}

TEST_CASE("diagnostics: related sites, warnings, missing lines") {
  SourceManager sm;
  sm.add(SourceFile{"shop/main.wo", "fn f() {\n  keep(cart)\n  keep(cart)\n}\n", ""});
  Diagnostics d(sm);
  Diagnostic& e = d.error(DiagCode::E301, Loc{0, 3, 8, 0}, "use of `cart` after it was moved");
  e.related.push_back(Related{Loc{0, 2, 8, 0}, "`cart` moved here"});
  CHECK(d.format(e) ==
        "shop/main.wo:3:8: error WO-E301: use of `cart` after it was moved\n"
        "  keep(cart)\n"
        "       ^\n"
        "  shop/main.wo:2:8: `cart` moved here\n"
        "    keep(cart)\n"
        "         ^\n"
        "see: woc explain WO-E301\n");
  Diagnostics w(sm);
  w.report(DiagCode::W202, Loc{0, 1, 1, 0}, "unused use");
  CHECK(!w.has_errors());
  CHECK(w.error_count() == 0);
  CHECK(w.format(w.all()[0]) == "shop/main.wo:1:1: warning WO-W202: unused use\nfn f() {\n^\nsee: woc explain WO-W202\n");
  // a line that cannot be fetched: header only
  Diagnostics m(sm);
  m.error(DiagCode::E101, Loc{0, 40, 2, 0}, "x");
  m.error(DiagCode::E101, Loc{7, 1, 1, 0}, "y");
  CHECK(m.format(m.all()[0]) == "shop/main.wo:40:2: error WO-E101: x\nsee: woc explain WO-E101\n");
  CHECK(m.format(m.all()[1]) == "<unknown>:1:1: error WO-E101: y\nsee: woc explain WO-E101\n");
  // end of file after the final line feed: an empty line and a caret
  m.error(DiagCode::E101, Loc{0, 5, 1, 0}, "z");
  CHECK(m.format(m.all()[2]) == "shop/main.wo:5:1: error WO-E101: z\n\n^\nsee: woc explain WO-E101\n");
}

TEST_CASE("diagnostics: sorting, de-duplication and render") {
  SourceManager sm;
  sm.add(SourceFile{"b.wo", "one\ntwo\n", ""});
  sm.add(SourceFile{"a.wo", "xyz\n", ""});
  Diagnostics d(sm);
  d.error(DiagCode::E201, Loc{0, 2, 1, 4}, "b2");
  d.error(DiagCode::E101, Loc{0, 1, 3, 2}, "b1c3");
  d.error(DiagCode::E201, Loc{0, 1, 2, 1}, "b1c2-first");
  d.error(DiagCode::E202, Loc{0, 1, 2, 1}, "b1c2-second");   // same place, other code: kept
  d.error(DiagCode::E201, Loc{0, 1, 2, 1}, "b1c2-dup");      // exact duplicate: dropped
  d.error(DiagCode::E001, Loc{1, 1, 1, 0}, "a");
  std::vector<Diagnostic> s = d.sorted();
  REQUIRE(s.size() == 5);
  CHECK(s[0].message == "a");
  CHECK(s[1].message == "b1c2-first");
  CHECK(s[2].message == "b1c2-second");
  CHECK(s[3].message == "b1c3");
  CHECK(s[4].message == "b2");
  CHECK(d.all().size() == 6);
  CHECK(d.error_count() == 5);
  std::ostringstream out;
  Diagnostics r(sm);
  r.error(DiagCode::E201, Loc{0, 2, 2, 5}, "second");
  r.error(DiagCode::E101, Loc{0, 1, 1, 0}, "first");
  r.render(out);
  CHECK(out.str() ==
        "b.wo:1:1: error WO-E101: first\n"
        "one\n"
        "^\n"
        "see: woc explain WO-E101\n"
        "\n"
        "b.wo:2:2: error WO-E201: second\n"
        "two\n"
        " ^\n"
        "see: woc explain WO-E201\n");
}

TEST_CASE("diagnostics: lexer diagnostics render end to end") {
  SourceManager sm;
  sm.add(SourceFile{"m.wo", "fn main() {\n\tprint(\"a\n}\n", ""});
  Diagnostics d(sm);
  lex_file(0, sm.get(0).text, d, {});
  std::ostringstream out;
  d.render(out);
  std::string s = out.str();
  CHECK(s.rfind("m.wo:2:8: error WO-E005: ", 0) == 0);
  CHECK(s.find("\n    print(\"a\n          ^\n") != std::string::npos);
}

TEST_CASE("source: line_text") {
  SourceFile f{"x.wo", "a\r\n\nccc", ""};
  CHECK(f.line_text(1) == "a");
  CHECK(f.line_text(2) == "");
  CHECK(f.line_text(3) == "ccc");
  CHECK(f.line_text(4) == "");
  CHECK(f.line_text(0) == "");
  SourceManager sm;
  CHECK(sm.add(f) == 0);
  CHECK(sm.add(f) == 1);
  CHECK(sm.size() == 2);
}
