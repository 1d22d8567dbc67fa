// The order and equality of stored values (runtime.md §1.6), as one
// order-preserving byte string per value: a plain bytewise compare gives the
// order, bytewise equality the equality. The embedded engine's indexes
// (db/key.h builds their keys from its own words with this), its queries,
// `order by` over computed keys and the PostgreSQL store's sorts all go
// through here, so every store and every path agrees on what is equal and
// what comes first.
//
// Per column: a nullable field starts with 0x00 (nil, sorts first) or 0x01;
// Int-shaped kinds are big-endian with the sign bit flipped; Float is
// canonicalised (-0.0 -> 0.0, every NaN -> one NaN) then mapped to the
// total order (-Inf < ... < -0.0 == 0.0 < ... < +Inf < NaN); Text/Bytes are
// the bytes with 0x00 escaped as 0x00 0xFF and ended by 0x00 0x00, so a
// proper prefix sorts first and composite keys stay unambiguous.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "schema.h"
#include "wo_runtime.h"

namespace wo::store {

// One column's key: word `w` of field `f`; for Text/Bytes its bytes are
// `bytes`/`len` (whoever holds them: the engine's blob, the program's text).
void append_key_value(std::string& out, const Field& f, uint64_t w, const char* bytes, uint64_t len);
// One column from an ABI word (Text/Bytes as WoText*/WoBytes*): probe keys.
void append_key_abi(std::string& out, const Field& f, uint64_t abi_word);

// The Float bits an index sees: -0.0 as 0.0, every NaN as 0x7FF8000000000000.
uint64_t canonical_float(uint64_t bits);

// A value's key and the row it belongs to: what a sort by value is made of.
struct KeyedId {
  std::string key;
  int64_t id;
};
// `rows` sorted by key (stable: equal keys keep their order; descending
// when `desc`), then their ids written to `ids` (as long as `rows`) in that order.
void sort_ids_by_key(std::vector<KeyedId>& rows, bool desc, WoList* ids);

// wo_db_sort_keys: `ids` sorted in place (stable) by `keys`, one ABI word of
// kind `kind` per id, in the order above. Needs no store.
void sort_by_keys(WoList* ids, WoList* keys, uint32_t kind, bool nullable, bool desc, const WoSite* site);

}  // namespace wo::store
