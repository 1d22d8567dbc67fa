// The ordered side of an index: (key, id) entries in order, kept in sorted
// chunks of at most 128 entries (a two-level B-tree). A range or `order by`
// walk reads contiguous memory instead of chasing one tree node per row
// (std::set made range scans slower than SQLite's), and an insert shifts at
// most one chunk. Each chunk's last entry is also kept in `fences_`, one
// contiguous array, so finding the chunk is a binary search over adjacent
// memory instead of a pointer chase per step (that chase was a third of
// 1M-row inserts through the language, docs/perf.md).
#pragma once
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace wo::db {

struct IndexEntry {
  std::string key;
  int64_t id;
};

// (key, id) order. Two 8-byte keys (every non-nullable Int-shaped or Float
// column) compare as big-endian words: the same bytewise order without a
// memcmp call, which was a tenth of a range query's time.
inline bool entry_less(const IndexEntry& e, std::string_view key, int64_t id) {
  if (e.key.size() == 8 && key.size() == 8) {
    uint64_t a, b;
    __builtin_memcpy(&a, e.key.data(), 8);
    __builtin_memcpy(&b, key.data(), 8);
    a = __builtin_bswap64(a);
    b = __builtin_bswap64(b);
    return a < b || (a == b && e.id < id);
  }
  int c = std::string_view(e.key).compare(key);
  return c < 0 || (c == 0 && e.id < id);
}

class OrderedIndex {
 public:
  class It {
   public:
    using iterator_category = std::bidirectional_iterator_tag;
    using value_type = IndexEntry;
    using difference_type = std::ptrdiff_t;
    using pointer = const IndexEntry*;
    using reference = const IndexEntry&;
    It() = default;
    It(const OrderedIndex* s, size_t c, size_t i) : s_(s), c_(c), i_(i) {}
    reference operator*() const { return s_->chunks_[c_]->at(i_); }
    pointer operator->() const { return &**this; }
    It& operator++() {
      if (++i_ == s_->chunks_[c_]->size()) {
        ++c_;
        i_ = 0;
      }
      return *this;
    }
    It& operator--() {
      if (i_ == 0) i_ = s_->chunks_[--c_]->size();
      --i_;
      return *this;
    }
    bool operator==(const It& o) const { return c_ == o.c_ && i_ == o.i_; }

   private:
    friend class OrderedIndex;
    const OrderedIndex* s_ = nullptr;
    size_t c_ = 0, i_ = 0;
  };

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
      size_t stop = c == e.c_ ? e.i_ : v.size();
      for (; i < stop; ++i)
        if (!f(v[i])) return;
      ++c;
      i = 0;
    }
  }
  void insert(std::string key, int64_t id);   // (key, id) must be absent
  void erase(std::string_view key, int64_t id);
  // Replaces the content with `sorted` entries (ascending, distinct).
  void assign(std::vector<IndexEntry> sorted);
  void clear() {
    chunks_.clear();
    fences_.clear();
  }

 private:
  using Chunk = std::vector<IndexEntry>;
  static constexpr size_t kMax = 128;
  size_t chunk_for(std::string_view key, int64_t id) const;  // first chunk whose last entry >= (key, id)
  std::vector<std::unique_ptr<Chunk>> chunks_;              // each non-empty, in order
  std::vector<IndexEntry> fences_;                          // fences_[c] == chunks_[c]->back()
};

}  // namespace wo::db
