// Container fields (`multi T`, `map<K, V>`; runtime.md §1.3 "element-wise /
// pair-wise copy"). The store keeps a container as a blob holding its
// encoded elements, so every path that moves blobs (rows, undo, the WAL,
// checkpoint, migration) handles it unchanged; only the crossing to and from
// the program's heap is here. Encoding (little-endian, inside the blob):
//   multi: elem_kind:u8  len:u32  element*
//   map:   key_kind:u8  val_kind:u8  len:u32  (key value)*
//   element: 8 bytes for scalars and Float (bits); len:u32 + bytes for Text/Bytes
// (the value encoding of §1.10 without its nil byte: a nil container is a nil
// blob, as for Text).
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

#include "schema.h"
#include "wo_runtime.h"

namespace wo::store {

// The encoding of the program's WoList*/WoMap* `v` (non-NULL) for field `f`.
// Traps DB `value too large for the table store` past the blob limit.
void encode_container(std::string& out, const Field& f, uint64_t v, const WoSite* site);
// A fresh, owned WoList*/WoMap* from an encoding (traps OOM).
uint64_t decode_container(const Field& f, std::string_view bytes);
// Whether `bytes` is a well-formed encoding for `f` (replay's corruption check).
bool valid_container(const Field& f, std::string_view bytes);
// The encoding of an empty container of `f`'s kind (a field added by migration).
std::string empty_container(const Field& f);

}  // namespace wo::store
