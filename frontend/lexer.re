// The .wo lexer: bytes -> tokens (language.md §3 and Appendix A).
//
// re2c source; CMake runs `re2c -W --no-generation-date` on it. The token
// dispatch is one re2c DFA over the file copied into a NUL-terminated buffer
// (the NUL at index n is the end-of-input sentinel; a NUL anywhere else is an
// unknown character). Literal bodies (quoted, raw, interpolation holes) are
// scanned by hand: they need brace depth and nesting, which a DFA cannot
// count. The #if/#else/#end filter runs afterwards (directives.cpp).
//
// Decisions where the spec is silent or UNSURE (each also noted at its site):
//  * Integer literals: every value up to INT64_MAX (9223372036854775807,
//    0x7FFF_FFFF_FFFF_FFFF) is accepted; a larger one is WO-E101 "integer
//    literal does not fit in 64 bits". Literals carry no sign (`-` is unary
//    minus), so INT64_MIN cannot be written as `-9223372036854775808`; write
//    `-9223372036854775807 - 1`.
//  * No NEWLINE is emitted before the first token of a file (a leading run of
//    blank or comment lines produces nothing).
//  * `\` followed by a line feed inside a quoted literal follows the generic
//    escape rule (§3.7, "`\` + any other character c is c itself"): it yields
//    a line feed and the literal continues on the next line (no WO-E005).
//  * WO-E005 is reported at the literal's opening quote (the literal cannot
//    span lines, so it is the same line as the line feed).
//  * A `${` hole in a quoted literal that is not closed before the line feed
//    (or end of file) is not a hole: the rest of the line becomes text and the
//    literal ends there (WO-E005, whose message names the open hole; silent
//    at end of file).
//  * Hole scanning skips nested quoted strings without looking at holes inside
//    them (as §3.8 describes), which keeps it linear on any input.
//  * In a raw literal an unclosed `${` hole is WO-E004, like an unclosed `{{`
//    hole. A raw literal runs to the next backtick; holes are found inside
//    that content, so a backtick always ends the literal.
//  * `{{ }}` holes track `{`/`}` depth and skip quoted strings, so
//    `{{ P{x: 1} }}` ends at the final `}}`.
//  * Margin removal when no line is non-blank: the margin is 0.
//  * TextLit pieces: when has_holes, `pieces` holds no empty Lit piece. Without
//    holes, `text` holds the bytes and `pieces` one Lit piece (none if empty).
//  * Keyword, IntLit and FloatLit tokens also carry their source spelling in
//    Token::text.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "common/diagnostics.h"
#include "frontend/token.h"

namespace wo {
namespace detail {
// frontend/directives.cpp
std::vector<Token> filter_directives(std::vector<Token> toks, std::string_view text,
                                     Diagnostics& diags, const LexOptions& opts);
}  // namespace detail

namespace {

using uc = unsigned char;
constexpr size_t npos = static_cast<size_t>(-1);

bool is_hspace(uc c) { return c == ' ' || c == '\t'; }

class Lexer {
 public:
  Lexer(uint32_t file, std::string_view text, Loc start, Diagnostics* diags)
      : file_(file), buf_(text), start_(start), diags_(diags) {
    s_ = reinterpret_cast<const uc*>(buf_.c_str());  // s_[n_] == 0: the sentinel
    n_ = text.size();
    reset_lines();
  }

  std::vector<Token> run();
  void keep_comments(std::vector<Comment>* sink) { comments_ = sink; }
  bool ok() const { return ok_; }
  bool saw_directive() const { return saw_directive_; }

 private:
  // Positions are indices into s_ (0..n_); the file offset is start_.offset + i.
  Loc loc_at(size_t i);
  void reset_lines() {
    lt_pos_ = 0;
    lt_line_ = start_.line;
    lt_line_start_ = -static_cast<int64_t>(start_.col > 0 ? start_.col - 1 : 0);
  }
  void error(DiagCode code, Loc loc, std::string msg) {
    ok_ = false;
    if (diags_) diags_->report(code, loc, std::move(msg));
  }
  Token& push(Tok k, size_t b, size_t e);
  void newline(size_t i);
  void word(Tok k, size_t b, size_t e);
  void int_lit(size_t b, size_t e, size_t digits, unsigned base);
  void float_lit(size_t b, size_t e);
  void bad_byte(size_t i);
  void directive(size_t b, size_t e);
  size_t quoted(size_t b);
  size_t raw(size_t b);
  size_t scan_hole(size_t p, size_t bound, bool allow_lf) const;
  size_t skip_quoted(size_t p, size_t bound) const;
  size_t scan_esc_hole(size_t p, size_t bound) const;

