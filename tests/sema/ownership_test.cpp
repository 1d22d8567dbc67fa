// The ownership pass (sema/ownership.cpp) through sema's entry point: where
// E301–E303 are reported and which site the note points at (the corpus only
// checks codes), the BORROW guards and held arguments handed to codegen, and
// demand promotion (docs/decisions/0078).
#include <doctest/doctest.h>

#include <set>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "sema/program_info.h"
#include "tests/sema/analyze_support.h"

namespace {

struct Diag {
  std::string code;
  uint32_t line, col;
  uint32_t rel_line = 0, rel_col = 0;  // the first related note, if any
};

struct Checked {
  std::vector<Diag> diags;
  std::unique_ptr<wo::sema::ProgramInfo> info;
  std::unique_ptr<wo::ast::Program> program;  // the AST info points into
};

Checked analyse(const std::string& src) {
  auto a = wo_test::analyze_source(src, "wo-ownership-test");
  REQUIRE(a->info);
  Checked out;
  out.program = std::move(a->program);
  out.info = std::move(a->info);
  for (auto& d : a->diags.sorted()) {
    Diag x{wo::diag_code_text(d.code), d.loc.line, d.loc.col};
    if (!d.related.empty()) {
      x.rel_line = d.related[0].loc.line;
      x.rel_col = d.related[0].loc.col;
    }
    out.diags.push_back(x);
  }
  return out;
}

const char* kCell =
    "class Cell {\n"                  // 1
    "  v: Int\n"                      // 2
    "  fn absorb(mut o: Cell) {\n"    // 3
    "    self.v += o.v\n"             // 4
    "    o.v = 0\n"                   // 5
    "  }\n"                           // 6
    "  fn sum(o: Cell) -> Int {\n"    // 7
    "    return self.v + o.v\n"       // 8
    "  }\n"                           // 9
    "  fn copy_into(mut o: Cell) {\n" // 10
    "    o.v = self.v\n"              // 11
    "  }\n"                           // 12
    "}\n";                            // 13

const char* kBag =
    "class Bag {\n"                                   // 1
    "  n: Int\n"                                      // 2
    "}\n"                                             // 3
    "fn consume(take b: Bag) -> Int { return b.n }\n"  // 4
    "fn take_first(take a: Bag, b: Bag) {}\n"         // 5
    "fn take_second(b: Bag, take a: Bag) {}\n";       // 6

}  // namespace

TEST_CASE("ownership: a mutating method's receiver passed as its argument is E303 at the argument") {
  auto c = analyse(std::string(kCell) + "fn main() {\n  let c = Cell { v: 1 }\n  c.absorb(c)\n}\n");
  REQUIRE(c.diags.size() == 1);
  CHECK(c.diags[0].code == "WO-E303");
  CHECK(c.diags[0].line == 16);
  CHECK(c.diags[0].col == 12);
}

TEST_CASE("ownership: a shared receiver and a shared argument may be the same place") {
  auto c = analyse(std::string(kCell) + "fn main() {\n  let c = Cell { v: 1 }\n  print_int(c.sum(c))\n}\n");
  CHECK(c.diags.empty());
  auto m = analyse(std::string(kCell) + "fn main() {\n  let c = Cell { v: 1 }\n  c.copy_into(c)\n}\n");
  REQUIRE(m.diags.size() == 1);
  CHECK(m.diags[0].code == "WO-E303");
  CHECK(m.diags[0].col == 15);
}

TEST_CASE("ownership: methods that write through self are exclusive, the others shared") {
  auto c = analyse(std::string(kCell) + "fn main() {}\n");
  REQUIRE(c.info);
  const wo::sema::ClassInfo* cell = nullptr;
  for (auto& k : c.info->classes)
    if (k->name == "Cell") cell = k.get();
  REQUIRE(cell);
  CHECK(cell->method("absorb")->mutates_self);
  CHECK_FALSE(cell->method("sum")->mutates_self);
  CHECK_FALSE(cell->method("copy_into")->mutates_self);
}

