// Rows in RAM: one 8-byte slot per field (runtime.md §1.3), Text/Bytes as
// engine-owned blobs, plus the count of refs that point at the row (so FK
// restrict on delete is O(1)). Conversion from/to the ABI's words and the
// WAL encoding of a row body (§1.10: every field in declaration order).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "../core/asan_poison.h"
#include "boot_memory.h"
#include "model.h"

namespace wo::db {

// A blob: `len` then the bytes. Never shared with program objects: the
// program's Texts are reference counted without atomics and may live on
// another thread.
struct Blob {
  uint64_t len;
  char* bytes() { return reinterpret_cast<char*>(this + 1); }
  const char* bytes() const { return reinterpret_cast<const char*>(this + 1); }
};

// The header of a row; `nfields` slots follow it.
struct Row {
  uint64_t inbound;   // refs (from any row of any class) holding this row's id
  uint64_t* slots() { return reinterpret_cast<uint64_t*>(this + 1); }
  const uint64_t* slots() const { return reinterpret_cast<const uint64_t*>(this + 1); }
};

inline const Blob* as_blob(uint64_t w) { return reinterpret_cast<const Blob*>(w); }
uint64_t blob_word(const char* p, uint64_t n);     // traps OOM
// A blob of the boot arena is not freed on its own (boot_memory.h); under
// ASan its bytes are poisoned instead, so a read of it is reported as a
// freed malloc blob's would be (decision 0077).
inline void blob_free(uint64_t w) {
  if (!boot_arena_owns(reinterpret_cast<const void*>(w))) {
    std::free(reinterpret_cast<void*>(w));
    return;
  }
  if (kAsanBuild) asan_poison(as_blob(w), (sizeof(Blob) + as_blob(w)->len + 7) & ~uint64_t{7});  // as Cursor::alloc rounded it
}

Row* row_alloc(const ClassDef& c);                 // inbound 0, slots 0; traps OOM
void row_free(const ClassDef& c, Row* r);          // and its blobs (NULL-safe)
void row_free_blobs(const ClassDef& c, Row* r);    // its blobs only (slots left as they were)

// An engine word for `f` from an ABI word: blobs copied (traps OOM, and DB
// `value too large for the table store` past kMaxBlob). The caller owns it.
uint64_t word_from_abi(const Field& f, uint64_t v, const WoSite* site);
// A fresh ABI word from an engine word (a new WoText/WoBytes for blobs).
uint64_t word_to_abi(const Field& f, uint64_t w);
inline void word_free(const Field& f, uint64_t w) {
  if (is_blob(f.kind)) blob_free(w);
}
// The zero a migration gives an added field: nil when nullable, else 0,
// 0.0, false or an empty Text/Bytes (§1.14).
uint64_t zero_word(const Field& f);

// A whole row from the ABI values; frees what it built if a copy traps.
Row* row_from_abi(const ClassDef& c, const uint64_t* values, const WoSite* site);
// The same into `r` (inbound and slots zeroed by the caller): an insert's
// row built on the stack.
void row_fill_abi(const ClassDef& c, Row* r, const uint64_t* values, const WoSite* site);

// The WAL body of a row: scalars as 8 bytes, blobs as len:u32 + bytes
// (0xFFFFFFFF = nil).
void encode_row(std::string& out, const ClassDef& c, const uint64_t* slots);
size_t encoded_row_size(const ClassDef& c, const uint64_t* slots);

// Decodes a body written with the log's field list `from` into a row of
// `to`: `map[i]` is the `to` field that log field i becomes, or -1 when it
// was dropped; `to` fields nobody maps to get zero_word. NULL if malformed.
Row* decode_row(Reader& r, const ClassDef& from, const ClassDef& to, const std::vector<int32_t>& map);
// The same into `row` (room for `to`'s slots, the caller's memory), its
// blobs from `arena` while it has room (boot). false if malformed (the
// blobs it made are freed).
bool decode_row_into(Reader& r, const ClassDef& from, const ClassDef& to, const std::vector<int32_t>& map, Row* row,
                     BootArena::Cursor* arena);

}  // namespace wo::db
