// parse_file, the token feed between the lexer and the bison parser, and the
// helpers the grammar actions call. The grammar and its design notes are in
// parser.yy; read note 1 (token feed) and note 6 (error recovery) there first.
#include "frontend/parser.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <string>
#include <unordered_set>

#include "common/diagnostics.h"
#include "common/suggest.h"
#include "frontend/nesting.h"
#include "parser.gen.hpp"

namespace wo {

using T = yy::Parser::token;
using SK = yy::Parser::symbol_kind;
using namespace ast;

namespace {

// ============================================================== token kinds

int map_kind(Tok k) {
  switch (k) {
    case Tok::Eof: return T::END;
    case Tok::Newline: return T::NEWLINE;
    case Tok::Ident: return T::IDENT;
    case Tok::IntLit: return T::INTLIT;
    case Tok::FloatLit: return T::FLOATLIT;
    case Tok::TextLit: return T::TEXTLIT;
    case Tok::KwType: return T::TYPE;
    case Tok::KwClass: return T::CLASS;
    case Tok::KwInterface: return T::INTERFACE;
    case Tok::KwFn: return T::FN;
    case Tok::KwLet: return T::LET;
    case Tok::KwMut: return T::MUT;
    case Tok::KwTake: return T::TAKE;
    case Tok::KwReturn: return T::RETURN;
    case Tok::KwIf: return T::IF;
    case Tok::KwElse: return T::ELSE;
    case Tok::KwWhile: return T::WHILE;
    case Tok::KwFor: return T::FOR;
    case Tok::KwIn: return T::IN;
    case Tok::KwTrue: return T::TRUE;
    case Tok::KwFalse: return T::FALSE;
    case Tok::KwUse: return T::USE;
    case Tok::KwSpawn: return T::SPAWN;
    case Tok::KwUsing: return T::USING;
    case Tok::KwPub: return T::PUB;
    case Tok::KwBreak: return T::BREAK;
    case Tok::KwContinue: return T::CONTINUE;
    case Tok::KwDo: return T::DO;
    case Tok::KwConst: return T::CONST;
    case Tok::KwAnd: return T::AND;
    case Tok::KwOr: return T::OR;
    case Tok::KwNot: return T::NOT;
    case Tok::KwInline: return T::INLINE;
    case Tok::KwSwitch: return T::SWITCH;
    case Tok::KwCase: return T::CASE;
    case Tok::KwDefault: return T::DEFAULT;
    case Tok::KwTypedef: return T::TYPEDEF;
    case Tok::KwTry: return T::TRY;
    case Tok::KwCatch: return T::CATCH;
    case Tok::KwNil: return T::NIL;
    case Tok::KwAs: return T::AS;
    case Tok::KwINSERT: return T::INSERT;
    case Tok::KwSELECT: return T::LEGACY_SELECT;
    case Tok::LBrace: return T::LBRACE;
    case Tok::RBrace: return T::RBRACE;
    case Tok::LParen: return T::LPAREN;
    case Tok::RParen: return T::RPAREN;
    case Tok::LBracket: return T::LBRACKET;
    case Tok::RBracket: return T::RBRACKET;
    case Tok::Comma: return T::COMMA;
    case Tok::Semi: return T::SEMI;
    case Tok::Colon: return T::COLON;
    case Tok::Dot: return T::DOT;
    case Tok::DotDot: return T::DOTDOT;
    case Tok::Question: return T::QUESTION;
    case Tok::At: return T::AT;
    case Tok::Pipe: return T::PIPE;
    case Tok::Arrow: return T::ARROW;
    case Tok::FatArrow: return T::FATARROW;
    case Tok::Minus: return T::MINUS;
    case Tok::Plus: return T::PLUS;
    case Tok::Star: return T::STAR;
    case Tok::Slash: return T::SLASH;
    case Tok::Percent: return T::PERCENT;
    case Tok::Amp: return T::AMP;
    case Tok::Caret: return T::CARET;
    case Tok::Shl: return T::SHL;
    case Tok::Shr: return T::SHR;
    case Tok::Assign: return T::ASSIGN;
    case Tok::PlusAssign: return T::PLUSEQ;
    case Tok::MinusAssign: return T::MINUSEQ;
    case Tok::StarAssign: return T::STAREQ;
    case Tok::SlashAssign: return T::SLASHEQ;
    case Tok::PercentAssign: return T::PERCENTEQ;
    case Tok::EqEq: return T::EQEQ;
    case Tok::NotEq: return T::NOTEQ;
    case Tok::Lt: return T::LT;
    case Tok::LtEq: return T::LTEQ;
    case Tok::Gt: return T::GT;
    case Tok::GtEq: return T::GTEQ;
    case Tok::HashIf:
    case Tok::HashElse:
    case Tok::HashEnd: return -1;  // removed by the directive filter; never parsed
  }
  return -1;
}

bool is_opener(Tok k) { return k == Tok::LBrace || k == Tok::LParen || k == Tok::LBracket; }
bool is_closer(Tok k) { return k == Tok::RBrace || k == Tok::RParen || k == Tok::RBracket; }

// Tokens that can end an expression.
bool ends_expr(int k) {
  switch (k) {
    case T::IDENT: case T::INTLIT: case T::FLOATLIT: case T::TEXTLIT: case T::RPAREN:
    case T::RBRACKET: case T::RBRACE: case T::TRUE: case T::FALSE: case T::NIL:
    case T::LEGACY_SELECT:
      return true;
    default:
      return false;
  }
}

// Tokens that can start an expression but never continue one.
bool only_starts_expr(int k) {
  switch (k) {
    case T::IDENT: case T::INTLIT: case T::FLOATLIT: case T::TEXTLIT: case T::TRUE:
    case T::FALSE: case T::NIL: case T::NOT: case T::SWITCH: case T::SPAWN: case T::TRY:
    case T::INSERT: case T::DELETE: case T::FROM: case T::LEGACY_SELECT:
      return true;
    default:
      return false;
  }
}

bool is_assign_tok(Tok k) {
  return k == Tok::Assign || k == Tok::PlusAssign || k == Tok::MinusAssign || k == Tok::StarAssign ||
         k == Tok::SlashAssign || k == Tok::PercentAssign;
}

// ============================================================== the rewriting pass

class Rewriter {
 public:
  Rewriter(const std::vector<Token>& in, bool expr_mode, std::vector<PTok>& out)
      : in_(in), out_(out), expr_mode_(expr_mode) {}

  void run() {
    static const Token kStart{};
    prev_ = expr_mode_ ? T::EXPR_START : T::FILE_START;
    out_.push_back(PTok{prev_, in_.empty() ? &kStart : &in_[0], Span{in_.empty() ? Loc{} : in_[0].loc, 0}, true});
    size_t i = 0;
    while (i < in_.size()) {
      i = step(i);
      if (out_.back().kind == T::END) break;
    }
    if (out_.back().kind != T::END) {  // a token vector without Eof: end it
      static const Token kEof{};
      const Token* t = in_.empty() ? &kEof : &in_.back();
      if (prev_ != T::NEWLINE) emit(T::NEWLINE, t, true);
      emit(T::END, t, true);
    }
  }

