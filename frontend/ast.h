// The abstract syntax tree: what the parser produces and what sema reads.
//
// Ownership: every node is owned by its parent through std::unique_ptr. Nodes
// carry a Span into the source. Sema annotates expressions in place (the
// `type` and `sym` slots below) instead of building a second tree; codegen
// reads those annotations. See docs/decisions/0002-typed-ast.md.
//
// Desugarings done by the frontend (so later stages never see the surface form):
//   * interpolation: "a${x}b" -> Binary(Concat, Binary(Concat, Text "a", Interp(x)), Text "b")
//   * `{{ e }}` in a raw literal -> Interp(Call(Name "esc", [e]))
//   * `else if` -> an else Block holding one If statement
//   * constants -> their literal (frontend/const_subst.cpp), except where shadowed
//   * compound assignment stays an Assign with op != Assign (codegen evaluates the target twice)
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/source.h"

namespace wo {
namespace sema {
struct Type;    // defined in sema/types.h
struct Symbol;  // defined in sema/symbols.h
}  // namespace sema

namespace ast {

template <class T>
using Ptr = std::unique_ptr<T>;

// ---------------------------------------------------------------- types
struct TypeExpr {
  enum Kind : uint8_t { Named, Ref, Multi, Backlink, Actor, Map } kind = Named;
  Span span;
  bool nullable = false;  // leading `?`
  std::string name;       // Named: type name; Ref/Multi/Actor: the element name; Backlink: class; Map: key
  std::string qualifier;  // Named only: `json` in `json.Value` ("" if none)
  std::string second;     // Backlink: the field; Map: the value type name
};

// ---------------------------------------------------------------- expressions
struct Expr;
struct Stmt;
struct Block;
using ExprPtr = Ptr<Expr>;
using StmtPtr = Ptr<Stmt>;

enum class ExprKind : uint8_t {
  IntLit, FloatLit, TextLit, BoolLit, NilLit,
  Name,        // identifier (including `self`, bare variants, builtins as callees)
  Interp,      // textification of an interpolation hole: operand
  Unary, Binary,
  As,          // operand as type
  Member,      // operand.name
  Call,        // callee(args)   (callee is any expression: Name, Member, ...)
  Index,       // operand[index]
  ListLit,     // [a, b, c]
  EmptyMap,    // {}
  Ctor,        // TypeName { f: e, ... }
  Spawn,       // spawn Ctor
  Insert,      // insert Ctor
  Delete,      // delete operand
  Switch,
  Try,
  Query,
  LegacySelect,  // SELECT ... (opaque; always rejected later)
};

enum class UnaryOp : uint8_t { Neg, Not };
enum class BinaryOp : uint8_t {
  Or, And,
  Eq, Ne, Lt, Le, Gt, Ge,
  Concat,
  Add, Sub, BitOr, BitXor,
  Mul, Div, Mod, BitAnd, Shl, Shr,
};
const char* binary_op_spelling(BinaryOp op);

struct CtorField {
  std::string name;
  Span name_span;
  ExprPtr value;
};

struct SwitchArm {
  Span span;
  bool is_default = false;
  std::vector<ExprPtr> patterns;     // case values; `V(a, b)` patterns are Call(Name V, [Name a, Name b])
  std::vector<StmtPtr> body;         // statements up to the next arm
};

struct QueryClause {
  enum Kind : uint8_t { Where, OrderBy, Take, GroupBy } kind = Where;
  Span span;
  ExprPtr expr;               // Where: condition; OrderBy: key; Take: count; GroupBy: key
  bool descending = false;    // OrderBy
  bool then_by = false;       // OrderBy: a later key of the same `order by a, b` (ties of the keys before it)
  std::string into;           // GroupBy ... into NAME
};

struct Expr {
  ExprKind kind;
  Span span;
  Span op_span;  // Binary: the operator; Member: the name after the dot (where diagnostics point); else empty
  // ---- filled by sema
  const sema::Type* type = nullptr;
  sema::Symbol* sym = nullptr;  // Name/Member/Call: what the name resolved to

  // ---- payload (which fields are used depends on `kind`)
  int64_t int_value = 0;     // IntLit; BoolLit (0/1)
  double float_value = 0;    // FloatLit
  std::string text;          // TextLit bytes; Name/Member: the identifier; Ctor/Spawn/Insert: type name
  std::string qualifier;     // Ctor: module alias in `mod.Type { }` ("" if none)
  UnaryOp unary_op = UnaryOp::Neg;
  BinaryOp binary_op = BinaryOp::Add;
  ExprPtr lhs;               // Unary/Interp/As/Member/Index/Delete/Spawn/Insert operand; Binary left; Call callee;
                             // Switch subject; Try body; Query source
  ExprPtr rhs;               // Binary right; Index index; Try handler expression (if not a block); Query select
  std::vector<ExprPtr> args; // Call args; ListLit items
  std::vector<CtorField> fields;   // Ctor (Spawn/Insert hold a Ctor in lhs)
  Ptr<TypeExpr> as_type;     // As
  std::vector<SwitchArm> arms;     // Switch
  std::string catch_name;    // Try: the name in catch (e); Query: the range variable
  Span catch_name_span;
  Ptr<Block> handler_block;  // Try: handler written as a block
  std::vector<QueryClause> clauses;  // Query, in source order
  bool no_value_select = false;      // reserved

