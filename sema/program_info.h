// What sema hands to codegen: the program's classes and functions, with every
// AST expression annotated (Expr::type, Expr::sym) and every local declared.
#pragma once
#include <map>
#include <set>
#include <memory>
#include <string>
#include <vector>

#include "frontend/ast.h"
#include "sema/types.h"

namespace wo::sema {

struct FnInfo;
struct ClassInfo;
struct UnionInfo;
struct InterfaceInfo;

enum class SymKind : uint8_t {
  Local,      // a let, for variable, catch variable
  Param,      // a function or method parameter
  Self,       // the receiver inside a method
  Fn,         // a free function (fn)
  Method,     // an instance method (fn; class = owner)
  StaticFn,   // a static method (fn; class = owner)
  Builtin,    // a builtin (builtin = index into the builtins table)
  Field,      // a class field (class, field_index)
  Class,      // a class name (as the head of `C.static_fn()`)
  Variant,    // a union variant (uni, variant index)
  IfaceMethod,  // a method called through an interface value (iface, method index)
};

struct Symbol {
  SymKind kind;
  std::string name;
  const Type* type = nullptr;     // Local/Param/Self/Field: the value's type
  Loc loc{};
  FnInfo* fn = nullptr;           // Fn/Method/StaticFn
  ClassInfo* cls = nullptr;       // Method/StaticFn/Field/Class/Self
  int field_index = -1;           // Field
  int builtin = -1;               // Builtin: index into builtin_table()
  UnionInfo* uni = nullptr;       // Variant
  int variant = -1;               // Variant: index in uni->variants
  InterfaceInfo* iface = nullptr; // IfaceMethod
  int method_index = -1;          // IfaceMethod
  ast::ParamConv conv = ast::ParamConv::Borrow;  // Param
  bool assigned = false;          // Param: the body assigns to it (codegen then owns a copy)
};

struct FieldInfo {
  std::string name;
  const Type* type = nullptr;
  const ast::FieldDecl* decl = nullptr;   // null for predeclared records
  bool pub_read = false;
  bool unique = false;                    // @unique (table classes)
  int column = -1;                        // table classes: the stored column (backlinks have none)
  ClassInfo* backlink_cls = nullptr;      // `backlink C.f`: C
  int backlink_field = -1;                //   and f's field index in C
  std::unique_ptr<Symbol> sym;            // SymKind::Field
};

struct FnInfo {
  std::string name;               // as written
  std::string link_name;          // the LLVM symbol: wo.<module>.<class>.<name>
  ast::FnDecl* decl = nullptr;
  ClassInfo* owner = nullptr;     // methods and static fns
  bool is_static = false;
  std::string module;             // the module (directory) that declares it
  uint32_t file = 0;              // the file that declares it (its `use` lines apply)
  std::vector<Symbol*> params;    // in order (self excluded)
  const Type* ret = nullptr;      // Void if none
  std::unique_ptr<Symbol> self;   // methods only
  bool mutates_self = false;      // methods: writes through `self`, so the receiver is an exclusive borrow (§6.6)
  // An actor's `receive` that writes through its message: the message is the
  // actor's own (moved to it), but a direct call of `receive` lends it, so
  // such a call counts the parameter as `mut` (docs/decisions/0078).
  bool writes_message = false;
  std::unique_ptr<Symbol> sym;    // SymKind::Fn/Method/StaticFn
  std::vector<std::unique_ptr<Symbol>> locals;  // every Local/Param symbol of the body (owned here)
};

struct ClassInfo {
  std::string name;
  std::string module;
  bool is_pub = false;
  const ast::ClassDecl* decl = nullptr;    // class / type struct
  const ast::RecordDecl* record = nullptr; // typedef record
  bool predeclared = false;                // Error
  bool traced = false;                     // can form a cycle: exempt from moves (§15.6)
  // @table: values of the class are row handles (the row id); fields live in the store.
  bool is_table = false;
  std::string table_name;
  bool durable = true;
  bool resident_keys = false;
  std::vector<std::vector<int>> indexes;   // declared `index: [...]` lists (field indexes)
  int db_index = -1;                       // position in the store schema (tables, and plain classes used with `insert`)
  std::vector<FieldInfo> fields;
  std::vector<std::unique_ptr<FnInfo>> methods;  // instance and static
  std::unique_ptr<Symbol> sym;             // SymKind::Class
  const Type* type = nullptr;

