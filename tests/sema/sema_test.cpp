// Sema through its real entry points: load a program from source text, analyse
// it, and check the diagnostics' codes and exact positions (the corpus only
// checks codes), plus the type rules that the checks rely on.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "sema/program_info.h"
#include "tests/sema/analyze_support.h"

namespace {

struct Found {
  std::string code;
  uint32_t line, col;
};

// Analyses `src` as a one-file program and returns the sorted diagnostics.
std::vector<Found> check(const std::string& src) {
  auto a = wo_test::analyze_source(src, "wo-sema-test");
  std::vector<Found> out;
  for (auto& d : a->diags.sorted()) out.push_back({wo::diag_code_text(d.code), d.loc.line, d.loc.col});
  return out;
}

}  // namespace

TEST_CASE("sema: a clean program has no diagnostics") {
  CHECK(check("fn main() {\n  let x = 1\n  print_int(x + 2)\n}\n").empty());
}

TEST_CASE("sema: Int and Float never mix, reported at the operator") {
  auto d = check("fn main() {\n  let x = 1 + 2.0\n}\n");
  REQUIRE(d.size() == 1);
  CHECK(d[0].code == "WO-E201");
  CHECK(d[0].line == 2);
  CHECK(d[0].col == 13);  // the `+` (decision 0040); the whole `1 + 2.0` is underlined
}

TEST_CASE("sema: every error of the run is reported, in source order") {
  auto d = check("fn main() {\n  print(1)\n  let y: Int = \"s\"\n  nope()\n}\n");
  REQUIRE(d.size() == 3);
  CHECK(d[0].code == "WO-E209");
  CHECK(d[1].code == "WO-E201");
  CHECK(d[2].code == "WO-E403");
  CHECK((d[0].line < d[1].line && d[1].line < d[2].line));
}

TEST_CASE("sema: a possibly-nil value must be checked, then narrows") {
  auto bad = check("fn f(x: ?Int) -> Int {\n  return x + 1\n}\nfn main() { print_int(f(1)) }\n");
  REQUIRE(bad.size() == 1);
  CHECK(bad[0].code == "WO-E211");
  auto good = check(
      "fn f(x: ?Int) -> Int {\n  if x == nil { return 0 }\n  return x + 1\n}\nfn main() { print_int(f(1)) }\n");
  CHECK(good.empty());
}

TEST_CASE("sema: a moved local cannot be used again; the related site is the move") {
  auto a = wo_test::analyze_source("class Bag {\n  items: multi Int\n}\nfn keep(take b: Bag) {}\nfn main() {\n"
                                    "  let a = Bag { items: [] }\n  keep(a)\n  keep(a)\n}\n",
                                    "wo-sema-test");
  auto all = a->diags.sorted();
  REQUIRE(all.size() == 1);
  CHECK(std::string(wo::diag_code_text(all[0].code)) == "WO-E301");
  CHECK(all[0].loc.line == 8);
  REQUIRE(all[0].related.size() == 1);
  CHECK(all[0].related[0].loc.line == 7);
}

TEST_CASE("sema: assignability rules") {
  wo::sema::TypeTable t;
  CHECK(wo::sema::assignable(t.nullable(t.int_()), t.int_()));      // T -> ?T
  CHECK(wo::sema::assignable(t.nullable(t.text()), t.nil()));       // nil -> ?T
  CHECK_FALSE(wo::sema::assignable(t.int_(), t.nullable(t.int_())));  // ?T -> T needs a check
  CHECK(wo::sema::assignable(t.timestamp(), t.int_()));             // Int-shaped types mix
  CHECK_FALSE(wo::sema::assignable(t.float_(), t.int_()));          // no implicit conversion
  CHECK(t.nullable(t.nullable(t.int_())) == t.nullable(t.int_()));  // ??T is ?T
  CHECK(t.list_of(t.text()) == t.list_of(t.text()));                // interned
}
