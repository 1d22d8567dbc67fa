// `map<K, V>` (builtins.md §6, language.md §7.7): an insertion-ordered hash
// map. Entries live in a dense vector in insertion order; an open-addressing
// index (linear probing, uint32 entry numbers) finds them in O(1) average.
//
// Removal releases the entry's key and value at once, leaves a hole in the
// entry vector (hash = kDead) and a tombstone in the index. Holes are
// squeezed out (order kept) when the vector is full and at least half holes,
// when it grows, and before positional reads (key_at/val_at) so that those
// index the live entries. A removed key that is set again is a new entry at
// the end: that is the spec's "moves to the end".
//
// Keys: Int keys (WO_ELEM_INT) compare by value; Text keys (a heap key kind)
// by content, and the map holds its own reference to each key object. Values
// are owned when val_kind has the heap bit.
#include <cstdlib>
#include <cstring>

#include "gc.h"
#include "heap.h"
#include "trap.h"

struct WoMapEntry {
  uint64_t key;
  uint64_t val;
  uint64_t hash;  // 63-bit hash of the key, or kDead for a removed entry
};

namespace {

// `key 42` or `key "bob"` for a KEY trap's extra line (runtime/src/backtrace.h):
// Text keys quoted with \" \\ \n \t \xNN escapes, cut after 80 bytes.
std::string key_detail(const WoMap* m, uint64_t key) {
  if (m->key_kind != WO_ELEM_TEXT) return "key " + std::to_string(static_cast<int64_t>(key));
  const auto* t = reinterpret_cast<const WoText*>(key);
  std::string out = "key \"";
  int64_t n = t ? t->len : 0;
  for (int64_t i = 0; i < n && i < 80; ++i) {
    unsigned char c = static_cast<unsigned char>(t->bytes[i]);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c < 0x20 || c == 0x7f) {
      static const char* hex = "0123456789abcdef";
      out += "\\x";
      out += hex[c >> 4];
      out += hex[c & 15];
    } else {
      out += static_cast<char>(c);
    }
  }
  out += n > 80 ? "\"..." : "\"";
  return out;
}

constexpr uint64_t kDead = UINT64_MAX;
constexpr uint32_t kEmpty = 0;
constexpr uint32_t kTomb = UINT32_MAX;
constexpr int64_t kMaxEntries = (int64_t{1} << 30);  // index holds entry numbers + 1 in uint32

constexpr uint64_t kMul = 0x9E3779B97F4A7C15ull;
constexpr uint64_t kSeed = 0x6A09E667F3BCC909ull;

uint64_t fmix64(uint64_t k) {
  k ^= k >> 33;
  k *= 0xFF51AFD7ED558CCDull;
  k ^= k >> 33;
  k *= 0xC4CEB9FE1A85EC53ull;
  k ^= k >> 33;
  return k;
}

bool text_keys(const WoMap* m) { return WO_ELEM_IS_HEAP(m->key_kind); }