TEST_CASE("ownership: receiver and argument through run-time indices get a guard comparing the two elements") {
  auto c = analyse(std::string(kCell) +
                   "fn main() {\n  let cs: multi Cell = [Cell { v: 1 }]\n  let i = 0\n  let j = 0\n"
                   "  cs[i].absorb(cs[j])\n  cs[0].absorb(cs[i])\n  cs[0].sum(cs[i])\n}\n");
  CHECK(c.diags.empty());
  REQUIRE(c.info);
  // The two `absorb` calls are guarded; `sum` (shared receiver, shared argument) is not.
  REQUIRE(c.info->borrow_guards.size() == 2);
  for (auto& [call, pairs] : c.info->borrow_guards) {
    REQUIRE(pairs.size() == 1);
    CHECK(pairs[0].first == call->lhs->lhs.get());  // the receiver's element
    CHECK(pairs[0].second == call->args[0].get());  // the argument's
  }
}

TEST_CASE("ownership: an element is guarded against a part of another, a loop variable and a map value") {
  auto c = analyse(std::string(kCell) +
                   "class Box {\n  cell: Cell\n}\n"
                   "fn main() {\n  let bs: multi Box = [Box { cell: Cell { v: 1 } }]\n  let i = 0\n  let j = 0\n"
                   "  bs[i].cell.absorb(bs[j].cell)\n"            // the two Box elements
                   "  let cs: multi Cell = [Cell { v: 1 }]\n"
                   "  for it in cs {\n    it.absorb(cs[i])\n  }\n"  // the loop variable and cs[i]
                   "  let m: map<Int, Cell> = {}\n"
                   "  m[1] = Cell { v: 2 }\n"
                   "  for k, v in m {\n    v.absorb(cs[j])\n  }\n"  // different containers: no guard
                   "}\n");
  CHECK(c.diags.empty());
  REQUIRE(c.info);
  REQUIRE(c.info->borrow_guards.size() == 2);
  using K = wo::ast::ExprKind;
  std::set<std::pair<K, K>> compared;
  for (auto& [call, pairs] : c.info->borrow_guards) {
    REQUIRE(pairs.size() == 1);
    compared.insert({pairs[0].first->kind, pairs[0].second->kind});
  }
  CHECK(compared == std::set<std::pair<K, K>>{{K::Index, K::Index}, {K::Name, K::Index}});
}

TEST_CASE("ownership: a value moved into `take` and borrowed by the same call is E302 at the move, in either order") {
  auto first = analyse(std::string(kBag) + "fn main() {\n  let b = Bag { n: 1 }\n  take_first(b, b)\n}\n");
  REQUIRE(first.diags.size() == 1);
  CHECK(first.diags[0].code == "WO-E302");
  CHECK(first.diags[0].line == 9);
  CHECK(first.diags[0].col == 14);      // the moved argument
  CHECK(first.diags[0].rel_col == 17);  // the borrowed one
  auto second = analyse(std::string(kBag) + "fn main() {\n  let b = Bag { n: 1 }\n  take_second(b, b)\n}\n");
  REQUIRE(second.diags.size() == 1);
  CHECK(second.diags[0].code == "WO-E302");
  CHECK(second.diags[0].col == 18);
  CHECK(second.diags[0].rel_col == 15);
}

TEST_CASE("ownership: a loop that moves an outer local reports the use the next iteration makes") {
  auto c = analyse(std::string(kBag) +
                   "fn main() {\n"                  // 7
                   "  let b = Bag { n: 1 }\n"       // 8
                   "  let i = 0\n"                  // 9
                   "  while i < 2 {\n"              // 10
                   "    print_int(b.n)\n"           // 11
                   "    b = Bag { n: i }\n"         // 12
                   "    print_int(consume(b))\n"    // 13
                   "    i += 1\n"                   // 14
                   "  }\n"
                   "}\n");
  REQUIRE(c.diags.size() == 1);
  CHECK(c.diags[0].code == "WO-E301");
  CHECK(c.diags[0].line == 11);
  CHECK(c.diags[0].col == 15);
  CHECK(c.diags[0].rel_line == 13);
  CHECK(c.diags[0].rel_col == 23);
}

