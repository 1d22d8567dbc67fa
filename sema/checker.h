// The type checker's internal state, shared by the files of sema/:
//   declare.cpp     collect classes and functions, resolve declared types
//   check_stmt.cpp  statements, blocks, functions, `main`
//   check_expr.cpp  expressions, calls, builtins
#pragma once
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/diagnostics.h"
#include "sema/builtins.h"
#include "sema/ownership.h"
#include "sema/program_info.h"

namespace wo::sema {

class Checker {
 public:
  Checker(ast::Program& program, Diagnostics& diags, ProgramInfo& info)
      : prog_(program), diags_(diags), info_(info), types_(info.types) {}

  void run();

 private:
  // ---- declare.cpp
  void declare_predeclared();
  void declare_file(ast::File& file, const std::string& module);
  void resolve_class_fields(ClassInfo& cls);
  void resolve_table(ClassInfo& cls);
  void check_stored_classes();  // table_checks.cpp: after every body (plain classes are stored by `insert`)
  // table_checks.cpp: what a stored field may hold (runtime.md §1.3); `why`
  // is the refusal's reason when it may not. `refs`: `ref` fields allowed.
  bool storable(const Type* t, bool refs, std::string* why);
  // `e` is (a part of) a row's container field: a fresh copy, so changing it
  // in place would be lost. Reports WO-E403 naming `what` and returns true.
  bool refuse_row_copy_change(const ast::Expr& e, const std::string& what);
  FnInfo* declare_fn(ast::FnDecl& fn, ClassInfo* owner, const std::string& module, uint32_t file);
  void declare_uses(ast::File& file, const std::string& module);
  void check_using_collisions();
  void warn_unused_uses();
  void resolve_signature(FnInfo& fn);
  const Type* resolve_type(const ast::TypeExpr* t);
  bool check_duplicates();  // false when a type name is declared twice (WO-E214)
  void declare_union(ast::UnionDecl& u, const std::string& module);
  void declare_interface(ast::InterfaceDecl& i, const std::string& module);
  void resolve_union(UnionInfo& u);
  void resolve_interface(InterfaceInfo& i);

  // ---- check_stmt.cpp
  void check_fn(FnInfo& fn);
  void check_block(ast::Block& b);
  void check_stmts(std::vector<ast::StmtPtr>& stmts);
  void check_stmt(ast::Stmt& s);
  void check_assign(ast::Stmt& s);
  bool block_returns(const ast::Block& b);
  bool stmt_returns(const ast::Stmt& s);
  bool stmts_return(const std::vector<ast::StmtPtr>& stmts);
  void check_main();
  void check_main_signature(FnInfo* main);
  // The value of a statement list used as a value (switch arm, catch block):
  // the type of its last statement when that is an expression statement.
  const Type* stmts_value_type(std::vector<ast::StmtPtr>& stmts, bool* has_value);

  // ---- check_expr.cpp
  const Type* check_expr(ast::Expr& e, const Type* expected = nullptr);
  const Type* check_cond(ast::Expr& e);  // must be Bool
  const Type* check_name(ast::Expr& e);
  const Type* check_unary(ast::Expr& e);
  const Type* check_binary(ast::Expr& e);
  const Type* check_call(ast::Expr& e, const Type* expected);
  const Type* check_builtin_call(ast::Expr& e, const std::string& name, const std::string& ns, const Type* as_type);
  const Type* builtin_result(std::string_view r, const std::vector<const Type*>& args, const Type* as_type,
                             const std::string& builtin, Loc call);
  const Type* record_result(const char* name, const std::string& builtin, Loc call);
  const Type* fixed_param_type(const std::string& ns, const std::string& name, size_t arity, size_t i);
  bool json_encodable(const Type* t);
  const Type* check_as(ast::Expr& e);
  const Type* check_user_call(ast::Expr& e, FnInfo& fn);
  const Type* check_member(ast::Expr& e);
  const Type* check_index(ast::Expr& e);
  const Type* check_list(ast::Expr& e, const Type* expected);
  const Type* check_ctor(ast::Expr& e, const Type* expected);
  const Type* check_try(ast::Expr& e, const Type* expected);
  const Type* check_switch(ast::Expr& e, const Type* expected);
  int check_union_pattern(ast::Expr& p, UnionInfo& u, bool shares_arm);
  const Type* check_interp(ast::Expr& e);
  const Type* not_implemented(ast::Expr& e, const char* what);

