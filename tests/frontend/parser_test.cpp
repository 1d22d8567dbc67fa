// Parser tests (language.md §4, §6, §9-§14; diagnostics.md §4.2). Every
// expectation is worked out from the spec text. The AST is printed as
// s-expressions by the small printer below.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "common/diagnostics.h"
#include "frontend/ast.h"
#include "frontend/const_subst.h"
#include "frontend/loader.h"
#include "frontend/parser.h"
#include "tests/frontend/parse_support.h"
#include "frontend/token.h"

using namespace wo;
using namespace wo::ast;

namespace {

// ---------------------------------------------------------------- printer

std::string ty(const TypeExpr* t) {
  if (!t) return "<none>";
  std::string s = t->nullable ? "?" : "";
  switch (t->kind) {
    case TypeExpr::Named: s += t->qualifier.empty() ? t->name : t->qualifier + "." + t->name; break;
    case TypeExpr::Ref: s += "ref " + t->name; break;
    case TypeExpr::Multi: s += "multi " + t->name; break;
    case TypeExpr::Backlink: s += "backlink " + t->name + "." + t->second; break;
    case TypeExpr::Actor: s += "actor " + t->name; break;
    case TypeExpr::Map: s += "map<" + t->name + "," + t->second + ">"; break;
  }
  return s;
}

std::string ex(const Expr* e);
std::string st(const Stmt* s);

std::string blk(const std::vector<StmtPtr>& v) {
  std::string s = "{";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? "; " : "") + st(v[i].get());
  return s + "}";
}
std::string blk(const Block* b) { return b ? blk(b->stmts) : "<none>"; }

std::string ex(const Expr* e) {
  if (!e) return "<null>";
  switch (e->kind) {
    case ExprKind::IntLit: return std::to_string(e->int_value);
    case ExprKind::FloatLit: {
      std::ostringstream o;
      o << e->float_value;
      return o.str();
    }
    case ExprKind::TextLit: return "\"" + e->text + "\"";
    case ExprKind::BoolLit: return e->int_value ? "true" : "false";
    case ExprKind::NilLit: return "nil";
    case ExprKind::Name: return e->text;
    case ExprKind::Interp: return "(interp " + ex(e->lhs.get()) + ")";
    case ExprKind::Unary:
      return std::string("(") + (e->unary_op == UnaryOp::Neg ? "-" : "not") + " " + ex(e->lhs.get()) + ")";
    case ExprKind::Binary:
      return std::string("(") + binary_op_spelling(e->binary_op) + " " + ex(e->lhs.get()) + " " +
             ex(e->rhs.get()) + ")";
    case ExprKind::As: return "(as " + ex(e->lhs.get()) + " " + ty(e->as_type.get()) + ")";
    case ExprKind::Member: return "(. " + ex(e->lhs.get()) + " " + e->text + ")";
    case ExprKind::Call: {
      std::string s = "(call " + ex(e->lhs.get());
      for (auto& a : e->args) s += " " + ex(a.get());
      return s + ")";
    }
    case ExprKind::Index: return "(index " + ex(e->lhs.get()) + " " + ex(e->rhs.get()) + ")";
    case ExprKind::ListLit: {
      std::string s = "(list";
      for (auto& a : e->args) s += " " + ex(a.get());
      return s + ")";
    }
    case ExprKind::EmptyMap: return "{}";
    case ExprKind::Ctor: {
      std::string s = "(ctor " + (e->qualifier.empty() ? "" : e->qualifier + ".") + e->text;
      for (auto& f : e->fields) s += " (" + f.name + " " + ex(f.value.get()) + ")";
      return s + ")";
    }
    case ExprKind::Spawn: return "(spawn " + ex(e->lhs.get()) + ")";
    case ExprKind::Insert: return "(insert " + ex(e->lhs.get()) + ")";
    case ExprKind::Delete: return "(delete " + ex(e->lhs.get()) + ")";
    case ExprKind::Switch: {
      std::string s = "(switch " + ex(e->lhs.get());
      for (auto& a : e->arms) {
        s += a.is_default ? " (default" : " (case";
        for (auto& p : a.patterns) s += " " + ex(p.get());
        s += " : " + blk(a.body) + ")";
      }
      return s + ")";
    }
    case ExprKind::Try:
      return "(try " + ex(e->lhs.get()) + " " + e->catch_name + " " +
             (e->handler_block ? blk(e->handler_block.get()) : ex(e->rhs.get())) + ")";
    case ExprKind::Query: {
      std::string s = "(from " + e->catch_name + " " + ex(e->lhs.get());
      for (auto& c : e->clauses) {
        switch (c.kind) {
          case QueryClause::Where: s += " (where " + ex(c.expr.get()) + ")"; break;
          case QueryClause::OrderBy: s += " (order " + ex(c.expr.get()) + (c.descending ? " desc" : "") + ")"; break;
          case QueryClause::Take: s += " (take " + ex(c.expr.get()) + ")"; break;
          case QueryClause::GroupBy: s += " (group " + ex(c.expr.get()) + " into " + c.into + ")"; break;
        }
      }
      return s + " (select " + ex(e->rhs.get()) + "))";
    }
    case ExprKind::LegacySelect: return "(legacy-select)";
  }
  return "?";
}

std::string st(const Stmt* s) {
  if (!s) return "<null>";
  switch (s->kind) {
    case StmtKind::Let:
      return "(let " + s->name + (s->declared_type ? " : " + ty(s->declared_type.get()) : "") + " " +
             ex(s->expr.get()) + ")";
    case StmtKind::Assign: {
      static const char* ops[] = {"=", "+=", "-=", "*=", "/=", "%="};
      return std::string("(") + ops[int(s->assign_op)] + " " + ex(s->target.get()) + " " + ex(s->expr.get()) + ")";
    }
    case StmtKind::Expr: return ex(s->expr.get());
    case StmtKind::If:
      return "(if " + ex(s->expr.get()) + " " + blk(s->body.get()) +
             (s->else_body ? " else " + blk(s->else_body.get()) : "") + ")";
    case StmtKind::While: return "(while " + ex(s->expr.get()) + " " + blk(s->body.get()) + ")";
    case StmtKind::DoWhile: return "(do " + blk(s->body.get()) + " " + ex(s->expr.get()) + ")";
    case StmtKind::For:
      return "(for " + s->name + (s->second_name.empty() ? "" : " " + s->second_name) + " " + ex(s->expr.get()) +
             " " + blk(s->body.get()) + ")";
    case StmtKind::Return: return s->expr ? "(return " + ex(s->expr.get()) + ")" : "(return)";
    case StmtKind::Break: return "(break)";
    case StmtKind::Continue: return "(continue)";
    case StmtKind::Block: return blk(s->body.get());
    case StmtKind::Transaction: return "(transaction " + blk(s->body.get()) + ")";
  }
  return "?";
}

