// Semantic types. Types are interned by TypeTable: two equal types are the
// same pointer, so codegen and sema compare types with ==.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

namespace wo::sema {

struct ClassInfo;

enum class TypeKind : uint8_t {
  Poison,     // an error was already reported; suppresses follow-on errors
  Void,       // no value (a fn without `-> T`)
  Int, Float, Bool, Text, Timestamp, Id,
  Nil,        // the type of the literal `nil`
  List,       // multi T
  Class,      // class, `type` struct, typedef record, predeclared Error
};

struct Type {
  TypeKind kind;
  const Type* elem = nullptr;   // List
  ClassInfo* cls = nullptr;     // Class
  bool nullable = false;        // reserved for ?T (not in the core subset yet)

  bool is_int_like() const { return kind == TypeKind::Int || kind == TypeKind::Timestamp || kind == TypeKind::Id; }
  bool is_numeric() const { return is_int_like() || kind == TypeKind::Float; }
  // Values that live on the heap and are reference counted by generated code.
  bool is_heap() const { return kind == TypeKind::Text || kind == TypeKind::List || kind == TypeKind::Class; }
  bool is_poison() const { return kind == TypeKind::Poison; }
};

std::string type_name(const Type* t);

class TypeTable {
 public:
  TypeTable();
  const Type* poison() const { return poison_; }
  const Type* void_() const { return void_t_; }
  const Type* int_() const { return int_t_; }
  const Type* float_() const { return float_t_; }
  const Type* bool_() const { return bool_t_; }
  const Type* text() const { return text_t_; }
  const Type* timestamp() const { return ts_t_; }
  const Type* id() const { return id_t_; }
  const Type* nil() const { return nil_t_; }
  const Type* list_of(const Type* elem);
  const Type* class_type(ClassInfo* cls);

 private:
  const Type* make(Type t);
  std::vector<std::unique_ptr<Type>> all_;
  std::map<const Type*, const Type*> lists_;
  std::map<ClassInfo*, const Type*> classes_;
  const Type *poison_, *void_t_, *int_t_, *float_t_, *bool_t_, *text_t_, *ts_t_, *id_t_, *nil_t_;
};

// Types are assignable when equal, or both Int-shaped (Int/Timestamp/Id mix freely,
// language.md §7.2), or either side is Poison.
bool assignable(const Type* to, const Type* from);

}  // namespace wo::sema
