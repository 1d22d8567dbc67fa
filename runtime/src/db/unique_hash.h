// The hash side of a unique index: open addressing with linear probing over
// flat (hash, id, short key) slots, 32 bytes each. A key that fits is
// stored and compared in its slot; a longer one is confirmed by the caller
// against the row's own key (Table::unique_find), so a probe touches one
// slot run and, for long keys, the row it answers with. The std::unordered_map of
// key strings it replaces cost a node allocation per row and two dependent
// cache misses per probe (docs/perf/store-lang.md).
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string_view>
#include <utility>

#include "boot_memory.h"

namespace wo::db {

// The hash of an encoded index key (key.h); never 0 (0 marks an empty slot).
inline uint64_t key_hash(std::string_view k) {
  uint64_t h = 0x9E3779B97F4A7C15u ^ (k.size() * 0xC2B2AE3D27D4EB4Fu);
  size_t i = 0;
  for (; i + 8 <= k.size(); i += 8) {
    uint64_t w;
    __builtin_memcpy(&w, k.data() + i, 8);
    h = (h ^ w) * 0xFF51AFD7ED558CCDu;
    h ^= h >> 32;
  }
  uint64_t w = 0;  // the tail, little-endian (as a memcpy into w): a loop, not a memcpy call
  for (size_t j = 0; i + j < k.size(); ++j) w |= uint64_t{static_cast<uint8_t>(k[i + j])} << (8 * j);
  h = (h ^ w) * 0xC4CEB9FE1A85EC53u;
  h ^= h >> 29;
  h *= 0xFF51AFD7ED558CCDu;
  h ^= h >> 32;
  return h ? h : 1;
}

class UniqueHash {
 public:
  // Keys of up to kInline bytes (every Int-shaped or Float key and short
  // Texts) are kept in their slot and confirmed there; a longer one is
  // confirmed by same(id) against the row.
  static constexpr size_t kInline = 15;

  // The id of the entry with hash `h` and key `key` (same(id) confirms a
  // key not held in its slot), or 0.
  template <class Same>
  int64_t find(uint64_t h, std::string_view key, Same&& same) const {
    if (slots_.empty()) return 0;
    for (size_t i = h & mask_;; i = (i + 1) & mask_) {
      const Slot& s = slots_[i];
      if (s.h == 0) return 0;
      if (s.h == h && s.id > 0 &&
          (s.len == kLong ? same(s.id) : s.len == key.size() && std::memcmp(s.k, key.data(), s.len) == 0))
        return s.id;
    }
  }
  // Adds (h, id) with its key; grows first, so an allocation failure
  // changes nothing.
  void insert(uint64_t h, int64_t id, std::string_view key) {
    if ((used_ + 1) * 4 > slots_.size() * 3) grow();
    size_t i = h & mask_;
    while (slots_[i].h != 0 && slots_[i].id > 0) i = (i + 1) & mask_;
    if (slots_[i].h == 0) used_++;  // a reused tombstone was counted already
    fill(slots_[i], h, id, key);
    live_++;
  }
  // Adds (h, id) with `key` unless an entry with that key is there already
  // (same(id) confirms a key not held in its slot), in one probe where find
  // then insert take two (boot's bulk build, bulk_index.cpp). The id of the
  // entry found, or 0 once added.
  template <class Same>
  int64_t insert_new(uint64_t h, int64_t id, std::string_view key, Same&& same) {
    if ((used_ + 1) * 4 > slots_.size() * 3) grow();
    size_t hole = SIZE_MAX;  // the first tombstone of the run, reused as insert does
    size_t i = h & mask_;
    for (;; i = (i + 1) & mask_) {
      const Slot& s = slots_[i];
      if (s.h == 0) break;
      if (s.id <= 0) {
        if (hole == SIZE_MAX) hole = i;
      } else if (s.h == h &&
                 (s.len == kLong ? same(s.id) : s.len == key.size() && std::memcmp(s.k, key.data(), s.len) == 0)) {
        return s.id;
      }
    }
    if (hole != SIZE_MAX)
      i = hole;
    else
      used_++;
    fill(slots_[i], h, id, key);
    live_++;
    return 0;
  }
  // Boot's build on two threads (bulk_index.cpp): into a table sized once
  // by reserve_empty (so it never grows and has no tombstones), each thread
  // adds the keys whose probe starts in its part [lo, hi) of the slots, and
  // only there: a probe that would leave the part changes nothing and
  // answers kSpill (that key is added afterwards with insert_new). Else as
  // insert_new, except that the counts are settled once by bulk_added.
  static constexpr int64_t kSpill = -1;
  size_t capacity() const { return slots_.size(); }
  size_t home(uint64_t h) const { return h & mask_; }
  template <class Same>
  int64_t bulk_insert(size_t hi, uint64_t h, int64_t id, std::string_view key, Same&& same) {
    for (size_t i = h & mask_; i < hi; ++i) {
      Slot& s = slots_[i];
      if (s.h == 0) {
        fill(s, h, id, key);
        return 0;
      }
      if (s.h == h && (s.len == kLong ? same(s.id) : s.len == key.size() && std::memcmp(s.k, key.data(), s.len) == 0))
        return s.id;
    }
    return kSpill;
  }
  void bulk_added(size_t n) {
    used_ += n;
    live_ += n;
  }
  // Removes (h, id) if present.
  void erase(uint64_t h, int64_t id) {
    if (slots_.empty()) return;
    for (size_t i = h & mask_;; i = (i + 1) & mask_) {
      Slot& s = slots_[i];
      if (s.h == 0) return;
      if (s.h == h && s.id == id) {
        s.id = -1;  // a tombstone keeps later entries of the run reachable
        live_--;
        return;
      }
    }
  }
  // Starts loading the slot where a probe for `h` begins (bulk_index.cpp
  // hashes a few rows ahead of inserting them: boot was a cache miss per row).
  void prefetch(uint64_t h) const {
    if (!slots_.empty()) __builtin_prefetch(&slots_[h & mask_]);
  }
  // Sizes an empty table for `n` entries, so they go in without a rebuild
  // (boot knows the row count before it builds the index; bulk_index.cpp).
  void reserve_empty(size_t n) {
    if (!slots_.empty()) return;
    size_t cap = 16;
    while (cap < (n + 1) * 2) cap *= 2;  // as grow() leaves it: at most half full
    Slots fresh(cap);  // zero: untouched until the slots are filled
    slots_.swap(fresh);
    mask_ = cap - 1;
  }
  size_t size() const { return live_; }
  void clear() {
    slots_.clear();
    mask_ = 0;
    used_ = live_ = 0;
  }