std::string sig(const FnSig& s) {
  std::string o = "(fn " + s.name + " (";
  for (size_t i = 0; i < s.params.size(); ++i) {
    const Param& p = s.params[i];
    if (i) o += " ";
    o += p.conv == ParamConv::Mut ? "mut " : p.conv == ParamConv::Take ? "take " : "";
    o += p.name + ":" + ty(p.type.get());
  }
  o += ")";
  if (s.ret) o += " -> " + ty(s.ret.get());
  return o + ")";
}

std::string field(const FieldDecl& f) {
  std::string o = std::string(f.pub_read ? "pub(read) " : "") + (f.optional_marker ? "?" : "") + f.name + ":" +
                  ty(f.type.get());
  for (auto& a : f.annotations) o += " @" + a.name;
  if (f.default_value) o += " = " + ex(f.default_value.get());
  return o;
}

// ---------------------------------------------------------------- harness

using wo_test::Parsed;
using wo_test::parse;  // the harness: tests/frontend/parse_support.h

// Body of `fn f() { <body> }` printed as a block; fails the test on diagnostics.
std::string body(const std::string& b) {
  auto p = parse("fn f() {\n" + b + "\n}\n");
  INFO(p->messages());
  CHECK(p->diags->all().empty());
  if (p->file->fns.empty()) return "<no fn>";
  return blk(p->file->fns[0]->body.get());
}

// One expression (as `let v = <e>`), printed.
std::string expr(const std::string& e) {
  auto p = parse("fn f() {\n  let v = " + e + "\n}\n");
  INFO(e);
  INFO(p->messages());
  CHECK(p->diags->all().empty());
  if (p->file->fns.empty() || p->file->fns[0]->body->stmts.empty()) return "<none>";
  return ex(p->file->fns[0]->body->stmts[0]->expr.get());
}

std::vector<std::string> codes(const std::string& src) { return parse(src)->codes(); }
using V = std::vector<std::string>;

}  // namespace

// ================================================================ precedence (§4.8, §10.1)

TEST_CASE("precedence: consequences listed in §10.1") {
  CHECK(expr("x & 0xFF == 0") == "(== (& x 255) 0)");
  CHECK(expr("1 << 4 + 1") == "(+ (<< 1 4) 1)");
  CHECK(expr("not a == b") == "(== (not a) b)");
  CHECK(expr("a .. b + c") == "(.. a (+ b c))");
  CHECK(expr("a == 1 and b == 2 or c") == "(or (and (== a 1) (== b 2)) c)");
  CHECK(expr("-x as Float") == "(- (as x Float))");
}

TEST_CASE("precedence: levels and associativity") {
  CHECK(expr("a - b - c") == "(- (- a b) c)");
  CHECK(expr("a < b < c") == "(< (< a b) c)");  // left-assoc, not chained
  CHECK(expr("a | b ^ c & d") == "(^ (| a b) (& c d))");
  CHECK(expr("a * b % c >> 1") == "(>> (% (* a b) c) 1)");
  CHECK(expr("a .. b .. c") == "(.. (.. a b) c)");
  CHECK(expr("a or b and c") == "(or a (and b c))");
  CHECK(expr("a + b == c .. d") == "(== (+ a b) (.. c d))");
  CHECK(expr("- -x") == "(- (- x))");
  CHECK(expr("not not ok") == "(not (not ok))");
  CHECK(expr("e as A as B") == "(as (as e A) B)");
  CHECK(expr("-a.b(1)[2]") == "(- (index (call (. a b) 1) 2))");
  CHECK(expr("(a + b) * c") == "(* (+ a b) c)");
  CHECK(expr("json.decode(t) as json.Value") == "(as (call (. json decode) t) json.Value)");
  CHECK(expr("x.type") == "(. x type)");
}

TEST_CASE("try binds loosest and only at expression start") {
  CHECK(expr("try f() catch (e) 0") == "(try (call f) e 0)");
  CHECK(expr("try a / b catch (err) nil") == "(try (/ a b) err nil)");
  CHECK(expr("try f() catch (e) -1") == "(try (call f) e (- 1))");
  CHECK(expr("1 + (try f() catch (e) 0)") == "(+ 1 (try (call f) e 0))");
  CHECK(codes("fn f() {\n  let v = 1 + try f() catch (e) 0\n}\n") == V{"WO-E101"});
  // newline before catch, block handler
  CHECK(body("let n = try len(x)\n  catch (e) {\n    print(e.msg)\n    -1\n  }") ==
        "{(let n (try (call len x) e {(call print (. e msg)); (- 1)}))}");
  // `{}` right after catch (e) is the handler block, not a map
  CHECK(body("try send(a, m) catch (e) {}") == "{(try (call send a m) e {})}");
  CHECK(expr("try a catch (e) try b catch (f) c") == "(try a e (try b f c))");
}

// ================================================================ primaries

TEST_CASE("literals, lists, maps, constructors") {
  CHECK(expr("[1, 2, 3]") == "(list 1 2 3)");
  CHECK(expr("[1 2 3]") == "(list 1 2 3)");         // quirk: commas optional
  CHECK(expr("[a b.c f(x) \"s\"]") == "(list a (. b c) (call f x) \"s\")");
  CHECK(expr("[a -1]") == "(list (- a 1))");         // greedy: `-` continues the item
  CHECK(expr("[1, 2,]") == "(list 1 2)");
  CHECK(expr("[\n  1\n  2,\n  3\n]") == "(list 1 2 3)");
  CHECK(expr("[]") == "(list)");
  CHECK(expr("{}") == "{}");
  CHECK(expr("Point { x: 1, y: 2 }") == "(ctor Point (x 1) (y 2))");
  CHECK(expr("Point {\n  y: 4,\n  x: 3,\n}") == "(ctor Point (y 4) (x 3))");
  CHECK(expr("Point {}") == "(ctor Point)");
  CHECK(expr("Msg { type: \"a\" }") == "(ctor Msg (type \"a\"))");
  CHECK(expr("geo.Point { x: 1 }") == "(ctor geo.Point (x 1))");
  CHECK(expr("spawn Worker { done: 0 }") == "(spawn (ctor Worker (done 0)))");
  CHECK(expr("spawn pool.Worker { done: 0 }") == "(spawn (ctor pool.Worker (done 0)))");
  // element types are one name: `multi actor M` says so (WO-E101), once
  CHECK(codes("fn f() {\n  let xs: multi actor Job = []\n}\n") == V{"WO-E101"});
  CHECK(expr("insert Team { title: \"red\" }") == "(insert (ctor Team (title \"red\")))");
  CHECK(expr("INSERT Team { title: t }") == "(insert (ctor Team (title t)))");
  CHECK(expr("1.5") == "1.5");
  CHECK(expr("true") == "true");
  CHECK(expr("nil") == "nil");
  CHECK(expr("Rect(2.0, 3.0)") == "(call Rect 2 3)");
  CHECK(expr("f(\n  a,\n  b\n)") == "(call f a b)");
  // constructor fields need commas even on separate lines
  CHECK(codes("fn f() {\n  let p = P {\n    x: 1\n    y: 2\n  }\n}\n") == V{"WO-E101"});
  // no trailing comma in calls
  CHECK(codes("fn f() {\n  g(1, 2,)\n}\n") == V{"WO-E101"});
  // a plain parenthesised expression may not span lines
  CHECK(codes("fn f() {\n  let x = (a +\n    b)\n}\n") == V{"WO-E101"});
}