  // ---- actors.cpp
  const Type* check_spawn(ast::Expr& e);
  const Type* check_actor_call(ast::Expr& e, const std::string& shown, size_t builtin);
  const Type* reply_type(const Type* msg, ast::Expr& call);  // WO-E226
  void check_crossing(const Type* t, Loc loc, const std::string& what, bool copy = false);  // WO-E222 (copy: deep_copy's argument)
  void check_crossings_again(const std::map<const ClassInfo*, std::string>& promoted);  // after demand promotion
  struct Crossing {
    const Type* type;
    Loc loc;
    std::string what;
    bool copy;  // deep_copy's argument, not a value crossing actors
  };
  std::vector<Crossing> crossings_;  // every value check_crossing saw
  static FnInfo* actor_receive(const ClassInfo& cls);  // `fn receive(msg: M)` with one parameter, or null
  static bool message_type_ok(const Type* m);
  std::unique_ptr<TracedClasses> traced_;  // computed on the first check_crossing
  const Type* check_variant_ctor(ast::Expr& e, VariantInfo& v);
  const Type* check_iface_call(ast::Expr& e, const Type* recv);
  // Checks that a value of type `from` may flow into a slot of type `to` and
  // reports the right code (E201 mismatch, E205 interface, E211/E212 nil).
  enum class Flow { Let, Assign, Field, Arg, Return, Element };
  bool check_flow(const Type* to, const Type* from, Loc loc, const std::string& what, Flow site);
  // Does class `cls` satisfy interface `i` (names, arity, parameter and return types)?
  // On failure `why` names the first missing or mismatched method.
  bool satisfies(const ClassInfo& cls, const InterfaceInfo& i, std::string* why);

  // ---- nullable narrowing (language.md §8.3)
  struct Facts {
    std::vector<Symbol*> when_true;   // locals known non-nil when the condition holds
    std::vector<Symbol*> when_false;  // ... when it does not
  };
  Facts cond_facts(const ast::Expr& e);
  void push_narrow(const std::vector<Symbol*>& syms) { narrow_.emplace_back(syms.begin(), syms.end()); }
  void pop_narrow() { narrow_.pop_back(); }
  void add_narrow(const std::vector<Symbol*>& syms) { for (auto* s : syms) narrow_.back().push_back(s); }
  bool is_narrowed(const Symbol* s) const;
  void kill_narrow(const Symbol* s);
  bool block_exits(const ast::Block& b);
  bool block_exits_now(const ast::Block& b);
  void check_field_default(const FieldInfo& f, ClassInfo& cls);
  bool is_place(const ast::Expr& e);

  // ---- scopes
  void push_scope() { scopes_.emplace_back(); }
  void pop_scope();
  void bind_local(const std::string& name, Symbol* sym);
  Symbol* declare_local(const std::string& name, const Type* t, Loc loc, SymKind kind = SymKind::Local);
  Symbol* lookup_local(const std::string& name);
  ClassInfo* find_class(const std::string& name);
  // Name resolution with the module gates of language.md §5.3-§5.4: the current
  // module, then `pub` declarations of used modules (E218 if several), and
  // E210 when only an un-used module declares the name. `report` = false only looks.
  FnInfo* resolve_fn(const std::string& name, Loc loc, bool report);
  struct ModuleScope;
  template <class T>
  T* resolve_gated(std::map<std::string, T*> ModuleScope::*decls, const std::string& name, Loc loc, bool report,
                   bool (*is_pub)(const T*), bool report_unused = true);
  ClassInfo* resolve_ctor_class(const std::string& name, Loc loc);
  // `alias.member`: the module a `use` alias names in the current file (nullptr if none).
  struct UseEntry;
  UseEntry* find_alias(const std::string& alias);
  FnInfo* find_extension(const Type* recv, const std::string& name);
  VariantInfo* find_variant(const std::string& name);
  FnInfo* find_fn(const std::string& name);

