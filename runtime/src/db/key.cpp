// Index key encoding (see key.h).
#include "key.h"

#include <cstring>

namespace wo::db {

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

KeyShape key_shape(const Field& f) {
  if (f.nullable) return KeyShape::General;
  if (f.kind == Kind::Text || f.kind == Kind::Bytes) return KeyShape::Text;
  if (!is_blob(f.kind) && f.kind != Kind::Float) return KeyShape::Word;
  return KeyShape::General;
}

void append_key(std::string& out, const Field& f, uint64_t w) {
  if (is_blob(f.kind) && w) return append_key_value(out, f, w, as_blob(w)->bytes(), as_blob(w)->len);
  append_key_value(out, f, w, nullptr, 0);
}

}  // namespace wo::db