TEST_CASE("ownership: a loop body that gives the local a new value on every path before the move is accepted") {
  auto c = analyse(std::string(kBag) +
                   "fn main() {\n"
                   "  let b = Bag { n: 1 }\n"
                   "  for k in [1, 2] {\n"
                   "    if k == 1 {\n"
                   "      b = Bag { n: k }\n"
                   "    } else {\n"
                   "      b = Bag { n: 0 }\n"
                   "    }\n"
                   "    print_int(consume(b))\n"
                   "  }\n"
                   "  b = Bag { n: 5 }\n"
                   "  let i = 0\n"
                   "  do {\n"
                   "    print_int(consume(b))\n"
                   "    b = Bag { n: i }\n"
                   "    i += 1\n"
                   "  } while i < 2\n"
                   "  print_int(b.n)\n"
                   "}\n");
  CHECK(c.diags.empty());
}

TEST_CASE("ownership: a value moved before `break` is moved after the loop") {
  auto c = analyse(std::string(kBag) +
                   "fn main() {\n"                   // 7
                   "  let b = Bag { n: 1 }\n"        // 8
                   "  while true {\n"                // 9
                   "    if b.n > 0 {\n"              // 10
                   "      print_int(consume(b))\n"   // 11
                   "      break\n"                   // 12
                   "    }\n"                         // 13
                   "    b = Bag { n: 2 }\n"          // 14
                   "  }\n"                           // 15
                   "  print_int(b.n)\n"              // 16
                   "}\n");
  REQUIRE(c.diags.size() == 1);
  CHECK(c.diags[0].code == "WO-E301");
  CHECK(c.diags[0].line == 16);
  CHECK(c.diags[0].rel_line == 11);
}

TEST_CASE("ownership: returning a borrowed class value demand-promotes the class, and only that class") {
  auto c = analyse(
      "class Engine {\n  hp: Int\n}\n"
      "class Car {\n  engine: Engine\n}\n"
      "class Wheel {\n  r: Int\n}\n"
      "fn engine_of(c: Car) -> Engine {\n  return c.engine\n}\n"
      "fn main() {\n  let car = Car { engine: Engine { hp: 1 } }\n  let e = engine_of(car)\n  let f = e\n"
      "  print_int(e.hp + f.hp)\n  let w = Wheel { r: 1 }\n  let v = w\n  print_int(v.r)\n}\n");
  CHECK(c.diags.empty());  // `let f = e` no longer moves `e`: Engine is traced
  REQUIRE(c.info);
  std::map<std::string, bool> traced;
  for (auto& k : c.info->classes) traced[k->name] = k->traced;
  CHECK(traced["Engine"]);
  CHECK_FALSE(traced["Car"]);
  CHECK_FALSE(traced["Wheel"]);
}

TEST_CASE("ownership: a Text part beside its mut owner is held for the call, a part of another value is not") {
  auto c = analyse(
      "class Owner {\n  name: Text\n}\n"
      "fn show(n: Text, mut o: Owner) {\n  o.name = \"x\"\n  print(n)\n}\n"
      "fn main() {\n  let a = Owner { name: \"a\" }\n  let b = Owner { name: \"b\" }\n"
      "  show(a.name, a)\n  show(b.name, a)\n}\n");
  CHECK(c.diags.empty());
  REQUIRE(c.info);
  std::set<uint32_t> held_lines;
  for (const wo::ast::Expr* e : c.info->keep_alive) held_lines.insert(e->span.begin.line);
  CHECK(held_lines == std::set<uint32_t>{11});  // show(a.name, a), not show(b.name, a)
}

TEST_CASE("ownership: writing through a shared parameter is E303 at the write, with the parameter as the note") {
  auto c = analyse("class Bag {\n  n: Int\n}\nfn empty(b: Bag) {\n  let k = 1\n  b.n = 0\n}\nfn main() {}\n");
  REQUIRE(c.diags.size() == 1);
  CHECK(c.diags[0].code == "WO-E303");
  CHECK(c.diags[0].line == 6);
  CHECK(c.diags[0].rel_line == 4);
  CHECK(c.diags[0].rel_col == 10);
}