TEST_CASE("delete, legacy select, contextual words") {
  CHECK(body("delete gone[0]") == "{(delete (index gone 0))}");
  CHECK(expr("try delete red catch (e) nil") == "(try (delete red) e nil)");
  CHECK(body("let delete = 1\nprint_int(delete)") == "{(let delete 1); (call print_int delete)}");
  CHECK(body("x.delete(1)") == "{(call (. x delete) 1)}");
  CHECK(body("select * from users where id = 1") == "{(legacy-select)}");
  CHECK(body("SELECT name FROM t") == "{(legacy-select)}");
  CHECK(body("let where = 1\nlet select = 2\nlet from = where + 1") ==
        "{(let where 1); (let select 2); (let from (+ where 1))}");
  // a lower-case `select` at the start of an expression is the legacy form (§12.7)
  CHECK(body("let n = x + select") == "{(let n (+ x (legacy-select)))}");
  CHECK(body("let transaction = 1\ntransaction = 2") == "{(let transaction 1); (= transaction 2)}");
}

// ================================================================ queries (§13.1)

TEST_CASE("queries") {
  CHECK(expr("from o in Order where o.total > 100 select o") ==
        "(from o Order (where (> (. o total) 100)) (select o))");
  CHECK(expr("from o in Order\n    where o.status == \"open\"\n    where o.total > 100\n"
             "    order by o.placed desc\n    take 20\n    select o") ==
        "(from o Order (where (== (. o status) \"open\")) (where (> (. o total) 100)) "
        "(order (. o placed) desc) (take 20) (select o))");
  CHECK(expr("from x in t.members order by x.nick select x.nick") ==
        "(from x (. t members) (order (. x nick)) (select (. x nick)))");
  CHECK(expr("from x in Sale group x.amount by x.region into g select g") ==
        "(from x Sale (group (. x region) into g) (select g))");
  CHECK(expr("count(from x in Player select x)") == "(call count (from x Player (select x)))");
  CHECK(expr("from x in Row select x.a + 1") == "(from x Row (select (+ (. x a) 1)))");
  // a query in a for header: the `{` after the select operand is the loop body
  CHECK(body("for r in from r0 in Row select r0 {\n  print(r)\n}") ==
        "{(for r (from r0 Row (select r0)) {(call print r)})}");
  CHECK(body("for p in from x in Player where x.nick == \"ada\" select x {\n  p.nick = \"b\"\n}") ==
        "{(for p (from x Player (where (== (. x nick) \"ada\")) (select x)) {(= (. p nick) \"b\")})}");
  // a variable called `desc` inside a where clause
  CHECK(expr("from x in T where x.d == desc select x") == "(from x T (where (== (. x d) desc)) (select x))");
}

// ================================================================ switch (§11.1)

TEST_CASE("switch") {
  CHECK(expr("switch code {\n    case 200: \"OK\";\n    case 301, 308: \"Moved\";\n    default: \"Other\";\n  }") ==
        "(switch code (case 200 : {\"OK\"}) (case 301 308 : {\"Moved\"}) (default : {\"Other\"}))");
  CHECK(body("switch l {\n  case Red:\n    print(\"stop\")\n    x = 1\n  default:\n    print(\"go\")\n}") ==
        "{(switch l (case Red : {(call print \"stop\"); (= x 1)}) (default : {(call print \"go\")}))}");
  CHECK(expr("switch s { case Rect(w, h): w * h; case Dot: 0 }") ==
        "(switch s (case (call Rect w h) : {(* w h)}) (case Dot : {0}))");
  CHECK(expr("switch s { case 1: \"a\"; case 2: \"b\" }") == "(switch s (case 1 : {\"a\"}) (case 2 : {\"b\"}))");
  // two arms on one line need a terminator
  CHECK(codes("fn f() {\n  switch s { case 1: a case 2: b }\n}\n") == V{"WO-E101"});
  // the subject is in no-brace mode
  CHECK(expr("switch k { default: 0 }") == "(switch k (default : {0}))");
}

// ================================================================ no-brace mode (§4.10)

TEST_CASE("no-brace mode") {
  CHECK(body("if (Range { lo: 1, hi: 5 }).contains(x) {\n  go()\n}") ==
        "{(if (call (. (ctor Range (lo 1) (hi 5)) contains) x) {(call go)})}");
  CHECK(body("if ok { go() }") == "{(if ok {(call go)})}");
  CHECK(body("while inside(Range { lo: 0, hi: n }, i) { i += 1 }") ==
        "{(while (call inside (ctor Range (lo 0) (hi n)) i) {(+= i 1)})}");
  CHECK(body("for x in xs { print(x) }") == "{(for x xs {(call print x)})}");
  CHECK(body("for k, v in stock { print(k) }") == "{(for k v stock {(call print k)})}");
  CHECK(body("if a.b == c.d { }") == "{(if (== (. a b) (. c d)) {})}");
  CHECK(body("if xs[P { a: 1 }.a] { }") == "{(if (index xs (. (ctor P (a 1)) a)) {})}");
  CHECK(body("if [P {}] == ys { }") == "{(if (== (list (ctor P)) ys) {})}");
  CHECK(body("switch m.T { default: 1 }") == "{(switch (. m T) (default : {1}))}");
  CHECK(body("if try ok() catch (e) false { go() }") == "{(if (try (call ok) e false) {(call go)})}");
}

// ================================================================ statements (§4.7, §4.9)