 private:
  struct Br {
    Tok kind;
    bool list = false;         // `[` of a list literal (not an index)
    bool catch_paren = false;  // `(` right after `catch`
    bool class_body = false;   // `{` of a top-level class/type body
  };
  struct Query {
    size_t depth;  // bracket depth at `from`
    bool group = false;
    bool order = false;
  };

  const Token& at(size_t j) const { return j < in_.size() ? in_[j] : in_.back(); }
  size_t next_sig(size_t j) const {
    while (j < in_.size() && in_[j].kind == Tok::Newline) ++j;
    return j;
  }
  bool prev_ends_expr() const { return ends_expr(prev_) && !(prev_ == T::RPAREN && prev_catch_close_); }

  void emit(int kind, const Token* t, bool virt = false, Span span = {}) {
    if (!virt && !st_.empty() && st_.back().list && prev_ends_expr() && only_starts_expr(kind))
      out_.push_back(PTok{T::COMMA, t, Span{t->loc, 0}, true});  // `[a b]`: juxtaposed items
    if (span.len == 0 && span.begin.line == 0) span = Span{t->loc, virt ? 0u : t->len};
    out_.push_back(PTok{kind, t, span, virt});
    prev_ = kind;
    prev_catch_close_ = false;
  }

  Query* query_here() {
    if (qs_.empty() || qs_.back().depth != st_.size()) return nullptr;
    return &qs_.back();
  }
  void drop_queries_deeper() {
    while (!qs_.empty() && qs_.back().depth > st_.size()) qs_.pop_back();
  }

  // The clause token a word stands for inside query `q`, or 0.
  int clause_kind(const Token& t, const Query& q) const {
    if (prev_ == T::DOT) return 0;
    bool e = prev_ends_expr() || prev_ == T::DESC;  // `order by k desc` ends an operand too
    if (t.kind == Tok::KwTake) return e ? T::TAKE : 0;
    if (t.kind != Tok::Ident) return 0;
    const std::string& w = t.text;
    if (e && w == "where") return T::WHERE;
    if (e && w == "group") return T::GROUP;
    if (e && w == "order") return T::ORDER;
    if (e && w == "select") return T::SELECT;
    if (w == "by" && (prev_ == T::ORDER || (q.group && e))) return T::BY;
    if (w == "into" && q.group && e) return T::INTO;
    if (w == "desc" && q.order && e) return T::DESC;
    return 0;
  }

  // Skips a bracket-balanced run starting at i up to (not including) a
  // NEWLINE/`;` at depth 0, a closer at depth 0, or Eof. Returns the end.
  size_t skip_statement_run(size_t i) const {
    int depth = 0;
    for (size_t j = i;; ++j) {
      Tok k = at(j).kind;
      if (k == Tok::Eof) return j;
      if (depth == 0 && (k == Tok::Newline || k == Tok::Semi)) return j;
      if (is_opener(k)) ++depth;
      if (is_closer(k)) {
        if (depth == 0) return j;
        --depth;
      }
    }
  }

  Span run_span(size_t b, size_t e) const {
    if (e <= b) return Span{at(b).loc, at(b).len};
    const Token& last = at(e - 1);
    return Span{at(b).loc, last.loc.offset + last.len - at(b).loc.offset};
  }

  bool class_line_start() const {
    return st_.size() == 1 && st_.back().class_body && (prev_ == T::NEWLINE || prev_ == T::LBRACE);
  }

  static bool legacy_word(const Token& t) {
    return t.kind == Tok::Ident && (t.text == "service" || t.text == "policy" || t.text == "on");
  }

  // Does the line starting at j begin a class item (for the end of an `on` block)?
  bool class_item_start(size_t j) const {
    const Token& t = at(j);
    switch (t.kind) {
      case Tok::KwFn: case Tok::KwPub: case Tok::KwConst: case Tok::KwInline: case Tok::RBrace:
      case Tok::Eof:
        return true;
      case Tok::Ident:
        return at(j + 1).kind == Tok::Colon || t.text == "static" || legacy_word(t);
      default:
        return false;
    }
  }

  // A legacy class-body line (§6.12) starting at i; returns the end index.
  size_t skip_legacy_line(size_t i) const {
    bool on_block = at(i).text == "on";
    int depth = 0;
    for (size_t j = i + 1;; ++j) {
      Tok k = at(j).kind;
      if (k == Tok::Eof) return j;
      if (is_opener(k)) ++depth;
      if (is_closer(k)) {
        if (depth == 0) return j;
        --depth;
      }
      if (depth == 0 && k == Tok::Newline) {
        if (!on_block) return j;
        size_t n = next_sig(j);
        if (class_item_start(n)) return j;
      }
    }
  }

