// Constructs that parse but woc gives no meaning are refused or warned about,
// never silently accepted (docs/decisions/0017-refused-not-ignored.md): the
// codes and the exact positions (the corpus checks codes only).
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "sema/program_info.h"
#include "tests/sema/analyze_support.h"

namespace {

std::vector<std::string> check(const std::string& src) { return wo_test::diag_positions(src, "wo-sema-refusals-test"); }
using V = std::vector<std::string>;

}  // namespace

TEST_CASE("refusals: `resident: keys` is not implemented: WO-E403 at its value") {
  CHECK(check("@table(name: \"e\", resident: keys)\nclass E {\n  n: Int\n}\nfn main() {}\n") == V{"WO-E403@1:29"});
  CHECK(check("@table(resident: all)\nclass E {\n  n: Int\n}\nfn main() {}\n").empty());
  // with `durable: false` the contradiction (WO-E102) is the one error
  CHECK(check("@table(durable: false, resident: keys)\nclass E {\n  n: Int\n}\nfn main() {}\n") == V{"WO-E102@1:1"});
}

TEST_CASE("refusals: a second @table, and two classes under one storage name, are WO-E102") {
  CHECK(check("@table\n@table(durable: false)\nclass E {\n  n: Int\n}\nfn main() {}\n") == V{"WO-E102@2:1"});
  CHECK(check("@table(name: \"x\")\nclass A {\n  n: Int\n}\n@table(name: \"x\")\nclass B {\n  n: Int\n}\nfn main() {}\n") ==
        V{"WO-E102@6:7"});
  // a plain class is stored under its own name once something inserts it
  CHECK(check("@table(name: \"P\")\nclass A {\n  n: Int\n}\nclass P {\n  n: Int\n}\n"
              "fn main() {\n  insert P { n: 1 }\n}\n") == V{"WO-E102@2:7"});
  CHECK(check("@table(name: \"P\")\nclass A {\n  n: Int\n}\nclass P {\n  n: Int\n}\nfn main() {}\n").empty());
}

TEST_CASE("refusals: `@unique` that constrains nothing is WO-W204") {
  CHECK(check("class A {\n  n: Int @unique\n}\nfn main() {}\n") == V{"WO-W204@2:3"});
  CHECK(check("class A {\n  n: Int @unique\n}\nfn main() {\n  insert A { n: 1 }\n}\n").empty());
  CHECK(check("typedef R = {\n  n: Int @unique\n}\nfn main() {}\n") == V{"WO-W204@2:3"});
  CHECK(check("@table\nclass B {\n  a: ref A\n}\n@table\nclass A {\n  bs: backlink B.a @unique\n}\nfn main() {}\n") ==
        V{"WO-W204@7:3"});
}

TEST_CASE("refusals: a row's container field is a copy: changing it in place is WO-E403") {
  const std::string decl = "@table\nclass P {\n  tags: multi Text\n  m: map<Text, Int>\n}\n";
  CHECK(check(decl + "fn main() {\n  let p = insert P { tags: [], m: {} }\n  push(p.tags, \"x\")\n}\n") ==
        V{"WO-E403@8:8"});
  CHECK(check(decl + "fn main() {\n  let p = insert P { tags: [], m: {} }\n  p.tags[0] = \"x\"\n}\n") ==
        V{"WO-E403@8:3"});
  CHECK(check(decl + "fn main() {\n  let p = insert P { tags: [], m: {} }\n  remove(p.m, \"k\")\n}\n") ==
        V{"WO-E403@8:10"});
  CHECK(check(decl + "fn g(mut xs: multi Text) {\n  push(xs, \"x\")\n}\nfn main() {\n  let p = insert P { tags: [], m: {} }\n"
                     "  g(p.tags)\n}\n") == V{"WO-E403@11:5"});
  // reading, copying out, and assigning the whole field are fine
  CHECK(check(decl + "fn main() {\n  let p = insert P { tags: [], m: {} }\n  let t = p.tags\n  push(t, \"x\")\n"
                     "  p.tags = t\n  print_int(len(p.tags))\n}\n").empty());
}