 private:
  static constexpr uint8_t kLong = 0xFF;
  // 32 bytes: a probe that finds its key in the slot touches no row (the
  // row's page pointer, the row and its Text were three more dependent
  // cache misses per unique-key lookup, docs/perf/store-lang.md).
  struct Slot {
    uint64_t h;   // 0: empty (never used)
    int64_t id;   // > 0: live; -1: erased
    uint8_t len;  // the key's length when held in k, else kLong
    char k[kInline];
  };  // all zero: empty
  static_assert(sizeof(Slot) == 32, "a slot is 32 bytes");
  // The slots, zeroed when allocated: from 2 MiB up a mapping of their own
  // advised huge (huge_map; probes are random over the whole table, and on
  // 4 KiB pages each was a TLB miss besides the cache miss,
  // docs/perf/restart.md), which doubles in place by mremap; below that calloc.
  class Slots {
   public:
    Slots() = default;
    explicit Slots(size_t n) {  // throws bad_alloc
      void* p = mapped(n) ? huge_map(n * sizeof(Slot)) : std::calloc(n, sizeof(Slot));
      if (!p) throw std::bad_alloc();
      p_ = static_cast<Slot*>(p);
      n_ = n;
    }
    ~Slots() { release(); }
    Slots(Slots&& o) noexcept : p_(std::exchange(o.p_, nullptr)), n_(std::exchange(o.n_, 0)) {}
    Slots& operator=(Slots&& o) noexcept {
      if (this != &o) {
        release();
        p_ = std::exchange(o.p_, nullptr);
        n_ = std::exchange(o.n_, 0);
      }
      return *this;
    }
    bool empty() const { return n_ == 0; }
    size_t size() const { return n_; }
    Slot& operator[](size_t i) { return p_[i]; }
    const Slot& operator[](size_t i) const { return p_[i]; }
    const Slot* begin() const { return p_; }
    const Slot* end() const { return p_ + n_; }
    void swap(Slots& o) noexcept {
      std::swap(p_, o.p_);
      std::swap(n_, o.n_);
    }
    void clear() { release(); }
    // Twice the slots, the old ones kept where they were and the new half
    // zero: the mapping's pages move, none is copied. false (nothing
    // changed) when this is no mapping or the remap fails.
    bool double_in_place() {
      if (!mapped(n_)) return false;
      void* p = huge_remap(p_, n_ * sizeof(Slot), 2 * n_ * sizeof(Slot));
      if (!p) return false;
      p_ = static_cast<Slot*>(p);
      n_ *= 2;
      return true;
    }

