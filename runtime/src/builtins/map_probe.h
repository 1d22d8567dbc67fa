// The probe of `map<K, V>` (map.cpp): the entry layout, key hashing and the
// open-addressing lookup, as inline functions shared by map.cpp and
// runtime/src/inline/helpers.cpp, whose fast paths woc also inlines into
// generated code from LLVM bitcode (docs/decisions/0052). One definition.
#pragma once
#include <cstdint>
#include <cstring>

#include "wo_runtime.h"

struct WoMapEntry {
  uint64_t key;
  uint64_t val;
  uint64_t hash;  // 63-bit hash of the key, or kDead for a removed entry
};

namespace wo::map_probe {

constexpr uint64_t kDead = UINT64_MAX;
constexpr uint32_t kEmpty = 0;
constexpr uint32_t kTomb = UINT32_MAX;
constexpr int64_t kMaxEntries = (int64_t{1} << 30);  // index holds entry numbers + 1 in uint32

constexpr uint64_t kMul = 0x9E3779B97F4A7C15ull;
constexpr uint64_t kSeed = 0x6A09E667F3BCC909ull;

inline uint64_t fmix64(uint64_t k) {
  k ^= k >> 33;
  k *= 0xFF51AFD7ED558CCDull;
  k ^= k >> 33;
  k *= 0xC4CEB9FE1A85EC53ull;
  k ^= k >> 33;
  return k;
}

inline bool text_keys(const WoMap* m) { return WO_ELEM_IS_HEAP(m->key_kind); }

inline uint64_t hash_key(const WoMap* m, uint64_t key) {
  uint64_t h;
  if (!text_keys(m)) {
    h = fmix64(key ^ kSeed);
  } else {
    auto* t = reinterpret_cast<const WoText*>(key);
    auto* p = reinterpret_cast<const unsigned char*>(t->bytes);
    size_t n = static_cast<size_t>(t->len);
    h = kSeed ^ (static_cast<uint64_t>(n) * kMul);
    for (; n >= 8; n -= 8, p += 8) {
      uint64_t w;
      std::memcpy(&w, p, 8);
      h = (h ^ w) * kMul;
      h ^= h >> 32;
    }
    if (n) {
      uint64_t w = 0;
      std::memcpy(&w, p, n);
      h = (h ^ w) * kMul;
      h ^= h >> 32;
    }
    h = fmix64(h);
  }
  return h >> 1;  // never kDead
}

inline bool key_eq(const WoMap* m, uint64_t a, uint64_t b) {
  if (!text_keys(m)) return a == b;
  if (a == b) return true;
  auto* x = reinterpret_cast<const WoText*>(a);
  auto* y = reinterpret_cast<const WoText*>(b);
  return x->len == y->len && std::memcmp(x->bytes, y->bytes, static_cast<size_t>(x->len)) == 0;
}

inline void drop_val(const WoMap* m, uint64_t v) {
  if (WO_ELEM_IS_HEAP(m->val_kind)) wo_release(reinterpret_cast<void*>(v));
}

inline void drop_key(const WoMap* m, uint64_t k) {
  if (text_keys(m)) wo_release(reinterpret_cast<void*>(k));
}

struct Found {
  int64_t entry = -1;  // entry number, -1 when absent
  int64_t slot = -1;   // its index slot
};

inline Found find(const WoMap* m, uint64_t key, uint64_t h) {
  if (m->index_mask < 0) return {};
  auto mask = static_cast<uint64_t>(m->index_mask);
  for (uint64_t i = h & mask;; i = (i + 1) & mask) {
    uint32_t s = m->index[i];
    if (s == kEmpty) return {};
    if (s == kTomb) continue;
    const WoMapEntry& e = m->entries[s - 1];
    if (e.hash == h && key_eq(m, e.key, key)) return {static_cast<int64_t>(s - 1), static_cast<int64_t>(i)};
  }
}

inline Found lookup(const WoMap* m, uint64_t key) {
  if (m->len == 0 || (text_keys(m) && key == 0)) return {};
  return find(m, key, hash_key(m, key));
}

inline uint64_t nil_of(const WoMap* m) {
  if (WO_ELEM_IS_HEAP(m->val_kind)) return 0;
  if (m->val_kind == WO_ELEM_FLOAT) return WO_NIL_FLOAT_BITS;
  return static_cast<uint64_t>(WO_NIL_SCALAR);
}

// Room for one more entry; on OOM releases `pending` (the value `set` was
// given) and traps, leaving the map as it was. Out of line (map.cpp): cold.
void make_room(WoMap* m, uint64_t pending);

// wo_map_set after its inline fast path (the hint) missed: hashes the key,
// replaces the value of an entry holding it or appends one (map.cpp).
void set_probed(WoMap* m, uint64_t key, uint64_t val);

}  // namespace wo::map_probe
