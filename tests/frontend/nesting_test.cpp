// The nesting gate (frontend/nesting.h, docs/decisions/0014) and the iterative
// AST destructors. These run on the test runner's ordinary 8 MiB stack, which
// a recursive walk or destructor of the trees below would overflow.
#include <doctest/doctest.h>

#include <pthread.h>

#include <string>

#include "common/diagnostics.h"
#include "frontend/ast.h"
#include "frontend/nesting.h"
#include "frontend/parser.h"
#include "frontend/token.h"
#include "tests/frontend/parse_support.h"

using namespace wo;
using namespace wo::ast;

namespace {

using wo_test::parse;

std::string repeat(const std::string& s, size_t n) {
  std::string out;
  out.reserve(s.size() * n);
  for (size_t i = 0; i < n; ++i) out += s;
  return out;
}

// `fn main() {\n  let b = not not ... true\n}` with n `not`s.
std::string nots(size_t n) { return "fn main() {\n  let b = " + repeat("not ", n) + "true\n}\n"; }

}  // namespace

// Runs `fn` on a thread with `bytes` of stack.
static void on_stack(size_t bytes, void (*fn)()) {
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, bytes);
  pthread_t t;
  REQUIRE(pthread_create(&t, &attr, [](void* f) -> void* { reinterpret_cast<void (*)()>(f)(); return nullptr; },
                         reinterpret_cast<void*>(fn)) == 0);
  pthread_join(t, nullptr);
  pthread_attr_destroy(&attr);
}

TEST_CASE("AST destructors free deep trees without recursing") {
  // 256 KiB: a destructor that recursed once per level would overflow it
  // well before 20,000 levels.
  on_stack(256 << 10, [] {
    // A left spine (a + b + ...), a unary chain on top, nested if-blocks around it.
    ExprPtr chain = std::make_unique<Expr>(ExprKind::IntLit);
    for (int i = 0; i < 20000; ++i) {
      auto b = std::make_unique<Expr>(ExprKind::Binary);
      b->lhs = std::move(chain);
      b->rhs = std::make_unique<Expr>(ExprKind::IntLit);
      chain = std::move(b);
    }
    for (int i = 0; i < 20000; ++i) {
      auto u = std::make_unique<Expr>(ExprKind::Unary);
      u->lhs = std::move(chain);
      chain = std::move(u);
    }
    auto body = std::make_unique<Block>();
    for (int i = 0; i < 20000; ++i) {
      auto s = std::make_unique<Stmt>(StmtKind::If);
      s->body = std::move(body);
      body = std::make_unique<Block>();
      body->stmts.push_back(std::move(s));
    }
    body->stmts.front()->expr = std::move(chain);
    body.reset();  // a recursive destructor overflows the small stack here
  });
  CHECK(true);
}

TEST_CASE("nesting gate: 1000 levels compile, 1001 are WO-E113 at the level that goes over") {
  auto ok = parse(nots(kMaxNesting));
  CHECK(ok->diags->all().empty());
  REQUIRE(ok->file->fns.size() == 1);
  CHECK(ok->file->fns[0]->body->stmts.size() == 1);

  auto deep = parse(nots(kMaxNesting + 1));
  REQUIRE(deep->diags->all().size() == 1);
  const Diagnostic& d = deep->diags->all()[0];
  CHECK(d.code == DiagCode::E113);
  CHECK(d.loc.line == 2);
  // `  let b = ` is 10 columns; the first `not` is at the statement's level,
  // so the operand of the 1001st, `true`, is at level 1001.
  CHECK(d.loc.col == 11 + 4 * (kMaxNesting + 1));
  // The body is dropped: nothing deep is left for the passes after the gate.
  REQUIRE(deep->file->fns.size() == 1);
  CHECK(deep->file->fns[0]->body->stmts.empty());
}

TEST_CASE("nesting gate: blocks and arguments count, chains and parentheses do not") {
  auto ifs = parse("fn main() {\n" + repeat("if true {\n", kMaxNesting + 1) + repeat("}\n", kMaxNesting + 1) + "}\n");
  CHECK(ifs->diags->all().size() == 1);
  auto calls = parse("fn main() {\n  f(" + repeat("f(", kMaxNesting + 1) + "0" + repeat(")", kMaxNesting + 2) + "\n}\n");
  CHECK(calls->diags->all().size() == 1);
  // 20,000 parentheses make no node; a chain and `else if`s 5 times the limit nest nothing.
  auto parens = parse("fn main() {\n  let x = " + repeat("(", 20000) + "1" + repeat(")", 20000) + "\n}\n");
  CHECK(parens->diags->all().empty());
  auto sum = parse("fn main() {\n  let x = 1" + repeat(" + 1", 5000) + "\n}\n");
  CHECK(sum->diags->all().empty());
  auto elifs = parse("fn main() {\n  if a {\n  }" + repeat(" else if a {\n  }", 5000) + "\n}\n");
  CHECK(elifs->diags->all().empty());
}

TEST_CASE("nesting gate: a chain of more than kMaxChain edges is WO-E113") {
  auto p = parse("fn main() {\n  let x = 1" + repeat(" + 1", kMaxChain + 1) + "\n}\n");
  REQUIRE(p->diags->all().size() == 1);
  CHECK(p->diags->all()[0].code == DiagCode::E113);
  CHECK(p->diags->all()[0].message.find("chain is too long") != std::string::npos);
  CHECK(p->file->fns[0]->body->stmts.empty());
}

TEST_CASE("interpolation holes nested past the limit are WO-E113, not a deep recursion") {
  // Each hole level is a lexer and a parser on the stack: up to the limit that
  // takes ~2.6 MiB (~20 MiB with ASan), which woc's big stack holds
  // (tools/woc/big_stack.h); the test gives it the same room.
  on_stack(size_t(256) << 20, [] {
    auto holes = [](size_t n) {
      return "fn main() {\n  let x = 7\n  print(" + repeat("\"${", n) + "x" + repeat("}\"", n) + ")\n}\n";
    };
    CHECK(parse(holes(50))->diags->all().empty());
    // The call argument is one level, each hole one more.
    CHECK(parse(holes(kMaxNesting - 1))->diags->all().empty());
    auto p = parse(holes(kMaxNesting + 1));
    REQUIRE(p->diags->all().size() == 1);
    CHECK(p->diags->all()[0].code == DiagCode::E113);
    CHECK(p->diags->all()[0].loc.line == 3);
  });
}
