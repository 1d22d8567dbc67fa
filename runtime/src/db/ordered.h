// The ordered side of an index: (key, id) entries in order, kept in sorted
// chunks of at most 64 entries (a two-level B-tree). A range or `order by`
// walk reads contiguous memory instead of chasing one tree node per row
// (std::set made range scans slower than SQLite's), and an insert shifts at
// most one chunk. Each chunk's last entry is also kept in `fences_`, one
// contiguous array, so finding the chunk is a binary search over adjacent
// memory instead of a pointer chase per step (that chase was a third of
// 1M-row inserts through the language, docs/perf/store-lang.md).
//
// Entries are 24 bytes and trivially copyable: a key of up to 12 bytes
// (every Int-shaped or Float key, nullable ones too, and short Texts) is
// stored in the entry, a longer one on the heap, owned by the index. A
// chunk is one fixed array, so an insert shifts it with one memmove; the
// std::string entries this replaces were 40 bytes moved one by one, and
// that shifting was a third of 1M-row inserts (docs/perf/store-lang.md).
//
// Deferred entries (decision 0084): inside a transaction the table store
// hands new entries to defer() instead of insert(). They wait, unsorted, in
// a pending list, and settle() sorts them and merges them in one pass (or
// one by one, in key order, when they are few against what is there). A
// random insert's chunk is a cache miss and a shift; a merge writes each
// chunk once, in order. Only insert, erase and settle see pending entries:
// every reader (begin, lower_bound, walk) must come after a settle(), which
// the store guarantees by settling at commit and before any read inside the
// transaction (Engine::lock_read_settled).
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <memory>
#include <new>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "../store/order.h"
#include "huge.h"

namespace wo::db {

// A (key, id) pair with its key as a std::string: what bulk builds and sorts
// collect (bulk_index.cpp, Table::build_ordered, reads.cpp's sorts); the
// shared one of store/order.h, whose sort_ids_by_key the sorts end with.
using IndexEntry = store::KeyedId;

// An entry of the ordered side.
struct OrdEntry {
  static constexpr uint32_t kInline = 12;
  uint32_t len;
  char b[kInline];   // the key when len <= kInline, else a pointer at b + 4 (owned by the OrderedIndex)
  int64_t id;

  const char* heap() const {
    const char* p;
    std::memcpy(&p, b + 4, sizeof p);
    return p;
  }
  const char* data() const { return len <= kInline ? b : heap(); }
  std::string_view key() const { return std::string_view(data(), len); }
};
static_assert(sizeof(OrdEntry) == 24, "an ordered entry is 24 bytes");

// (key, id) order. Two 8-byte keys (every non-nullable Int-shaped or Float
// column) compare as big-endian words: the same bytewise order without a
// memcmp call, which was a tenth of a range query's time.
inline bool key_id_less(std::string_view a, int64_t aid, std::string_view b, int64_t bid) {
  if (a.size() == 8 && b.size() == 8) {
    uint64_t x, y;
    std::memcpy(&x, a.data(), 8);
    std::memcpy(&y, b.data(), 8);
    x = __builtin_bswap64(x);
    y = __builtin_bswap64(y);
    return x < y || (x == y && aid < bid);
  }
  int c = a.compare(b);
  return c < 0 || (c == 0 && aid < bid);
}
inline bool entry_less(const IndexEntry& e, std::string_view key, int64_t id) {
  return key_id_less(e.key, e.id, key, id);
}
inline bool entry_less(const OrdEntry& e, std::string_view key, int64_t id) {
  return key_id_less(e.key(), e.id, key, id);
}

class OrderedIndex {
  struct Chunk;

 public:
  // What an iterator reads: the key (valid while the entry is in the index)
  // and the id.
  struct View {
    std::string_view key;
    int64_t id;
  };
  class It {
   public:
    struct Arrow {
      View v;
      const View* operator->() const { return &v; }
    };
    using iterator_category = std::bidirectional_iterator_tag;
    using value_type = View;
    using difference_type = std::ptrdiff_t;
    using pointer = Arrow;
    using reference = View;
    It() = default;
    It(const OrderedIndex* s, size_t c, size_t i) : s_(s), c_(c), i_(i) {}
    View operator*() const {
      const OrdEntry& e = s_->chunks_[c_]->e[i_];
      return View{e.key(), e.id};
    }
    Arrow operator->() const { return Arrow{**this}; }
    It& operator++() {
      if (++i_ == s_->chunks_[c_]->n) {
        ++c_;
        i_ = 0;
      }
      return *this;
    }
    It& operator--() {
      if (i_ == 0) i_ = s_->chunks_[--c_]->n;
      --i_;
      return *this;
    }
    bool operator==(const It& o) const { return c_ == o.c_ && i_ == o.i_; }

   private:
    friend class OrderedIndex;
    const OrderedIndex* s_ = nullptr;
    size_t c_ = 0, i_ = 0;
  };

  OrderedIndex() = default;
  ~OrderedIndex() { clear(); }
  OrderedIndex(const OrderedIndex&) = delete;
  OrderedIndex& operator=(const OrderedIndex&) = delete;
  OrderedIndex(OrderedIndex&& o) noexcept
      : arena_(std::move(o.arena_)), chunks_(std::move(o.chunks_)), fences_(std::move(o.fences_)),
        pending_(std::move(o.pending_)), pending_plain_(o.pending_plain_), size_(o.size_) {
    o.forget();
  }
  OrderedIndex& operator=(OrderedIndex&& o) noexcept {
    if (this != &o) {
      clear();
      arena_ = std::move(o.arena_);
      chunks_ = std::move(o.chunks_);
      fences_ = std::move(o.fences_);
      pending_ = std::move(o.pending_);
      pending_plain_ = o.pending_plain_;
      size_ = o.size_;
      o.forget();
    }
    return *this;
  }

