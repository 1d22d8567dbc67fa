// A statement's result as the store reads it (store.cpp, rows.cpp): binary
// columns decoded into the words of the store's ABI.
#pragma once
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

#include "../store/schema.h"
#include "../store/value.h"
#include "conn.h"

namespace wo::pg {

inline uint64_t be64(const char* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return __builtin_bswap64(v);
}

// Column j of row i of `r` as field `f`'s word (Text and Bytes newly allocated).
inline uint64_t decode_word(const PGresult* r, const store::Field& f, int i, int j) {
  if (pq().getisnull(r, i, j)) return f.kind == store::Kind::Ref || store::is_blob(f.kind) || !f.nullable ? 0 : store::nil_word(f);
  const char* p = pq().getvalue(r, i, j);
  int n = pq().getlength(r, i, j);
  switch (f.kind) {
    case store::Kind::Bool: return p[0] ? 1 : 0;
    case store::Kind::Text: return reinterpret_cast<uint64_t>(wo_text_new(p, n));
    case store::Kind::Bytes: return reinterpret_cast<uint64_t>(wo_bytes_new(p, n));
    case store::Kind::Multi:
    case store::Kind::Map: return store::decode_container(f, std::string_view(p, static_cast<size_t>(n)));
    default: return be64(p);
  }
}

// `{1,2,3}`: ids as PostgreSQL's text form of a bigint[] (`= ANY($1::bigint[])`).
template <class It>
std::string id_array(It first, It last) {
  std::string a = "{";
  for (It i = first; i != last; ++i) {
    if (a.size() > 1) a += ',';
    a += std::to_string(static_cast<int64_t>(*i));
  }
  return a + "}";
}

// A result that is cleared when it goes.
struct Res {
  PGresult* r = nullptr;
  explicit Res(PGresult* p) : r(p) {}
  Res(Res&& o) noexcept : r(o.r) { o.r = nullptr; }
  ~Res() {
    if (r) pq().clear(r);
  }
  PGresult* release() {
    PGresult* p = r;
    r = nullptr;
    return p;
  }
  int rows() const { return pq().ntuples(r); }
  bool null(int i, int j) const { return pq().getisnull(r, i, j); }
  int64_t i64(int i, int j) const { return static_cast<int64_t>(be64(pq().getvalue(r, i, j))); }
  uint64_t word(const store::Field& f, int i, int j) const { return decode_word(r, f, i, j); }
  int64_t affected() const { return std::strtoll(pq().cmdTuples(r), nullptr, 10); }
};

}  // namespace wo::pg
