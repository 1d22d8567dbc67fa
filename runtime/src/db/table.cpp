// Row pages and index maintenance of one class.
#include "table.h"

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "../core/asan_poison.h"
#include "../core/heap.h"
#include "../core/trap.h"

namespace wo::db {

bool TableIndex::covers(uint32_t field) const {
  for (uint32_t c : def->cols)
    if (c == field) return true;
  return false;
}

Table::Table(const ClassDef* def)
    : def_(def), cell_words_(2 + def->fields.size()),
      arena_((1 + (size_t{1} << kPageBits) * cell_words_) * sizeof(uint64_t)) {
  for (const Field& f : def->fields) has_refs_ = has_refs_ || f.kind == Kind::Ref;
  indexes.reserve(def->indexes.size());
  for (const IndexDef& d : def->indexes) {
    TableIndex ix;
    ix.def = &d;
    if (d.cols.size() == 1) ix.shape = key_shape(def->fields[d.cols[0]]);
    ix.ordered_ready = !d.unique;
    ix.label = def->name + ".";
    if (d.cols.size() == 1) {
      ix.label += def->fields[d.cols[0]].name;
    } else {
      ix.label += "(";
      for (size_t i = 0; i < d.cols.size(); ++i) ix.label += (i ? ", " : "") + def->fields[d.cols[i]].name;
      ix.label += ")";
    }
    indexes.push_back(std::move(ix));
  }
}

Table::~Table() {
  each([&](int64_t, Row* r) {
    for (size_t i = 0; i < def_->fields.size(); ++i) word_free(def_->fields[i], r->slots()[i]);
  });
}

Row* Table::place(int64_t id, const Row* r) {
  uint64_t i = static_cast<uint64_t>(id - 1);
  size_t p = i >> kPageBits;
  if (p >= pages_.size()) pages_.resize(p + 1);
  if (!pages_[p]) {  // zeroed: every slot empty, live 0
    pages_[p] = Page(static_cast<uint64_t*>(arena_.alloc()), FreePage{&arena_});
  }
  uint64_t* c = cell(id);
  asan_unpoison(c + 1, (cell_words_ - 1) * sizeof(uint64_t));  // poisoned if its row was dropped
  std::memcpy(c + 1, r, (cell_words_ - 1) * sizeof(uint64_t));
  c[0] = 1;
  pages_[p].get()[0]++;
  live_++;
  return reinterpret_cast<Row*>(c + 1);
}

void Table::put(int64_t id, Row* r) {
  place(id, r);
  std::free(r);
}

void Table::drop(int64_t id) {
  uint64_t i = static_cast<uint64_t>(id - 1);
  uint64_t* c = cell(id);
  std::memset(c, 0, cell_words_ * sizeof(uint64_t));
  // Under ASan the row itself is poisoned until the slot is filled again:
  // every reader checks the present flag first, so only a stale Row* reads
  // it (decision 0077). The page, when this was its last row, goes back to
  // the arena, which poisons it whole.
  asan_poison(c + 1, (cell_words_ - 1) * sizeof(uint64_t));
  live_--;
  if (--pages_[i >> kPageBits].get()[0] == 0) pages_[i >> kPageBits].reset();
}

void Table::destroy(int64_t id) {
  Row* r = find(id);
  for (size_t i = 0; i < def_->fields.size(); ++i) word_free(def_->fields[i], r->slots()[i]);
  drop(id);
}

Row* Table::copy_out(int64_t id) const {
  size_t n = (cell_words_ - 1) * sizeof(uint64_t);
  auto* r = static_cast<Row*>(wo::heap_malloc(n));
  std::memcpy(r, find(id), n);
  return r;
}

void Table::key_of(const TableIndex& ix, const uint64_t* slots, std::string& out) const {
  out.clear();
  for (uint32_t c : ix.def->cols) append_key(out, def_->fields[c], slots[c]);
}

bool Table::key_has_nil(const TableIndex& ix, const uint64_t* slots) const {
  for (uint32_t c : ix.def->cols)
    if (is_nil(def_->fields[c], slots[c])) return true;
  return false;
}

const TableIndex* Table::unique_conflict(const uint64_t* slots, int64_t self, int field) const {
  std::string key;
  for (const TableIndex& ix : indexes) {
    if (!ix.def->unique || (field >= 0 && !ix.covers(static_cast<uint32_t>(field)))) continue;
    if (key_has_nil(ix, slots)) continue;
    key_of(ix, slots, key);
    int64_t at = unique_find(ix, key, key_hash(key));
    if (at != 0 && at != self) return &ix;
  }
  return nullptr;
}

void Table::keys_of(const uint64_t* words, RowKeys& out, bool abi) const {
  size_t n = indexes.size();
  if (out.key.size() != n) {  // kept, with the keys' capacity, for the next row
    out.key.resize(n);
    out.hash.resize(n);
    out.hashed.resize(n);
  }
  const Field* fields = def_->fields.data();
  for (size_t i = 0; i < n; ++i) {
    const TableIndex& ix = indexes[i];
    std::string& key = out.key[i];
    bool nil = false;
    if (!shaped_key(ix.shape, words[ix.def->cols[0]], abi, key)) {
      key.clear();
      for (uint32_t c : ix.def->cols) {
        nil = nil || is_nil(fields[c], words[c]);
        if (abi)
          append_key_abi(key, fields[c], words[c]);
        else
          append_key(key, fields[c], words[c]);
      }
    }
    bool hashed = ix.def->unique && !nil;
    out.hashed[i] = hashed;
    out.hash[i] = hashed ? key_hash(key) : 0;
  }
}

const TableIndex* Table::unique_conflict(const RowKeys& keys) const {
  for (size_t i = 0; i < indexes.size(); ++i)
    if (keys.hashed[i] && unique_find(indexes[i], keys.key[i], keys.hash[i]) != 0) return &indexes[i];
  return nullptr;
}

void Table::prefetch_insert(const RowKeys& keys, int64_t id) const {
  for (size_t i = 0; i < indexes.size(); ++i)  // the slots first: one line each
    if (keys.hashed[i]) indexes[i].unique.prefetch(keys.hash[i]);
  if (defer_ordered) return;  // the entries wait in a list: nothing to load
  for (size_t i = 0; i < indexes.size(); ++i)
    if (indexes[i].ordered_ready) indexes[i].ordered.prefetch(keys.key[i], id);
}

int64_t Table::unique_find(const TableIndex& ix, std::string_view key, uint64_t h) const {
  if (ix.def->cols.size() == 1) {
    const Field& f = def_->fields[ix.def->cols[0]];
    uint32_t c = ix.def->cols[0];
    return ix.unique.find(h, key, [&](int64_t id) {
      const Row* r = find(id);
      return r && key_equals(f, r->slots()[c], key);
    });
  }
  thread_local std::string other;
  return ix.unique.find(h, key, [&](int64_t id) {
    const Row* r = find(id);
    if (!r) return false;
    key_of(ix, r->slots(), other);
    return std::string_view(other) == key;
  });
}

const TableIndex* Table::index_on(uint32_t field) const {
  const TableIndex* best = nullptr;
  for (const TableIndex& ix : indexes)
    if (ix.single(field) && (!best || ix.def->unique)) best = &ix;
  return best;
}

void Table::index_add_to(TableIndex& ix, int64_t id, const uint64_t* slots) {
  std::string key;
  key_of(ix, slots, key);
  bool hashed = ix.def->unique && !key_has_nil(ix, slots);
  index_add_key(ix, id, key, hashed, hashed ? key_hash(key) : 0);
}

void Table::index_add_key(TableIndex& ix, int64_t id, std::string_view key, bool hashed, uint64_t h) {
  if (hashed) {
    ix.unique.insert(h, id, key);
    if (!ix.ordered_ready) return;
  }
  try {
    if (defer_ordered)
      ix.ordered.defer(key, id);
    else
      ix.ordered.insert(key, id);
  } catch (...) {
    if (hashed) ix.unique.erase(h, id);
    throw;
  }
}

void Table::index_remove_from(TableIndex& ix, int64_t id, const uint64_t* slots) {
  std::string key;
  key_of(ix, slots, key);
  if (ix.def->unique && !key_has_nil(ix, slots)) ix.unique.erase(key_hash(key), id);
  if (ix.ordered_ready) ix.ordered.erase(key, id);
}

void Table::build_ordered(TableIndex& ix) {
  std::vector<IndexEntry> all;
  all.reserve(static_cast<size_t>(live_));
  each([&](int64_t id, Row* r) {
    std::string key;
    key_of(ix, r->slots(), key);
    all.push_back(IndexEntry{std::move(key), id});
  });
  std::sort(all.begin(), all.end(), [](const IndexEntry& a, const IndexEntry& b) { return entry_less(a, b.key, b.id); });
  ix.ordered.assign(std::move(all));
  ix.ordered_ready = true;
}

void Table::settle_ordered() {
  for (TableIndex& ix : indexes) ix.ordered.settle();
}

void Table::index_add(int64_t id, const uint64_t* slots, const RowKeys* keys) {
  RowKeys own;  // a row put back by undo: its keys worked out here
  if (!keys) {
    keys_of(slots, own);
    keys = &own;
  }
  size_t done = 0;
  try {
    for (; done < indexes.size(); ++done)
      index_add_key(indexes[done], id, keys->key[done], keys->hashed[done], keys->hash[done]);
  } catch (...) {
    while (done > 0) index_remove_from(indexes[--done], id, slots);
    throw;
  }
}

void Table::index_remove(int64_t id, const uint64_t* slots) {
  for (TableIndex& ix : indexes) index_remove_from(ix, id, slots);
}

}  // namespace wo::db