  size_t step(size_t i) {
    const Token& t = in_[i];
    switch (t.kind) {
      case Tok::HashIf: case Tok::HashElse: case Tok::HashEnd:
        return i + 1;
      case Tok::Newline: {
        if (prev_ == T::NEWLINE || prev_ == T::FILE_START || prev_ == T::EXPR_START) return i + 1;
        const Token& n = at(next_sig(i));
        if (n.kind == Tok::KwElse || n.kind == Tok::KwCatch) return i + 1;
        if (Query* q = query_here(); q && clause_kind(n, *q)) return i + 1;
        // A line starting with `|` continues a union declaration (decision 0090).
        if (union_decl_ && st_.empty() && n.kind == Tok::Pipe) return i + 1;
        if (st_.empty()) union_decl_ = false;
        emit(T::NEWLINE, &t);
        while (!qs_.empty() && qs_.back().depth >= st_.size()) qs_.pop_back();
        return i + 1;
      }
      case Tok::Semi:
        if (st_.empty()) union_decl_ = false;
        emit(T::SEMI, &t);
        return i + 1;
      case Tok::Eof:
        if (prev_ != T::NEWLINE) emit(T::NEWLINE, &t, true);
        emit(T::END, &t);
        return i + 1;
      case Tok::RBrace:
        if (prev_ != T::NEWLINE) emit(T::NEWLINE, &t, true);
        pop(Tok::LBrace);
        emit(T::RBRACE, &t);
        return i + 1;
      case Tok::RParen: {
        bool was_catch = pop(Tok::LParen);
        emit(T::RPAREN, &t);
        prev_catch_close_ = was_catch;
        return i + 1;
      }
      case Tok::RBracket:
        pop(Tok::LBracket);
        emit(T::RBRACKET, &t);
        return i + 1;
      case Tok::LParen: {
        bool c = prev_ == T::CATCH;
        emit(T::LPAREN, &t);
        st_.push_back(Br{Tok::LParen, false, c, false});
        return i + 1;
      }
      case Tok::LBracket: {
        bool list = !prev_ends_expr();
        emit(T::LBRACKET, &t);
        st_.push_back(Br{Tok::LBracket, list, false, false});
        return i + 1;
      }
      case Tok::LBrace: {
        bool handler = prev_ == T::RPAREN && prev_catch_close_;
        bool cls = pending_class_ && st_.empty();
        pending_class_ = false;
        emit(handler ? T::HBLOCK : T::LBRACE, &t);
        st_.push_back(Br{Tok::LBrace, false, false, cls});
        return i + 1;
      }
      case Tok::KwClass: case Tok::KwType:
        if (st_.empty()) pending_class_ = true;
        emit(map_kind(t.kind), &t);
        return i + 1;
      case Tok::Assign:
        if (st_.empty()) {
          pending_class_ = false;
          // `type Name =` at top level: a union declaration (§4.5) runs to the
          // first line feed at bracket depth 0 not followed by `|`.
          union_decl_ = prev_ == T::IDENT && out_.size() >= 2 && out_[out_.size() - 2].kind == T::TYPE;
        }
        emit(T::ASSIGN, &t);
        return i + 1;
      case Tok::KwINSERT: {
        emit(T::INSERT, &t);
        size_t j = i + 1;
        if (at(j).kind == Tok::Newline) ++j;  // insert_expr = "INSERT" nl* ctor_lit
        return j;
      }
      case Tok::KwSELECT: {
        size_t e = skip_statement_run(i + 1);
        emit(T::LEGACY_SELECT, &t, false, run_span(i, e));
        return e;
      }
      case Tok::At: {
        emit(T::AT, &t);
        const Token& n = at(i + 1);
        if (n.kind == Tok::Ident && at(i + 2).kind == Tok::LParen && !(n.text == "table" && st_.empty())) {
          emit(T::IDENT, &n);
          // the ignored `( ... )` of any other annotation: one token
          int depth = 0;
          size_t j = i + 2;
          for (;; ++j) {
            Tok k = at(j).kind;
            if (k == Tok::Eof) break;
            if (is_opener(k)) ++depth;
            if (is_closer(k) && --depth == 0) {
              ++j;
              break;
            }
          }
          emit(T::PAREN_GROUP, &at(i + 2), false, run_span(i + 2, j));
          return j;
        }
        return i + 1;
      }
      case Tok::Ident:
        return ident(i);
      default: {
        int k = map_kind(t.kind);
        if (k < 0) return i + 1;
        emit(k, &t);
        return i + 1;
      }
    }
  }

  size_t ident(size_t i) {
    const Token& t = in_[i];
    const std::string& w = t.text;
    const Token& n1 = at(i + 1);

    if (Query* q = query_here()) {
      if (int ck = clause_kind(t, *q)) {
        emit(ck, &t);
        if (ck == T::SELECT) qs_.pop_back();
        else if (ck == T::GROUP) q->group = true;
        else if (ck == T::ORDER) q->order = true;
        return i + 1;
      }
    }
    if (w == "transaction" && n1.kind == Tok::LBrace &&
        (prev_ == T::NEWLINE || prev_ == T::SEMI || prev_ == T::LBRACE || prev_ == T::HBLOCK ||
         prev_ == T::RBRACE || prev_ == T::COLON)) {
      emit(T::TRANSACTION, &t);
      return i + 1;
    }
    if (prev_ == T::COLON || prev_ == T::ARROW || prev_ == T::AS || prev_ == T::QUESTION) {
      if (n1.kind == Tok::Ident) {
        int k = w == "ref" ? T::TREF : w == "multi" ? T::TMULTI : w == "backlink" ? T::TBACKLINK
              : w == "actor" ? T::TACTOR : 0;
        if (k) {
          emit(k, &t);
          return i + 1;
        }
      }
      if (w == "map" && n1.kind == Tok::Lt) {
        emit(T::TMAP, &t);
        return i + 1;
      }
    }
    bool decl_prev = prev_ == T::DOT || prev_ == T::FN || prev_ == T::LET || prev_ == T::FOR;
    if (w == "from" && !decl_prev && n1.kind == Tok::Ident && at(i + 2).kind == Tok::KwIn) {
      emit(T::FROM, &t);
      qs_.push_back(Query{st_.size()});
      return i + 1;
    }
    if (w == "insert" && !decl_prev) {
      size_t j = i + 1;
      if (at(j).kind == Tok::Newline) ++j;
      if (at(j).kind == Tok::Ident && at(j + 1).kind == Tok::LBrace) {
        emit(T::INSERT, &t);
        return j;
      }
    }
    if (w == "delete" && !decl_prev) {
      Tok k = n1.kind;
      bool operand = !(k == Tok::Newline || k == Tok::Semi || k == Tok::Eof || k == Tok::Colon ||
                       k == Tok::Comma || k == Tok::Dot || is_closer(k) || is_assign_tok(k));
      if (operand) {
        emit(T::DELETE, &t);
        return i + 1;
      }
    }
    if (w == "select" && !decl_prev && (!prev_ends_expr() || prev_ == T::RBRACE)) {
      Tok k = n1.kind;
      if (!(k == Tok::Colon || k == Tok::Comma || k == Tok::RParen || is_assign_tok(k))) {
        size_t e = skip_statement_run(i + 1);
        emit(T::LEGACY_SELECT, &t, false, run_span(i, e));
        return e;
      }
    }
    if (legacy_word(t) && class_line_start() && n1.kind != Tok::Colon) {
      size_t e = skip_legacy_line(i);
      emit(T::LEGACY_LINE, &t, false, run_span(i, e));
      return e;
    }
    emit(T::IDENT, &t);
    return i + 1;
  }

  // Pops the innermost bracket of kind `k` (and anything unclosed above it).
  // Returns whether the popped bracket was a catch paren.
  bool pop(Tok k) {
    for (size_t j = st_.size(); j-- > 0;) {
      if (st_[j].kind == k) {
        bool c = st_[j].catch_paren;
        st_.resize(j);
        drop_queries_deeper();
        return c;
      }
    }
    return false;
  }

