// One class's rows and indexes. Rows are found by id through pages of 256
// slots (ids are dense, so this is an array lookup; a page is freed when its
// last row goes, so a queue-like table does not keep memory for old ids);
// each row is stored in its page's slot.
// Every declared index has an ordered side, (key, id) in order, which serves
// equality probes, ranges and `order by` with ties in id order; a unique
// index has a hash map key -> id for O(1) checks and probes (§1.16, lesson
// 2) and builds its ordered side only when an ordered scan first asks for
// it, so inserts pay one structure per index. Only attach/detach/set in
// store.cpp change rows or indexes.
#pragma once
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "huge.h"
#include "key.h"
#include "ordered.h"
#include "row.h"
#include "model.h"
#include "unique_hash.h"

namespace wo::db {

struct TableIndex {
  const IndexDef* def;
  KeyShape shape = KeyShape::General;  // key.h: how its keys are built
  std::string label;   // `<table>.<field>` or `<table>.(<a>, <b>)`, for the UNIQUE message
  OrderedIndex ordered;
  bool ordered_ready = false;   // maintained (always for non-unique indexes)
  UniqueHash unique;   // unique indexes only: keys without a nil column

  bool covers(uint32_t field) const;
  bool single(uint32_t field) const { return def->cols.size() == 1 && def->cols[0] == field; }
};

// The keys of one row in each index of its table (indexes order), worked
// out once per insert: the prefetch, the unique check and the index entries
// all need them (three encodings and hashes of the same key before).
struct RowKeys {
  std::vector<std::string> key;
  std::vector<uint64_t> hash;  // key_hash(key), for unique indexes whose key has no nil
  std::vector<uint8_t> hashed;  // that hash applies (a unique index, no nil column)
};

class Table {
 public:
  explicit Table(const ClassDef* def);
  ~Table();
  Table(const Table&) = delete;
  Table& operator=(const Table&) = delete;

  const ClassDef& def() const { return *def_; }
  // Whether any field is a ref (an insert or delete without one skips the
  // reference checks and counts).
  bool has_refs() const { return has_refs_; }
  Row* find(int64_t id) const {
    if (id < 1) return nullptr;
    uint64_t i = static_cast<uint64_t>(id - 1);
    size_t p = i >> kPageBits;
    if (p >= pages_.size() || !pages_[p]) return nullptr;
    uint64_t* cell = pages_[p].get() + 1 + (i & kPageMask) * cell_words_;
    return cell[0] ? reinterpret_cast<Row*>(cell + 1) : nullptr;
  }
  // Starts loading row `id`'s slot without waiting for it (no load of the
  // slot itself: find's presence check would wait for the miss).
  void prefetch(int64_t id) const {
    uint64_t i = static_cast<uint64_t>(id - 1);
    size_t p = i >> kPageBits;
    if (id >= 1 && p < pages_.size() && pages_[p]) __builtin_prefetch(pages_[p].get() + 1 + (i & kPageMask) * cell_words_);
  }
  // Copies row `r` (header and slots; its blobs now belong to the table)
  // into the empty slot `id` and returns it there; `r` itself is left to the
  // caller. Traps OOM before changing anything.
  Row* place(int64_t id, const Row* r);
  // place, then frees r's own memory (not its blobs): the table owns the row.
  void put(int64_t id, Row* r);
  // Empties slot `id` (which must be full) without freeing the row's blobs.
  void drop(int64_t id);
  // Empties slot `id` and frees the row's blobs.
  void destroy(int64_t id);
  // A heap copy of row `id` (which must exist), owning nothing until the
  // slot is dropped; traps OOM before changing anything.
  Row* copy_out(int64_t id) const;
  int64_t live() const { return live_; }

  // Calls f(id, row) in ascending id order.
  template <class F>
  void each(F&& f) const {
    for (size_t p = 0; p < pages_.size(); ++p) {
      if (!pages_[p]) continue;
      uint64_t* cell = pages_[p].get() + 1;
      for (uint64_t k = 0; k <= kPageMask; ++k, cell += cell_words_)
        if (cell[0]) f(static_cast<int64_t>((p << kPageBits) + k + 1), reinterpret_cast<Row*>(cell + 1));
    }
  }

