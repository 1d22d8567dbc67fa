// The nesting gate (nesting.h): one iterative walk per declaration body with
// an explicit work list, so measuring a 50,000-deep body is itself safe.
#include "frontend/nesting.h"

#include <string>
#include <vector>

#include "common/diagnostics.h"

namespace wo {
namespace {

using namespace ast;

struct Item {
  enum Kind : uint8_t { E, S, B } kind;
  const void* node;
  uint32_t nest;   // genuine nesting levels above this node
  uint32_t total;  // AST edges above this node (what a recursive pass descends)
};

// Whether an expression's `lhs` continues a chain rather than nesting:
// `a + b` (left operand), `x.f`, `f(...)`, `x[i]`, `x as T` (operand).
bool lhs_chains(const Expr& e) {
  switch (e.kind) {
    case ExprKind::Binary:
    case ExprKind::Member:
    case ExprKind::Call:
    case ExprKind::Index:
    case ExprKind::As: return true;
    default: return false;
  }
}

// An `else` block that is exactly one `if`: the parser's `else if`.
const Stmt* else_if(const Stmt& s) {
  if (!s.else_body || s.else_body->stmts.size() != 1) return nullptr;
  const Stmt* inner = s.else_body->stmts[0].get();
  return inner && inner->kind == StmtKind::If ? inner : nullptr;
}

class Gate {
 public:
  // Returns where the first limit is exceeded (nullptr: within limits), and
  // which limit in `chain`.
  const Span* first_violation(const void* root, Item::Kind kind, bool* chain) {
    work_.clear();
    work_.push_back({kind, root, 0, 0});
    while (!work_.empty()) {
      Item it = work_.back();
      work_.pop_back();
      if (it.nest > kMaxNesting || it.total > kMaxChain) {
        *chain = it.nest <= kMaxNesting;
        return &span_of(it);
      }
      switch (it.kind) {
        case Item::E: visit(*static_cast<const Expr*>(it.node), it); break;
        case Item::S: visit(*static_cast<const Stmt*>(it.node), it); break;
        case Item::B: visit(*static_cast<const Block*>(it.node), it); break;
      }
    }
    return nullptr;
  }

 private:
  void push(const Expr* e, uint32_t nest, uint32_t total) {
    if (e) work_.push_back({Item::E, e, nest, total});
  }
  void push(const Stmt* s, uint32_t nest, uint32_t total) {
    if (s) work_.push_back({Item::S, s, nest, total});
  }
  void push(const Block* b, uint32_t nest, uint32_t total) {
    if (b) work_.push_back({Item::B, b, nest, total});
  }

  static const Span& span_of(const Item& it) {
    switch (it.kind) {
      case Item::E: return static_cast<const Expr*>(it.node)->span;
      case Item::S: return static_cast<const Stmt*>(it.node)->span;
      case Item::B: break;
    }
    return static_cast<const Block*>(it.node)->span;
  }

  void visit(const Expr& e, const Item& it) {
    uint32_t n = it.nest + 1, t = it.total + 1;
    push(e.lhs.get(), lhs_chains(e) ? it.nest : n, t);
    push(e.rhs.get(), n, t);
    for (auto& a : e.args) push(a.get(), n, t);
    for (auto& f : e.fields) push(f.value.get(), n, t);
    for (auto& arm : e.arms) {
      for (auto& p : arm.patterns) push(p.get(), n, t);
      for (auto& s : arm.body) push(s.get(), n, t);
    }
    push(e.handler_block.get(), n, t);
    for (auto& c : e.clauses) push(c.expr.get(), n, t);
  }

  void visit(const Stmt& s, const Item& it) {
    uint32_t t = it.total + 1;
    push(s.expr.get(), it.nest, t);  // a statement's expression is at the statement's level
    push(s.target.get(), it.nest, t);
    push(s.body.get(), it.nest + 1, t);
    if (const Stmt* next = else_if(s))
      push(next, it.nest, t + 1);  // `else if` continues the chain: no nesting level
    else
      push(s.else_body.get(), it.nest + 1, t);
  }

  void visit(const Block& b, const Item& it) {
    for (auto& s : b.stmts) push(s.get(), it.nest, it.total + 1);
  }

  std::vector<Item> work_;
};

void report(Diagnostics& diags, const Span& at, bool chain) {
  if (chain)
    diags.error(DiagCode::E113, at.begin,
                "this chain is too long: more than " + std::to_string(kMaxChain) +
                    " operators, calls or `else if`s in a row (split it with intermediate variables or functions)");
  else
    diags.error(DiagCode::E113, at.begin,
                "nesting too deep: more than " + std::to_string(kMaxNesting) +
                    " levels of nested blocks and expressions (move inner parts into functions or variables)");
}

// Checks one body; a body over the limits is dropped (an empty block keeps the
// declaration's shape for the passes that still look at it).
void gate_block(Gate& g, Ptr<Block>& body, Diagnostics& diags) {
  if (!body) return;
  bool chain = false;
  if (const Span* at = g.first_violation(body.get(), Item::B, &chain)) {
    report(diags, *at, chain);
    Span span = body->span;
    body = std::make_unique<Block>();  // the old body is freed iteratively (~Block)
    body->span = span;
  }
}

void gate_expr(Gate& g, ExprPtr& e, Diagnostics& diags) {
  if (!e) return;
  bool chain = false;
  if (const Span* at = g.first_violation(e.get(), Item::E, &chain)) {
    report(diags, *at, chain);
    Span span = e->span;
    e = std::make_unique<Expr>(ExprKind::IntLit, span);
  }
}

}  // namespace

void check_nesting(File& file, Diagnostics& diags) {
  Gate g;
  for (auto& fn : file.fns) gate_block(g, fn->body, diags);
  for (auto& c : file.classes) {
    for (auto& m : c->methods) gate_block(g, m->body, diags);
    for (auto& f : c->fields) gate_expr(g, f.default_value, diags);
  }
  for (auto& r : file.records)
    for (auto& f : r->fields) gate_expr(g, f.default_value, diags);
}

}  // namespace wo