   private:
    // Capacities are powers of two, so a mapped one is whole 2 MiB pages.
    static bool mapped(size_t n) { return n * sizeof(Slot) >= kHugeFrom; }
    void release() {
      if (!p_) return;
      if (mapped(n_))
        huge_unmap(p_, n_ * sizeof(Slot));
      else
        std::free(p_);
      p_ = nullptr;
      n_ = 0;
    }
    Slot* p_ = nullptr;
    size_t n_ = 0;
  };

  // An empty slot takes (h, id) and the key when it fits inline.
  static void fill(Slot& s, uint64_t h, int64_t id, std::string_view key) {
    s.h = h;
    s.id = id;
    if (key.size() <= kInline) {
      s.len = static_cast<uint8_t>(key.size());
      if (!key.empty()) std::memcpy(s.k, key.data(), key.size());
    } else {
      s.len = kLong;
    }
  }
  void grow() {
    size_t cap = 16;
    while (cap < (live_ + 1) * 2) cap *= 2;  // at most half full after a rebuild
    if (cap == 2 * slots_.size() && slots_.double_in_place()) {
      grow_in_place(cap / 2);
      return;
    }
    Slots next(cap);
    size_t m = cap - 1;
    for (const Slot& s : slots_) {
      if (s.h == 0 || s.id <= 0) continue;
      size_t i = s.h & m;
      while (next[i].h != 0) i = (i + 1) & m;
      next[i] = s;
    }
    slots_.swap(next);
    mask_ = m;
    used_ = live_;
  }
  // Rehashes a table whose slots were just doubled in place (n old ones,
  // n new zero ones) without a second array: a rebuild into a fresh one
  // touched twice the table's memory at each doubling, and first touches of
  // fresh memory are the dearest thing an insert does on this VM (−28% CPU
  // of 2M inserts with the table sized up front, docs/perf/store-lang.md
  // "Through the language, round 5"). An entry's new home is its old one or that plus n.
  // Pass 1 takes the old entries out in probe order, from just after an
  // empty slot, and puts each at the first empty slot from its new home:
  // every slot that probe passes was dealt with already and stays filled, so
  // the entry stays reachable; tombstones go. One probe can run off the end
  // of the table, where wrapping would pass slots not dealt with yet: that
  // entry stays where it was, marked by a negative id (pass 1 leaves no
  // tombstones, so no other id is negative then), and pass 2 (rare) moves each
  // such entry with a backward-shift delete and an ordinary insert.
  void grow_in_place(size_t n) {
    size_t cap = 2 * n;
    mask_ = cap - 1;
    size_t s = 0;
    while (slots_[s].h != 0) ++s;  // the old half is at most 3/4 full: an empty slot
    size_t moving = 0;
    for (size_t k = 1; k <= n; ++k) {
      size_t i = (s + k) & (n - 1);
      Slot e = slots_[i];
      if (e.h == 0) continue;
      slots_[i] = Slot{};
      if (e.id <= 0) continue;  // a tombstone: dropped
      size_t j = e.h & mask_;
      while (j < cap && slots_[j].h != 0) ++j;
      if (j == cap) {  // would wrap: stays put (slot i is still empty: the probe did not reach it)
        e.id = -e.id;
        j = i;
        moving++;
      }
      slots_[j] = e;
    }
    for (size_t q = 0; moving > 0 && q < cap;) {
      if (slots_[q].h == 0 || slots_[q].id > 0) {
        ++q;
        continue;
      }
      Slot e = slots_[q];
      e.id = -e.id;
      moving--;
      // Backward-shift delete at q: an entry after it moves into the hole
      // unless its home lies in (hole, its slot]; slot q is looked at again.
      size_t hole = q;
      for (size_t j = (q + 1) & mask_; slots_[j].h != 0; j = (j + 1) & mask_) {
        size_t home = slots_[j].h & mask_;
        if (((j - home) & mask_) >= ((j - hole) & mask_)) {
          slots_[hole] = slots_[j];
          hole = j;
        }
      }
      slots_[hole] = Slot{};
      size_t j = e.h & mask_;
      while (slots_[j].h != 0) j = (j + 1) & mask_;
      slots_[j] = e;
    }
    used_ = live_;
  }

  Slots slots_;
  size_t mask_ = 0;
  size_t used_ = 0;   // live entries and tombstones
  size_t live_ = 0;
};

}  // namespace wo::db