TEST_CASE("statements and termination") {
  CHECK(body("let a = 1; let b = 2") == "{(let a 1); (let b 2)}");
  CHECK(body("let label: Text = \"n/a\"\nlet m: ?map<Text, Int> = {}") ==
        "{(let label : Text \"n/a\"); (let m : ?map<Text,Int> {})}");
  CHECK(body("if a < b { print(\"lt\") } else { print(\"ge\") }") ==
        "{(if (< a b) {(call print \"lt\")} else {(call print \"ge\")})}");
  CHECK(body("if a {\n  x()\n}\nelse if b {\n  y()\n}\nelse {\n  z()\n}") ==
        "{(if a {(call x)} else {(if b {(call y)} else {(call z)})})}");
  CHECK(body("while a < 10 { a += 3; }") == "{(while (< a 10) {(+= a 3)})}");
  CHECK(body("do {\n  t += 1\n} while t < 3") == "{(do {(+= t 1)} (< t 3))}");
  CHECK(body("do { t += 1 }\nwhile t < 3") == "{(do {(+= t 1)} (< t 3))}");
  CHECK(body("return") == "{(return)}");
  CHECK(body("return 1 + 2") == "{(return (+ 1 2))}");
  CHECK(body("if x { return }") == "{(if x {(return)})}");
  CHECK(body("while true { break; continue }") == "{(while true {(break); (continue)})}");
  CHECK(body("grid[3] = row\nscores[\"ann\"] = 17\nacct.balance -= 1\nn *= 2\nn /= 2\nn %= 2") ==
        "{(= (index grid 3) row); (= (index scores \"ann\") 17); (-= (. acct balance) 1); (*= n 2); (/= n 2); "
        "(%= n 2)}");
  CHECK(body("if x {} y = 1") == "{(if x {}); (= y 1)}");  // block statements need no terminator
  CHECK(body("let s = \"a\" ..\n  \"b\"") == "{(let s (.. \"a\" \"b\"))}");
  CHECK(body("transaction {\n  insert T { a: 1 }\n}") == "{(transaction {(insert (ctor T (a 1)))})}");
  // termination errors
  CHECK(codes("fn f() {\n  let a = 1 let b = 2\n}\n") == V{"WO-E101"});
  CHECK(codes("fn f() {\n  x = 1 +\n  2\n}\n") == V{"WO-E101"});
  auto p = parse("fn f() {\n  let a = 1 let b = 2\n}\n");
  CHECK(p->diags->all()[0].message == "expected end of statement, got `let`");
  CHECK(p->diags->all()[0].loc.line == 2);
  CHECK(p->diags->all()[0].loc.col == 13);
}

// ================================================================ declarations (§4.2-§4.6, §6)

TEST_CASE("top-level declarations") {
  auto p = parse(
      "use time\n"
      "using billing/tax\n"
      "const MAX = 5\n"
      "const NEG = -5\n"
      "const GREETING = \"hello\"\n"
      "const STRICT = false\n"
      "pub type Shape = Dot | Circle(r: Float) |\n"
      "    Rect(w: Float, h: Float)\n"
      "typedef Config = {\n  host: Text = \"localhost\"\n  port: Int = 8080, ?note: Text\n  type: Text\n}\n"
      "typedef Pair = { left: Int, right: Int }\n"
      "pub interface Renderer {\n  fn render(indent: Int) -> Text\n  fn name() -> Text\n}\n"
      "pub fn area(w: Int, mut h: Int, take t: Text) -> Int {\n  return w * h\n}\n"
      "fn maybe() ? -> Int { return nil }\n"
      "fn log(msg: Text) { print_err(msg) }\n");
  INFO(p->messages());
  REQUIRE(p->diags->all().empty());
  File& f = *p->file;
  REQUIRE(f.uses.size() == 2);
  CHECK(f.uses[0].path == V{"time"});
  CHECK(!f.uses[0].is_using);
  CHECK(f.uses[1].path == V{"billing", "tax"});
  CHECK(f.uses[1].is_using);
  REQUIRE(f.consts.size() == 4);
  CHECK(ex(f.consts[0].value.get()) == "5");
  CHECK(ex(f.consts[1].value.get()) == "-5");
  CHECK(f.consts[1].value->kind == ExprKind::IntLit);
  CHECK(ex(f.consts[2].value.get()) == "\"hello\"");
  CHECK(ex(f.consts[3].value.get()) == "false");
  REQUIRE(f.unions.size() == 1);
  CHECK(f.unions[0]->is_pub);
  REQUIRE(f.unions[0]->variants.size() == 3);
  CHECK(f.unions[0]->variants[0].name == "Dot");
  CHECK(!f.unions[0]->variants[0].has_parens);
  CHECK(f.unions[0]->variants[2].payload.size() == 2);
  CHECK(f.unions[0]->variants[2].payload[1].name == "h");
  REQUIRE(f.records.size() == 2);
  REQUIRE(f.records[0]->fields.size() == 4);
  CHECK(field(f.records[0]->fields[0]) == "host:Text = \"localhost\"");
  CHECK(field(f.records[0]->fields[1]) == "port:Int = 8080");
  CHECK(field(f.records[0]->fields[2]) == "?note:?Text");
  CHECK(field(f.records[0]->fields[3]) == "type:Text");
  CHECK(f.records[1]->fields.size() == 2);
  REQUIRE(f.interfaces.size() == 1);
  CHECK(f.interfaces[0]->is_pub);
  CHECK(sig(f.interfaces[0]->methods[0]) == "(fn render (indent:Int) -> Text)");
  REQUIRE(f.fns.size() == 3);
  CHECK(f.fns[0]->is_pub);
  CHECK(sig(f.fns[0]->sig) == "(fn area (w:Int mut h:Int take t:Text) -> Int)");
  CHECK(sig(f.fns[1]->sig) == "(fn maybe () -> ?Int)");  // quirk `? ->`
  CHECK(sig(f.fns[2]->sig) == "(fn log (msg:Text))");
}

