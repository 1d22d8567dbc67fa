// Schema copy and checks, the SCHEMA head record's encoding.
#include "schema.h"

#include <unordered_set>

namespace wo::store {

int Schema::find(std::string_view name) const {
  for (size_t i = 0; i < classes.size(); ++i)
    if (classes[i].name == name) return static_cast<int>(i);
  return -1;
}

namespace {

bool known_kind(uint32_t k) { return k >= WO_DB_INT && k <= WO_DB_MAP; }
// What a container may hold: a scalar, Float, Text or Bytes (no refs: a row
// id inside a container would escape the FK counts); map keys Int or Text.
bool element_kind(uint32_t k) { return k >= WO_DB_INT && k <= WO_DB_ID; }
bool key_kind(uint32_t k) { return k == WO_DB_TEXT || (element_kind(k) && k != WO_DB_FLOAT && k != WO_DB_BYTES); }

bool fail(std::string* err, std::string msg) {
  *err = std::move(msg);
  return false;
}

}  // namespace

bool schema_from_abi(const WoDbSchema* in, Schema* out, std::string* err) {
  out->classes.clear();
  if (!in) return true;
  std::unordered_set<std::string> names;
  for (uint32_t c = 0; c < in->nclasses; ++c) {
    const WoDbClass& ac = in->classes[c];
    if (!ac.name || !*ac.name) return fail(err, "schema: class " + std::to_string(c) + " has no name");
    ClassDef def;
    def.name = ac.name;
    def.flags = ac.flags;
    def.id = c;
    if (!names.insert(def.name).second) return fail(err, "schema: table name \"" + def.name + "\" used twice");
    if ((ac.flags & WO_DB_VOLATILE) && (ac.flags & WO_DB_RESIDENT_KEYS))
      return fail(err, "schema: table \"" + def.name + "\" is both durable: false and resident: keys");
    std::unordered_set<std::string> fnames;
    for (uint32_t f = 0; f < ac.nfields; ++f) {
      const WoDbField& af = ac.fields[f];
      if (!af.name || !*af.name || !known_kind(af.kind))
        return fail(err, "schema: field " + std::to_string(f) + " of \"" + def.name + "\" is malformed");
      Field fd;
      fd.name = af.name;
      fd.kind = static_cast<Kind>(af.kind);
      fd.nullable = af.flags & WO_DB_NULLABLE;
      if (!fnames.insert(fd.name).second)
        return fail(err, "schema: field \"" + fd.name + "\" of \"" + def.name + "\" declared twice");
      if (fd.kind == Kind::Multi || fd.kind == Kind::Map) {
        bool ok = fd.kind == Kind::Multi ? element_kind(af.elem_kind)
                                         : key_kind(af.elem_kind) && element_kind(af.value_kind);
        if (!ok) return fail(err, "schema: " + def.name + "." + fd.name + " holds elements the store cannot keep");
        fd.elem = static_cast<Kind>(af.elem_kind);
        if (fd.kind == Kind::Map) fd.value = static_cast<Kind>(af.value_kind);
      }
      if (fd.kind == Kind::Ref) {
        if (af.ref_class < 0 || static_cast<uint32_t>(af.ref_class) >= in->nclasses)
          return fail(err, "schema: " + def.name + "." + fd.name + " refers to no class");
        fd.ref_class = af.ref_class;
        fd.ref_table = in->classes[af.ref_class].name ? in->classes[af.ref_class].name : "";
      }
      def.fields.push_back(std::move(fd));
    }
    for (uint32_t i = 0; i < ac.nindexes; ++i) {
      const WoDbIndex& ai = ac.indexes[i];
      if (ai.ncols == 0 || !ai.cols) return fail(err, "schema: an index of \"" + def.name + "\" has no column");
      IndexDef ix;
      ix.unique = ai.flags & WO_DB_UNIQUE;
      for (uint32_t k = 0; k < ai.ncols; ++k) {
        if (ai.cols[k] >= ac.nfields)
          return fail(err, "schema: an index of \"" + def.name + "\" names no field");
        if (is_container(def.fields[ai.cols[k]].kind))
          return fail(err, "schema: an index of \"" + def.name + "\" names a container field");
        ix.cols.push_back(ai.cols[k]);
      }
      def.indexes.push_back(std::move(ix));
    }
    out->classes.push_back(std::move(def));
  }
  for (const ClassDef& c : out->classes)
    for (const Field& f : c.fields)
      if (f.kind == Kind::Ref && c.durable() && !out->classes[f.ref_class].durable())
        return fail(err, "schema: durable table \"" + c.name + "\" refers to the non-durable \"" +
                             f.ref_table + "\" through " + f.name);
  return true;
}

uint64_t nil_word(const Field& f) {
  switch (f.kind) {
    case Kind::Text:
    case Kind::Bytes:
    case Kind::Multi:
    case Kind::Map:
    case Kind::Ref: return 0;
    case Kind::Float: return WO_NIL_FLOAT_BITS;
    default: return static_cast<uint64_t>(WO_NIL_SCALAR);
  }
}

namespace {
std::string kind_name(Kind k) {
  Field f;
  f.kind = k;
  return type_name(f);
}
}  // namespace

std::string type_name(const Field& f) {
  std::string base;
  switch (f.kind) {
    case Kind::Multi: base = "multi " + kind_name(f.elem); break;
    case Kind::Map: base = "map<" + kind_name(f.elem) + ", " + kind_name(f.value) + ">"; break;
    case Kind::Int: base = "Int"; break;
    case Kind::Bool: base = "Bool"; break;
    case Kind::Float: base = "Float"; break;
    case Kind::Text: base = "Text"; break;
    case Kind::Bytes: base = "Bytes"; break;
    case Kind::Timestamp: base = "Timestamp"; break;
    case Kind::Id: base = "Id"; break;
    case Kind::Ref: base = "ref " + f.ref_table; break;
  }
  return f.nullable ? "?" + base : base;
}

bool same_shape(const Field& a, const Field& b) {
  return a.kind == b.kind && a.nullable == b.nullable && (a.kind != Kind::Ref || a.ref_table == b.ref_table) &&
         (!is_container(a.kind) || (a.elem == b.elem && a.value == b.value));
}

// Body: count, then per class: class_id, name, flags, fields (name, kind,
// nullable, ref table, and for a container its element and value kinds),
// indexes (unique, columns). Only durable classes: the
// log never holds anything else.
void encode_schema(std::string& out, const Schema& s) {
  uint32_t n = 0;
  for (const ClassDef& c : s.classes) n += c.durable();
  put_u32(out, n);
  for (const ClassDef& c : s.classes) {
    if (!c.durable()) continue;
    put_u32(out, c.id);
    put_str(out, c.name);
    put_u32(out, c.flags);
    put_u32(out, static_cast<uint32_t>(c.fields.size()));
    for (const Field& f : c.fields) {
      put_str(out, f.name);
      put_u8(out, static_cast<uint8_t>(f.kind));
      put_u8(out, f.nullable);
      put_str(out, f.ref_table);
      if (is_container(f.kind)) {  // only after the kinds that have them: older heads stay readable
        put_u8(out, static_cast<uint8_t>(f.elem));
        put_u8(out, static_cast<uint8_t>(f.value));
      }
    }
    put_u32(out, static_cast<uint32_t>(c.indexes.size()));
    for (const IndexDef& ix : c.indexes) {
      put_u8(out, ix.unique);
      put_u32(out, static_cast<uint32_t>(ix.cols.size()));
      for (uint32_t col : ix.cols) put_u32(out, col);
    }
  }
}

bool decode_schema(Reader& r, Schema* out) {
  out->classes.clear();
  uint32_t n = r.u32();
  for (uint32_t i = 0; i < n && r.ok(); ++i) {
    ClassDef c;
    c.id = r.u32();
    c.name = r.str();
    c.flags = r.u32();
    uint32_t nf = r.u32();
    for (uint32_t f = 0; f < nf && r.ok(); ++f) {
      Field fd;
      fd.name = r.str();
      uint8_t kind = r.u8();
      if (!known_kind(kind)) return false;
      fd.kind = static_cast<Kind>(kind);
      fd.nullable = r.u8();
      fd.ref_table = r.str();
      if (is_container(fd.kind)) {
        uint8_t e = r.u8(), v = r.u8();
        if (fd.kind == Kind::Multi ? !element_kind(e) : !key_kind(e) || !element_kind(v)) return false;
        fd.elem = static_cast<Kind>(e);
        if (fd.kind == Kind::Map) fd.value = static_cast<Kind>(v);
      }
      c.fields.push_back(std::move(fd));
    }
    uint32_t ni = r.u32();
    for (uint32_t k = 0; k < ni && r.ok(); ++k) {
      IndexDef ix;
      ix.unique = r.u8();
      uint32_t nc = r.u32();
      for (uint32_t j = 0; j < nc && r.ok(); ++j) {
        uint32_t col = r.u32();
        if (col >= nf) return false;
        ix.cols.push_back(col);
      }
      c.indexes.push_back(std::move(ix));
    }
    out->classes.push_back(std::move(c));
  }
  return r.done();
}

}  // namespace wo::store