  const std::vector<Token>& in_;
  std::vector<PTok>& out_;
  bool expr_mode_;
  int prev_ = 0;
  bool prev_catch_close_ = false;
  bool pending_class_ = false;
  bool union_decl_ = false;  // inside a top-level `type Name = ...` (until its end)
  std::vector<Br> st_;
  std::vector<Query> qs_;
};

bool top_starter(int k) {
  switch (k) {
    case T::TYPE: case T::TYPEDEF: case T::CLASS: case T::INTERFACE: case T::FN: case T::USE:
    case T::USING: case T::CONST: case T::AT: case T::PUB: case T::INLINE:
      return true;
    default:
      return false;
  }
}

int open_class(int k) {
  switch (k) {
    case T::LBRACE: case T::HBLOCK: case T::RBRACE: return T::LBRACE;
    case T::LPAREN: case T::RPAREN: return T::LPAREN;
    case T::LBRACKET: case T::RBRACKET: return T::LBRACKET;
    default: return 0;
  }
}

// ============================================================== doctrine words (WO-E105)

const char* doctrine_message(const std::string& w) {
  if (w == "extends")
    return "`extends` is rejected: .wo has no inheritance; share behaviour through an interface or a field";
  if (w == "implements")
    return "`implements` is rejected: interfaces are satisfied structurally, there is no implements clause";
  if (w == "super") return "`super` is rejected: .wo has no inheritance";
  if (w == "override") return "`override` is rejected: .wo has no inheritance, so nothing can be overridden";
  if (w == "cast")
    return "`cast` is rejected: .wo has no casts; convert explicitly (int_to_text, ...) or decode JSON with `as`";
  if (w == "Dynamic") return "`Dynamic` is rejected: .wo is statically typed; there is no dynamic type";
  if (w == "untyped") return "`untyped` is rejected: .wo is statically typed; every value has a type";
  if (w == "macro") return "`macro` is rejected: .wo has no macros";
  if (w == "extern") return "`extern` is rejected: .wo has no foreign declarations";
  if (w == "operator") return "`operator` is rejected: .wo has no operator overloading";
  return nullptr;
}

// ============================================================== WO-E110

void check_txn_expr(const Expr* e, int depth, Diagnostics& d);

void check_txn_block(const std::vector<StmtPtr>& stmts, int depth, Diagnostics& d);

void check_txn_stmt(const Stmt* s, int depth, Diagnostics& d) {
  if (!s) return;
  int inner = depth;
  if (s->kind == StmtKind::Transaction) {
    if (depth > 0) d.error(DiagCode::E110, s->span.begin, "transaction blocks do not nest");
    inner = depth + 1;
  }
  check_txn_expr(s->expr.get(), depth, d);
  check_txn_expr(s->target.get(), depth, d);
  if (s->body) check_txn_block(s->body->stmts, inner, d);
  if (s->else_body) check_txn_block(s->else_body->stmts, depth, d);
}

void check_txn_block(const std::vector<StmtPtr>& stmts, int depth, Diagnostics& d) {
  for (auto& s : stmts) check_txn_stmt(s.get(), depth, d);
}

void check_txn_expr(const Expr* e, int depth, Diagnostics& d) {
  if (!e) return;
  check_txn_expr(e->lhs.get(), depth, d);
  check_txn_expr(e->rhs.get(), depth, d);
  for (auto& a : e->args) check_txn_expr(a.get(), depth, d);
  for (auto& f : e->fields) check_txn_expr(f.value.get(), depth, d);
  for (auto& arm : e->arms) {
    for (auto& p : arm.patterns) check_txn_expr(p.get(), depth, d);
    check_txn_block(arm.body, depth, d);
  }
  if (e->handler_block) check_txn_block(e->handler_block->stmts, depth, d);
  for (auto& c : e->clauses) check_txn_expr(c.expr.get(), depth, d);
}

void check_transactions(const File& f, Diagnostics& d) {
  for (auto& fn : f.fns)
    if (fn->body) check_txn_block(fn->body->stmts, 0, d);
  for (auto& c : f.classes)
    for (auto& m : c->methods)
      if (m->body) check_txn_block(m->body->stmts, 0, d);
}

}  // namespace

// ============================================================== TokenFeed

TokenFeed::TokenFeed(std::vector<Token> toks, bool expr_mode) : toks_(std::move(toks)) {
  if (toks_.empty() || toks_.back().kind != Tok::Eof) {
    Token eof;
    eof.kind = Tok::Eof;
    if (!toks_.empty()) {
      eof.loc = toks_.back().loc;
      eof.loc.offset += toks_.back().len;
      eof.loc.col += toks_.back().len;
    }
    toks_.push_back(eof);
  }
  Rewriter(toks_, expr_mode, out_).run();
}

void TokenFeed::track(const PTok& t) {
  closed_container_ = false;
  bool first_on_line = false;
  if (!t.virt && t.span.begin.line != line_) {
    line_ = t.span.begin.line;
    line_indent_ = t.span.begin.col;
    first_on_line = true;
  }
  switch (t.kind) {
    case T::LBRACE: case T::HBLOCK: case T::LPAREN: case T::LBRACKET:
      open_.push_back(Open{open_class(t.kind), t.span.begin.offset, false, t.span.begin, line_indent_});
      break;
    case T::RBRACE: case T::RPAREN: case T::RBRACKET: {
      int c = open_class(t.kind);
      for (size_t j = open_.size(); j-- > 0;) {
        if (open_[j].kind == c) {
          if (c == T::LBRACE && first_on_line && !misindented_ && t.span.begin.col != open_[j].indent) {
            misindented_ = true;
            misindented_open_ = open_[j].loc;
            misindented_close_ = t.span.begin;
          }
          for (size_t k = j; k < open_.size(); ++k)
            if (open_[k].container) closed_container_ = true;
          open_.resize(j);
          break;
        }
        // A stray `)` or `]` inside a block does not close a bracket opened
        // before the block: the parser is still inside the block, and recovery
        // must think so too (else it syncs on top-level words in there).
        if (open_[j].container) break;
      }
      break;
    }
    default:
      break;
  }
}

PTok TokenFeed::raw() {
  ++raw_count_;
  PTok t = out_[pos_];
  if (pos_ + 1 < out_.size()) ++pos_;
  track(t);
  return t;
}

bool TokenFeed::open_brace(Loc& at) const {
  for (size_t j = open_.size(); j-- > 0;)
    if (open_[j].kind == T::LBRACE) {
      at = open_[j].loc;
      return true;
    }
  return false;
}

bool TokenFeed::misindented_brace(Loc& open, Loc& close) const {
  open = misindented_open_;
  close = misindented_close_;
  return misindented_;
}

void TokenFeed::mark_container(uint32_t offset) {
  for (size_t j = open_.size(); j-- > 0;) {
    if (open_[j].offset == offset && open_[j].kind == T::LBRACE) {
      open_[j].container = true;
      return;
    }
  }
}

PTok TokenFeed::next() {
  prev_ = last_;
  if (pushback_) {
    last_ = *pushback_;
    pushback_.reset();
    return last_;
  }
  if (recovering_) {
    recovering_ = false;
    last_ = recover();
    return last_;
  }
  last_ = raw();
  return last_;
}

// See parser.yy note 6. `last_` is the lookahead that caused the error; bison
// discards it, so it is handed back (after SYNC) when it must not be lost.
//  * inside a container (block, class/interface/switch body, handler): stop at
//    a NEWLINE or `;` directly inside it (consumed), or at the `}` closing it
//    (handed back);
//  * at top level: stop at a declaration starter (handed back) at bracket
//    depth 0 - or at the start of a line, when the brackets opened since the
//    error are closed again (a bracket left open by the broken declaration
//    itself must not swallow the rest of the file).
// Progress: a token handed back by the previous recovery and rejected again at
// once (nothing read since) would be handed back forever; it is skipped as
// part of the broken construct instead, and at the end of input parsing stops
// (bison gives up on an error at end of input while recovering).
PTok TokenFeed::recover() {
  auto sync = [](const PTok& at) { return PTok{T::SYNC, at.tok, Span{at.span.begin, 0}, true}; };
  auto hand_back = [&](const PTok& t) {
    pushback_ = t;
    handed_back_at_ = raw_count_;
    return sync(t);
  };
  PTok t = last_;
  const bool stalled = handed_back_at_ == raw_count_;
  if (stalled && t.kind == T::END) return t;
  if (!stalled && (t.kind == T::END || (t.kind == T::RBRACE && closed_container_))) return hand_back(t);
  int c = -1;
  for (size_t j = open_.size(); j-- > 0;)
    if (open_[j].container) {
      c = int(j);
      break;
    }
  const size_t base = open_.size();
  int prev = T::NEWLINE;  // the error token may itself start a line
  for (bool first = !stalled;; first = false) {
    if (!first) {
      prev = t.kind;
      t = raw();
    }
    if (t.kind == T::END) return hand_back(t);
    if (c >= 0) {
      if (t.kind == T::RBRACE && closed_container_) return hand_back(t);
      if ((t.kind == T::NEWLINE || t.kind == T::SEMI) && int(open_.size()) == c + 1) return sync(t);
    } else if (top_starter(t.kind) &&
               (open_.empty() || (open_.size() <= base && (prev == T::NEWLINE || prev == T::SYNC) && !first))) {
      return hand_back(t);
    }
  }
}

yy::Parser::symbol_type yylex(ParseCtx& ctx) {
  PTok t = ctx.feed.next();
  static const bool debug = std::getenv("WO_PARSE_DEBUG") != nullptr;  // token trace for grammar work
  if (debug)
    std::fprintf(stderr, "tok %s%s @%u:%u\n", yy::Parser::symbol_name(yy::Parser::by_kind(yy::Parser::token_kind_type(t.kind)).kind()),
            t.virt ? " (virtual)" : "", t.span.begin.line, t.span.begin.col);
  return yy::Parser::symbol_type(t.kind, t.tok, t.span);
}

// ============================================================== ParseCtx

ParseCtx::ParseCtx(uint32_t fid, Diagnostics& d, std::vector<Token> toks, bool em)
    : file_id(fid), diags(d), expr_mode(em), feed(std::move(toks), em) {}

std::string ParseCtx::word(const Token* t) {
  if (t->kind == Tok::Ident) return t->text;
  return tok_spelling(t->kind);
}

void ParseCtx::plain_error(const Span& at, const std::string& msg) { diags.error(DiagCode::E101, at.begin, msg); }

namespace {

bool is_word_token(int sk) {
  return sk == SK::S_YYEOF || sk == SK::S_NEWLINE || sk == SK::S_IDENT || sk == SK::S_INTLIT ||
         sk == SK::S_FLOATLIT || sk == SK::S_TEXTLIT;
}

std::string spell_symbol(int sk) {
  std::string s = yy::Parser::symbol_name(yy::Parser::symbol_kind_type(sk));
  if (is_word_token(sk)) return s;
  return "`" + s + "`";
}

std::string describe_expected(const std::vector<int>& expected) {
  std::vector<int> s;
  for (int k : expected) {
    if (k == SK::S_SYNC || k == SK::S_FILE_START || k == SK::S_EXPR_START || k == SK::S_YYerror ||
        k == SK::S_YYUNDEF || k == SK::S_HBLOCK || k == SK::S_LEGACY_LINE || k == SK::S_PAREN_GROUP)
      continue;
    s.push_back(k);
  }
  auto has = [&](int k) { return std::find(s.begin(), s.end(), k) != s.end(); };
  auto drop = [&](std::initializer_list<int> ks) {
    s.erase(std::remove_if(s.begin(), s.end(),
                           [&](int k) { return std::find(ks.begin(), ks.end(), k) != ks.end(); }),
            s.end());
  };
  if (has(SK::S_SEMI)) return "end of statement";
  std::vector<std::string> parts;
  const std::initializer_list<int> starters = {
      SK::S_IDENT, SK::S_INTLIT, SK::S_FLOATLIT, SK::S_TEXTLIT, SK::S_TRUE, SK::S_FALSE, SK::S_NIL,
      SK::S_LBRACE, SK::S_LBRACKET, SK::S_LPAREN, SK::S_MINUS, SK::S_NOT, SK::S_SPAWN, SK::S_INSERT,
      SK::S_DELETE, SK::S_FROM, SK::S_SWITCH, SK::S_TRY, SK::S_LEGACY_SELECT, SK::S_TRANSACTION};
  if (has(SK::S_CLASS) && has(SK::S_FN)) {
    parts.push_back("declaration");
    drop({SK::S_USE, SK::S_USING, SK::S_CONST, SK::S_TYPE, SK::S_CLASS, SK::S_TYPEDEF,
          SK::S_INTERFACE, SK::S_FN, SK::S_PUB, SK::S_AT, SK::S_INLINE});
  }
  if (has(SK::S_LET)) {
    parts.push_back("statement");
    drop({SK::S_LET, SK::S_IF, SK::S_WHILE, SK::S_FOR, SK::S_RETURN, SK::S_BREAK, SK::S_CONTINUE,
          SK::S_DO});
    drop(starters);
  } else if (has(SK::S_INTLIT)) {
    parts.push_back("expression");
    drop(starters);
  }
  std::vector<int> no_ops = s;
  const std::initializer_list<int> ops = {
      SK::S_OR, SK::S_AND, SK::S_EQEQ, SK::S_NOTEQ, SK::S_LT, SK::S_LTEQ, SK::S_GT, SK::S_GTEQ,
      SK::S_DOTDOT, SK::S_PLUS, SK::S_MINUS, SK::S_PIPE, SK::S_CARET, SK::S_STAR, SK::S_SLASH,
      SK::S_PERCENT, SK::S_AMP, SK::S_SHL, SK::S_SHR, SK::S_DOT, SK::S_LPAREN, SK::S_LBRACKET,
      SK::S_AS, SK::S_ASSIGN, SK::S_PLUSEQ, SK::S_MINUSEQ, SK::S_STAREQ, SK::S_SLASHEQ,
      SK::S_PERCENTEQ};
  no_ops.erase(std::remove_if(no_ops.begin(), no_ops.end(),
                              [&](int k) { return std::find(ops.begin(), ops.end(), k) != ops.end(); }),
               no_ops.end());
  if (!no_ops.empty() || !parts.empty()) s = no_ops;
  if (!parts.empty() || s.size() > 1) drop({SK::S_NEWLINE});
  for (int k : s) {
    if (parts.size() >= 4) break;
    parts.push_back(spell_symbol(k));
  }
  if (parts.empty()) return "something else";
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) out += i + 1 == parts.size() ? " or " : ", ";
    out += parts[i];
  }
  return out;
}

