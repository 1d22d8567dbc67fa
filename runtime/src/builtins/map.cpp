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

#include "../core/gc.h"
#include "../core/heap.h"
#include "map_probe.h"
#include "../core/trap.h"

using namespace wo::map_probe;

namespace {

// `key 42` or `key "bob"` for a KEY trap's extra line (runtime/src/core/backtrace.h):
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

void map_destroy(void* self) {
  auto* m = static_cast<WoMap*>(self);
  for (int64_t i = 0; i < m->used; ++i) {
    WoMapEntry& e = m->entries[i];
    if (e.hash == kDead) continue;
    drop_key(m, e.key);
    drop_val(m, e.val);
  }
  // Counted against WO_HEAP_MB by their sizes (core/heap_cap.h): cap entries, an
  // index of index_mask + 1 slots (none while index_mask is -1).
  wo::sized_free(m->entries, static_cast<size_t>(m->cap) * sizeof(WoMapEntry));
  wo::sized_free(m->index, static_cast<size_t>(m->index_mask + 1) * sizeof(uint32_t));
}

// Fills a fresh (zeroed) index of size mask + 1 from the live entries,
// which must have no holes.
void fill_index(WoMap* m, uint32_t* index, int64_t mask) {
  for (int64_t n = 0; n < m->used; ++n) {
    auto i = m->entries[n].hash & static_cast<uint64_t>(mask);
    while (index[i] != kEmpty) i = (i + 1) & static_cast<uint64_t>(mask);
    index[i] = static_cast<uint32_t>(n + 1);
  }
  wo::sized_free(m->index, static_cast<size_t>(m->index_mask + 1) * sizeof(uint32_t));
  m->index = index;
  m->index_mask = mask;
}

uint32_t* new_index(int64_t size) {
  return static_cast<uint32_t*>(wo::sized_calloc(static_cast<size_t>(size), sizeof(uint32_t)));
}

// Squeezes the holes out of the entry vector (order kept).
void squeeze(WoMap* m) {
  m->hint = 0;  // entry numbers change
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


// The live entry at position i (0-based, insertion order), or a BOUNDS trap.
WoMapEntry& entry_at(WoMap* m, int64_t i, const WoSite* site) {
  wo::need(m, site);
  if (static_cast<uint64_t>(i) >= static_cast<uint64_t>(m->len)) [[unlikely]]
    wo::raise(6, site, "map index out of range", wo::index_detail(i, m->len));
  if (m->used != m->len) compact(m);
  return m->entries[i];
}

}  // namespace

// Out of line: growing is rare (map_probe.h).
void wo::map_probe::make_room(WoMap* m, uint64_t pending) {
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
  void* entries = index ? wo::sized_realloc(m->entries, static_cast<size_t>(m->cap) * sizeof(WoMapEntry),
                                             static_cast<size_t>(cap) * sizeof(WoMapEntry))
                        : nullptr;
  if (!entries) {
    wo::sized_free(index, static_cast<size_t>(size) * sizeof(uint32_t));
    drop_val(m, pending);
    wo::raise_oom();
  }
  m->entries = static_cast<WoMapEntry*>(entries);
  m->cap = cap;
  squeeze(m);
  fill_index(m, index, size - 1);
}

// wo_map_set past the hint (inline/helpers.cpp): hash, probe, replace or append.
void wo::map_probe::set_probed(WoMap* m, uint64_t key, uint64_t val) {
  uint64_t h = hash_key(m, key);
  Found f = m->len ? find(m, key, h) : Found{};
  if (f.entry >= 0) {
    WoMapEntry& e = m->entries[f.entry];
    uint64_t old = e.val;
    e.val = val;
    drop_val(m, old);
    return;
  }
  if (m->used == m->cap) [[unlikely]]
    make_room(m, val);
  if (text_keys(m)) wo_retain(reinterpret_cast<void*>(key));
  int64_t n = m->used++;
  m->entries[n] = WoMapEntry{key, val, h};
  auto mask = static_cast<uint64_t>(m->index_mask);
  uint64_t i = h & mask;
  while (m->index[i] != kEmpty && m->index[i] != kTomb) i = (i + 1) & mask;
  m->index[i] = static_cast<uint32_t>(n + 1);
  ++m->len;
}

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

// wo_map_has, wo_map_get_opt, wo_map_find and wo_map_set: inline/helpers.cpp.

uint64_t wo_map_get(WoMap* m, uint64_t key, const WoSite* site) {
  wo::need(m, site);
  Found f = lookup(m, key);
  if (f.entry < 0) [[unlikely]]
    wo::raise(7, site, nullptr, key_detail(m, key));
  m->hint = f.entry + 1;
  return m->entries[f.entry].val;
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