  // Entries in order (settled ones), and entries waiting to be merged.
  size_t size() const { return size_; }
  size_t pending() const { return pending_.size(); }

  It begin() const { return It(this, 0, 0); }
  It end() const { return It(this, chunks_.size(), 0); }
  // The first entry >= (key, id).
  It lower_bound(std::string_view key, int64_t id) const;
  // Calls f(entry) for the entries from b up to e (b <= e) in order until f
  // returns false, a chunk at a time: no per-entry iterator checks (a range
  // query's walk).
  template <class F>
  void walk(It b, It e, F&& f) const {
    size_t c = b.c_, i = b.i_;
    while (c < e.c_ || (c == e.c_ && i < e.i_)) {
      const Chunk& v = *chunks_[c];
      // The next chunk lies elsewhere (no hardware prefetcher follows the
      // walk there): ask for its first lines while this one is read.
      if (c + 1 < e.c_ || (c + 1 == e.c_ && e.i_ > 0)) {
        const char* next = reinterpret_cast<const char*>(chunks_[c + 1]);
        for (size_t b = 0; b < 1024; b += 64) __builtin_prefetch(next + b);
      }
      size_t stop = c == e.c_ ? e.i_ : v.n;
      for (; i < stop; ++i)
        if (!f(v.e[i])) return;
      ++c;
      i = 0;
    }
  }
  void insert(std::string_view key, int64_t id);   // (key, id) must be absent; all or nothing
  // The same, but the entry waits in the pending list until settle(); all
  // or nothing. Readers must not run while entries are pending.
  void defer(std::string_view key, int64_t id);
  // Merges the pending entries in. All or nothing as far as the index's
  // content goes: on an allocation failure (a trap), what was not merged is
  // still pending and everything else is as it was.
  void settle();
  // Starts loading the chunk an insert of (key, id) lands in, without
  // waiting for it (Table::prefetch_insert).
  void prefetch(std::string_view key, int64_t id) const;
  // Removes (key, id), settled or pending; allocates nothing (transaction
  // undo runs it, newest entry first: a pending one is found at the end).
  void erase(std::string_view key, int64_t id);
  // Replaces the content with `sorted` entries (ascending, distinct).
  void assign(std::vector<IndexEntry> sorted);
  // The same with the `n` entries given one by one in order, next() ->
  // std::pair<std::string_view, int64_t> (the key needs to live only until
  // the next call): a bulk build that never holds them all as strings.
  template <class Next>
  void assign_from(size_t n, Next&& next) {
    clear();
    size_ = n;
    size_t half = kMax / 2;  // half full: room for inserts before a split
    fences_.reserve(n / half + 1);
    chunks_.reserve(n / half + 1);
    try {
      for (size_t i = 0; i < n; i += half) {
        chunks_.push_back(new_chunk());  // first, so clear() frees what a trap leaves
        Chunk& v = *chunks_.back();
        size_t m = std::min(half, n - i);
        for (size_t k = 0; k < m; ++k) {
          auto [key, id] = next();
          v.e[k] = make_entry(key, id);
          v.n = static_cast<uint32_t>(k + 1);
        }
        fences_.push_back(v.e[m - 1]);
      }
    } catch (...) {
      clear();
      throw;
    }
  }
  void clear();

 private:
  // 64: a random insert loads its whole chunk (1.5 KiB) and shifts half of
  // it; 128-entry chunks moved twice that, and a 2M-insert run spent 19%
  // more user time (docs/perf/store-lang.md, "round 5"), more than
  // the extra splits (fences_ shifts stay in cache) and range hops cost.
  static constexpr size_t kMax = 64;
  struct Chunk {
    uint32_t n = 0;
    OrdEntry e[kMax + 1];  // one spare: an insert into a full chunk lands before the split
  };
  static OrdEntry make_entry(std::string_view key, int64_t id);  // heap copy of a long key; throws bad_alloc
  static void free_entry(const OrdEntry& e) {
    if (e.len > OrdEntry::kInline) std::free(const_cast<char*>(e.heap()));
  }
  void forget() {  // after a move: owns nothing
    chunks_.clear();
    fences_.clear();
    pending_.clear();
    pending_plain_ = true;
    size_ = 0;
  }
  void place(const OrdEntry& x);  // insert's work on an entry made already (ownership moves in on success)
  void sort_pending();            // (key, id) order, allocating only scratch space
  void merge_pending();           // a new set of chunks from the old ones and the sorted pending list
  size_t chunk_for(std::string_view key, int64_t id) const;  // first chunk whose last entry >= (key, id)
  static size_t in_chunk(const Chunk& v, std::string_view key, int64_t id);  // first entry >= (key, id)
  Chunk* new_chunk() { return new (arena_.alloc()) Chunk; }  // traps OOM
  // Chunks live in the index's arena (huge.h): on 2 MiB pages, a random
  // insert's or range's chunk is not also a TLB miss.
  BlockArena arena_{sizeof(Chunk)};
  std::vector<Chunk*> chunks_;                  // each non-empty, in order, in arena_
  std::vector<OrdEntry> fences_;                // fences_[c] == chunks_[c]->e[n - 1] (a copy, not an owner)
  mutable size_t hint_ = 0;                     // the chunk the last prefetch() found (insert checks it)
  std::vector<OrdEntry> pending_;               // defer()red entries, owned, in arrival order
  bool pending_plain_ = true;                   // every pending key is 8 bytes: radix sort applies
  size_t size_ = 0;                             // entries in chunks_
};

}  // namespace wo::db
