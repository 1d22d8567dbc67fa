// Row and blob memory, ABI conversion, row bodies in the WAL.
#include "row.h"

#include <cstdlib>
#include <cstring>

#include "../core/heap.h"
#include "../core/trap.h"
#include "common/traps.h"
#include "model.h"

namespace wo::db {

uint64_t blob_word(const char* p, uint64_t n) {
  auto* b = static_cast<Blob*>(heap_malloc(sizeof(Blob) + n));
  b->len = n;
  if (n) std::memcpy(b->bytes(), p, n);
  return reinterpret_cast<uint64_t>(b);
}

Row* row_alloc(const ClassDef& c) {
  size_t n = sizeof(Row) + c.fields.size() * sizeof(uint64_t);
  auto* r = static_cast<Row*>(heap_malloc(n));
  std::memset(r, 0, n);
  return r;
}

void row_free(const ClassDef& c, Row* r) {
  if (!r) return;
  row_free_blobs(c, r);
  std::free(r);
}

void row_free_blobs(const ClassDef& c, Row* r) {
  for (size_t i = 0; i < c.fields.size(); ++i) word_free(c.fields[i], r->slots()[i]);
}

uint64_t word_from_abi(const Field& f, uint64_t v, const WoSite* site) {
  if (!is_blob(f.kind) || v == 0) return v;
  if (is_container(f.kind)) {  // element by element, never shared with the program
    std::string enc;
    encode_container(enc, f, v, site);
    return blob_word(enc.data(), enc.size());
  }
  const auto* t = reinterpret_cast<const WoText*>(v);  // WoBytes has the same layout
  if (static_cast<uint64_t>(t->len) > kMaxBlob)
    raise(static_cast<int64_t>(TrapCode::DB), site, "value too large for the table store");
  return blob_word(t->bytes, static_cast<uint64_t>(t->len));
}

uint64_t word_to_abi(const Field& f, uint64_t w) {
  if (!is_blob(f.kind) || w == 0) return w;
  const Blob* b = as_blob(w);
  if (is_container(f.kind)) return decode_container(f, std::string_view(b->bytes(), b->len));
  return reinterpret_cast<uint64_t>(wo_text_new(b->bytes(), static_cast<int64_t>(b->len)));
}

uint64_t zero_word(const Field& f) {
  if (f.nullable) return nil_word(f);
  if (is_container(f.kind)) {
    std::string empty = empty_container(f);
    return blob_word(empty.data(), empty.size());
  }
  if (is_blob(f.kind)) return blob_word(nullptr, 0);
  return 0;  // 0, false, and the bits of 0.0
}

Row* row_from_abi(const ClassDef& c, const uint64_t* values, const WoSite* site) {
  Row* r = row_alloc(c);
  try {
    row_fill_abi(c, r, values, site);
  } catch (...) {
    std::free(r);
    throw;
  }
  return r;
}

void row_fill_abi(const ClassDef& c, Row* r, const uint64_t* values, const WoSite* site) {
  try {
    for (size_t i = 0; i < c.fields.size(); ++i) r->slots()[i] = word_from_abi(c.fields[i], values[i], site);
  } catch (...) {
    row_free_blobs(c, r);  // slots not reached yet are still 0
    throw;
  }
}

void encode_row(std::string& out, const ClassDef& c, const uint64_t* slots) {
  for (size_t i = 0; i < c.fields.size(); ++i) {
    uint64_t w = slots[i];
    if (!is_blob(c.fields[i].kind)) {
      put_u64(out, w);
    } else if (w == 0) {
      put_u32(out, 0xFFFFFFFFu);
    } else {
      const Blob* b = as_blob(w);
      put_u32(out, static_cast<uint32_t>(b->len));
      out.append(b->bytes(), b->len);
    }
  }
}

size_t encoded_row_size(const ClassDef& c, const uint64_t* slots) {
  size_t n = 0;
  for (size_t i = 0; i < c.fields.size(); ++i)
    n += !is_blob(c.fields[i].kind) ? 8 : 4 + (slots[i] ? as_blob(slots[i])->len : 0);
  return n;
}

Row* decode_row(Reader& r, const ClassDef& from, const ClassDef& to, const std::vector<int32_t>& map) {
  Row* row = row_alloc(to);
  if (decode_row_into(r, from, to, map, row, nullptr)) return row;
  std::free(row);
  return nullptr;
}

bool decode_row_into(Reader& r, const ClassDef& from, const ClassDef& to, const std::vector<int32_t>& map, Row* row,
                     BootArena::Cursor* arena) {
  row->inbound = 0;
  // Which `to` fields the log filled: a word of bits for up to 64 fields
  // (boot decodes a row per record; a heap vector each time showed up).
  uint64_t small = 0;
  std::vector<bool> big(to.fields.size() > 64 ? to.fields.size() : 0, false);
  auto fill = [&](size_t f) {
    if (f < 64) small |= uint64_t{1} << f; else big[f] = true;
  };
  auto filled = [&](size_t f) { return f < 64 ? (small >> f & 1) != 0 : static_cast<bool>(big[f]); };
  auto blob = [&](std::string_view s) {
    if (arena)
      if (void* p = arena->alloc(sizeof(Blob) + s.size())) {
        auto* b = static_cast<Blob*>(p);
        b->len = s.size();
        std::memcpy(b->bytes(), s.data(), s.size());
        return reinterpret_cast<uint64_t>(b);
      }
    return blob_word(s.data(), s.size());
  };
  // Blobs made so far, freed if a later field is malformed.
  auto undo = [&] {
    for (size_t i = 0; i < to.fields.size(); ++i)
      if (filled(i)) word_free(to.fields[i], row->slots()[i]);
  };
  for (size_t i = 0; i < from.fields.size() && r.ok(); ++i) {
    uint64_t w;
    if (!is_blob(from.fields[i].kind)) {
      w = r.u64();
    } else {
      uint32_t n = r.u32();
      if (n == 0xFFFFFFFFu) {
        w = 0;
      } else {
        std::string_view s = r.bytes(n);
        if (!r.ok()) break;
        if (is_container(from.fields[i].kind) && !valid_container(from.fields[i], s)) {
          undo();  // passes the CRC but does not decode: corruption
          return false;
        }
        w = map[i] < 0 ? 0 : blob(s);
      }
    }
    if (map[i] >= 0) {
      row->slots()[map[i]] = w;
      fill(static_cast<size_t>(map[i]));
    }
  }
  if (!r.ok()) {
    undo();
    return false;
  }
  for (size_t i = 0; i < to.fields.size(); ++i)
    if (!filled(i)) row->slots()[i] = zero_word(to.fields[i]);
  return true;
}

}  // namespace wo::db
