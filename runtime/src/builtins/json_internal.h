// What json.cpp's decoder shares with its simdjson fast path
// (json_simd.cpp): the type helpers, and the strict grammar as the judge of
// any value the fast path does not read itself (docs/decisions/0054).
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

#include "wo_runtime.h"

namespace wo::json {

inline constexpr int kMaxDecodeDepth = 512;

bool is_heap_type(const WoTypeDesc* t);
// The list/map slot kind that holds values of type t.
int64_t elem_kind_of(const WoTypeDesc* t);
// The nil word of `?t` (t non-nullable).
uint64_t nil_word(const WoTypeDesc* t);
// An Int map key: a JSON string holding a decimal int64 ("-12", not "+12").
bool int_key(std::string_view s, uint64_t& out);
// One value of any shape at p (after optional whitespace), checked against
// the strict grammar with `depth` containers already open: the first byte
// after it, or nullptr when it is malformed or nests deeper than the limit.
const char* skip_value(const char* p, const char* end, int depth);

// Our own recursive-descent decode of the whole text (nil_word(type) when it
// is malformed or does not fit): the judge, and what runs when simdjson declines.
uint64_t decode_ours(const char* text, size_t len, const WoTypeDesc* type);

// The simdjson On-Demand decode of a container-typed target (json_simd.cpp):
// true with `out` set when it read the whole text itself; false when it
// declines (any error, anything it does not read the way our grammar does),
// with nothing left allocated: the caller then runs our own decoder, whose
// answer is the answer.
bool decode_simd(const char* text, size_t len, const WoTypeDesc* type, uint64_t& out);

// What both decoders do with an object decoded into a class instance:
// a field's word stored in its slot (Bool is one byte), every nullable
// field preset to nil before the members are read, and a member's field
// found by name (-1: not a field, skipped).
inline void store_field(char* field, const WoTypeDesc* t, uint64_t w) {
  if (t->kind == WO_TY_BOOL)
    *reinterpret_cast<unsigned char*>(field) = static_cast<unsigned char>(w != 0);
  else
    std::memcpy(field, &w, sizeof w);
}
inline void preset_nil_fields(char* obj, const WoClassDesc* c) {
  for (int64_t i = 0; i < c->nfields; ++i) {
    const WoFieldDesc& f = c->fields[i];
    if (f.type->kind == WO_TY_NULLABLE) store_field(obj + f.offset, f.type, nil_word(f.type->elem));
  }
}
inline int64_t field_index(const WoClassDesc* c, std::string_view key) {
  for (int64_t i = 0; i < c->nfields; ++i)
    if (std::strlen(c->fields[i].name) == key.size() && std::memcmp(c->fields[i].name, key.data(), key.size()) == 0)
      return i;
  return -1;
}

}  // namespace wo::json