bool is_plain_word_tok(Tok k) {
  return k == Tok::Eof || k == Tok::Newline || k == Tok::IntLit || k == Tok::FloatLit || k == Tok::TextLit;
}

std::string describe_got(const PTok& la) {
  const Token* t = la.tok;
  if (!t) return "end of file";
  if (la.kind == T::LEGACY_SELECT) return "`select`";
  if (la.kind == T::PAREN_GROUP) return "`(`";
  if (t->kind == Tok::Ident) {
    if (la.kind == T::IDENT) return "identifier `" + t->text + "`";
    return "`" + t->text + "`";
  }
  std::string s = tok_spelling(t->kind);
  if (is_plain_word_tok(t->kind)) return s;
  return "`" + s + "`";
}

}  // namespace

// Targeted help for a syntax error (docs/decisions/0040): a keyword of
// another language, `&&` / `||`, `=` where a condition ends, a `{` left open
// at end of file.
static void syntax_help(Diagnostic& d, const PTok& la, const PTok& pv, const std::vector<int>& expected,
                        const TokenFeed& feed) {
  auto ident = [](const PTok& t) -> const Token* { return t.kind == T::IDENT && !t.virt && t.tok ? t.tok : nullptr; };
  for (const PTok* t : {&la, &pv}) {
    const Token* w = ident(*t);
    if (!w || (t == &pv && w->loc.line != la.span.begin.line)) continue;
    if (const ForeignWord* f = foreign_word(w->text, ForeignWord::Keyword)) {
      d.hint("`" + w->text + "` is not a .wo keyword: " + foreign_help(*f));
      return;
    }
  }
  bool glued = !pv.virt && pv.span.begin.offset + 1 == la.span.begin.offset;
  if (la.kind == T::AMP && pv.kind == T::AMP && glued) {
    d.hint("`&&` is written `and` in .wo: `a and b` (also `or`, `not`)");
    return;
  }
  if (la.kind == T::PIPE && pv.kind == T::PIPE && glued) {
    d.hint("`||` is written `or` in .wo: `a or b` (also `and`, `not`)");
    return;
  }
  if (la.kind == T::PIPE && pv.kind == T::NEWLINE) {
    d.hint("a line that starts with `|` continues only a union declaration (`type Name = A` then `| B`); "
           "an operator does not carry an expression onto a new line (only `..` at the end of a line does)");
    return;
  }
  if (la.kind == T::ASSIGN && std::find(expected.begin(), expected.end(), int(SK::S_LBRACE)) != expected.end()) {
    d.hint("`=` assigns; to compare in a condition, write `==`");
    return;
  }
  // After top-level annotations the parser wants `type`, `class`, `pub` or `@` (not `fn`).
  if (pv.kind != T::PUB && std::find(expected.begin(), expected.end(), int(SK::S_AT)) != expected.end() &&
      std::find(expected.begin(), expected.end(), int(SK::S_CLASS)) != expected.end() &&
      std::find(expected.begin(), expected.end(), int(SK::S_FN)) == expected.end() &&
      (la.kind == T::FN || la.kind == T::CONST || la.kind == T::USE || la.kind == T::INTERFACE ||
       la.kind == T::TYPEDEF || la.kind == T::INLINE)) {
    d.hint("an annotation stands only before a class, `class Name {` or `type Name {` (language.md §4.6); remove it here");
    return;
  }
  if (la.kind == T::CONST && std::find(expected.begin(), expected.end(), int(SK::S_LET)) != expected.end()) {
    d.hint("`const` declares a module-level constant; inside a function, write `let`");
    return;
  }
  if (la.kind == T::END) {
    Loc open, close;
    if (feed.misindented_brace(open, close))
      d.note(open, "is the `}` of this `{` missing? The `}` on line " + std::to_string(close.line) +
                       " is indented like an outer block");
    else if (feed.open_brace(open))
      d.note(open, "this `{` is never closed");
  }
}