  const FieldInfo* field(const std::string& n) const {
    for (auto& f : fields) if (f.name == n) return &f;
    return nullptr;
  }
  int field_index(const std::string& n) const {
    for (size_t i = 0; i < fields.size(); ++i) if (fields[i].name == n) return (int)i;
    return -1;
  }
  FnInfo* method(const std::string& n) const {
    for (auto& m : methods) if (m->name == n) return m.get();
    return nullptr;
  }
};

struct VariantInfo {
  std::string name;
  int index = 0;                          // the tag
  std::vector<FieldInfo> payload;         // positional fields
  const ast::VariantDecl* decl = nullptr;
  std::unique_ptr<Symbol> sym;            // SymKind::Variant
};

struct UnionInfo {
  std::string name;
  std::string module;
  const ast::UnionDecl* decl = nullptr;
  std::vector<VariantInfo> variants;
  bool has_payload = false;               // any payload variant: values are heap objects
  const Type* type = nullptr;
};

struct IfaceMethodInfo {
  std::string name;
  std::vector<const Type*> params;
  const Type* ret = nullptr;
  const ast::FnSig* sig = nullptr;
  std::unique_ptr<Symbol> sym;            // SymKind::IfaceMethod
};

struct InterfaceInfo {
  std::string name;
  std::string module;
  const ast::InterfaceDecl* decl = nullptr;
  std::vector<IfaceMethodInfo> methods;
  const Type* type = nullptr;
  int method_index(const std::string& n) const {
    for (size_t i = 0; i < methods.size(); ++i) if (methods[i].name == n) return (int)i;
    return -1;
  }
};

struct ProgramInfo {
  TypeTable types;
  std::vector<std::unique_ptr<ClassInfo>> classes;
  std::vector<std::unique_ptr<FnInfo>> fns;      // free functions
  std::vector<std::unique_ptr<UnionInfo>> unions;
  std::vector<std::unique_ptr<InterfaceInfo>> interfaces;
  FnInfo* main = nullptr;
  ClassInfo* error_class = nullptr;              // the predeclared Error record
  ast::Program* program = nullptr;
  std::vector<std::unique_ptr<Symbol>> extra_symbols;  // symbols made during checking
  // Calls whose `mut` arguments might alias through run-time indices
  // (`f(xs[i], xs[j])`, `xs[i].m(xs[j].inner)`, `f(it, xs[i])` in `for it in
  // xs`): pairs of element expressions inside the receiver and arguments
  // (`xs[i]`, `xs[j]`, the loop variable) whose values codegen compares
  // before the call, trapping BORROW (2) when they are the same element
  // (§15.3, docs/decisions/0078).
  std::map<const ast::Expr*, std::vector<std::pair<const ast::Expr*, const ast::Expr*>>> borrow_guards;
  // Every expression some guard compares (codegen records their values).
  std::set<const ast::Expr*> guarded_elements;
  // Reads of an owned local that move it (language.md §15.2): the value can be
  // handed over without a reference-count update, leaving the local empty.
  std::set<const ast::Expr*> moves;
  // Arguments (and receivers) of a call that the call itself could free while
  // it runs — a Text part of a `mut` argument, a part of a traced object
  // another argument may alias: codegen holds a reference to each for the
  // call (docs/decisions/0078).
  std::set<const ast::Expr*> keep_alive;
};

// Whether `cls` structurally satisfies `i` (language.md §6.10): every
// method of `i` as a non-static method of the same signature. `why` (may be
// null) says which method is missing or differs.
bool satisfies(const ClassInfo& cls, const InterfaceInfo& i, std::string* why);

}  // namespace wo::sema