uint64_t hash_key(const WoMap* m, uint64_t key) {
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

bool key_eq(const WoMap* m, uint64_t a, uint64_t b) {
  if (!text_keys(m)) return a == b;
  if (a == b) return true;
  auto* x = reinterpret_cast<const WoText*>(a);
  auto* y = reinterpret_cast<const WoText*>(b);
  return x->len == y->len && std::memcmp(x->bytes, y->bytes, static_cast<size_t>(x->len)) == 0;
}

void drop_val(const WoMap* m, uint64_t v) {
  if (WO_ELEM_IS_HEAP(m->val_kind)) wo_release(reinterpret_cast<void*>(v));
}

void drop_key(const WoMap* m, uint64_t k) {
  if (text_keys(m)) wo_release(reinterpret_cast<void*>(k));
}

void map_destroy(void* self) {
  auto* m = static_cast<WoMap*>(self);
  for (int64_t i = 0; i < m->used; ++i) {
    WoMapEntry& e = m->entries[i];
    if (e.hash == kDead) continue;
    drop_key(m, e.key);
    drop_val(m, e.val);
  }
  std::free(m->entries);
  std::free(m->index);
}

struct Found {
  int64_t entry = -1;  // entry number, -1 when absent
  int64_t slot = -1;   // its index slot
};

Found find(const WoMap* m, uint64_t key, uint64_t h) {
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

Found lookup(const WoMap* m, uint64_t key) {
  if (m->len == 0 || (text_keys(m) && key == 0)) return {};
  return find(m, key, hash_key(m, key));
}

// Fills a fresh (zeroed) index of size mask + 1 from the live entries,
// which must have no holes.
void fill_index(WoMap* m, uint32_t* index, int64_t mask) {
  for (int64_t n = 0; n < m->used; ++n) {
    auto i = m->entries[n].hash & static_cast<uint64_t>(mask);
    while (index[i] != kEmpty) i = (i + 1) & static_cast<uint64_t>(mask);
    index[i] = static_cast<uint32_t>(n + 1);
  }
  std::free(m->index);
  m->index = index;
  m->index_mask = mask;
}

uint32_t* new_index(int64_t size) {
  return static_cast<uint32_t*>(std::calloc(static_cast<size_t>(size), sizeof(uint32_t)));
}

// Squeezes the holes out of the entry vector (order kept).
void squeeze(WoMap* m) {
  int64_t w = 0;
  for (int64_t r = 0; r < m->used; ++r)
    if (m->entries[r].hash != kDead) m->entries[w++] = m->entries[r];
  m->used = w;
}

// Squeezes holes and rebuilds the index at the same size. Allocates the new
// index first: on OOM the map is untouched.
void compact(WoMap* m) {
  uint32_t* index = new_index(m->index_mask + 1);
  if (!index) wo::raise_oom();
  squeeze(m);
  fill_index(m, index, m->index_mask);
}

// Room for one more entry; on OOM releases `pending` (the value `set` was
// given) and traps, leaving the map as it was.
void make_room(WoMap* m, uint64_t pending) {
  int64_t dead = m->used - m->len;
  if (dead > 0 && dead >= m->used / 2) {
    try {
      compact(m);
    } catch (...) {
      drop_val(m, pending);
      throw;
    }
    return;
  }
  int64_t cap = m->cap < 4 ? 4 : m->cap * 2;
  int64_t size = m->index_mask + 1;
  while (size < 2 * cap) size = size < 8 ? 8 : size * 2;
  uint32_t* index = cap > kMaxEntries ? nullptr : new_index(size);
  void* entries = index ? std::realloc(m->entries, static_cast<size_t>(cap) * sizeof(WoMapEntry)) : nullptr;
  if (!entries) {
    std::free(index);
    drop_val(m, pending);
    wo::raise_oom();
  }
  m->entries = static_cast<WoMapEntry*>(entries);
  m->cap = cap;
  squeeze(m);
  fill_index(m, index, size - 1);
}

uint64_t nil_of(const WoMap* m) {
  if (WO_ELEM_IS_HEAP(m->val_kind)) return 0;
  if (m->val_kind == WO_ELEM_FLOAT) return WO_NIL_FLOAT_BITS;
  return static_cast<uint64_t>(WO_NIL_SCALAR);
}

// The live entry at position i (0-based, insertion order), or a BOUNDS trap.
WoMapEntry& entry_at(WoMap* m, int64_t i, const WoSite* site) {
  wo::need(m, site);
  if (static_cast<uint64_t>(i) >= static_cast<uint64_t>(m->len)) [[unlikely]]
    wo::raise(6, site, "map index out of range", wo::index_detail(i, m->len));
  if (m->used != m->len) compact(m);
  return m->entries[i];
}

}  // namespace

namespace wo {
// The collector's view of a map: its heap values (keys are Int or Text, never
// part of a cycle).
void map_trace(void* map, WoVisit visit, void* ctx) {
  auto* m = static_cast<WoMap*>(map);
  if (!WO_ELEM_IS_HEAP(m->val_kind) || m->val_kind == WO_ELEM_TEXT || m->val_kind == WO_ELEM_BYTES) return;
  for (int64_t i = 0; i < m->used; ++i)
    if (m->entries[i].hash != kDead) visit(reinterpret_cast<void**>(&m->entries[i].val), ctx);
}
bool is_map_destroy(void (*destroy)(void*)) { return destroy == map_destroy; }
}  // namespace wo

extern "C" {

WoMap* wo_map_new(int64_t key_kind, int64_t val_kind) {
  auto* m = static_cast<WoMap*>(wo_alloc(sizeof(WoMap), map_destroy));
  m->key_kind = key_kind;
  m->val_kind = val_kind;
  m->index_mask = -1;
  return m;
}

int64_t wo_map_len(WoMap* m) {
  wo::need(m);
  return m->len;
}

bool wo_map_has(WoMap* m, uint64_t key) {
  wo::need(m);
  return lookup(m, key).entry >= 0;
}

uint64_t wo_map_get(WoMap* m, uint64_t key, const WoSite* site) {
  wo::need(m, site);
  Found f = lookup(m, key);
  if (f.entry < 0) [[unlikely]]
    wo::raise(7, site, nullptr, key_detail(m, key));
  return m->entries[f.entry].val;
}

uint64_t wo_map_get_opt(WoMap* m, uint64_t key) {
  wo::need(m);
  Found f = lookup(m, key);
  return f.entry < 0 ? nil_of(m) : m->entries[f.entry].val;
}

bool wo_map_find(WoMap* m, uint64_t key, uint64_t* out) {
  wo::need(m);
  Found f = lookup(m, key);
  if (f.entry < 0) return false;
  *out = m->entries[f.entry].val;
  return true;
}

void wo_map_set(WoMap* m, uint64_t key, uint64_t val, const WoSite* site) {
  wo::need(m, site);
  if (text_keys(m) && key == 0) [[unlikely]] {
    drop_val(m, val);
    wo::raise_null_receiver(site);
  }
  uint64_t h = hash_key(m, key);
  Found f = m->len ? find(m, key, h) : Found{};
  if (f.entry >= 0) {
    WoMapEntry& e = m->entries[f.entry];
    uint64_t old = e.val;
    e.val = val;
    drop_val(m, old);
    return;
  }
  if (m->used == m->cap) make_room(m, val);
  if (text_keys(m)) wo_retain(reinterpret_cast<void*>(key));
  int64_t n = m->used++;
  m->entries[n] = WoMapEntry{key, val, h};
  auto mask = static_cast<uint64_t>(m->index_mask);
  uint64_t i = h & mask;
  while (m->index[i] != kEmpty && m->index[i] != kTomb) i = (i + 1) & mask;
  m->index[i] = static_cast<uint32_t>(n + 1);
  ++m->len;
}

bool wo_map_remove(WoMap* m, uint64_t key) {
  wo::need(m);
  Found f = lookup(m, key);
  if (f.entry < 0) return false;
  WoMapEntry& e = m->entries[f.entry];
  uint64_t k = e.key, v = e.val;
  e = WoMapEntry{0, 0, kDead};
  m->index[f.slot] = kTomb;
  --m->len;
  drop_key(m, k);  // after the map is consistent: a destroy may run user code
  drop_val(m, v);
  return true;
}

uint64_t wo_map_key_at(WoMap* m, int64_t i, const WoSite* site) { return entry_at(m, i, site).key; }

uint64_t wo_map_val_at(WoMap* m, int64_t i, const WoSite* site) { return entry_at(m, i, site).val; }

int64_t wo_map_iter(WoMap* m, int64_t pos, uint64_t* key, uint64_t* val) {
  wo::need(m);
  for (int64_t p = pos < 0 ? 0 : pos; p < m->used; ++p) {
    const WoMapEntry& e = m->entries[p];
    if (e.hash == kDead) continue;
    *key = e.key;
    *val = e.val;
    return p;
  }
  return -1;
}

}  // extern "C"