  // The key of `slots` in index `ix`; whether a unique check applies to it
  // (a key with a nil column never collides, as NULL in SQL).
  void key_of(const TableIndex& ix, const uint64_t* slots, std::string& out) const;
  bool key_has_nil(const TableIndex& ix, const uint64_t* slots) const;

  // The first unique index on which `slots` collides with a row other than
  // `self` (0: a new row), looking only at indexes covering `field` when
  // field >= 0. NULL when there is none.
  const TableIndex* unique_conflict(const uint64_t* slots, int64_t self, int field = -1) const;

  // Starts loading what inserting `slots` as row `id` will touch in each
  // index (a unique hash's slot, an ordered side's chunk), so that those
  // cache misses overlap instead of following one another (the unique check
  // waited for its slot, then the ordered insert for its chunk).
  void prefetch_insert(const RowKeys& keys, int64_t id) const;

  // Fills `out` with the keys in every index of a row's words: engine words
  // (slots), or the program's ABI words (an insert's values, before the row
  // is built: Engine::insert starts the index misses first).
  void keys_of(const uint64_t* words, RowKeys& out, bool abi = false) const;
  // unique_conflict for a new row whose keys are worked out already.
  const TableIndex* unique_conflict(const RowKeys& keys) const;

  // The id of the row whose key in unique index `ix` is `key` (encoded,
  // key.h; `h` its key_hash), or 0. Candidates are confirmed on their rows.
  int64_t unique_find(const TableIndex& ix, std::string_view key, uint64_t h) const;

  // The index on exactly `field` (a unique one preferred), or NULL.
  const TableIndex* index_on(uint32_t field) const;

  // Builds and from now on maintains the ordered side of `ix`.
  void build_ordered(TableIndex& ix);

  // All indexes, all or nothing; `keys` (keys_of these slots) or NULL.
  void index_add(int64_t id, const uint64_t* slots, const RowKeys* keys = nullptr);
  void index_remove(int64_t id, const uint64_t* slots);  // all indexes
  void index_add_to(TableIndex& ix, int64_t id, const uint64_t* slots);
  void index_remove_from(TableIndex& ix, int64_t id, const uint64_t* slots);
  void index_add_key(TableIndex& ix, int64_t id, std::string_view key, bool hashed, uint64_t h);

  // Merges every index's deferred ordered entries (OrderedIndex::settle;
  // traps OOM with the rest still pending).
  void settle_ordered();

  std::vector<TableIndex> indexes;
  int64_t next_id = 1;
  // While set (a transaction inserts here, Engine::insert), new ordered
  // entries are deferred, not placed; the engine settles them at commit and
  // before any read, and clears this before an abort's undo.
  bool defer_ordered = false;

 private:
  static constexpr unsigned kPageBits = 8;
  static constexpr uint64_t kPageMask = (1u << kPageBits) - 1;
  // A page is one block of words: the count of live rows, then 256 cells of
  // cell_words_ words, each a present flag followed by the Row itself. Rows
  // live in their page, so finding one by id is one dependent load (a page
  // of Row pointers was a cache miss more per lookup, docs/perf/store-lang.md), and an
  // insert allocates no row of its own.
  // Pages come from the table's arena (huge.h: 2 MiB pages, so a random
  // row is not also a TLB miss) and go back to it.
  struct FreePage {
    BlockArena* arena = nullptr;
    void operator()(uint64_t* p) const { arena->free(p); }
  };
  using Page = std::unique_ptr<uint64_t, FreePage>;
  uint64_t* cell(int64_t id) const {
    uint64_t i = static_cast<uint64_t>(id - 1);
    return pages_[i >> kPageBits].get() + 1 + (i & kPageMask) * cell_words_;
  }

  const ClassDef* def_;
  bool has_refs_ = false;
  size_t cell_words_;   // 1 + the row's words (header and slots)
  BlockArena arena_;    // before pages_: they go back to it
  std::vector<Page> pages_;
  int64_t live_ = 0;
};

}  // namespace wo::db