TEST_CASE("classes") {
  auto p = parse(
      "@table(name: \"orders\", index: [customer], index: [status, placed], durable: false, resident: all)\n"
      "class Order {\n"
      "  customer: ref Customer\n"
      "  status: Text @unique\n"
      "  placed: Timestamp = now()\n"
      "  created: Timestamp = now @index(fast)\n"
      "  pub(read) total: Int = -1\n"
      "  lines: multi Line = []\n"
      "  back: backlink Player.team\n"
      "  addr: ?actor Ping\n"
      "  m: map<Text, Int>\n"
      "  j: json.Value\n"
      "  on: Bool\n"
      "  service billing at /x\n"
      "  policy allow all\n"
      "  const LIMIT = 10\n"
      "  static const OTHER = 11\n"
      "  static fn make() -> Order { return Order {} }\n"
      "  fn total_of() -> Int { return self.total }\n"
      "}\n"
      "type Temperature {\n  celsius: Float\n}\n"
      "pub class Stateless {\n}\n");
  INFO(p->messages());
  // `@index(fast)` and the two legacy lines are accepted with a warning (WO-W204).
  REQUIRE(p->messages() ==
          "WO-W204 6:28 `@index` means nothing on a field and is ignored (only `@unique` does)\n"
          "WO-W204 14:3 a legacy `service` line has no meaning in .wo and is skipped (language.md §6.12)\n"
          "WO-W204 15:3 a legacy `policy` line has no meaning in .wo and is skipped (language.md §6.12)\n");
  REQUIRE(p->file->classes.size() == 3);
  ClassDecl& c = *p->file->classes[0];
  CHECK(c.name == "Order");
  REQUIRE(c.annotations.size() == 1);
  const Annotation& a = c.annotations[0];
  CHECK(a.name == "table");
  CHECK(a.table_name == std::optional<std::string>("orders"));
  CHECK(a.index == V{"customer", "status", "placed"});
  REQUIRE(a.indexes.size() == 2);
  CHECK(a.indexes[1] == V{"status", "placed"});
  CHECK(a.durable == std::optional<bool>(false));
  CHECK(a.resident == std::optional<std::string>("all"));
  REQUIRE(c.fields.size() == 11);
  CHECK(field(c.fields[0]) == "customer:ref Customer");
  CHECK(field(c.fields[1]) == "status:Text @unique");
  CHECK(field(c.fields[2]) == "placed:Timestamp = (call now)");
  CHECK(field(c.fields[3]) == "created:Timestamp @index = (call now)");
  CHECK(field(c.fields[4]) == "pub(read) total:Int = (- 1)");
  CHECK(field(c.fields[5]) == "lines:multi Line = (list)");
  CHECK(field(c.fields[6]) == "back:backlink Player.team");
  CHECK(field(c.fields[7]) == "addr:?actor Ping");
  CHECK(field(c.fields[8]) == "m:map<Text,Int>");
  CHECK(field(c.fields[9]) == "j:json.Value");
  CHECK(field(c.fields[10]) == "on:Bool");
  REQUIRE(c.consts.size() == 2);
  CHECK(!c.consts[0].is_static);
  CHECK(c.consts[1].is_static);
  REQUIRE(c.methods.size() == 2);
  CHECK(c.methods[0]->is_static);
  CHECK(!c.methods[1]->is_static);
  CHECK(p->file->classes[1]->type_keyword);
  CHECK(p->file->classes[2]->is_pub);
  CHECK(p->file->classes[2]->fields.empty());
}

TEST_CASE("legacy on-block and Dynamic in a type position") {
  auto p = parse(
      "class A {\n  x: Int\n  on create {\n    log(1)\n  }\n  y: Dynamic\n  fn f(d: untyped) -> Dynamic { return d }\n}\n");
  INFO(p->messages());
  CHECK(p->codes() == V{"WO-W204"});  // the `on` block; Dynamic as a type is sema's WO-E225
  REQUIRE(p->file->classes.size() == 1);
  CHECK(p->file->classes[0]->fields.size() == 2);
  CHECK(field(p->file->classes[0]->fields[1]) == "y:Dynamic");
  // `type` is not a field name in a class body
  CHECK(codes("class A {\n  type: Text\n}\n") == V{"WO-E101"});
}

// ================================================================ interpolation (§3.8, §3.9)

TEST_CASE("interpolation desugaring") {
  CHECK(expr("\"a${x}b${y}\"") == "(.. (.. (.. \"a\" (interp x)) \"b\") (interp y))");
  CHECK(expr("\"${x}\"") == "(interp x)");
  CHECK(expr("\"${a + 1} items\"") == "(.. (interp (+ a 1)) \" items\")");
  CHECK(expr("\"${P { a: 1 }.a}\"") == "(interp (. (ctor P (a 1)) a))");
  CHECK(expr("`<h2>{{ title }}</h2>`") == "(.. (.. \"<h2>\" (interp (call esc title))) \"</h2>\")");
  CHECK(expr("\"n=${\"${k}\"}\"") == "(.. \"n=\" (interp (interp k)))");
  CHECK(expr("\"plain\"") == "\"plain\"");
  auto p = parse("fn f() {\n  let s = \"a ${x +} b ${y}\"\n}\n");
  REQUIRE(p->codes() == V{"WO-E101"});
  CHECK(p->diags->all()[0].message == "malformed interpolation");
  CHECK(p->diags->all()[0].loc.col == 11);  // the literal's opening quote
  CHECK(codes("fn f() {\n  let s = \"${}\"\n}\n") == V{"WO-E101"});
  CHECK(codes("fn f() {\n  let s = \"${a b}\"\n}\n") == V{"WO-E101"});
  CHECK(codes("fn f() {\n  let s = \"${a} ${b c} ${d e}\"\n}\n") == V{"WO-E101"});  // one per literal
}

// ================================================================ diagnostics

TEST_CASE("WO-E102: @table arguments") {
  auto bad = [](const std::string& args) { return codes("@table(" + args + ")\nclass R {\n  n: Int\n}\n"); };
  CHECK(bad("name: \"a\", name: \"b\"") == V{"WO-E102"});
  CHECK(bad("index: []") == V{"WO-E102"});
  CHECK(bad("shards: 4") == V{"WO-E102"});
  CHECK(bad("durable: true, durable: false") == V{"WO-E102"});
  CHECK(bad("resident: keys, resident: all") == V{"WO-E102"});
  CHECK(bad("resident: hot") == V{"WO-E102"});
  CHECK(bad("resident: index") == V{"WO-E102"});
  CHECK(bad("ram: true") == V{"WO-E102"});
  CHECK(bad("resident: cold") == V{"WO-E102"});
  CHECK(bad("name: 3") == V{"WO-E102"});
  CHECK(bad("name: \"\"") == V{"WO-E102"});
  CHECK(bad("durable: false, resident: keys") == V{"WO-E102"});
  CHECK(bad("durable: 1") == V{"WO-E101"});
  CHECK(bad("\n  name: \"r\",\n  index: [n],\n  durable: true,\n  resident: keys,\n") == V{});
  CHECK(bad("") == V{});
}

TEST_CASE("WO-E103, WO-E104, WO-E105") {
  CHECK(codes("inline fn twice(n: Int) -> Int { return n * 2 }\n") == V{"WO-E103"});
  CHECK(codes("@gc\nclass Node {\n  next: ?Node\n}\n") == V{"WO-E104"});
  CHECK(codes("class Base {\n  n: Int\n}\nclass Derived extends Base {\n  m: Int\n}\n") == V{"WO-E105"});
  CHECK(codes("class D implements Shape {\n  m: Int\n}\n") == V{"WO-E105"});
  CHECK(codes("fn f() {\n  super.init()\n}\n") == V{"WO-E105"});
  CHECK(codes("fn f() {\n  let x = cast(y)\n}\n") == V{"WO-E105"});
  CHECK(codes("extern fn puts(s: Text)\nfn main() {}\n") == V{"WO-E105"});
  CHECK(codes("macro twice\nfn main() {}\n") == V{"WO-E105"});
  CHECK(codes("class A {\n  override fn f() {}\n}\n") == V{"WO-E105"});
  CHECK(codes("fn f() {\n  let v = Dynamic\n}\n") == V{"WO-E105"});
  CHECK(codes("fn f(x: Dynamic) {}\n") == V{});  // a type position: sema's WO-E225
  auto p = parse("class Derived extends Base {\n  m: Int\n}\n");
  CHECK(p->file->classes.size() == 1);  // the class is kept
}

