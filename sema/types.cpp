#include "sema/types.h"

#include "sema/program_info.h"

namespace wo::sema {

TypeTable::TypeTable() {
  poison_ = make({TypeKind::Poison});
  void_t_ = make({TypeKind::Void});
  int_t_ = make({TypeKind::Int});
  float_t_ = make({TypeKind::Float});
  bool_t_ = make({TypeKind::Bool});
  text_t_ = make({TypeKind::Text});
  ts_t_ = make({TypeKind::Timestamp});
  id_t_ = make({TypeKind::Id});
  nil_t_ = make({TypeKind::Nil});
}

const Type* TypeTable::make(Type t) {
  all_.push_back(std::make_unique<Type>(t));
  return all_.back().get();
}

const Type* TypeTable::list_of(const Type* elem) {
  auto it = lists_.find(elem);
  if (it != lists_.end()) return it->second;
  Type t{TypeKind::List};
  t.elem = elem;
  return lists_[elem] = make(t);
}

const Type* TypeTable::class_type(ClassInfo* cls) {
  auto it = classes_.find(cls);
  if (it != classes_.end()) return it->second;
  Type t{TypeKind::Class};
  t.cls = cls;
  return classes_[cls] = make(t);
}

std::string type_name(const Type* t) {
  if (!t) return "?";
  switch (t->kind) {
    case TypeKind::Poison: return "<error>";
    case TypeKind::Void: return "nothing";
    case TypeKind::Int: return "Int";
    case TypeKind::Float: return "Float";
    case TypeKind::Bool: return "Bool";
    case TypeKind::Text: return "Text";
    case TypeKind::Timestamp: return "Timestamp";
    case TypeKind::Id: return "Id";
    case TypeKind::Nil: return "nil";
    case TypeKind::List: return "multi " + type_name(t->elem);
    case TypeKind::Class: return t->cls->name;
  }
  return "?";
}

bool assignable(const Type* to, const Type* from) {
  if (!to || !from) return true;
  if (to->is_poison() || from->is_poison()) return true;
  if (to == from) return true;
  if (to->is_int_like() && from->is_int_like()) return true;
  return false;
}

}  // namespace wo::sema
