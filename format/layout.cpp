// The canonical layout (docs/decisions/0037-fmt-layout.md), computed from the
// raw token stream (both #if branches kept) and the comments beside it. Line
// breaks stay where the author put them; what changes is indentation (two
// spaces per open bracket line, one more for a continuation line: after
// `..`, a query clause, a switch arm's statements, a union's `|` lines), the
// spacing between tokens on a line, and runs of blank lines (at most one,
// none at the edges of a bracket or the file). Token bytes are copied from
// the source, so literals (with their holes) never change.
#include "format/layout.h"

#include <algorithm>

namespace wo::format::detail {
namespace {

struct Item {
  uint32_t off = 0, end = 0;       // byte range in the source
  uint32_t line = 0, end_line = 0;  // first and last line covered
  Tok kind = Tok::Eof;
  bool comment = false;
  std::string_view src;  // the bytes as written (a comment without trailing blanks)
};

bool is_open(Tok k) { return k == Tok::LParen || k == Tok::LBracket || k == Tok::LBrace; }
bool is_close(Tok k) { return k == Tok::RParen || k == Tok::RBracket || k == Tok::RBrace; }
bool is_directive(Tok k) { return k == Tok::HashIf || k == Tok::HashElse || k == Tok::HashEnd; }

// Ends an operand: what may stand right before a binary operator, a call's
// `(` or an index `[`.
bool ends_operand(const Item& a) {
  switch (a.kind) {
    case Tok::Ident: case Tok::IntLit: case Tok::FloatLit: case Tok::TextLit:
    case Tok::RParen: case Tok::RBracket: case Tok::RBrace:
    case Tok::KwTrue: case Tok::KwFalse: case Tok::KwNil:
      return true;
    default:
      return false;
  }
}

// A contextual word that continues a query on its own line (language.md §3.4).
bool is_clause_word(const Item& it) {
  if (it.kind == Tok::KwTake) return true;
  if (it.kind != Tok::Ident) return false;
  return it.src == "where" || it.src == "order" || it.src == "select" || it.src == "group" ||
         it.src == "into" || it.src == "by" || it.src == "desc";
}

// The state of one output line while its tokens are spaced.
struct LineState {
  const Item* prev = nullptr;
  bool prev_unary = false;   // prev is a prefix `-`
  int generic = 0;           // open `map<` brackets
  bool prev_generic_close = false;
  bool use_line = false;           // a `use a/b` line: `/` is a path separator
  std::vector<bool> parens;        // per open `(` on this line: opened right after `catch`
  bool prev_catch_close = false;   // prev is the `)` of `catch (e)`: an expression follows
};

// Whether one space goes between the previous item on the line and `b`.
// `had_space`: the source had whitespace there (kept where the token kinds
// alone cannot tell: `?` after an operand, `[` after an operand inside a list).
bool space_before(LineState& st, const Item& b, bool had_space, bool in_list) {
  const Item& a = *st.prev;
  if (b.comment) return true;
  Tok ak = a.kind, bk = b.kind;
  if (st.prev_unary) return bk == Tok::Minus;  // `- -x`, never `--x` (a comment)
  if (st.use_line && (ak == Tok::Slash || bk == Tok::Slash)) return false;
  if (st.generic > 0 && (bk == Tok::Gt || bk == Tok::Shr)) return false;
  if (st.prev_generic_close) return bk != Tok::Comma && bk != Tok::RParen && bk != Tok::RBracket &&
                                    bk != Tok::Question && bk != Tok::Semi;
  if (ak == Tok::Lt && a.src == "<" && st.generic > 0) return false;  // just after `map<`
  if (bk == Tok::Lt && ak == Tok::Ident && a.src == "map") return false;
  if (bk == Tok::Comma || bk == Tok::Semi || bk == Tok::RParen || bk == Tok::RBracket) return false;
  if (ak == Tok::LParen || ak == Tok::LBracket) return false;
  if (ak == Tok::At) return false;
  if (bk == Tok::Dot) return (ak == Tok::IntLit || ak == Tok::FloatLit) && had_space;
  if (ak == Tok::Dot) return false;
  if (bk == Tok::Colon) return false;
  if (ak == Tok::Question) return false;
  if (bk == Tok::Question) return ends_operand(a) ? had_space : true;
  if (bk == Tok::LBrace) return true;
  if (ak == Tok::LBrace) return bk != Tok::RBrace;
  if (bk == Tok::RBrace) return true;
  if (bk == Tok::LParen) {
    if (ends_operand(a)) return false;
    if (ak == Tok::KwFn) return had_space;
    return ak != Tok::KwPub;  // `pub(read)`
  }
  // `xs[0]`; inside a list `[a [1]]` may be two items, so the author's space stays.
  if (bk == Tok::LBracket) return ends_operand(a) ? in_list && had_space : true;
  return true;
}

// Whether a `-` after the line's previous item is a prefix minus.
bool minus_is_unary(const LineState& st) {
  if (!st.prev) return true;
  if (st.prev_catch_close) return true;  // catch (e) -1
  return !ends_operand(*st.prev);
}

void advance(LineState& st, const Item& b) {
  bool unary = b.kind == Tok::Minus && minus_is_unary(st);
  bool closes = false;
  if (!st.prev && b.kind == Tok::KwUse) st.use_line = true;
  st.prev_catch_close = false;
  if (b.kind == Tok::LParen) st.parens.push_back(st.prev && st.prev->kind == Tok::KwCatch);
  if (b.kind == Tok::RParen && !st.parens.empty()) {
    st.prev_catch_close = st.parens.back();
    st.parens.pop_back();
  }
  if (b.kind == Tok::Lt && st.prev && st.prev->kind == Tok::Ident && st.prev->src == "map") {
    ++st.generic;
  } else if (st.generic > 0 && b.kind == Tok::Gt) {
    --st.generic;
    closes = true;
  } else if (st.generic > 0 && b.kind == Tok::Shr) {
    st.generic = std::max(0, st.generic - 2);
    closes = true;
  }
  st.prev = &b;
  st.prev_unary = unary;
  st.prev_generic_close = closes;
}

struct Level {
  Tok open = Tok::LBrace;  // `{` (or the file): statements, one per line; `(`, `[`: items
  int indent = 0;      // of the lines inside
  int first_orig = -1;  // the source indentation of the first code line inside
  bool in_arm = false;  // a `case ...:` / `default:` line came: its body is one deeper
};

// Visual width of a line's leading blanks in the source (a tab counts two,
// the indentation unit).
int orig_indent(std::string_view src, uint32_t off) {
  size_t b = off;
  while (b > 0 && src[b - 1] != '\n') --b;
  int w = 0;
  for (size_t i = b; i < off; ++i) w += src[i] == '\t' ? 2 : 1;
  return w;
}

struct OutLine {
  std::string code;          // indentation and tokens ("" with no comment: a blank line)
  std::string_view comment;  // a trailing comment, or empty
};

// Trailing comments of adjacent lines start in one column, one space after
// the longest code among them (as gofmt does); a blank line, a line without
// a trailing comment or a multi-line token ends the group.
std::string join(std::vector<OutLine>& lines) {
  auto alignable = [&](size_t k) {
    return !lines[k].comment.empty() && lines[k].code.find('\n') == std::string::npos;
  };
  std::string out;
  for (size_t i = 0; i < lines.size();) {
    size_t j = i + 1;
    size_t width = lines[i].code.size();
    if (alignable(i)) {
      while (j < lines.size() && alignable(j)) width = std::max(width, lines[j++].code.size());
    }
    for (size_t k = i; k < j; ++k) {
      out += lines[k].code;
      if (!lines[k].comment.empty()) {
        out.append(alignable(k) ? width - lines[k].code.size() + 1 : 1, ' ');
        out += lines[k].comment;
      }
      out += '\n';
    }
    i = j;
  }
  return out;
}

}  // namespace

std::string layout(std::string_view src, const std::vector<Token>& toks,
                   const std::vector<Comment>& comments) {
  std::vector<Item> items;
  items.reserve(toks.size() + comments.size());
  auto count_lines = [&](uint32_t off, uint32_t end) {
    return static_cast<uint32_t>(std::count(src.begin() + off, src.begin() + end, '\n'));
  };
  for (const Token& t : toks) {
    if (t.kind == Tok::Newline || t.kind == Tok::Eof) continue;
    Item it;
    it.off = t.loc.offset;
    it.end = t.loc.offset + t.len;
    it.line = t.loc.line;
    it.end_line = t.loc.line + count_lines(it.off, it.end);
    it.kind = t.kind;
    it.src = src.substr(it.off, t.len);
    items.push_back(it);
  }
  for (const Comment& c : comments) {
    Item it;
    it.off = c.loc.offset;
    std::string_view text = c.text;
    while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\r'))
      text.remove_suffix(1);
    it.end = c.loc.offset + static_cast<uint32_t>(text.size());
    it.line = it.end_line = c.loc.line;
    it.comment = true;
    it.src = src.substr(it.off, text.size());
    items.push_back(it);
  }
  std::sort(items.begin(), items.end(), [](const Item& x, const Item& y) { return x.off < y.off; });

  std::vector<OutLine> lines;
  std::vector<Level> levels{Level{}};
  std::vector<std::vector<Level>> if_saved;  // the levels at each open #if
  bool prev_dotdot = false;                  // the last code line ended with `..`
  bool prev_pipe = false;                    // the last code line ended with `|` (a union wraps)
  bool prev_opens = false;                   // the last line ended with an opening bracket
  uint32_t prev_end_line = 0;
  size_t i = 0;
  while (i < items.size()) {
    size_t j = i + 1;
    while (j < items.size() && items[j].line == items[j - 1].end_line) ++j;
    const Item& first = items[i];
    bool comment_line = first.comment;
    bool directive_line = is_directive(first.kind);

    // Indentation.
    int indent;
    if (is_close(first.kind) && levels.size() > 1) {
      indent = levels.back().indent - 1;
    } else if (directive_line) {
      indent = 0;  // like the spec's examples: directives start the line
    } else {
      Level& lv = levels.back();
      int orig = orig_indent(src, first.off);
      bool cont;
      if (lv.open == Tok::LBrace) {
        // Statements: the lexer ends one at every line feed, so a new line
        // continues the last one only after `..`, or when it starts a query
        // clause the author indented under its `from`, or in a union
        // declaration after a line ending in `|` or on a line starting with
        // `|` (decision 0090; a comment line counts as one when the next code
        // line starts with `|`). Only a union puts `|` there in code that parses.
        bool pipe_next = first.kind == Tok::Pipe;
        if (comment_line) {
          size_t k = j;
          while (k < items.size() && items[k].comment) ++k;
          pipe_next = k < items.size() && items[k].kind == Tok::Pipe;
        }
        cont = prev_dotdot || prev_pipe || pipe_next ||
               (!comment_line && is_clause_word(first) && lv.first_orig >= 0 && orig > lv.first_orig);
        if (lv.first_orig < 0 && !comment_line) lv.first_orig = orig;
        bool arm_head = first.kind == Tok::KwCase || first.kind == Tok::KwDefault;
        if (arm_head) lv.in_arm = true;
        if (lv.in_arm && !arm_head) cont = true;  // a switch arm's statements
      } else {
        // Items of ( ) or [ ]: a line indented deeper than the first one
        // continues an item.
        cont = false;
        if (lv.first_orig < 0) {
          if (!comment_line) lv.first_orig = orig;
        } else if (orig > lv.first_orig) {
          cont = true;
        }
      }
      indent = lv.indent + (cont ? 1 : 0);
    }

    // One blank line where the source had any, except after an opening
    // bracket, before a closing one and at the start of the file.
    if (!lines.empty() && first.line > prev_end_line + 1 && !prev_opens && !is_close(first.kind))
      lines.emplace_back();

    OutLine& ol = lines.emplace_back();
    std::string& out = ol.code;
    out.append(static_cast<size_t>(indent) * 2, ' ');
    LineState st;
    int line_indent = indent;
    for (size_t k = i; k < j; ++k) {
      const Item& it = items[k];
      if (it.comment && st.prev) {
        ol.comment = it.src;  // trailing: aligned with its neighbours below
        continue;
      }
      if (st.prev && space_before(st, it, it.off > st.prev->end, levels.back().open == Tok::LBracket))
        out += ' ';
      out += it.src;
      advance(st, it);
      if (it.comment) continue;
      if (is_open(it.kind)) {
        levels.push_back(Level{it.kind, line_indent + 1, -1});
      } else if (is_close(it.kind) && levels.size() > 1) {
        levels.pop_back();
      } else if (it.kind == Tok::HashIf) {
        if_saved.push_back(levels);
      } else if (it.kind == Tok::HashElse && !if_saved.empty()) {
        levels = if_saved.back();
      } else if (it.kind == Tok::HashEnd && !if_saved.empty()) {
        if_saved.pop_back();
      }
    }

    // What the next line needs to know.
    const Item* last_code = nullptr;
    for (size_t k = j; k-- > i;)
      if (!items[k].comment) {
        last_code = &items[k];
        break;
      }
    if (!comment_line && !directive_line) {
      prev_dotdot = last_code && last_code->kind == Tok::DotDot;
      prev_pipe = last_code && last_code->kind == Tok::Pipe && levels.size() == 1;
    }
    prev_opens = last_code && is_open(last_code->kind);
    prev_end_line = items[j - 1].end_line;
    i = j;
  }
  return join(lines);
}

}  // namespace wo::format::detail
