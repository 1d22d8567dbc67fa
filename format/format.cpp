// format_source: refuse what does not parse, lay out, then prove the result
// means the same before handing it out (see format.h).
#include "format/format.h"

#include <sstream>

#include "common/diagnostics.h"
#include "format/layout.h"
#include "frontend/parser.h"
#include "frontend/token.h"

namespace wo::format {
namespace {

struct Lexed {
  std::vector<Token> toks;
  std::vector<Comment> comments;
  bool errors = false;
};

// Both #if branches, with the comments: the stream the layout works on and
// the one the self-check compares.
Lexed lex_raw(std::string_view text) {
  SourceManager sm;
  sm.add(SourceFile{"", std::string(text), ""});
  Diagnostics diags(sm);
  Lexed l;
  LexOptions opts;
  opts.comments = &l.comments;
  opts.keep_directives = true;
  l.toks = lex_file(0, text, diags, opts);
  l.errors = diags.has_errors();
  return l;
}

// The parser's AST is a function of the token kinds, spellings and literal
// values (positions only feed diagnostics), so equal streams here mean an
// equal AST for every set of -D flags (decision 0037).
bool same_tokens(const std::vector<Token>& a, const std::vector<Token>& b) {
  auto skip = [](const std::vector<Token>& v) {
    std::vector<const Token*> r;
    for (const Token& t : v)
      if (t.kind != Tok::Newline) r.push_back(&t);
    return r;
  };
  auto x = skip(a), y = skip(b);
  if (x.size() != y.size()) return false;
  for (size_t i = 0; i < x.size(); ++i) {
    const Token &s = *x[i], &t = *y[i];
    if (s.kind != t.kind || s.text != t.text || s.int_value != t.int_value ||
        s.float_value != t.float_value || s.raw != t.raw || s.has_holes != t.has_holes ||
        s.pieces.size() != t.pieces.size())
      return false;
    for (size_t p = 0; p < s.pieces.size(); ++p)
      if (s.pieces[p].kind != t.pieces[p].kind || s.pieces[p].text != t.pieces[p].text) return false;
  }
  return true;
}

// Statement boundaries: the lines holding NEWLINE-separated statements must
// stay separate, so the NEWLINE tokens of the filtered stream must agree too.
size_t newline_count(const std::vector<Token>& v) {
  size_t n = 0;
  for (size_t i = 0; i + 1 < v.size(); ++i)  // the one before Eof: a final line feed or not
    n += v[i].kind == Tok::Newline && v[i + 1].kind != Tok::Eof;
  return n;
}

bool same_comments(const std::vector<Comment>& a, const std::vector<Comment>& b) {
  if (a.size() != b.size()) return false;
  auto trim = [](std::string_view s) {
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
    return s;
  };
  for (size_t i = 0; i < a.size(); ++i)
    if (trim(a[i].text) != trim(b[i].text)) return false;
  return true;
}

}  // namespace

Result format_source(std::string_view source, std::string_view path) {
  Result r;
  {
    // A file that does not parse (with no -D flag) is refused with its diagnostics.
    SourceManager sm;
    uint32_t id = sm.add(SourceFile{std::string(path), std::string(source), ""});
    Diagnostics diags(sm);
    LexOptions opts;
    auto toks = lex_file(id, source, diags, opts);
    if (!diags.has_errors()) parse_file(id, std::move(toks), diags);
    if (diags.has_errors()) {
      std::ostringstream os;
      diags.render(os);
      r.error = os.str();
      return r;
    }
  }
  Lexed in = lex_raw(source);
  if (in.errors) {
    r.error = std::string(path) + ": cannot format: the inactive branch of an #if does not lex\n";
    return r;
  }
  std::string text = detail::layout(source, in.toks, in.comments);
  Lexed out = lex_raw(text);
  if (out.errors || !same_tokens(in.toks, out.toks) || newline_count(in.toks) != newline_count(out.toks) ||
      !same_comments(in.comments, out.comments)) {
    r.error = std::string(path) +
              ": internal error: the formatted text would not mean the same; left unchanged "
              "(please report this file)\n";
    return r;
  }
  r.ok = true;
  r.text = std::move(text);
  return r;
}

}  // namespace wo::format
