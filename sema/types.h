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
struct UnionInfo;
struct InterfaceInfo;

enum class TypeKind : uint8_t {
  Poison,     // an error was already reported; suppresses follow-on errors
  Void,       // no value (a fn without `-> T`)
  Int, Float, Bool, Text, Timestamp, Id, Bytes,
  JsonValue,  // json.Value: one undecoded JSON value, stored like Text
  Nil,        // the type of the literal `nil`
  List,       // multi T
  Map,        // map<K, V> (elem = K, value = V)
  Class,      // class, `type` struct, typedef record, predeclared Error
  Union,      // type X = A | B(x: T)
  Interface,  // interface X { fn ... }
  Nullable,   // ?T (elem = T)
  Actor,      // actor M (elem = M): an address, a copyable 64-bit word (language.md §7.9)
};

struct Type {
  TypeKind kind;
  const Type* elem = nullptr;   // List, Nullable; Map: the key
  const Type* value = nullptr;  // Map: the value
  ClassInfo* cls = nullptr;     // Class
  UnionInfo* uni = nullptr;     // Union
  InterfaceInfo* iface = nullptr;  // Interface

  bool is_int_like() const { return kind == TypeKind::Int || kind == TypeKind::Timestamp || kind == TypeKind::Id; }
  bool is_numeric() const { return is_int_like() || kind == TypeKind::Float; }
  // Values that live on the heap and are reference counted by generated code.
  bool is_heap() const;
  bool is_poison() const { return kind == TypeKind::Poison; }
  bool is_nullable() const { return kind == TypeKind::Nullable; }
  // ?T -> T; anything else -> itself.
  const Type* base() const { return kind == TypeKind::Nullable ? elem : this; }
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
  const Type* bytes() const { return bytes_t_; }
  const Type* json_value() const { return json_t_; }
  const Type* map_of(const Type* key, const Type* value);
  const Type* nil() const { return nil_t_; }
  const Type* list_of(const Type* elem);
  const Type* class_type(ClassInfo* cls);
  const Type* union_type(UnionInfo* u);
  const Type* interface_type(InterfaceInfo* i);
  const Type* nullable(const Type* base);  // ?T (?T of ?T is ?T)
  const Type* actor_of(const Type* msg);   // actor M

 private:
  const Type* make(Type t);
  std::vector<std::unique_ptr<Type>> all_;
  std::map<const Type*, const Type*> lists_;
  std::map<std::pair<const Type*, const Type*>, const Type*> maps_;
  std::map<ClassInfo*, const Type*> classes_;
  std::map<UnionInfo*, const Type*> unions_;
  std::map<InterfaceInfo*, const Type*> interfaces_;
  std::map<const Type*, const Type*> nullables_;
  std::map<const Type*, const Type*> actors_;
  const Type *poison_, *void_t_, *int_t_, *float_t_, *bool_t_, *text_t_, *ts_t_, *id_t_, *nil_t_, *bytes_t_, *json_t_;
};

// Types are assignable when equal, or both Int-shaped (Int/Timestamp/Id mix freely,
// language.md §7.2), or either side is Poison; T and nil are assignable to ?T;
// records are structural (same field names and types in order). A class value
// into an interface slot is not decided here (see Checker::satisfies).
bool assignable(const Type* to, const Type* from);
// Structural record equality (language.md §6.11).
bool same_record(const Type* a, const Type* b);

}  // namespace wo::sema