TEST_CASE("refusals: what a stored field may hold") {
  CHECK(check("class A {\n  n: Int\n}\n@table\nclass T {\n  a: A\n}\nfn main() {}\n") == V{"WO-E403@6:3"});
  CHECK(check("@table\nclass T {\n  xs: multi Float\n  m: map<Int, Bytes>\n  o: ?multi Text\n}\nfn main() {}\n").empty());
  CHECK(check("@table\nclass R {\n  n: Int\n}\n@table\nclass T {\n  rs: multi R\n}\nfn main() {}\n") == V{"WO-E403@7:3"});
  CHECK(check("@table\nclass T {\n  xs: multi Int @unique\n}\nfn main() {}\n") == V{"WO-E102@3:3"});
}

TEST_CASE("refusals: insert/delete of the rows a loop walks is WO-E250, over a query or a backlink") {
  // Lines 1-9: Shelf with a backlink to Book, a shelf and a book.
  const std::string kShelves =
      "@table(durable: false)\nclass Shelf {\n  label: Text\n  books: backlink Book.shelf\n}\n"  // 1-5
      "@table(durable: false, index: [shelf])\nclass Book {\n  title: Text\n  shelf: ref Shelf\n}\n"  // 6-10
      "fn main() {\n  let s = insert Shelf { label: \"a\" }\n  insert Book { title: \"x\", shelf: s }\n";  // 11-13
  // the backlink: delete and insert at the statement, as for a query
  CHECK(check(kShelves + "  for b in s.books {\n    delete b\n  }\n}\n") == V{"WO-E250@15:5"});
  CHECK(check(kShelves + "  for b in s.books {\n    insert Book { title: b.title, shelf: s }\n  }\n}\n") ==
        V{"WO-E250@15:5"});
  CHECK(check(kShelves + "  for b in from x in Book select x {\n    delete b\n  }\n}\n") == V{"WO-E250@15:5"});
  // an inner loop over anything else does not hide the cursor
  CHECK(check(kShelves + "  for b in s.books {\n    for t in [1, 2] {\n      delete b\n    }\n  }\n}\n") ==
        V{"WO-E250@16:7"});
  // the backlink's own table (Shelf) is not the one it walks
  CHECK(check(kShelves + "  for b in s.books {\n    insert Shelf { label: b.title }\n  }\n}\n").empty());
  // collected first: a multi held in a variable is no cursor; nor is a query
  // used inside the body, or the backlink read after the loop
  CHECK(check(kShelves + "  let books = s.books\n  for b in books {\n    delete b\n  }\n}\n").empty());
  CHECK(check(kShelves + "  for n in [1, 2] {\n    delete s.books[0]\n  }\n  print_int(len(s.books))\n}\n").empty());
  // the note points at the loop's source
  auto a = wo_test::analyze_source(kShelves + "  for b in s.books {\n    delete b\n  }\n}\n", "wo-sema-refusals-test");
  auto ds = a->diags.sorted();
  REQUIRE(ds.size() == 1);
  REQUIRE(ds[0].related.size() == 1);
  CHECK(ds[0].related[0].loc.line == 14);
  CHECK(ds[0].related[0].loc.col == 12);
}

// docs/decisions/0095: diagnostics.md has free fns unchecked across files, so a
// second `helper` in a sibling file compiles, but calls reach only the first
// file's by path: a warning, not silence. The same for a constant declared
// twice in one module (or one class): every use takes the first value.
TEST_CASE("refusals: a fn or constant declared again in one module is WO-W204 at the one never used") {
  const char* dir = "wo-sema-refusals-dup";
  CHECK(wo_test::dir_diag_positions({{"a.wo", "fn helper() -> Int {\n  return 1\n}\nfn main() {\n  print_int(helper())\n}\n"},
                                     {"b.wo", "\nfn helper() -> Int {\n  return 2\n}\n"}},
                                    dir) == V{"WO-W204@b.wo:2:4"});
  CHECK(wo_test::dir_diag_positions({{"a.wo", "const LIMIT = 1\nfn main() {\n  print_int(LIMIT)\n}\n"},
                                     {"b.wo", "const LIMIT = 2\n"}},
                                    dir) == V{"WO-W204@b.wo:1:7"});
  // in one file: a second fn stays WO-E215; a second constant warns
  CHECK(check("fn f() {}\nfn f() {}\nfn main() {}\n") == V{"WO-E215@2:4"});
  CHECK(check("const N = 1\nconst N = 2\nfn main() {\n  print_int(N)\n}\n") == V{"WO-W204@2:7"});
  CHECK(check("class C {\n  const K = 1\n  const K = 2\n  fn k() -> Int {\n    return K\n  }\n}\nfn main() {}\n") ==
        V{"WO-W204@3:9"});
  // the same names in two modules are two fns and two constants
  CHECK(wo_test::dir_diag_positions({{"main.wo", "use util\nconst N = 1\nfn helper() -> Int {\n  return N\n}\n"
                                                 "fn main() {\n  print_int(helper() + util.helper())\n}\n"},
                                     {"util/u.wo", "const N = 2\npub fn helper() -> Int {\n  return N\n}\n"}},
                                    dir)
            .empty());
}

