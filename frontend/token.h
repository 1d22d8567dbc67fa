// Tokens produced by the lexer (frontend/lexer.re) and consumed by the parser.
#pragma once
#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "common/source.h"

namespace wo {
class Diagnostics;

enum class Tok : uint8_t {
#define TOKEN(id, s) id,
#define KEYWORD(id, s) id,
#include "tokens.def"
#undef TOKEN
#undef KEYWORD
};

const char* tok_spelling(Tok t);  // "newline", "{", "while", ...

// One piece of a text literal. A literal without holes has exactly one Lit piece
// (possibly empty) — or none for "" — and Token::text holds the decoded bytes.
struct TextPiece {
  enum Kind : uint8_t { Lit, Hole, EscHole } kind = Lit;  // EscHole: raw-literal {{ }}
  std::string text;  // Lit: decoded bytes; Hole/EscHole: the expression's source text
  Loc loc;           // where the piece (for holes: the first byte of the hole text) starts
};

struct Token {
  Tok kind = Tok::Eof;
  Loc loc;
  uint32_t len = 0;             // bytes of source covered
  std::string text;             // Ident: the name; TextLit: decoded bytes if no holes
  int64_t int_value = 0;        // IntLit
  double float_value = 0;       // FloatLit
  bool raw = false;             // TextLit written with backticks
  bool has_holes = false;       // TextLit with ${ } or {{ }} holes
  std::vector<TextPiece> pieces;  // TextLit: the pieces in order (only when has_holes)
};

// A `--` comment, kept aside by the lexer when asked (LexOptions::comments):
// the formatter needs them; the parser never sees them.
struct Comment {
  Loc loc;           // the first `-`
  std::string text;  // from `--` to the end of the line, without the line feed
};

struct LexOptions {
  std::set<std::string> defines;        // -D flags for #if
  std::vector<Comment>* comments = nullptr;  // non-null: every comment is appended here
  bool keep_directives = false;         // skip the #if filter: #if/#else/#end tokens and both branches stay
  bool with_tests = false;              // loader: also read the program's *_test.wo files (woc test)
};

// Lexes a whole file: NEWLINE handling, `..` continuation, comments, literals,
// then the #if/#else/#end filter. Always ends with one Eof token.
std::vector<Token> lex_file(uint32_t file_id, std::string_view text, Diagnostics& diags,
                            const LexOptions& opts);

// Lexes the source text of an interpolation hole that starts at `start`
// (positions in the result are real file positions). Diagnostics from the hole
// are returned through `ok = false` instead of being reported, so the caller
// can report one WO-E101 for the whole literal (language.md §3.8).
std::vector<Token> lex_fragment(uint32_t file_id, std::string_view text, Loc start, bool& ok);

}  // namespace wo