  Diagnostic& error(DiagCode c, Loc loc, std::string msg) { return diags_.error(c, loc, std::move(msg)); }
  // Where a diagnostic about `e` points: its operator or member name when the
  // parser recorded one (ast::Expr::op_span), else its start.
  static Loc point_of(const ast::Expr& e) { return e.op_span.len ? e.op_span.begin : e.span.begin; }
  // An arity error points at the first extra argument, or at the call when some are missing.
  static Loc arity_at(const ast::Expr& call, size_t want) {
    return want < call.args.size() ? call.args[want]->span.begin : call.span.begin;
  }

  // ---- did you mean, missing `use`, declared here (suggestions.cpp); "" = no help
  std::string name_help(const std::string& name, bool callee);
  std::string field_help(const ClassInfo& cls, const std::string& name);
  std::string method_help(const ClassInfo& cls, const std::string& name);
  std::string type_help(const std::string& name);
  std::string ns_member_help(const std::string& ns, const std::string& name);
  void note_declared(Diagnostic& d, const ast::Expr& operand);
  const Type* mismatch(Loc loc, const std::string& what, const Type* want, const Type* got);

  ast::Program& prog_;
  Diagnostics& diags_;
  ProgramInfo& info_;
  TypeTable& types_;

  struct ModuleScope {
    std::map<std::string, FnInfo*> fns;
    std::map<std::string, ClassInfo*> classes;
  };
  struct UseEntry {
    std::string alias;          // last path segment
    std::string path;           // "billing/tax" or the stdlib namespace
    bool stdlib = false;
    bool is_using = false;
    bool used = false;
    Loc loc;
  };
  std::map<std::string, ModuleScope> modules_;
  std::map<uint32_t, std::vector<UseEntry>> uses_;  // per file
  std::string cur_module_;
  uint32_t cur_file_ = 0;
  std::map<std::string, ClassInfo*> classes_by_name_;
  std::map<std::string, ClassInfo*> predeclared_;
  std::map<std::string, FnInfo*> fns_by_name_;
  std::map<std::string, UnionInfo*> unions_by_name_;
  std::map<std::string, InterfaceInfo*> interfaces_by_name_;
  std::map<std::string, VariantInfo*> variants_by_name_;
  std::vector<std::vector<Symbol*>> narrow_;
  std::map<const ast::Expr*, Facts> facts_cache_;  // cond_facts of and/or/not nodes, per function
  std::map<const ast::Block*, bool> returns_cache_;  // block_returns, per function
  std::map<const ast::Block*, bool> exits_cache_;    // block_exits, per function
  const Type* as_target_ = nullptr;
  int table_count_ = 0;
  bool table_field_type_ = false;  // resolving the declared type of a @table class's field (backlink allowed)
  bool inserting_ = false;     // checking the constructor of an `insert`
  // A table an enclosing `for` walks through an id list taken before its body
  // runs: the loop's source is a query, or a backlink (a probe of the
  // referrer's index, materialised the same way). An `insert` into or a
  // `delete` from that table in the body is WO-E250 (runtime.md §1.6).
  struct Cursor {
    const ClassInfo* cls;
    std::string what;  // "a query of `T`", "the backlink `A.ts` (rows of `T`)"
    Loc source;        // the loop's source expression, for the note
  };
  std::vector<Cursor> cursors_;
  static const ClassInfo* cursor_table(const ast::Expr& src, std::string* what);
  void refuse_in_cursor(const ClassInfo* cls, const Span& at_span, const char* verb, const char* fix);
  int tx_depth_ = 0;           // lexical `transaction { }` nesting in the current function
  std::vector<int> tx_loop_base_;  // loop_depth_ when each open transaction began
  const Type* check_query(ast::Expr& e);
  const Type* check_row_get(ast::Expr& e, ClassInfo& cls);
  void store_plain_class(ClassInfo& cls, const Span& where);  // the T of an enclosing `json.decode(t) as T`

  // current function context
  FnInfo* fn_ = nullptr;
  std::vector<std::map<std::string, Symbol*>> scopes_;
  // name -> the symbols scopes_ binds it to, innermost last: lookup_local in
  // O(1) however deep the scopes (a 20,000-long `else if` chain is that deep).
  std::unordered_map<std::string, std::vector<Symbol*>> visible_;
  int loop_depth_ = 0;
};

}  // namespace wo::sema
