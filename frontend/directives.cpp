// The build-flag filter: #if FLAG / #else / #end applied to the token stream
// after lexing (language.md §3.10). Called by lex_file (lexer.re) only when
// the file holds at least one directive token.
//
// NEWLINE handling (the spec is silent; decided here):
//  * A directive that begins its line (only whitespace/comments before it on
//    that line) also removes the NEWLINE that ends its line, so a line holding
//    only `#if FLAG`, `#else` or `#end` (plus an optional comment) behaves like
//    a comment-only line: it never adds a NEWLINE and `..` continuation passes
//    over it. A directive in the middle of a line leaves the line's NEWLINE.
//  * After filtering, runs of NEWLINE collapse to one, a NEWLINE right after
//    `..` is dropped (the continuation rule holds for the filtered stream) and
//    a NEWLINE before the first token is dropped — the same invariants the
//    lexer gives an unfiltered stream.
//  * `#if` not followed by an identifier is WO-E003 and opens a section whose
//    flag is false (so its #else/#end still match); a reserved word after
//    `#if` is consumed as the (false) flag.
//  * A section left open at end of file: one WO-E003 per open `#if`, at it.
//  * `#if a and b` (also `or`, `&`, `|`, `,` right after the flag of an `#if`
//    that begins its line) is WO-E003: the spec has no conditions, and taking
//    `a` as the flag would silently keep or drop `and b` as code.
#include <string_view>
#include <vector>

#include "common/diagnostics.h"
#include "frontend/token.h"

namespace wo {
namespace detail {

std::vector<Token> filter_directives(std::vector<Token> toks, std::string_view text,
                                     Diagnostics& diags, const LexOptions& opts) {
  struct Section {
    Loc loc;           // the #if
    bool parent_kept;  // every enclosing section is kept
    bool cond;         // the flag is defined
    bool in_else;
  };
  std::vector<Section> open;
  auto kept = [&] {
    if (open.empty()) return true;
    const Section& s = open.back();
    return s.parent_kept && (s.in_else ? !s.cond : s.cond);
  };
  // True if toks[i] is the first token on its line.
  auto begins_line = [&](size_t i) {
    if (i == 0) return true;
    const Token& prev = toks[i - 1];
    if (prev.kind == Tok::Newline) return true;
    // A line feed between the two tokens (e.g. suppressed after `..`).
    size_t from = static_cast<size_t>(prev.loc.offset) + prev.len;
    size_t to = toks[i].loc.offset;
    return from < to && text.substr(from, to - from).find('\n') != std::string_view::npos;
  };
  auto is_keyword = [](Tok k) { return k >= Tok::KwType && k <= Tok::KwSELECT; };

  std::vector<Token> kept_toks;
  kept_toks.reserve(toks.size());
  const size_t n = toks.size();
  for (size_t i = 0; i < n; ++i) {
    Token& t = toks[i];
    if (t.kind == Tok::HashIf || t.kind == Tok::HashElse || t.kind == Tok::HashEnd) {
      bool at_start = begins_line(i);
      size_t last = i;
      if (t.kind == Tok::HashIf) {
        bool cond = false;
        const Token* next = i + 1 < n ? &toks[i + 1] : nullptr;
        if (next && next->kind == Tok::Ident) {
          cond = opts.defines.count(next->text) != 0;
          last = i + 1;
          // `#if a and b` on its own line looks like a condition, but only `a`
          // is the flag: the rest would silently become section content.
          const Token* after = i + 2 < n ? &toks[i + 2] : nullptr;
          if (at_start && after &&
              (after->kind == Tok::KwAnd || after->kind == Tok::KwOr || after->kind == Tok::Amp ||
               after->kind == Tok::Pipe || after->kind == Tok::Comma))
            diags.error(DiagCode::E003, after->loc,
                        "`#if` takes one flag name, not a condition: nest two `#if` sections instead");
        } else if (next && is_keyword(next->kind)) {
          diags.error(DiagCode::E003, t.loc,
                      "`#if` needs a flag name, and `" + next->text + "` is a reserved word");
          last = i + 1;
        } else {
          diags.error(DiagCode::E003, t.loc, "`#if` must be followed by a flag name on the same line");
        }
        open.push_back(Section{t.loc, kept(), cond, false});
      } else if (t.kind == Tok::HashElse) {
        if (open.empty())
          diags.error(DiagCode::E003, t.loc, "`#else` without an open `#if` section");
        else if (open.back().in_else)
          diags.error(DiagCode::E003, t.loc, "second `#else` in one `#if` section");
        else
          open.back().in_else = true;
      } else {
        if (open.empty())
          diags.error(DiagCode::E003, t.loc, "`#end` without an open `#if` section");
        else
          open.pop_back();
      }
      if (at_start && last + 1 < n && toks[last + 1].kind == Tok::Newline) ++last;
      i = last;
      continue;
    }
    if (t.kind == Tok::Eof) {
      for (const Section& s : open)
        diags.error(DiagCode::E003, s.loc, "`#if` section is not closed by `#end` before the end of the file");
      kept_toks.push_back(std::move(t));
      break;
    }
    if (kept()) kept_toks.push_back(std::move(t));
  }

  // Restore the stream invariants (see the comment at the top).
  std::vector<Token> out;
  out.reserve(kept_toks.size());
  for (Token& t : kept_toks) {
    if (t.kind == Tok::Newline &&
        (out.empty() || out.back().kind == Tok::Newline || out.back().kind == Tok::DotDot))
      continue;
    out.push_back(std::move(t));
  }
  return out;
}

}  // namespace detail
}  // namespace wo
