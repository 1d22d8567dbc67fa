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
  bytes_t_ = make({TypeKind::Bytes});
  json_t_ = make({TypeKind::JsonValue});
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

const Type* TypeTable::map_of(const Type* key, const Type* value) {
  auto k = std::make_pair(key, value);
  auto it = maps_.find(k);
  if (it != maps_.end()) return it->second;
  Type t{TypeKind::Map};
  t.elem = key;
  t.value = value;
  return maps_[k] = make(t);
}

const Type* TypeTable::class_type(ClassInfo* cls) {
  auto it = classes_.find(cls);
  if (it != classes_.end()) return it->second;
  Type t{TypeKind::Class};
  t.cls = cls;
  return classes_[cls] = make(t);
}

const Type* TypeTable::union_type(UnionInfo* u) {
  auto it = unions_.find(u);
  if (it != unions_.end()) return it->second;
  Type t{TypeKind::Union};
  t.uni = u;
  return unions_[u] = make(t);
}

const Type* TypeTable::interface_type(InterfaceInfo* i) {
  auto it = interfaces_.find(i);
  if (it != interfaces_.end()) return it->second;
  Type t{TypeKind::Interface};
  t.iface = i;
  return interfaces_[i] = make(t);
}

const Type* TypeTable::nullable(const Type* base) {
  if (base->kind == TypeKind::Nullable || base->kind == TypeKind::Poison) return base;
  auto it = nullables_.find(base);
  if (it != nullables_.end()) return it->second;
  Type t{TypeKind::Nullable};
  t.elem = base;
  return nullables_[base] = make(t);
}

const Type* TypeTable::actor_of(const Type* msg) {
  auto it = actors_.find(msg);
  if (it != actors_.end()) return it->second;
  Type t{TypeKind::Actor};
  t.elem = msg;
  return actors_[msg] = make(t);
}

bool Type::is_heap() const {
  switch (kind) {
    case TypeKind::Text:
    case TypeKind::Bytes:
    case TypeKind::JsonValue:
    case TypeKind::List:
    case TypeKind::Map:
    case TypeKind::Interface:
    case TypeKind::Actor: return true;  // a counted handle, copied like Text (decision 0079)
    case TypeKind::Class: return !cls->is_table;  // a table row is a copyable id
    case TypeKind::Union: return uni->has_payload;
    case TypeKind::Nullable: return elem->is_heap();
    default: return false;
  }
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
    case TypeKind::Map: return "map<" + type_name(t->elem) + ", " + type_name(t->value) + ">";
    case TypeKind::Bytes: return "Bytes";
    case TypeKind::JsonValue: return "json.Value";
    case TypeKind::Class: return t->cls->name;
    case TypeKind::Union: return t->uni->name;
    case TypeKind::Interface: return t->iface->name;
    case TypeKind::Actor: return "actor " + type_name(t->elem);
    case TypeKind::Nullable: {
      // Built by append: GCC 12 reports a false -Wrestrict for `"?" + std::string`.
      std::string name = "?";
      name += type_name(t->elem);
      return name;
    }
  }
  return "?";
}

bool same_record(const Type* a, const Type* b) {
  if (a->kind != TypeKind::Class || b->kind != TypeKind::Class) return false;
  const ClassInfo* x = a->cls;
  const ClassInfo* y = b->cls;
  if (!x->record || !y->record || x->fields.size() != y->fields.size()) return false;
  for (size_t i = 0; i < x->fields.size(); ++i)
    if (x->fields[i].name != y->fields[i].name || x->fields[i].type != y->fields[i].type) return false;
  return true;
}

bool assignable(const Type* to, const Type* from) {
  if (!to || !from) return true;
  if (to->is_poison() || from->is_poison()) return true;
  if (to == from) return true;
  if (to->is_int_like() && from->is_int_like()) return true;
  // A row is its id: accepted wherever an Int is expected (language.md §12.3).
  if (to->is_int_like() && from->kind == TypeKind::Class && from->cls->is_table) return true;
  if (same_record(to, from)) return true;
  if (to->kind == TypeKind::Nullable) {
    if (from->kind == TypeKind::Nil) return true;
    return assignable(to->elem, from->base());
  }
  return false;
}

}  // namespace wo::sema