void ParseCtx::syntax_error(int symbol_kind, const std::vector<int>& expected) {
  (void)symbol_kind;
  feed.begin_recovery();
  const PTok& la = feed.last();
  Loc at = la.span.begin;
  if (la.kind == T::IDENT && !la.virt && la.tok) {
    if (const char* msg = doctrine_message(la.tok->text)) {
      diags.error(DiagCode::E105, at, msg);
      reject_line = at.line;
      return;
    }
  }
  if (reject_line != 0 && at.line == reject_line) return;  // the E105 already covers this construct
  // `cast n`: the doctrine word heads the expression and the error only shows
  // at its operand (the parser never reduced the word to a name).
  const PTok& pv = feed.prev();
  if (pv.kind == T::IDENT && !pv.virt && pv.tok && pv.tok->loc.line == at.line && rejected(pv.tok, "expression")) return;
  Diagnostic& d = diags.error(DiagCode::E101, at, "expected " + describe_expected(expected) + ", got " + describe_got(la));
  syntax_help(d, la, pv, expected, feed);
}

bool ParseCtx::rejected(const Token* t, const char* where) {
  (void)where;
  if (const char* msg = doctrine_message(t->text)) {
    diags.error(DiagCode::E105, t->loc, msg);
    reject_line = t->loc.line;
    return true;
  }
  return false;
}

Ptr<TypeExpr> ParseCtx::type(TypeExpr::Kind k, const Span& s, std::string name) {
  auto t = std::make_unique<TypeExpr>();
  t->kind = k;
  t->span = s;
  t->name = std::move(name);
  return t;
}

ExprPtr ParseCtx::binary(BinaryOp op, ExprPtr l, ExprPtr r, const Span& s, const Span& op_span) {
  auto e = mk(ExprKind::Binary, s);
  e->binary_op = op;
  e->op_span = op_span;
  e->lhs = std::move(l);
  e->rhs = std::move(r);
  return e;
}

ExprPtr ParseCtx::unary(UnaryOp op, ExprPtr x, const Span& s) {
  auto e = mk(ExprKind::Unary, s);
  e->unary_op = op;
  e->lhs = std::move(x);
  return e;
}

ExprPtr ParseCtx::int_lit(const Token* t, const Span& s, bool negate) {
  auto e = mk(ExprKind::IntLit, s);
  e->int_value = negate ? int64_t(0 - uint64_t(t->int_value)) : t->int_value;
  return e;
}

