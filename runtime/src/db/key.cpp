// Index key encoding (see key.h).
#include "key.h"

#include <cmath>
#include <cstring>

namespace wo::db {
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

// `bytes` is NULL for non-blob kinds.
void append(std::string& out, const Field& f, uint64_t w, const char* bytes, uint64_t len) {
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

}  // namespace

bool key_equals(const Field& f, uint64_t w, std::string_view key) {
  if (!f.nullable && is_blob(f.kind)) {  // compare in place: the common unique Text key
    const char* p = w ? as_blob(w)->bytes() : nullptr;
    uint64_t n = w ? as_blob(w)->len : 0;
    if (n == 0 || !std::memchr(p, 0, n))  // nothing escaped: the key is the bytes and 0x00 0x00
      return key.size() == n + 2 && (n == 0 || std::memcmp(key.data(), p, n) == 0) && key[n] == '\0' &&
             key[n + 1] == '\0';
  }
  thread_local std::string k;
  k.clear();
  append_key(k, f, w);
  return std::string_view(k) == key;
}

uint64_t canonical_float(uint64_t bits) {
  double d;
  std::memcpy(&d, &bits, 8);
  if (d == 0.0) return 0;
  if (std::isnan(d)) return 0x7FF8000000000000u;
  return bits;
}

KeyShape key_shape(const Field& f) {
  if (f.nullable) return KeyShape::General;
  if (f.kind == Kind::Text || f.kind == Kind::Bytes) return KeyShape::Text;
  if (!is_blob(f.kind) && f.kind != Kind::Float) return KeyShape::Word;
  return KeyShape::General;
}

void append_key(std::string& out, const Field& f, uint64_t w) {
  if (is_blob(f.kind) && w) return append(out, f, w, as_blob(w)->bytes(), as_blob(w)->len);
  append(out, f, w, nullptr, 0);
}

void append_key_abi(std::string& out, const Field& f, uint64_t w) {
  if (is_blob(f.kind) && w) {
    const auto* t = reinterpret_cast<const WoText*>(w);
    return append(out, f, w, t->bytes, static_cast<uint64_t>(t->len));
  }
  append(out, f, w, nullptr, 0);
}

}  // namespace wo::db
