// The order-preserving encoding of stored values (see order.h).
#include "order.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "../core/trap.h"
#include "common/traps.h"

namespace wo::store {
namespace {

void put_be64(std::string& out, uint64_t v) {
  char b[8];
  for (int i = 0; i < 8; ++i) b[i] = static_cast<char>(v >> (56 - 8 * i));
  out.append(b, 8);
}

void put_text(std::string& out, const char* p, uint64_t n) {
  if (n == 0 || !std::memchr(p, 0, n)) {
    out.append(p, n);  // the common case: nothing to escape, one copy
  } else {
    for (uint64_t i = 0; i < n; ++i) {
      out.push_back(p[i]);
      if (p[i] == '\0') out.push_back('\xFF');
    }
  }
  out.append("\0\0", 2);
}

}  // namespace

void append_key_value(std::string& out, const Field& f, uint64_t w, const char* bytes, uint64_t len) {
  if (f.nullable) {
    if (w == nil_word(f)) {
      out.push_back('\0');
      return;
    }
    out.push_back('\x01');
  }
  switch (f.kind) {
    case Kind::Text:
    case Kind::Bytes: put_text(out, bytes, w ? len : 0); return;  // a stray nil in a `T` field reads as empty
    case Kind::Float: {
      uint64_t b = canonical_float(w);
      put_be64(out, (b >> 63) ? ~b : b | (uint64_t{1} << 63));
      return;
    }
    default: put_be64(out, w ^ (uint64_t{1} << 63)); return;
  }
}

void append_key_abi(std::string& out, const Field& f, uint64_t w) {
  if (is_blob(f.kind) && w) {
    const auto* t = reinterpret_cast<const WoText*>(w);  // WoBytes has the same layout
    return append_key_value(out, f, w, t->bytes, static_cast<uint64_t>(t->len));
  }
  append_key_value(out, f, w, nullptr, 0);
}

uint64_t canonical_float(uint64_t bits) {
  double d;
  std::memcpy(&d, &bits, 8);
  if (d == 0.0) return 0;
  if (std::isnan(d)) return 0x7FF8000000000000u;
  return bits;
}

void sort_by_keys(WoList* ids, WoList* keys, uint32_t kind, bool nullable, bool desc, const WoSite* site) {
  wo::need(ids, site);
  wo::need(keys, site);
  if (ids->len != keys->len) wo::raise(static_cast<int64_t>(TrapCode::BOUNDS), site, "order by: one key per row");
  Field fd;  // the key as if it were a column: one encoding, one order
  fd.kind = static_cast<Kind>(kind);
  fd.nullable = nullable;
  std::vector<KeyedId> rows;
  rows.reserve(static_cast<size_t>(ids->len));
  for (int64_t i = 0; i < ids->len; ++i) {
    std::string k;
    append_key_abi(k, fd, keys->data[i]);
    rows.push_back(KeyedId{std::move(k), static_cast<int64_t>(ids->data[i])});
  }
  sort_ids_by_key(rows, desc, ids);
}

void sort_ids_by_key(std::vector<KeyedId>& rows, bool desc, WoList* ids) {
  if (desc)
    std::stable_sort(rows.begin(), rows.end(), [](const KeyedId& a, const KeyedId& b) { return b.key < a.key; });
  else
    std::stable_sort(rows.begin(), rows.end(), [](const KeyedId& a, const KeyedId& b) { return a.key < b.key; });
  for (size_t i = 0; i < rows.size(); ++i) ids->data[i] = static_cast<uint64_t>(rows[i].id);
}

}  // namespace wo::store