TEST_CASE("WO-W204: annotations and lines accepted without meaning are not silent") {
  CHECK(codes("@json\nclass A {\n  n: Int\n}\n") == V{"WO-W204"});
  CHECK(codes("@cache(10)\nclass A {\n  n: Int\n}\n") == V{"WO-W204"});
  CHECK(codes("@table\nclass A {\n  n: Int @uniqe\n}\n") == V{"WO-W204"});
  auto p = parse("@table\nclass A {\n  n: Int @unique(n)\n}\n");
  REQUIRE(p->codes() == V{"WO-W204"});
  CHECK(p->diags->all()[0].loc.col == 17);  // at the ignored arguments
  CHECK(codes("@table(name: \"a\")\nclass A {\n  n: Int @unique\n}\n") == V{});
  CHECK(codes("class A {\n  n: Int\n  policy allow all\n}\n") == V{"WO-W204"});
}

// language.md §4.6: annotations stand only before `type`/`class`. Before a
// `fn` the syntax error is all that is said: no WO-W204 claiming the
// annotation sits on a class, and a help naming the rule.
TEST_CASE("an annotation before a fn is WO-E101 with a hint, not a warning about a class") {
  for (const char* src : {"@cached\nfn f() -> Int {\n  return 1\n}\n", "@table\nconst N = 1\n"}) {
    auto p = parse(src);
    INFO(src);
    REQUIRE(p->codes() == V{"WO-E101"});
    auto& d = p->diags->all()[0];
    CHECK(d.loc.line == 2);
    CHECK(d.loc.col == 1);
    REQUIRE(d.help.size() == 1);
    CHECK(d.help[0].find("an annotation stands only before a class") != std::string::npos);
  }
  // `pub` after the annotations still expects a class, and says so plainly
  CHECK(codes("@cached\npub fn f() {}\n") == V{"WO-E101"});
}

// A library exports its tables (docs/decisions/0030): `pub` goes between
// the annotations and `class`; before them it is still an error.
TEST_CASE("@table(...) pub class is an exported table class") {
  auto p = parse("@table(name: \"t\")\npub class T {\n  n: Int\n}\n");
  REQUIRE(p->codes() == V{});
  REQUIRE(p->file->classes.size() == 1);
  CHECK(p->file->classes[0]->is_pub);
  CHECK(p->file->classes[0]->annotations.size() == 1);
  CHECK(codes("pub @table(name: \"t\")\nclass T {\n  n: Int\n}\n") == V{"WO-E101"});
}

TEST_CASE("WO-E105: `cast` at the head of an expression, with its message and place") {
  const std::string msg = "`cast` is rejected: .wo has no casts; convert explicitly (int_to_text, ...) or decode JSON with `as`";
  for (const char* src : {"fn f() {\n  let m = cast n\n}\n", "fn f() {\n  let m = cast(n)\n}\n",
                          "fn f() {\n  let m = cast Int(n)\n}\n"}) {
    auto p = parse(src);
    REQUIRE(p->codes() == V{"WO-E105"});
    CHECK(p->diags->all()[0].message == msg);
    CHECK(p->diags->all()[0].loc.line == 2);
    CHECK(p->diags->all()[0].loc.col == 11);
  }
  auto p = parse("fn f() {\n  cast n\n}\n");  // a statement's head
  REQUIRE(p->codes() == V{"WO-E105"});
  CHECK(p->diags->all()[0].loc.col == 3);
  p = parse("fn f() {\n  print(\"n is ${cast(n)}\")\n}\n");  // inside an interpolation hole
  REQUIRE(p->codes() == V{"WO-E105"});
  CHECK(p->diags->all()[0].message == msg);
  CHECK(p->diags->all()[0].loc.line == 2);
  CHECK(p->diags->all()[0].loc.col == 17);
  CHECK(codes("fn f() {\n  let m = a.cast\n}\n") == V{});  // a member name is not the word
}

TEST_CASE("WO-E110: nested transaction blocks") {
  CHECK(codes("fn f() {\n  transaction {\n    transaction {\n      x()\n    }\n  }\n}\n") == V{"WO-E110"});
  CHECK(codes("fn f() {\n  transaction {\n    if a {\n      while b {\n        transaction { }\n      }\n    }\n  }\n}\n") ==
        V{"WO-E110"});
  CHECK(codes("fn f() {\n  transaction {\n    let v = try g() catch (e) {\n      transaction { }\n      0\n    }\n  }\n}\n") ==
        V{"WO-E110"});
  CHECK(codes("fn f() {\n  transaction { a() }\n  transaction { b() }\n}\nfn g() {\n  transaction { f() }\n}\n") == V{});
  auto p = parse("fn f() {\n  transaction {\n    transaction {\n    }\n  }\n}\n");
  CHECK(p->diags->all()[0].loc.line == 3);
}

TEST_CASE("WO-E101 messages") {
  auto p = parse("fn main() {\n  print(\"x\"\n}\n");
  REQUIRE(p->codes() == V{"WO-E101"});
  CHECK(p->diags->all()[0].message == "expected `)` or `,`, got `}`");
  p = parse("fn f(a Int) {}\n");
  REQUIRE(p->codes() == V{"WO-E101"});
  CHECK(p->diags->all()[0].message == "expected `:`, got identifier `Int`");
  p = parse("fn f() {\n  let x =\n}\n");
  REQUIRE(p->codes() == V{"WO-E101"});
  CHECK(p->diags->all()[0].message == "expected expression, got newline");
  p = parse("fn f() {\n  let x = 1\n");
  REQUIRE(p->codes() == V{"WO-E101"});
  CHECK(p->diags->all()[0].message == "expected statement or `}`, got end of file");
  CHECK(codes("pub const X = 1\n") == V{"WO-E101"});
  CHECK(codes("const F = 1.5\n") == V{"WO-E101"});
  CHECK(codes("interface I {\n  x: Int\n}\n") == V{"WO-E101"});
  CHECK(codes("type U = A |\n  | B\n") == V{"WO-E101"});  // one `|` too many
}

// ================================================================ union continuation lines (decision 0090)