// language.md §7.11: a program's class named like a predeclared record
// replaces it, and the runtime fills it field by field: a replacement with
// other field types would be read as the wrong type (a Text read from an
// Int segfaulted). WO-E201 at the builtin's call, only where one is called.
TEST_CASE("refusals: a predeclared record replaced with other fields is WO-E201 where a builtin fills it") {
  CHECK(check("use fs\nclass Stat {\n  size: Text\n}\nfn main() {\n  let st = fs.stat(\"x\")\n}\n") ==
        V{"WO-E201@6:12"});
  // one field too many, or a @table of that name: the same
  CHECK(check("use proc\nclass Proc {\n  code: Int\n  out: Text\n  err: Text\n  more: Int\n}\nfn main() {\n"
              "  let none: multi Text = []\n  let p = proc.run(\"true\", none)\n}\n") == V{"WO-E201@10:11"});
  CHECK(check("use fs\n@table\nclass Stat {\n  size: Int\n  mtime: Int\n  inode: Int\n  dir: Bool\n}\nfn main() {\n"
              "  let st = fs.stat(\"x\")\n}\n") == V{"WO-E201@10:12"});
  // the same types in the same order (names are the class's own), with methods: it is the result
  CHECK(check("use fs\nclass Stat {\n  size: Int\n  mtime: Int\n  inode: Int\n  dir: Bool\n"
              "  fn big() -> Bool {\n    return self.size > 10\n  }\n}\n"
              "fn main() {\n  let st = fs.stat(\"x\")\n  if st != nil and st.big() {\n    print(\"big\")\n  }\n}\n")
            .empty());
  // a class of that name in a program that never calls the builtin is just a class
  CHECK(check("class Proc {\n  name: Text\n}\nfn main() {\n  let p = Proc { name: \"a\" }\n  print(p.name)\n}\n").empty());
}

// A program's type named like one of a dependency's (the framework's
// `Route`): one WO-E214 at the program's declaration, and nothing from the
// framework's code checked against the program's class.
TEST_CASE("refusals: a type named like a dependency's is one WO-E214 at the program's declaration") {
  auto got = wo_test::dir_diag_positions(
      {{"main.wo", "use framework\n\nclass Route {\n  path: Text\n}\n\nfn main() {\n  let r = Route { path: \"/\" }\n"
                   "  print(r.path)\n}\n"}},
      "wo-sema-refusals-dep-clash");
  CHECK(got == V{"WO-E214@main.wo:3:7"});
}

// `catch (e)` binds the predeclared Error; a program's class of that name is
// another type, and "expected Error, found Error" alone explains nothing.
TEST_CASE("refusals: expected Error, found Error says which two types share the name") {
  auto a = wo_test::analyze_source(
      "class Error {\n  msg: Text\n}\nfn show(e: Error) {\n  print(e.msg)\n}\n"
      "fn main() {\n  let r = try 1 / 0 catch (e) {\n    show(e)\n    0\n  }\n  print_int(r)\n}\n",
      "wo-sema-refusals-error-name");
  REQUIRE(a->diags.all().size() == 1);
  const auto& d = a->diags.all()[0];
  CHECK(d.message == "argument 1 of `show`: expected Error, found Error");
  REQUIRE(d.help.size() == 1);
  CHECK(d.help[0].find("the predeclared record") != std::string::npos);
}
