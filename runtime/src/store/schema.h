// The store's own copy of the program's schema (from WoDbSchema), the nil and
// zero words of each field kind, and the SCHEMA head record that opens every
// log: the durable classes with their fields by name and kind, which is what
// start-up compares to migrate or refuse (runtime.md §1.14).
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "codec.h"
#include "wo_db.h"

namespace wo::store {

enum class Kind : uint8_t {
  Int = WO_DB_INT,
  Bool = WO_DB_BOOL,
  Float = WO_DB_FLOAT,
  Text = WO_DB_TEXT,
  Bytes = WO_DB_BYTES,
  Timestamp = WO_DB_TIMESTAMP,
  Id = WO_DB_ID,
  Ref = WO_DB_REF,
  Multi = WO_DB_MULTI,
  Map = WO_DB_MAP,
};

// Text, Bytes and containers live in engine-owned blobs (a container as its
// encoded elements, value.h); every other kind is its word.
inline bool is_blob(Kind k) { return k == Kind::Text || k == Kind::Bytes || k == Kind::Multi || k == Kind::Map; }
inline bool is_container(Kind k) { return k == Kind::Multi || k == Kind::Map; }

// Largest Text/Bytes/container a store holds: the log frames a u32 length
// (0xFFFFFFFF = nil), and the PostgreSQL store keeps the same limit.
inline constexpr uint64_t kMaxBlob = 0xFFFFFFFEu;

struct Field {
  std::string name;
  Kind kind = Kind::Int;
  bool nullable = false;
  int32_t ref_class = -1;   // program schema only: index of the target class
  std::string ref_table;    // the target's storage name (what the head records)
  Kind elem = Kind::Int;    // Multi: the elements; Map: the keys
  Kind value = Kind::Int;   // Map: the values
};

struct IndexDef {
  std::vector<uint32_t> cols;
  bool unique = false;
};

struct ClassDef {
  std::string name;
  uint32_t flags = 0;
  uint32_t id = 0;          // position in its schema (the log's class_id)
  std::vector<Field> fields;
  std::vector<IndexDef> indexes;

  bool is_table() const { return flags & WO_DB_TABLE; }
  bool durable() const { return is_table() && !(flags & WO_DB_VOLATILE); }
  bool resident_keys() const { return flags & WO_DB_RESIDENT_KEYS; }
};

struct Schema {
  std::vector<ClassDef> classes;
  int find(std::string_view name) const;   // -1 if absent
};

// Copies and checks the ABI schema: names present and distinct, kinds known,
// refs to existing classes (a durable class may not ref a non-durable one:
// the id would dangle after a restart), index columns in range.
bool schema_from_abi(const WoDbSchema* in, Schema* out, std::string* err);

// The nil word of a nullable field (wo_runtime.h): 0 for blobs and refs,
// WO_NIL_FLOAT_BITS for Float, WO_NIL_SCALAR otherwise.
uint64_t nil_word(const Field& f);
inline bool is_nil(const Field& f, uint64_t w) { return f.nullable && w == nil_word(f); }

// `?Int`, `Text`, `ref customers`: for messages.
std::string type_name(const Field& f);
// Same stored shape: kind, nullability and (for refs) target table.
bool same_shape(const Field& a, const Field& b);

// SCHEMA record body (durable classes only, with their class ids) and back.
void encode_schema(std::string& out, const Schema& s);
bool decode_schema(Reader& r, Schema* out);

}  // namespace wo::store
