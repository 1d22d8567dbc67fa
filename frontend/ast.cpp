// Small AST utilities (spellings for messages and debug dumps) and the
// iterative destructors of the recursive nodes.
#include "frontend/ast.h"

namespace wo::ast {

namespace {

// Nodes detached from their parents, waiting to be destroyed. The default
// destructors would recurse once per level (a 20,000-term `a + b + ...` is a
// 20,000-deep left spine) and overflow the stack; instead every destructor
// moves its node's children here and frees them one at a time, so each node
// dies childless and the stack depth stays constant.
struct Doomed {
  std::vector<ExprPtr> exprs;
  std::vector<StmtPtr> stmts;
  std::vector<Ptr<Block>> blocks;

  void take(Expr& e) {
    if (e.lhs) exprs.push_back(std::move(e.lhs));
    if (e.rhs) exprs.push_back(std::move(e.rhs));
    for (auto& a : e.args)
      if (a) exprs.push_back(std::move(a));
    for (auto& f : e.fields)
      if (f.value) exprs.push_back(std::move(f.value));
    for (auto& arm : e.arms) {
      for (auto& p : arm.patterns)
        if (p) exprs.push_back(std::move(p));
      for (auto& s : arm.body)
        if (s) stmts.push_back(std::move(s));
    }
    if (e.handler_block) blocks.push_back(std::move(e.handler_block));
    for (auto& c : e.clauses)
      if (c.expr) exprs.push_back(std::move(c.expr));
  }
  void take(Stmt& s) {
    if (s.expr) exprs.push_back(std::move(s.expr));
    if (s.target) exprs.push_back(std::move(s.target));
    if (s.body) blocks.push_back(std::move(s.body));
    if (s.else_body) blocks.push_back(std::move(s.else_body));
  }
  void take(Block& b) {
    for (auto& s : b.stmts)
      if (s) stmts.push_back(std::move(s));
  }
  // Frees everything taken, taking each node's children before it dies.
  void drain() {
    for (;;) {
      if (!exprs.empty()) {
        ExprPtr e = std::move(exprs.back());
        exprs.pop_back();
        take(*e);
      } else if (!stmts.empty()) {
        StmtPtr s = std::move(stmts.back());
        stmts.pop_back();
        take(*s);
      } else if (!blocks.empty()) {
        Ptr<Block> b = std::move(blocks.back());
        blocks.pop_back();
        take(*b);
      } else {
        return;
      }
    }
  }
};

template <class Node>
void destroy_children(Node& n) {
  Doomed d;
  d.take(n);
  d.drain();
}

}  // namespace

Expr::~Expr() { destroy_children(*this); }
Stmt::~Stmt() { destroy_children(*this); }
Block::~Block() { destroy_children(*this); }

const char* binary_op_spelling(BinaryOp op) {
  switch (op) {
    case BinaryOp::Or: return "or";
    case BinaryOp::And: return "and";
    case BinaryOp::Eq: return "==";
    case BinaryOp::Ne: return "!=";
    case BinaryOp::Lt: return "<";
    case BinaryOp::Le: return "<=";
    case BinaryOp::Gt: return ">";
    case BinaryOp::Ge: return ">=";
    case BinaryOp::Concat: return "..";
    case BinaryOp::Add: return "+";
    case BinaryOp::Sub: return "-";
    case BinaryOp::BitOr: return "|";
    case BinaryOp::BitXor: return "^";
    case BinaryOp::Mul: return "*";
    case BinaryOp::Div: return "/";
    case BinaryOp::Mod: return "%";
    case BinaryOp::BitAnd: return "&";
    case BinaryOp::Shl: return "<<";
    case BinaryOp::Shr: return ">>";
  }
  return "?";
}

}  // namespace wo::ast