ExprPtr ParseCtx::bool_lit(bool v, const Span& s) {
  auto e = mk(ExprKind::BoolLit, s);
  e->int_value = v ? 1 : 0;
  return e;
}

ExprPtr ParseCtx::const_text(const Token* t, const Span& s) {
  if (t->has_holes) diags.error(DiagCode::E101, t->loc, "a constant must be a plain text literal (no interpolation)");
  auto e = mk(ExprKind::TextLit, s);
  if (!t->has_holes) e->text = t->text;
  return e;
}

ExprPtr ParseCtx::parse_hole(const TextPiece& piece, bool& reported) {
  bool ok = true;
  std::vector<Token> toks = lex_fragment(file_id, piece.text, piece.loc, ok);
  if (!ok) return nullptr;
  SourceManager scratch_sm;
  Diagnostics scratch(scratch_sm);
  ParseCtx sub(file_id, scratch, std::move(toks), true);
  sub.hole_depth = hole_depth + 1;
  yy::Parser p(sub);
  int rc = p.parse();
  if (sub.too_deep) {
    too_deep = true;
    return nullptr;
  }
  if (rc != 0 || scratch.error_count() > 0 || !sub.expr_result) {
    // A doctrine word in a hole is the doctrine error (WO-E105), at its own
    // place in the literal, not a malformed interpolation.
    for (const Diagnostic& d : scratch.all())
      if (d.code == DiagCode::E105) {
        diags.error(DiagCode::E105, d.loc, d.message);
        reported = true;
      }
    return nullptr;
  }
  return std::move(sub.expr_result);
}

ExprPtr ParseCtx::text(const Token* t, const Span& s) {
  if (!t->has_holes) {
    auto e = mk(ExprKind::TextLit, s);
    e->text = t->text;
    return e;
  }
  if (hole_depth >= kMaxNesting) {
    // Each level of a hole inside a hole's text literal is one more lexer and
    // parser on the stack: refuse before recursing (the gate would be too
    // late). Holes parse with scratch diagnostics, so the outermost literal
    // reports it (below).
    too_deep = true;
    return mk(ExprKind::TextLit, s);
  }
  std::vector<ExprPtr> parts;
  bool bad = false, reported = false;
  for (const TextPiece& p : t->pieces) {
    if (p.kind == TextPiece::Lit) {
      if (p.text.empty()) continue;
      auto e = mk(ExprKind::TextLit, Span{p.loc, uint32_t(p.text.size())});
      e->text = p.text;
      parts.push_back(std::move(e));
      continue;
    }
    ExprPtr inner = parse_hole(p, reported);
    if (!inner) {
      bad = true;
      continue;
    }
    if (p.kind == TextPiece::EscHole) {
      auto call = mk(ExprKind::Call, inner->span);
      auto callee = mk(ExprKind::Name, Span{inner->span.begin, 0});
      callee->text = "esc";
      call->lhs = std::move(callee);
      call->args.push_back(std::move(inner));
      inner = std::move(call);
    }
    auto in = mk(ExprKind::Interp, inner->span);
    in->lhs = std::move(inner);
    parts.push_back(std::move(in));
  }
  if (bad && too_deep) {
    diags.error(DiagCode::E113, t->loc, "nesting too deep: more than " + std::to_string(kMaxNesting) +
                                            " levels of interpolation holes inside interpolation holes");
    if (hole_depth == 0) too_deep = false;  // inner levels keep it for their parent's parse_hole
    return mk(ExprKind::TextLit, s);
  }
  if (bad) {
    if (!reported) diags.error(DiagCode::E101, t->loc, "malformed interpolation");
    return mk(ExprKind::TextLit, s);
  }
  if (parts.empty()) return mk(ExprKind::TextLit, s);
  ExprPtr acc = std::move(parts[0]);
  for (size_t i = 1; i < parts.size(); ++i) acc = binary(BinaryOp::Concat, std::move(acc), std::move(parts[i]), s, Span{});
  return acc;
}

ExprPtr ParseCtx::name(const Token* t, const Span& s) {
  rejected(t, "expression");
  auto e = mk(ExprKind::Name, s);
  e->text = t->text;
  return e;
}

ExprPtr ParseCtx::member(ExprPtr lhs, const Token* n, const Span& s) {
  auto e = mk(ExprKind::Member, s);
  e->lhs = std::move(lhs);
  e->text = word(n);
  e->op_span = sp(n);
  return e;
}

ExprPtr ParseCtx::qualified_ctor(ExprPtr lhs, const Token* n, std::vector<CtorField> fields, const Span& s) {
  auto e = mk(ExprKind::Ctor, s);
  e->text = word(n);
  e->fields = std::move(fields);
  if (lhs->kind == ExprKind::Name) {
    e->qualifier = lhs->text;
  } else {
    diags.error(DiagCode::E101, lhs->span.begin,
                "a qualified constructor is written `module.Type { ... }`");
  }
  return e;
}

ExprPtr ParseCtx::try_expr(ExprPtr body, const Token* var, pst::Handler h, const Span& s) {
  auto e = mk(ExprKind::Try, s);
  e->lhs = std::move(body);
  e->catch_name = var->text;
  e->catch_name_span = sp(var);
  if (h.block) e->handler_block = std::move(h.block);
  else e->rhs = std::move(h.expr);
  return e;
}

ExprPtr ParseCtx::query(const Token* var, ExprPtr source, pst::Clauses clauses, ExprPtr select, const Span& s) {
  auto e = mk(ExprKind::Query, s);
  e->catch_name = var->text;
  e->catch_name_span = sp(var);
  e->lhs = std::move(source);
  e->clauses = std::move(clauses.list);
  e->rhs = std::move(select);
  return e;
}

QueryClause ParseCtx::clause(QueryClause::Kind k, const Span& s, ExprPtr x) {
  QueryClause c;
  c.kind = k;
  c.span = s;
  c.expr = std::move(x);
  return c;
}

Ptr<Block> ParseCtx::wrap_block(StmtPtr st, const Span& s) {
  auto b = std::make_unique<Block>();
  b->span = s;
  b->stmts.push_back(std::move(st));
  return b;
}

void ParseCtx::arm_stmt(std::vector<SwitchArm>& arms, StmtPtr st) {
  if (!st) return;
  if (arms.empty()) {
    diags.error(DiagCode::E101, st->span.begin, "expected `case` or `default` before a statement in a switch");
    return;
  }
  arms.back().body.push_back(std::move(st));
}

FieldDecl ParseCtx::field(const Token* n, Ptr<TypeExpr> ty, pst::Suffixes suf, bool optional) {
  FieldDecl f;
  f.name = word(n);
  f.span = sp(n);
  f.type = std::move(ty);
  f.optional_marker = optional;
  if (optional && f.type) f.type->nullable = true;  // `?name: T` has type ?T (§4.5)
  f.annotations = std::move(suf.annotations);
  f.default_value = std::move(suf.default_value);
  if (f.default_value && f.default_value->kind == ExprKind::Name && f.default_value->text == "now") {
    // `now` as the whole default is `now()` (§6.4)
    auto call = mk(ExprKind::Call, f.default_value->span);
    call->lhs = std::move(f.default_value);
    f.default_value = std::move(call);
  }
  return f;
}

