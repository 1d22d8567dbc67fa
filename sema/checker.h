// The type checker's internal state, shared by the files of sema/:
//   declare.cpp     collect classes and functions, resolve declared types
//   check_stmt.cpp  statements, blocks, functions, `main`
//   check_expr.cpp  expressions, calls, builtins
#pragma once
#include <map>
#include <string>
#include <vector>

#include "common/diagnostics.h"
#include "sema/builtins.h"
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
  FnInfo* declare_fn(ast::FnDecl& fn, ClassInfo* owner, const std::string& module);
  void resolve_signature(FnInfo& fn);
  const Type* resolve_type(const ast::TypeExpr* t);
  void check_duplicates();
  void reject_unsupported_decls(ast::File& file);

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
  const Type* check_builtin_call(ast::Expr& e, const std::string& name);
  const Type* check_user_call(ast::Expr& e, FnInfo& fn, size_t arg_offset);
  const Type* check_member(ast::Expr& e);
  const Type* check_index(ast::Expr& e);
  const Type* check_list(ast::Expr& e, const Type* expected);
  const Type* check_ctor(ast::Expr& e, const Type* expected);
  const Type* check_try(ast::Expr& e, const Type* expected);
  const Type* check_switch(ast::Expr& e, const Type* expected);
  const Type* check_interp(ast::Expr& e);
  const Type* not_implemented(ast::Expr& e, const char* what);
  void check_field_default(const FieldInfo& f, ClassInfo& cls);
  bool is_place(const ast::Expr& e);

  // ---- scopes
  void push_scope() { scopes_.emplace_back(); }
  void pop_scope() { scopes_.pop_back(); }
  Symbol* declare_local(const std::string& name, const Type* t, Loc loc, SymKind kind = SymKind::Local);
  Symbol* lookup_local(const std::string& name);
  ClassInfo* find_class(const std::string& name);
  FnInfo* find_fn(const std::string& name);

  Diagnostic& error(DiagCode c, Loc loc, std::string msg) { return diags_.error(c, loc, std::move(msg)); }
  const Type* mismatch(Loc loc, const std::string& what, const Type* want, const Type* got);

  ast::Program& prog_;
  Diagnostics& diags_;
  ProgramInfo& info_;
  TypeTable& types_;

  std::map<std::string, ClassInfo*> classes_by_name_;
  std::map<std::string, FnInfo*> fns_by_name_;

  // current function context
  FnInfo* fn_ = nullptr;
  std::vector<std::map<std::string, Symbol*>> scopes_;
  int loop_depth_ = 0;
};

}  // namespace wo::sema
