// Type descriptors (WoTypeDesc, WoClassDesc and WoFieldDesc of wo_runtime.h)
// for json.encode / json.decode and for actor messages and state (the
// runtime deep-copies a value that crosses shards and releases one nobody
// receives), emitted as constants: the runtime walks a value's memory with
// them, so field offsets come from the real struct layout.
#include "codegen/emitter.h"

namespace wo::codegen {

namespace {
enum : int64_t {
  TY_INT = 0, TY_FLOAT, TY_BOOL, TY_TEXT, TY_BYTES, TY_CLASS, TY_LIST, TY_MAP, TY_NULLABLE, TY_JSON_VALUE, TY_UNION,
  TY_ACTOR, TY_IFACE
};
}

int64_t Emitter::elem_kind(const Type* t) {
  switch (t->kind) {
    case TypeKind::Float: return 2;  // WO_ELEM_FLOAT
    case TypeKind::Text:
    case TypeKind::JsonValue: return 3;   // WO_ELEM_TEXT
    case TypeKind::Bytes: return 5;  // WO_ELEM_BYTES
    default: return t->is_heap() ? 1 : 0;  // WO_ELEM_HEAP / WO_ELEM_INT
  }
}

llvm::Constant* Emitter::type_desc(const Type* t) {
  auto it = type_descs_.find(t);
  if (it != type_descs_.end()) return it->second;
  auto* ty = llvm::StructType::get(ctx_, {i64_, ptr_, ptr_, ptr_, i64_, ptr_});
  // Declared first so recursive classes can refer to it.
  auto* gv = new llvm::GlobalVariable(*mod_, ty, true, llvm::GlobalValue::PrivateLinkage, nullptr, "json.type");
  type_descs_[t] = gv;
  llvm::Constant* null = llvm::ConstantPointerNull::get(ptr_);
  int64_t kind = TY_INT;
  llvm::Constant *elem = null, *value = null, *cls = null, *variants = null;
  int64_t nvariants = 0;
  switch (t->kind) {
    case TypeKind::Float: kind = TY_FLOAT; break;
    case TypeKind::Bool: kind = TY_BOOL; break;
    case TypeKind::Text: kind = TY_TEXT; break;
    case TypeKind::Bytes: kind = TY_BYTES; break;
    case TypeKind::JsonValue: kind = TY_JSON_VALUE; break;
    case TypeKind::Class:
      // A @table class value is a row id (a copyable word, Type::is_heap),
      // never an object: describing it as one made the shard copier follow
      // the id as a pointer.
      // JSON writes a row as an object of its columns (row_desc).
      if (t->cls->is_table) {
        cls = row_desc(t->cls);
        nvariants = t->cls->db_index;
        break;
      }
      kind = TY_CLASS;
      cls = class_desc(t->cls);
      break;
    case TypeKind::List: kind = TY_LIST; elem = type_desc(t->elem); break;
    case TypeKind::Map: kind = TY_MAP; elem = type_desc(t->elem); value = type_desc(t->value); break;
    case TypeKind::Nullable: kind = TY_NULLABLE; elem = type_desc(t->elem); break;
    case TypeKind::Actor: kind = TY_ACTOR; break;
    case TypeKind::Interface: kind = TY_IFACE; break;  // the class desc is in the box's vtable
    case TypeKind::Union:
      if (!t->uni->has_payload) break;  // a bare-only union is its tag: TY_INT
      kind = TY_UNION;
      nvariants = (int64_t)t->uni->variants.size();
      variants = variant_descs(t->uni);
      break;
    default: kind = TY_INT; break;  // Int, Timestamp, Id, a row id (sema rejects the rest)
  }
  gv->setInitializer(
      llvm::ConstantStruct::get(ty, {b_.getInt64(kind), elem, value, cls, b_.getInt64(nvariants), variants}));
  return gv;
}

// One WoClassDesc per variant of a payload union, indexed by the tag: the
// payload fields with their offsets from the start of the variant object
// ({ rc, destroy, tag, payload... }); a bare variant is an immortal constant
// with no fields.
llvm::Constant* Emitter::variant_descs(const sema::UnionInfo* u) {
  auto* field_ty = llvm::StructType::get(ctx_, {ptr_, ptr_, i64_});
  auto* cls_ty = llvm::StructType::get(ctx_, {ptr_, i64_, ptr_, i64_, ptr_});
  const llvm::DataLayout& dl = mod_->getDataLayout();
  llvm::Constant* null = llvm::ConstantPointerNull::get(ptr_);
  std::vector<llvm::Constant*> descs;
  for (auto& v : u->variants) {
    std::string name = u->name + "." + v.name;
    if (v.payload.empty()) {
      descs.push_back(llvm::ConstantStruct::get(
          cls_ty, {c_string(name), b_.getInt64(24), null, b_.getInt64(0), null}));  // { rc, destroy, tag }
      continue;
    }
    const ClassLayout& l = variant_layout(u, v.index);
    const llvm::StructLayout* sl = dl.getStructLayout(l.type);
    std::vector<llvm::Constant*> fields;
    for (size_t i = 0; i < v.payload.size(); ++i)
      fields.push_back(llvm::ConstantStruct::get(
          field_ty, {c_string(v.payload[i].name), type_desc(v.payload[i].type),
                     b_.getInt64((int64_t)sl->getElementOffset((unsigned)(i + 3)))}));
    auto* arr_ty = llvm::ArrayType::get(field_ty, fields.size());
    auto* arr = new llvm::GlobalVariable(*mod_, arr_ty, true, llvm::GlobalValue::PrivateLinkage,
                                         llvm::ConstantArray::get(arr_ty, fields), "desc.fields." + name);
    descs.push_back(llvm::ConstantStruct::get(
        cls_ty, {c_string(name), b_.getInt64((int64_t)dl.getTypeAllocSize(l.type)), l.destroy,
                 b_.getInt64((int64_t)v.payload.size()), arr}));
  }
  auto* arr_ty = llvm::ArrayType::get(cls_ty, descs.size());
  return new llvm::GlobalVariable(*mod_, arr_ty, true, llvm::GlobalValue::PrivateLinkage,
                                  llvm::ConstantArray::get(arr_ty, descs), "desc.variants." + u->name);
}

// A @table class for JSON: its stored columns by name, each field's offset
// the column number, `size` 1 when the row's id is written first as "id"
// (wo_runtime.h, WO_TY_INT with `cls`).
llvm::Constant* Emitter::row_desc(const ClassInfo* cls) {
  auto it = row_descs_.find(cls);
  if (it != row_descs_.end()) return it->second;
  auto* field_ty = llvm::StructType::get(ctx_, {ptr_, ptr_, i64_});
  auto* ty = llvm::StructType::get(ctx_, {ptr_, i64_, ptr_, i64_, ptr_});
  auto* gv = new llvm::GlobalVariable(*mod_, ty, true, llvm::GlobalValue::PrivateLinkage, nullptr, "json.row." + cls->name);
  row_descs_[cls] = gv;
  std::vector<llvm::Constant*> fields;
  bool id_column = false;  // a column called `id` keeps the key; else the row's id leads as "id"
  for (const auto& f : cls->fields) id_column |= f.column >= 0 && f.name == "id";
  for (const auto& f : cls->fields)
    if (f.column >= 0)
      fields.push_back(llvm::ConstantStruct::get(field_ty, {c_string(f.name), type_desc(f.type), b_.getInt64(f.column)}));
  auto* arr_ty = llvm::ArrayType::get(field_ty, fields.size());
  auto* arr = new llvm::GlobalVariable(*mod_, arr_ty, true, llvm::GlobalValue::PrivateLinkage,
                                       llvm::ConstantArray::get(arr_ty, fields), "json.columns." + cls->name);
  gv->setInitializer(llvm::ConstantStruct::get(ty, {c_string(cls->name), b_.getInt64(id_column ? 0 : 1), llvm::ConstantPointerNull::get(ptr_),
                                                    b_.getInt64((int64_t)fields.size()), arr}));
  return gv;
}

llvm::Constant* Emitter::class_desc(const ClassInfo* cls) {
  auto it = class_descs_.find(cls);
  if (it != class_descs_.end()) return it->second;
  auto* field_ty = llvm::StructType::get(ctx_, {ptr_, ptr_, i64_});
  auto* ty = llvm::StructType::get(ctx_, {ptr_, i64_, ptr_, i64_, ptr_});
  auto* gv = new llvm::GlobalVariable(*mod_, ty, true, llvm::GlobalValue::PrivateLinkage, nullptr, "json.class." + cls->name);
  class_descs_[cls] = gv;
  const ClassLayout& l = layout(cls);
  const llvm::DataLayout& dl = mod_->getDataLayout();
  const llvm::StructLayout* sl = dl.getStructLayout(l.type);
  std::vector<llvm::Constant*> fields;
  for (size_t i = 0; i < cls->fields.size(); ++i) {
    const auto& f = cls->fields[i];
    fields.push_back(llvm::ConstantStruct::get(
        field_ty, {c_string(f.name), type_desc(f.type), b_.getInt64((int64_t)sl->getElementOffset((unsigned)(i + 2)))}));
  }
  auto* arr_ty = llvm::ArrayType::get(field_ty, fields.size());
  auto* arr = new llvm::GlobalVariable(*mod_, arr_ty, true, llvm::GlobalValue::PrivateLinkage,
                                       llvm::ConstantArray::get(arr_ty, fields), "json.fields." + cls->name);
  llvm::Constant* destroy = l.destroy ? static_cast<llvm::Constant*>(l.destroy) : llvm::ConstantPointerNull::get(ptr_);
  gv->setInitializer(llvm::ConstantStruct::get(
      ty, {c_string(cls->name), b_.getInt64((int64_t)dl.getTypeAllocSize(l.type)), destroy,
           b_.getInt64((int64_t)cls->fields.size()), arr}));
  return gv;
}

}  // namespace wo::codegen