  explicit Expr(ExprKind k, Span s = {}) : kind(k), span(s) {}
  ~Expr();  // iterative (ast.cpp): a 20,000-long chain must not recurse 20,000 deep
};

// ---------------------------------------------------------------- statements
enum class StmtKind : uint8_t {
  Let, Assign, Expr, If, While, DoWhile, For, Return, Break, Continue, Block, Transaction,
};

enum class AssignOp : uint8_t { Assign, Add, Sub, Mul, Div, Mod };

struct Block {
  Span span;
  std::vector<StmtPtr> stmts;
  Block() = default;
  ~Block();  // iterative, like ~Expr
};

struct Stmt {
  StmtKind kind;
  Span span;
  // Let
  std::string name;
  Span name_span;
  Ptr<TypeExpr> declared_type;   // optional
  // Let init / Assign value / Expr / Return value (may be null) / DoWhile+While+If cond / For iterable
  ExprPtr expr;
  ExprPtr target;                // Assign target
  AssignOp assign_op = AssignOp::Assign;
  Span op_span;                  // Assign: the `=` / `+=` ... (where a compound-assignment error points)
  Ptr<Block> body;               // If then / While / DoWhile / For / Block / Transaction
  Ptr<Block> else_body;          // If (an `else if` is a Block with one If)
  std::string second_name;       // For k, v: the second variable
  Span second_name_span;
  sema::Symbol* sym = nullptr;   // Let / For: the declared local (filled by sema)
  sema::Symbol* sym2 = nullptr;  // For k, v: the second local

  explicit Stmt(StmtKind k, Span s = {}) : kind(k), span(s) {}
  ~Stmt();  // iterative, like ~Expr
};

// ---------------------------------------------------------------- declarations
enum class ParamConv : uint8_t { Borrow, Mut, Take };

struct Param {
  ParamConv conv = ParamConv::Borrow;
  std::string name;
  Span span;
  Ptr<TypeExpr> type;
  sema::Symbol* sym = nullptr;
};

struct FnSig {
  std::string name;
  Span span;                     // the name
  std::vector<Param> params;
  Ptr<TypeExpr> ret;             // null: no return value (the `fn f() ? -> T` quirk sets ret->nullable)
};

struct FnDecl {
  FnSig sig;
  Span span;                     // whole declaration
  bool is_pub = false;
  bool is_static = false;        // `static fn` in a class body
  Ptr<Block> body;
  sema::Symbol* sym = nullptr;
};

struct Annotation {
  std::string name;              // "table", "unique", "gc", anything else
  Span span;
  // @table(...) arguments (only when name == "table")
  std::optional<std::string> table_name;
  std::vector<std::string> index;    // index: [a, b] (every `index:` argument's columns, flattened)
  std::vector<Span> index_spans;
  std::vector<std::vector<std::string>> indexes;  // one entry per `index:` argument (repeatable, §12.1)
  std::optional<bool> durable;
  std::optional<std::string> resident;  // "all" | "keys"
  Span resident_span;                    // the `resident:` value (sema refuses `keys`)
};

struct FieldDecl {
  std::string name;
  Span span;
  Ptr<TypeExpr> type;
  bool optional_marker = false;  // record `?name: T`
  bool pub_read = false;
  std::vector<Annotation> annotations;  // @unique, ...
  ExprPtr default_value;                // null if none; `now`/`now()` -> Call(Name "now")
};

struct ConstDecl {
  std::string name;
  Span span;
  ExprPtr value;                 // IntLit / TextLit (no holes) / BoolLit; `-5` folded into IntLit
  bool is_static = false;
};

struct ClassDecl {
  std::string name;
  Span span;
  bool is_pub = false;
  bool type_keyword = false;     // declared with `type` rather than `class`
  std::vector<Annotation> annotations;
  std::vector<FieldDecl> fields;
  std::vector<Ptr<FnDecl>> methods;
  std::vector<ConstDecl> consts;
  sema::Symbol* sym = nullptr;
};

struct RecordDecl {             // typedef Name = { ... }
  std::string name;
  Span span;
  bool is_pub = false;
  std::vector<FieldDecl> fields;
  sema::Symbol* sym = nullptr;
};

struct VariantDecl {
  std::string name;
  Span span;
  bool has_parens = false;
  std::vector<FieldDecl> payload;  // name: type
};

struct UnionDecl {              // type Name = A | B(x: T)
  std::string name;
  Span span;
  bool is_pub = false;
  std::vector<VariantDecl> variants;
  sema::Symbol* sym = nullptr;
};

struct InterfaceDecl {
  std::string name;
  Span span;
  bool is_pub = false;
  std::vector<FnSig> methods;
  sema::Symbol* sym = nullptr;
};

struct UseDecl {
  std::vector<std::string> path;  // use a/b/c
  Span span;
  bool is_using = false;          // `using` instead of `use`

  std::string joined() const {    // "a/b/c", as written
    std::string p;
    for (size_t i = 0; i < path.size(); ++i) p += (i ? "/" : "") + path[i];
    return p;
  }
};

struct File {
  uint32_t file_id = 0;
  std::vector<UseDecl> uses;
  std::vector<ConstDecl> consts;
  std::vector<Ptr<FnDecl>> fns;
  std::vector<Ptr<ClassDecl>> classes;
  std::vector<Ptr<RecordDecl>> records;
  std::vector<Ptr<UnionDecl>> unions;
  std::vector<Ptr<InterfaceDecl>> interfaces;
};

struct Module {
  std::string path;               // "" for the main module, else "billing/tax"
  std::string dependency;         // the dependency it belongs to ("framework" for the stdlib's); "" = the program's own
  std::vector<Ptr<File>> files;   // sorted by path
};

struct Program {
  std::vector<Ptr<Module>> modules;  // modules[0] is the main module
  bool library = false;              // wo.toml kind = "library": no `fn main` needed
  // The function the program starts in. `woc test` names its generated one
  // here and keeps the program's own `main`, which is then checked (its
  // signature too) and compiled like any other function, never called.
  std::string entry = "main";
};

}  // namespace ast
}  // namespace wo
