// Index keys of the engine's rows: the order-preserving encoding of
// store/order.h (the one definition of equality and order, §1.6) built from
// the engine's words, whose Text/Bytes are its own blobs. Every index
// (unique, secondary, composite) and every query path (probe, range, sort,
// scan fallback) goes through these functions: the probe's canonicalisation
// is by construction the one index maintenance used (lesson 2 of §1.16).
#pragma once
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "../store/order.h"
#include "model.h"
#include "row.h"

namespace wo::db {

// One column from an engine word (blobs as Blob*).
void append_key(std::string& out, const Field& f, uint64_t engine_word);

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

}  // namespace wo::db