TEST_CASE("a union declaration continues on lines that start with `|`") {
  auto names = [](const UnionDecl& u) {
    V v;
    for (auto& x : u.variants) v.push_back(x.name);
    return v;
  };
  auto p = parse(
      "type Shape = Circle\n"
      "  | Square\n"
      "  -- a comment line\n"
      "\n"
      "  | Rect(w: Int, h: Int)\n"
      "pub type Level =\n"
      "  | Low\n"
      "  | High\n"
      "type Light = | Red | Amber |\n"
      "  Green\n"
      "fn f() -> Int { return 1 | 2 }\n");
  INFO(p->messages());
  REQUIRE(p->diags->all().empty());
  File& f = *p->file;
  REQUIRE(f.unions.size() == 3);
  CHECK(names(*f.unions[0]) == V{"Circle", "Square", "Rect"});
  CHECK(f.unions[0]->variants[2].payload.size() == 2);
  CHECK(f.unions[0]->variants[1].span.begin.line == 2);
  CHECK(f.unions[1]->is_pub);
  CHECK(names(*f.unions[1]) == V{"Low", "High"});
  CHECK(names(*f.unions[2]) == V{"Red", "Amber", "Green"});
  REQUIRE(f.fns.size() == 1);
  CHECK(blk(f.fns[0]->body.get()) == "{(return (| 1 2))}");

  // `;` and a line feed not followed by `|` end the declaration.
  p = parse("type U = A; type V = B\n  | C\nfn g() {}\n");
  INFO(p->messages());
  REQUIRE(p->diags->all().empty());
  REQUIRE(p->file->unions.size() == 2);
  CHECK(names(*p->file->unions[1]) == V{"B", "C"});
}

TEST_CASE("a line starting with `|` outside a union declaration is WO-E101 with a hint") {
  auto p = parse("fn main() {\n  let mask = 1\n    | 2\n}\n");
  REQUIRE(p->codes() == V{"WO-E101"});
  auto& d = p->diags->all()[0];
  CHECK(d.message == "expected statement or `}`, got `|`");
  CHECK(d.loc.line == 3);
  CHECK(d.loc.col == 5);
  REQUIRE(d.help.size() == 1);
  CHECK(d.help[0].find("continues only a union declaration") != std::string::npos);

  p = parse("const X = 1\n  | 2\nfn main() {}\n");
  REQUIRE(p->codes() == V{"WO-E101"});
  CHECK(p->diags->all()[0].loc.line == 2);
  CHECK(p->file->fns.size() == 1);  // recovery keeps the next declaration

  // A class body is not a union: a `|` line after its `}` continues nothing.
  CHECK(codes("type C {\n  n: Int\n}\n  | B\n") == V{"WO-E101"});
  // The first variant must be on the line of `=` or after a `|`.
  p = parse("type U =\n  A\n  | B\n");
  REQUIRE(p->codes() == V{"WO-E101"});
  CHECK(p->diags->all()[0].message == "expected identifier, got newline");
}

// ================================================================ recovery (§4.11)

TEST_CASE("recovery: several errors, good declarations kept") {
  auto p = parse(
      "fn good1() -> Int { return 1 }\n"
      "fn bad1( { }\n"
      "class Good2 {\n  n: Int\n}\n"
      "fn mixed() {\n"
      "  let a = 1\n"
      "  let = 2\n"
      "  let b = (3 + [1, 2)\n"
      "  print(a)\n"
      "}\n"
      "fn good3() {}\n");
  INFO(p->messages());
  CHECK(p->codes() == V{"WO-E101", "WO-E101", "WO-E101"});
  std::vector<std::string> names;
  for (auto& f : p->file->fns) names.push_back(f->sig.name);
  CHECK(names == V{"good1", "mixed", "good3"});
  REQUIRE(p->file->classes.size() == 1);
  CHECK(blk(p->file->fns[1]->body.get()) == "{(let a 1); (call print a)}");
}

TEST_CASE("recovery inside nested blocks, switch arms and class bodies") {
  auto p = parse(
      "fn f() {\n"
      "  if x {\n"
      "    a = = 1\n"
      "    b()\n"
      "  }\n"
      "  let v = switch k {\n"
      "    case 1 2: x\n"
      "    case 3: y = ]\n"
      "    default: z\n"
      "  }\n"
      "  c()\n"
      "}\n"
      "class K {\n"
      "  a: Int\n"
      "  b Int\n"
      "  fn m() {}\n"
      "}\n");
  INFO(p->messages());
  CHECK(p->codes() == V{"WO-E101", "WO-E101", "WO-E101", "WO-E101"});
  REQUIRE(p->file->fns.size() == 1);
  CHECK(blk(p->file->fns[0]->body.get()) ==
        "{(if x {(call b)}); (let v (switch k (case 3 : {}) (default : {z}))); (call c)}");
  REQUIRE(p->file->classes.size() == 1);
  CHECK(p->file->classes[0]->fields.size() == 1);
  CHECK(p->file->classes[0]->methods.size() == 1);
}

// ================================================================ constants (§6.9)

namespace {
std::string subst(const std::vector<std::string>& files, size_t which = 0, size_t fn = 0) {
  SourceManager sm;
  Diagnostics d(sm);
  Module m;
  for (auto& src : files) {
    SourceFile f;
    f.path = "m.wo";
    f.text = src;
    uint32_t id = sm.add(std::move(f));
    m.files.push_back(parse_file(id, lex_file(id, sm.get(id).text, d, LexOptions{}), d));
  }
  CHECK(d.all().empty());
  substitute_constants(m);
  auto& file = *m.files[which];
  if (fn < file.fns.size()) return blk(file.fns[fn]->body.get());
  return "<none>";
}
}  // namespace

TEST_CASE("constant substitution with shadowing") {
  CHECK(subst({"const MAX = 5\nconst NAME = \"n\"\nconst ON = true\nconst NEG = -3\n"
               "fn f() {\n  g(MAX, NAME, ON, NEG)\n}\n"}) == "{(call g 5 \"n\" true -3)}");
  // let shadows from the next statement on; the initialiser still sees the constant
  CHECK(subst({"const N = 1\nfn f() {\n  let N = N + 1\n  g(N)\n}\n"}) == "{(let N (+ 1 1)); (call g N)}");
  // a let inside a block does not leak out
  CHECK(subst({"const N = 1\nfn f() {\n  if a {\n    let N = 2\n    g(N)\n  }\n  g(N)\n}\n"}) ==
        "{(if a {(let N 2); (call g N)}); (call g 1)}");
  CHECK(subst({"const N = 1\nfn f(N: Int) {\n  g(N)\n}\n"}) == "{(call g N)}");
  CHECK(subst({"const K = 1\nfn f() {\n  for K in xs { g(K) }\n  g(K)\n}\n"}) == "{(for K xs {(call g K)}); (call g 1)}");
  CHECK(subst({"const e = 1\nfn f() {\n  let v = try g(e) catch (e) e\n}\n"}) == "{(let v (try (call g 1) e e))}");
  CHECK(subst({"const x = 1\nfn f() {\n  let v = from x in T where x.a > x select x\n}\n"}) ==
        "{(let v (from x T (where (> (. x a) x)) (select x)))}");
  CHECK(subst({"const w = 9\nfn f() {\n  let v = switch s {\n    case Rect(w, h): w * h\n    default: w\n  }\n}\n"}) ==
        "{(let v (switch s (case (call Rect w h) : {(* w h)}) (default : {9})))}");
  // member names and constructor keys are not names
  CHECK(subst({"const a = 1\nfn f() {\n  let v = P { a: x.a }\n}\n"}) == "{(let v (ctor P (a (. x a))))}");
  // constants are visible in sibling files of the module
  CHECK(subst({"fn f() {\n  g(LIMIT)\n}\n", "const LIMIT = 42\n"}) == "{(call g 42)}");
  // interpolation holes are substituted too
  CHECK(subst({"const N = 3\nfn f() {\n  print(\"n=${N}\")\n}\n"}) == "{(call print (.. \"n=\" (interp 3)))}");
}

