// Index keys: one order-preserving byte string per (index, row), so a plain
// bytewise compare gives the order of §1.6 and bytewise equality gives the
// equality of probes and @unique. Every index (unique, secondary, composite)
// and every query path (probe, range, sort, scan fallback) goes through these
// functions: the probe's canonicalisation is by construction the one index
// maintenance used (lesson 2 of §1.16).
//
// Per column: a nullable field starts with 0x00 (nil, sorts first) or 0x01;
// Int-shaped kinds are big-endian with the sign bit flipped; Float is
// canonicalised (-0.0 -> 0.0, every NaN -> one NaN) then mapped to the
// total order (-Inf < ... < -0.0 == 0.0 < ... < +Inf < NaN); Text/Bytes are
// the bytes with 0x00 escaped as 0x00 0xFF and ended by 0x00 0x00, so a
// proper prefix sorts first and composite keys stay unambiguous.
#pragma once
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "row.h"
#include "schema.h"

namespace wo::db {

// One column from an engine word (blobs as Blob*).
void append_key(std::string& out, const Field& f, uint64_t engine_word);
// One column from an ABI word (blobs as WoText*/WoBytes*): probe keys.
void append_key_abi(std::string& out, const Field& f, uint64_t abi_word);

// The two common index shapes, built without the general per-column path
// (to the same bytes as append_key): one non-nullable Int-shaped column
// (Word: its big-endian word with the sign bit flipped) and one non-nullable
// Text or Bytes column (Text: the bytes and 0x00 0x00, when they hold no
// 0x00 to escape). An insert builds a key per index (Table::keys_of).
enum class KeyShape : uint8_t { General, Word, Text };
KeyShape key_shape(const Field& f);  // of an index on this one column
// The key of word `w` (an engine word, or an ABI word when `abi`) for a Word
// or Text index, into `out`; false (out untouched) when only the general
// path can build it. Inline: every insert runs it once per index.
inline bool shaped_key(KeyShape shape, uint64_t w, bool abi, std::string& out) {
  if (shape == KeyShape::Word) {  // as append's default case
    uint64_t be = __builtin_bswap64(w ^ (uint64_t{1} << 63));
    out.assign(reinterpret_cast<const char*>(&be), 8);
    return true;
  }
  if (shape != KeyShape::Text) return false;
  const char* p = "";  // 0 reads as empty, as in append
  uint64_t n = 0;
  if (w && abi) {
    const auto* t = reinterpret_cast<const WoText*>(w);  // WoBytes has the same layout
    p = t->bytes;
    n = static_cast<uint64_t>(t->len);
  } else if (w) {
    p = as_blob(w)->bytes();
    n = as_blob(w)->len;
  }
  if (n && std::memchr(p, 0, n)) return false;  // escaping is put_text's
  out.assign(p, n);
  out.append(2, '\0');
  return true;
}


// Whether the key of one column holding engine word `w` is `key` (what
// append_key would write), without building it where that can be avoided.
bool key_equals(const Field& f, uint64_t engine_word, std::string_view key);

// The Float bits an index sees: -0.0 as 0.0, every NaN as 0x7FF8000000000000.
uint64_t canonical_float(uint64_t bits);

}  // namespace wo::db
