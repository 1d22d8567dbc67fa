// Container fields between the program's heap and the store (see value.h).
#include "value.h"

#include "../core/trap.h"
#include "codec.h"
#include "common/traps.h"

namespace wo::store {
namespace {

bool is_bytes_kind(Kind k) { return k == Kind::Text || k == Kind::Bytes; }

// The WO_ELEM_* kind of the program's list/map slots for a store kind.
int64_t vm_kind(Kind k) {
  switch (k) {
    case Kind::Float: return WO_ELEM_FLOAT;
    case Kind::Text: return WO_ELEM_TEXT;
    case Kind::Bytes: return WO_ELEM_BYTES;
    default: return WO_ELEM_SCALAR;
  }
}

[[noreturn]] void too_large(const WoSite* site) {
  raise(static_cast<int64_t>(TrapCode::DB), site, "value too large for the table store");
}

void put_element(std::string& out, Kind k, uint64_t w, const WoSite* site) {
  if (!is_bytes_kind(k)) return put_u64(out, w);
  const auto* t = reinterpret_cast<const WoText*>(w);  // WoBytes has the same layout
  uint64_t n = t ? static_cast<uint64_t>(t->len) : 0;
  if (n > kMaxBlob) too_large(site);
  put_u32(out, static_cast<uint32_t>(n));
  if (n) out.append(t->bytes, n);
}

// One element as an owned program word; false when the bytes run out.
bool get_element(Reader& r, Kind k, uint64_t& w) {
  if (!is_bytes_kind(k)) {
    w = r.u64();
    return r.ok();
  }
  uint32_t n = r.u32();
  std::string_view s = r.bytes(n);
  if (!r.ok()) return false;
  w = k == Kind::Text ? reinterpret_cast<uint64_t>(wo_text_new(s.data(), static_cast<int64_t>(n)))
                      : reinterpret_cast<uint64_t>(wo_bytes_new(s.data(), static_cast<int64_t>(n)));
  return true;
}

void drop_element(Kind k, uint64_t w) {
  if (is_bytes_kind(k)) wo_release(reinterpret_cast<void*>(w));
}

// The header of an encoding; false if it does not match the field.
bool header(Reader& r, const Field& f, uint32_t& len) {
  if (r.u8() != static_cast<uint8_t>(f.elem)) return false;
  if (f.kind == Kind::Map && r.u8() != static_cast<uint8_t>(f.value)) return false;
  len = r.u32();
  return r.ok();
}

}  // namespace

void encode_container(std::string& out, const Field& f, uint64_t v, const WoSite* site) {
  size_t start = out.size();
  put_u8(out, static_cast<uint8_t>(f.elem));
  if (f.kind == Kind::Multi) {
    const auto* xs = reinterpret_cast<const WoList*>(v);
    put_u32(out, static_cast<uint32_t>(xs->len));
    for (int64_t i = 0; i < xs->len; ++i) put_element(out, f.elem, xs->data[i], site);
  } else {
    auto* m = reinterpret_cast<WoMap*>(v);
    put_u8(out, static_cast<uint8_t>(f.value));
    put_u32(out, static_cast<uint32_t>(wo_map_len(m)));
    uint64_t k = 0, val = 0;
    for (int64_t p = wo_map_iter(m, 0, &k, &val); p >= 0; p = wo_map_iter(m, p + 1, &k, &val)) {
      put_element(out, f.elem, k, site);
      put_element(out, f.value, val, site);
    }
  }
  if (out.size() - start > kMaxBlob) too_large(site);
}

uint64_t decode_container(const Field& f, std::string_view bytes) {
  Reader r(bytes);
  uint32_t len = 0;
  header(r, f, len);  // the blob was checked when it entered the store
  if (f.kind == Kind::Multi) {
    WoList* xs = wo_list_new(vm_kind(f.elem), len);
    try {
      uint64_t w;
      for (uint32_t i = 0; i < len && get_element(r, f.elem, w); ++i) wo_list_push(xs, w);
    } catch (...) {
      wo_release(xs);
      throw;
    }
    return reinterpret_cast<uint64_t>(xs);
  }
  WoMap* m = wo_map_new(vm_kind(f.elem), vm_kind(f.value));
  uint64_t k = 0;
  bool have_key = false;
  try {
    uint64_t v;
    for (uint32_t i = 0; i < len; ++i) {
      if (!get_element(r, f.elem, k)) break;
      have_key = true;
      if (!get_element(r, f.value, v)) break;
      wo_map_set(m, k, v, nullptr);  // takes v; retains a Text key
      drop_element(f.elem, k);
      have_key = false;
    }
  } catch (...) {
    if (have_key) drop_element(f.elem, k);
    wo_release(m);
    throw;
  }
  if (have_key) drop_element(f.elem, k);
  return reinterpret_cast<uint64_t>(m);
}

bool valid_container(const Field& f, std::string_view bytes) {
  Reader r(bytes);
  uint32_t len = 0;
  if (!header(r, f, len)) return false;
  int per = f.kind == Kind::Map ? 2 : 1;
  for (uint32_t i = 0; i < len && r.ok(); ++i)
    for (int j = 0; j < per; ++j) {
      Kind k = j == 0 ? f.elem : f.value;
      if (is_bytes_kind(k))
        r.bytes(r.u32());
      else
        r.u64();
    }
  return r.done();
}

std::string empty_container(const Field& f) {
  std::string out;
  put_u8(out, static_cast<uint8_t>(f.elem));
  if (f.kind == Kind::Map) put_u8(out, static_cast<uint8_t>(f.value));
  put_u32(out, 0);
  return out;
}

}  // namespace wo::store