TEST_CASE("class constants win inside their class; self shadows") {
  SourceManager sm;
  Diagnostics d(sm);
  Module m;
  SourceFile f;
  f.path = "c.wo";
  f.text =
      "const LIMIT = 1\nconst self = 7\n"
      "class A {\n  n: Int = LIMIT\n  const LIMIT = 2\n  fn get() -> Int { return LIMIT + self.n }\n}\n"
      "fn free() -> Int { return LIMIT }\n";
  uint32_t id = sm.add(std::move(f));
  m.files.push_back(parse_file(id, lex_file(id, sm.get(id).text, d, LexOptions{}), d));
  REQUIRE(d.all().empty());
  substitute_constants(m);
  auto& c = *m.files[0]->classes[0];
  CHECK(blk(c.methods[0]->body.get()) == "{(return (+ 2 (. self n)))}");
  CHECK(ex(c.fields[0].default_value.get()) == "2");
  CHECK(blk(m.files[0]->fns[0]->body.get()) == "{(return 1)}");
  CHECK(m.files[0]->consts.size() == 2);  // the declarations stay
}

// ================================================================ loader

TEST_CASE("load_program: file, directory modules, unreadable path") {
  namespace fs = std::filesystem;
  fs::path root = fs::temp_directory_path() / ("wo_loader_test_" + std::to_string(::getpid()));
  fs::remove_all(root);
  fs::create_directories(root / "billing" / "tax");
  fs::create_directories(root / ".git");
  auto write = [](const fs::path& p, const std::string& s) { std::ofstream(p) << s; };
  write(root / "b.wo", "fn main() {\n  print_int(RATE)\n}\n");
  write(root / "a.wo", "const RATE = 7\n");
  write(root / "billing" / "tax" / "t.wo", "pub fn rate() -> Int { return 1 }\n");
  write(root / ".git" / "x.wo", "garbage (\n");
  write(root / "notes.txt", "x");
  {
    SourceManager sm;
    Diagnostics d(sm);
    LoadResult r = load_program(root.string(), sm, d, LexOptions{});
    CHECK(r.io_error.empty());
    CHECK(d.all().empty());
    REQUIRE(r.program.modules.size() == 2);
    CHECK(r.program.modules[0]->path == "");
    REQUIRE(r.program.modules[0]->files.size() == 2);
    CHECK(sm.get(r.program.modules[0]->files[0]->file_id).path == (root / "a.wo").string());
    CHECK(blk(r.program.modules[0]->files[1]->fns[0]->body.get()) == "{(call print_int 7)}");
    CHECK(r.program.modules[1]->path == "billing/tax");
    CHECK(sm.get(r.program.modules[1]->files[0]->file_id).module == "billing/tax");
  }
  {
    SourceManager sm;
    Diagnostics d(sm);
    LoadResult r = load_program((root / "a.wo").string(), sm, d, LexOptions{});
    REQUIRE(r.program.modules.size() == 1);
    CHECK(r.program.modules[0]->files.size() == 1);
  }
  {
    SourceManager sm;
    Diagnostics d(sm);
    LoadResult r = load_program((root / "missing").string(), sm, d, LexOptions{});
    CHECK(r.io_error == "cannot read '" + (root / "missing").string() + "': No such file or directory");
  }
  fs::remove_all(root);
}

TEST_CASE("more shapes: queries in lists, newline before select, spans") {
  CHECK(expr("[from x in A where x.ok select x, 1]") == "(list (from x A (where (. x ok)) (select x)) 1)");
  CHECK(expr("[insert T { a: 1 } insert T { a: 2 }]") == "(list (insert (ctor T (a 1))) (insert (ctor T (a 2))))");
  CHECK(expr("from o in Order\n    select o") == "(from o Order (select o))");
  CHECK(expr("insert\n    Team { title: t }") == "(insert (ctor Team (title t)))");
  CHECK(expr("f(x)(y)[0].z") == "(. (index (call (call f x) y) 0) z)");
  CHECK(expr("`a ${b} {{ c }}`") == "(.. (.. (.. \"a \" (interp b)) \" \") (interp (call esc c)))");
  CHECK(body("let w: actor Job = spawn Worker { done: 0 }\nlet r: ?ref Node = nil\nlet xs: multi Text = []") ==
        "{(let w : actor Job (spawn (ctor Worker (done 0)))); (let r : ?ref Node nil); (let xs : multi Text (list))}");
  auto p = parse("fn area(w: Int) -> Int {\n  let total = w\n  return total\n}\n");
  REQUIRE(p->file->fns.size() == 1);
  const FnDecl& f = *p->file->fns[0];
  CHECK(f.sig.span.begin.line == 1);
  CHECK(f.sig.span.begin.col == 4);
  CHECK(f.sig.span.len == 4);
  CHECK(f.span.begin.col == 1);
  CHECK(f.span.len == p->sm.get(0).text.size() - 1);  // up to the closing brace
  const Stmt& let = *f.body->stmts[0];
  CHECK(let.name_span.begin.line == 2);
  CHECK(let.name_span.begin.col == 7);
  CHECK(let.span.begin.col == 3);
  CHECK(let.expr->span.begin.col == 15);
  CHECK(f.sig.params[0].span.begin.col == 9);
  // annotations only before type/class; pub(read) only
  CHECK(codes("@table(name: \"x\")\ntype U = A | B\n") == V{"WO-E101"});
  CHECK(codes("class A {\n  pub(write) x: Int\n}\n") == V{"WO-E101"});
  CHECK(codes("const T = \"a${b}\"\n") == V{"WO-E101"});
  // statements before the first case
  CHECK(codes("fn f() {\n  switch x {\n    g()\n    default: 1\n  }\n}\n") == V{"WO-E101"});
}