  uint32_t file_;
  std::string buf_;
  const uc* s_ = nullptr;
  size_t n_ = 0;
  Loc start_;
  Diagnostics* diags_;
  bool ok_ = true;
  bool saw_directive_ = false;
  std::vector<Comment>* comments_ = nullptr;  // LexOptions::comments
  std::vector<Token> toks_;
  // Line tracking for loc_at: lines are counted forward from the last query.
  size_t lt_pos_ = 0;
  uint32_t lt_line_ = 1;
  int64_t lt_line_start_ = 0;
};

Loc Lexer::loc_at(size_t i) {
  if (i < lt_pos_) reset_lines();  // rare: a query behind the last one
  // Queries come in token order, so the gap is short: a plain loop beats memchr.
  for (size_t p = lt_pos_; p < i; ++p) {
    if (s_[p] == '\n') {
      ++lt_line_;
      lt_line_start_ = static_cast<int64_t>(p) + 1;
    }
  }
  lt_pos_ = i;
  return Loc{file_, lt_line_, static_cast<uint32_t>(static_cast<int64_t>(i) - lt_line_start_ + 1),
             static_cast<uint32_t>(start_.offset + i)};
}

Token& Lexer::push(Tok k, size_t b, size_t e) {
  Token& t = toks_.emplace_back();
  t.kind = k;
  t.loc = loc_at(b);
  t.len = static_cast<uint32_t>(e - b);
  return t;
}

// A line feed: one NEWLINE per run (blank and comment-only lines add nothing,
// since comments produce no token), none right after `..` (continuation,
// §3.1) and none before the first token.
void Lexer::newline(size_t i) {
  if (toks_.empty()) return;
  Tok last = toks_.back().kind;
  if (last == Tok::Newline || last == Tok::DotDot) return;
  push(Tok::Newline, i, i + 1);
}

void Lexer::word(Tok k, size_t b, size_t e) {
  Token& t = push(k, b, e);
  t.text.assign(reinterpret_cast<const char*>(s_ + b), e - b);
}

// `digits` is where the digits start (after a 0x / 0b prefix).
void Lexer::int_lit(size_t b, size_t e, size_t digits, unsigned base) {
  constexpr uint64_t kMax = static_cast<uint64_t>(INT64_MAX);
  uint64_t v = 0;
  bool over = false;
  for (size_t p = digits; p < e; ++p) {
    uc c = s_[p];
    if (c == '_') continue;
    unsigned d = c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10;
    if (v > (kMax - d) / base) {
      over = true;
      break;
    }
    v = v * base + d;
  }
  Token& t = push(Tok::IntLit, b, e);
  t.text.assign(reinterpret_cast<const char*>(s_ + b), e - b);
  t.int_value = over ? 0 : static_cast<int64_t>(v);
  if (over) {
    Loc l = t.loc;
    error(DiagCode::E101, l,
          "integer literal does not fit in 64 bits (the largest Int literal is "
          "9223372036854775807 = 0x7FFF_FFFF_FFFF_FFFF)");
  }
}

void Lexer::float_lit(size_t b, size_t e) {
  // The grammar allows `_` only in the integer part; strtod wants none.
  std::string digits;
  digits.reserve(e - b);
  for (size_t p = b; p < e; ++p)
    if (s_[p] != '_') digits += static_cast<char>(s_[p]);
  Token& t = push(Tok::FloatLit, b, e);
  t.text.assign(reinterpret_cast<const char*>(s_ + b), e - b);
  t.float_value = std::strtod(digits.c_str(), nullptr);  // overflow -> inf (§3.6)
}

void Lexer::bad_byte(size_t i) {
  uc c = s_[i];
  char hex[8];
  std::snprintf(hex, sizeof hex, "0x%02X", c);
  std::string msg;
  if (c >= 0x80) {
    msg = std::string("unknown character: non-ASCII byte ") + hex +
          " outside a text literal or comment";
  } else if (c == '!') {
    msg = "unknown character `!`: it is only valid in `!=` (negation is `not`)";
  } else if (c == '$') {
    msg = "unknown character `$`: `${` starts a hole only inside a text literal";
  } else if (c > 0x20 && c < 0x7F) {
    msg = std::string("unknown character `") + static_cast<char>(c) + "`";
  } else {
    msg = std::string("unknown character: control byte ") + hex;
  }
  error(DiagCode::E001, loc_at(i), std::move(msg));
}

// `#word`: one of #if / #else / #end, anything else is WO-E003 (§3.10).
void Lexer::directive(size_t b, size_t e) {
  std::string_view w(reinterpret_cast<const char*>(s_ + b + 1), e - b - 1);
  Tok k;
  if (w == "if") {
    k = Tok::HashIf;
  } else if (w == "else") {
    k = Tok::HashElse;
  } else if (w == "end") {
    k = Tok::HashEnd;
  } else {
    error(DiagCode::E003, loc_at(b),
          "unknown directive `#" + std::string(w) + "` (only #if, #else and #end exist)");
    return;
  }
  saw_directive_ = true;
  word(k, b, e);
}

// ---------------------------------------------------------------- holes

// `p` is at an opening quote; returns the index after the closing quote.
// Escapes are honoured; holes inside the nested string are not looked at
// (§3.8: the scanner "skips over nested quoted literals"), which keeps every
// hole scan linear. A nested string stops at a line feed (the returned
// position is the line feed) or at `bound`.
size_t Lexer::skip_quoted(size_t p, size_t bound) const {
  uc q = s_[p++];
  while (p < bound) {
    uc c = s_[p];
    if (c == q) return p + 1;
    if (c == '\\') {
      if (p + 1 >= bound) return bound;
      p += 2;
      continue;
    }
    if (c == '\n') return p;
    ++p;
  }
  return bound;
}

// `p` is just after `${`; returns the index of the matching `}` or npos.
// Tracks brace depth and skips nested quoted strings (§3.8).
size_t Lexer::scan_hole(size_t p, size_t bound, bool allow_lf) const {
  int depth = 1;
  while (p < bound) {
    uc c = s_[p];
    if (c == '{') {
      ++depth;
    } else if (c == '}') {
      if (--depth == 0) return p;
    } else if (c == '"' || c == '\'') {
      p = skip_quoted(p, bound);
      continue;
    } else if (c == '\n' && !allow_lf) {
      return npos;
    }
    ++p;
  }
  return npos;
}

// `p` is just after `{{` in a raw literal; returns the index of the first `}`
// of the closing `}}` (at brace depth 0) or npos.
size_t Lexer::scan_esc_hole(size_t p, size_t bound) const {
  int depth = 0;
  while (p < bound) {
    uc c = s_[p];
    if (c == '}') {
      if (depth == 0) {
        if (p + 1 < bound && s_[p + 1] == '}') return p;
      } else {
        --depth;
      }
    } else if (c == '{') {
      ++depth;
    } else if (c == '"' || c == '\'') {
      p = skip_quoted(p, bound);
      continue;
    }
    ++p;
  }
  return npos;
}

// ---------------------------------------------------------------- literals

void finish_text(Token& t, std::vector<TextPiece>& pieces) {
  bool holes = false;
  for (const TextPiece& p : pieces)
    if (p.kind != TextPiece::Lit) holes = true;
  if (holes) {
    std::vector<TextPiece> out;
    out.reserve(pieces.size());
    for (TextPiece& p : pieces)
      if (p.kind != TextPiece::Lit || !p.text.empty()) out.push_back(std::move(p));
    t.has_holes = true;
    t.pieces = std::move(out);
    return;
  }
  if (!pieces.empty() && !pieces[0].text.empty()) {
    t.text = pieces[0].text;
    pieces.resize(1);
    t.pieces = std::move(pieces);
  }
}

// `"..."` or `'...'` (§3.7, §3.8). Returns the index after the literal.
size_t Lexer::quoted(size_t b) {
  const uc q = s_[b];
  Token t;
  t.kind = Tok::TextLit;
  t.loc = loc_at(b);
  std::vector<TextPiece> pieces;
  std::string lit;
  Loc lit_loc = loc_at(b + 1);
  size_t open_hole = npos;  // a `${` that found no `}` on its line
  size_t p = b + 1;
  while (p < n_) {  // reaching end of file: accepted silently (§3.7)
    // Copy a run of ordinary bytes at once.
    size_t r = p;
    while (r < n_) {
      uc c = s_[r];
      if (c == q || c == '\n' || c == '\\' || c == '$') break;
      ++r;
    }
    lit.append(reinterpret_cast<const char*>(s_ + p), r - p);
    p = r;
    if (p >= n_) break;
    uc c = s_[p];
    if (c == q) {
      ++p;
      break;
    }
    if (c == '\n') {  // the literal ends; the line feed becomes a NEWLINE
      std::string msg = "newline inside a quoted literal: the literal is not closed on its line";
      if (open_hole != npos)
        msg += " (the `${` hole at column " + std::to_string(loc_at(open_hole).col) +
               " has no closing `}`)";
      msg += "; use a backtick raw literal for multi-line text";
      error(DiagCode::E005, t.loc, std::move(msg));
      break;
    }
    if (c == '\\') {
      if (p + 1 >= n_) {
        error(DiagCode::E002, loc_at(p), "dangling escape: backslash at the end of the file");
        p = n_;
        break;
      }
      uc d = s_[p + 1];
      switch (d) {
        case 'n': lit += '\n'; break;
        case 't': lit += '\t'; break;
        case 'r': lit += '\r'; break;
        case '0': lit += '\0'; break;
        default: lit += static_cast<char>(d); break;  // \\ \" \' \$ and \q -> q
      }
      p += 2;
      continue;
    }
    // c == '$'
    if (p + 1 < n_ && s_[p + 1] == '{') {
      size_t e = scan_hole(p + 2, n_, false);
      if (e != npos) {
        pieces.push_back(TextPiece{TextPiece::Lit, std::move(lit), lit_loc});
        lit.clear();
        pieces.push_back(TextPiece{TextPiece::Hole,
                                   std::string(reinterpret_cast<const char*>(s_ + p + 2), e - p - 2),
                                   loc_at(p + 2)});
        p = e + 1;
        lit_loc = loc_at(p);
        continue;
      }
      // Not closed on this line: the rest of the line is text.
      open_hole = p;
      size_t stop = p;
      while (stop < n_ && s_[stop] != '\n') ++stop;
      lit.append(reinterpret_cast<const char*>(s_ + p), stop - p);
      p = stop;
      continue;
    }
    lit += '$';  // `$` not followed by `{` is text
    ++p;
  }
  pieces.push_back(TextPiece{TextPiece::Lit, std::move(lit), lit_loc});
  t.len = static_cast<uint32_t>(p - b);
  finish_text(t, pieces);
  toks_.push_back(std::move(t));
  return p;
}

// Margin removal for a multi-line raw literal (§3.9 steps 1-4). `ps`
// alternates Lit, hole, Lit, ..., Lit (Lit pieces may be empty); a hole is
// non-blank content.
void remove_margin(std::vector<TextPiece>& ps) {
  bool has_lf = false;
  for (size_t k = 0; k < ps.size() && !has_lf; k += 2)
    has_lf = ps[k].text.find('\n') != std::string::npos;
  if (!has_lf) return;  // a literal without a line feed is never altered
  // 1. One leading line feed is dropped.
  if (!ps[0].text.empty() && ps[0].text[0] == '\n') ps[0].text.erase(0, 1);
  // Line starts: (piece, offset) at the start and after every line feed.
  struct Line {
    size_t piece, off, ws;
    bool blank;
  };
  std::vector<Line> lines;
  lines.push_back({0, 0, 0, false});
  for (size_t k = 0; k < ps.size(); k += 2) {
    const std::string& s = ps[k].text;
    for (size_t j = s.find('\n'); j != std::string::npos; j = s.find('\n', j + 1))
      lines.push_back({k, j + 1, 0, false});
  }
  // 2. The margin: minimum leading space/tab count over non-blank lines.
  size_t margin = npos;
  for (Line& l : lines) {
    const std::string& s = ps[l.piece].text;
    size_t j = l.off;
    while (j < s.size() && is_hspace(static_cast<uc>(s[j]))) ++j;
    l.ws = j - l.off;
    // At the end of a Lit piece the line goes on with a hole (non-blank)
    // unless this is the last piece.
    l.blank = j < s.size() ? s[j] == '\n' : l.piece + 1 == ps.size();
    if (!l.blank && l.ws < margin) margin = l.ws;
  }
  if (margin == npos) margin = 0;
  // 3. Remove up to `margin` leading spaces/tabs from every line (backwards,
  // so earlier offsets stay valid).
  for (size_t i = lines.size(); i-- > 0;) {
    Line& l = lines[i];
    ps[l.piece].text.erase(l.off, l.ws < margin ? l.ws : margin);
  }
  // 4. A last line of only spaces/tabs loses them (its line feed stays).
  const Line& last = lines.back();
  if (last.piece + 1 == ps.size()) {
    std::string& s = ps[last.piece].text;
    size_t j = last.off;
    while (j < s.size() && is_hspace(static_cast<uc>(s[j]))) ++j;
    if (j == s.size()) s.erase(last.off);
  }
}

// A backtick raw literal (§3.9). Returns the index after the literal.
size_t Lexer::raw(size_t b) {
  Token t;
  t.kind = Tok::TextLit;
  t.raw = true;
  t.loc = loc_at(b);
  size_t cb = b + 1;
  const void* close = std::memchr(s_ + cb, '`', n_ - cb);
  size_t ce = close ? static_cast<size_t>(static_cast<const uc*>(close) - s_) : n_;
  bool reported = false;
  if (!close) {
    error(DiagCode::E004, t.loc,
          "unterminated raw literal: no closing backtick before the end of the file");
    reported = true;
  }
  std::vector<TextPiece> pieces;
  std::string lit;
  Loc lit_loc = loc_at(cb);
  size_t p = cb;
  while (p < ce) {
    size_t r = p;
    while (r < ce && s_[r] != '$' && s_[r] != '{') ++r;
    lit.append(reinterpret_cast<const char*>(s_ + p), r - p);
    p = r;
    if (p >= ce) break;
    bool dollar = s_[p] == '$';
    if (p + 1 < ce && s_[p + 1] == '{') {
      size_t e = dollar ? scan_hole(p + 2, ce, true) : scan_esc_hole(p + 2, ce);
      if (e != npos) {
        pieces.push_back(TextPiece{TextPiece::Lit, std::move(lit), lit_loc});
        lit.clear();
        pieces.push_back(TextPiece{dollar ? TextPiece::Hole : TextPiece::EscHole,
                                   std::string(reinterpret_cast<const char*>(s_ + p + 2), e - p - 2),
                                   loc_at(p + 2)});
        p = dollar ? e + 1 : e + 2;
        lit_loc = loc_at(p);
        continue;
      }
      if (!reported) {
        error(DiagCode::E004, t.loc,
              dollar ? "unterminated `${` hole in a raw literal: no closing `}` before the closing backtick"
                     : "unterminated `{{` hole in a raw literal: no closing `}}` before the closing backtick");
        reported = true;
      }
      lit.append(reinterpret_cast<const char*>(s_ + p), ce - p);
      p = ce;
      break;
    }
    lit += static_cast<char>(s_[p]);  // a lone `$` or `{`
    ++p;
  }
  pieces.push_back(TextPiece{TextPiece::Lit, std::move(lit), lit_loc});
  remove_margin(pieces);
  size_t end = close ? ce + 1 : n_;
  t.len = static_cast<uint32_t>(end - b);
  finish_text(t, pieces);
  toks_.push_back(std::move(t));
  return end;
}

// ---------------------------------------------------------------- main loop

std::vector<Token> Lexer::run() {
  toks_.reserve(n_ / 4 + 16);
  const uc* const base = s_;
  const uc* const limit = s_ + n_;
  const uc* cur = s_;
  const uc* mar = nullptr;
  for (;;) {
    const uc* tok = cur;
    const size_t b = static_cast<size_t>(tok - base);
#define E static_cast<size_t>(cur - base)
    /*!re2c
      re2c:define:YYCTYPE = "unsigned char";
      re2c:define:YYCURSOR = cur;
      re2c:define:YYMARKER = mar;
      re2c:yyfill:enable = 0;
      re2c:indent:top = 2;

      ident = [A-Za-z_] [A-Za-z0-9_-]*;
      dec   = [0-9] ("_"? [0-9])*;
      hex   = "0" [xX] [0-9a-fA-F] ("_"? [0-9a-fA-F])*;
      bin   = "0" [bB] [01] ("_"? [01])*;
      exp   = [eE] [+-]? [0-9]+;
      flt   = dec "." [0-9]+ exp? | dec exp;

      "\x00" {
        if (tok == limit) break;  // the sentinel: end of input
        bad_byte(b);
        continue;
      }
      [ \t\r]+ { continue; }
      "\n"     { newline(b); continue; }
      // A comment starts only where a token could start (so `n--x` is an
      // identifier) and runs to the line feed, which is not consumed.
      "--" {
        const void* nl = std::memchr(cur, '\n', static_cast<size_t>(limit - cur));
        cur = nl ? static_cast<const uc*>(nl) : limit;
        if (comments_) {
          Comment& c = comments_->emplace_back();
          c.loc = loc_at(b);
          c.text.assign(reinterpret_cast<const char*>(s_ + b), static_cast<size_t>(cur - tok));
        }
        continue;
      }

      // The 37 reserved words (§3.4); longest match makes `types` an ident.
      "type" { word(Tok::KwType, b, E); continue; }
      "class" { word(Tok::KwClass, b, E); continue; }
      "interface" { word(Tok::KwInterface, b, E); continue; }
      "fn" { word(Tok::KwFn, b, E); continue; }
      "let" { word(Tok::KwLet, b, E); continue; }
      "mut" { word(Tok::KwMut, b, E); continue; }
      "take" { word(Tok::KwTake, b, E); continue; }
      "return" { word(Tok::KwReturn, b, E); continue; }
      "if" { word(Tok::KwIf, b, E); continue; }
      "else" { word(Tok::KwElse, b, E); continue; }
      "while" { word(Tok::KwWhile, b, E); continue; }
      "for" { word(Tok::KwFor, b, E); continue; }
      "in" { word(Tok::KwIn, b, E); continue; }
      "true" { word(Tok::KwTrue, b, E); continue; }
      "false" { word(Tok::KwFalse, b, E); continue; }
      "use" { word(Tok::KwUse, b, E); continue; }
      "spawn" { word(Tok::KwSpawn, b, E); continue; }
      "using" { word(Tok::KwUsing, b, E); continue; }
      "pub" { word(Tok::KwPub, b, E); continue; }
      "break" { word(Tok::KwBreak, b, E); continue; }
      "continue" { word(Tok::KwContinue, b, E); continue; }
      "do" { word(Tok::KwDo, b, E); continue; }
      "const" { word(Tok::KwConst, b, E); continue; }
      "and" { word(Tok::KwAnd, b, E); continue; }
      "or" { word(Tok::KwOr, b, E); continue; }
      "not" { word(Tok::KwNot, b, E); continue; }
      "inline" { word(Tok::KwInline, b, E); continue; }
      "switch" { word(Tok::KwSwitch, b, E); continue; }
      "case" { word(Tok::KwCase, b, E); continue; }
      "default" { word(Tok::KwDefault, b, E); continue; }
      "typedef" { word(Tok::KwTypedef, b, E); continue; }
      "try" { word(Tok::KwTry, b, E); continue; }
      "catch" { word(Tok::KwCatch, b, E); continue; }
      "nil" { word(Tok::KwNil, b, E); continue; }
      "as" { word(Tok::KwAs, b, E); continue; }
      "INSERT" { word(Tok::KwINSERT, b, E); continue; }
      "SELECT" { word(Tok::KwSELECT, b, E); continue; }

      ident { word(Tok::Ident, b, E); continue; }

      // Numbers (§3.5, §3.6). `0x` not followed by a hex digit matches only
      // `dec` ("0"), leaving `x...` for the identifier rule.
      dec { int_lit(b, E, b, 10); continue; }
      hex { int_lit(b, E, b + 2, 16); continue; }
      bin { int_lit(b, E, b + 2, 2); continue; }
      flt { float_lit(b, E); continue; }

      ["'] { cur = base + quoted(b); continue; }
      "`"  { cur = base + raw(b); continue; }

      "#" ident { directive(b, E); continue; }
      "#" {
        error(DiagCode::E003, loc_at(b),
              "`#` must be immediately followed by a directive name (#if, #else, #end)");
        continue;
      }

      "{"  { push(Tok::LBrace, b, E); continue; }
      "}"  { push(Tok::RBrace, b, E); continue; }
      "("  { push(Tok::LParen, b, E); continue; }
      ")"  { push(Tok::RParen, b, E); continue; }
      "["  { push(Tok::LBracket, b, E); continue; }
      "]"  { push(Tok::RBracket, b, E); continue; }
      ","  { push(Tok::Comma, b, E); continue; }
      ";"  { push(Tok::Semi, b, E); continue; }
      ":"  { push(Tok::Colon, b, E); continue; }
      "."  { push(Tok::Dot, b, E); continue; }
      ".." { push(Tok::DotDot, b, E); continue; }
      "?"  { push(Tok::Question, b, E); continue; }
      "@"  { push(Tok::At, b, E); continue; }
      "|"  { push(Tok::Pipe, b, E); continue; }
      "->" { push(Tok::Arrow, b, E); continue; }
      "=>" { push(Tok::FatArrow, b, E); continue; }
      "-"  { push(Tok::Minus, b, E); continue; }
      "+"  { push(Tok::Plus, b, E); continue; }
      "*"  { push(Tok::Star, b, E); continue; }
      "/"  { push(Tok::Slash, b, E); continue; }
      "%"  { push(Tok::Percent, b, E); continue; }
      "&"  { push(Tok::Amp, b, E); continue; }
      "^"  { push(Tok::Caret, b, E); continue; }
      "<<" { push(Tok::Shl, b, E); continue; }
      ">>" { push(Tok::Shr, b, E); continue; }
      "="  { push(Tok::Assign, b, E); continue; }
      "+=" { push(Tok::PlusAssign, b, E); continue; }
      "-=" { push(Tok::MinusAssign, b, E); continue; }
      "*=" { push(Tok::StarAssign, b, E); continue; }
      "/=" { push(Tok::SlashAssign, b, E); continue; }
      "%=" { push(Tok::PercentAssign, b, E); continue; }
      "==" { push(Tok::EqEq, b, E); continue; }
      "!=" { push(Tok::NotEq, b, E); continue; }
      "<"  { push(Tok::Lt, b, E); continue; }
      "<=" { push(Tok::LtEq, b, E); continue; }
      ">"  { push(Tok::Gt, b, E); continue; }
      ">=" { push(Tok::GtEq, b, E); continue; }

      // Anything else, one byte at a time: `!`, `$`, `~`, `\`, control
      // bytes, every non-ASCII byte (WO-E001 once per byte).
      * { bad_byte(b); continue; }
    */
#undef E
  }
  push(Tok::Eof, n_, n_);
  return std::move(toks_);
}

}  // namespace

std::vector<Token> lex_file(uint32_t file_id, std::string_view text, Diagnostics& diags,
                            const LexOptions& opts) {
  Lexer lx(file_id, text, Loc{file_id, 1, 1, 0}, &diags);
  lx.keep_comments(opts.comments);
  std::vector<Token> toks = lx.run();
  if (!lx.saw_directive() || opts.keep_directives) return toks;
  return detail::filter_directives(std::move(toks), text, diags, opts);
}

// A hole's text: no diagnostics (ok = false instead), no directive filter, and
// no NEWLINE at the start or just before Eof (a multi-line hole in a raw
// literal, `${\n  x\n}`, is still one expression). Interior NEWLINEs stay.
std::vector<Token> lex_fragment(uint32_t file_id, std::string_view text, Loc start, bool& ok) {
  Lexer lx(file_id, text, start, nullptr);
  std::vector<Token> toks = lx.run();
  ok = lx.ok();
  if (toks.size() >= 2 && toks[toks.size() - 2].kind == Tok::Newline)
    toks.erase(toks.end() - 2);
  return toks;
}

}  // namespace wo