// Annotations the spec accepts but gives no meaning (§4.6, §6.4) are warned
// about instead of passing silently: a misspelt `@uniqe` would otherwise
// leave a table without its constraint.
Annotation ParseCtx::field_annotation(const Token* n, const Span& at, const Span& end, bool has_args) {
  Annotation a;
  a.name = n->text;
  a.span = at;
  a.span.len = end.begin.offset + end.len - at.begin.offset;
  if (a.name != "unique")
    diags.report(DiagCode::W204, at.begin, "`@" + a.name + "` means nothing on a field and is ignored (only `@unique` does)");
  else if (has_args)
    diags.report(DiagCode::W204, end.begin, "`@unique` takes no arguments; these are ignored");
  return a;
}

Annotation ParseCtx::top_annotation(const Token* n, const Span& s) {
  Annotation a;
  a.name = n->text;
  a.span = s;
  if (a.name == "gc")
    diags.error(DiagCode::E104, s.begin,
                "`@gc` is rejected: whether a class is garbage-collected is inferred, the annotation no longer exists");
  return a;
}

// Warned about once they are known to stand before a class: before a `fn`
// (or anything else) the syntax error is the one thing to say.
void ParseCtx::class_annotations(const std::vector<Annotation>& as) {
  for (const Annotation& a : as)
    if (a.name != "table" && a.name != "gc")
      diags.report(DiagCode::W204, a.span.begin,
                   "`@" + a.name + "` means nothing on a class and is ignored (only `@table` does)");
}

void ParseCtx::legacy_line(const Token* w) {
  diags.report(DiagCode::W204, w->loc,
               "a legacy `" + w->text + "` line has no meaning in .wo and is skipped (language.md §6.12)");
}

Annotation ParseCtx::table_annotation(const Token* n, std::vector<pst::TableArg> args, const Span& s) {
  Annotation a = top_annotation(n, s);
  static const std::set<std::string> retired = {"mode", "store", "ram", "cold", "tiered", "paged", "mmap", "buffer"};
  auto retired_msg = [](const std::string& w) {
    return "`" + w + "` is a retired storage word; @table takes `durable: true|false` and `resident: all|keys`";
  };
  bool seen_durable = false, seen_resident = false;
  for (pst::TableArg& arg : args) {
    const pst::TableValue& v = arg.value;
    Loc at = arg.key_span.begin;
    const std::string& key = arg.key;
    if (retired.count(key)) {
      diags.error(DiagCode::E102, at, retired_msg(key));
    } else if (key == "name") {
      if (a.table_name) diags.error(DiagCode::E102, at, "@table: `name` is given twice");
      else if (v.kind != pst::TableValue::Text || v.has_holes)
        diags.error(DiagCode::E102, v.span.begin, "@table: `name` must be a plain text literal");
      else if (v.text.empty())
        diags.error(DiagCode::E102, v.span.begin, "@table: `name` must not be empty");  // the store refuses it at start-up
      else a.table_name = v.text;
    } else if (key == "index") {
      if (v.kind != pst::TableValue::List)
        diags.error(DiagCode::E102, v.span.begin, "@table: `index` takes a list of field names, as in `index: [a, b]`");
      else if (v.items.empty())
        diags.error(DiagCode::E102, v.span.begin, "@table: an `index` needs at least one column");
      else {
        a.index.insert(a.index.end(), v.items.begin(), v.items.end());
        a.index_spans.insert(a.index_spans.end(), v.item_spans.begin(), v.item_spans.end());
        a.indexes.push_back(v.items);
      }
    } else if (key == "durable") {
      if (seen_durable) diags.error(DiagCode::E102, at, "@table: `durable` is given twice");
      else if (v.kind != pst::TableValue::Bool)
        diags.error(DiagCode::E101, v.span.begin, "expected `true` or `false` after `durable:`");
      else a.durable = v.boolean;
      seen_durable = true;
    } else if (key == "resident") {
      if (seen_resident) diags.error(DiagCode::E102, at, "@table: `resident` is given twice");
      else if (v.kind == pst::TableValue::Ident && (v.text == "all" || v.text == "keys")) {
        a.resident = v.text;
        a.resident_span = v.span;
      }
      else if (v.kind == pst::TableValue::Ident && v.text == "index")
        diags.error(DiagCode::E102, v.span.begin, "@table: `resident: index` is the old spelling; use `resident: keys`");
      else if (v.kind == pst::TableValue::Ident && retired.count(v.text))
        diags.error(DiagCode::E102, v.span.begin, retired_msg(v.text));
      else diags.error(DiagCode::E102, v.span.begin, "@table: `resident` must be `all` or `keys`");
      seen_resident = true;
    } else {
      diags.error(DiagCode::E102, at,
                  "@table: unknown argument `" + key + "` (supported: name, index, durable, resident)");
    }
  }
  if (a.durable && !*a.durable && a.resident && *a.resident == "keys")
    diags.error(DiagCode::E102, s.begin,
                "@table: `durable: false` with `resident: keys` is contradictory (rows would be neither logged nor "
                "kept in memory)");
  return a;
}

void ParseCtx::after_class_name(const Token* w) {
  if (w->text == "extends" || w->text == "implements") {
    rejected(w, "class");
    return;
  }
  diags.error(DiagCode::E101, w->loc, "expected `{`, got identifier `" + w->text + "`");
}

bool ParseCtx::static_word(const Token* w) {
  if (w->text == "static") return true;
  if (!rejected(w, "class item"))
    diags.error(DiagCode::E101, w->loc, "expected a field, method or constant, got identifier `" + w->text + "`");
  return false;
}

void ParseCtx::pub_read(const Token* w) {
  if (w->text != "read") diags.error(DiagCode::E101, w->loc, "expected `read` in `pub(read)`, got identifier `" + w->text + "`");
}

void ParseCtx::inline_fn(const Token* kw) {
  diags.error(DiagCode::E103, kw->loc,
              "`inline fn` is rejected: functions are never inlined by request (use `const` for named values)");
}

// ============================================================== entry point

ast::Ptr<ast::File> parse_file(uint32_t file_id, std::vector<Token> tokens, Diagnostics& diags) {
  auto file = std::make_unique<File>();
  file->file_id = file_id;
  ParseCtx ctx(file_id, diags, std::move(tokens), false);
  ctx.file = file.get();
  yy::Parser parser(ctx);
  parser.parse();
  check_nesting(*file, diags);  // first: the checks below and every later stage recurse
  check_transactions(*file, diags);
  return file;
}

}  // namespace wo
