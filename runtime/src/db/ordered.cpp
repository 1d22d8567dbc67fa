// Sorted chunks (see ordered.h).
#include "ordered.h"

#include <algorithm>

namespace wo::db {

size_t OrderedIndex::chunk_for(std::string_view key, int64_t id) const {
  size_t lo = 0, hi = chunks_.size();
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (entry_less(fences_[mid], key, id)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

OrderedIndex::It OrderedIndex::lower_bound(std::string_view key, int64_t id) const {
  size_t c = chunk_for(key, id);
  if (c == chunks_.size()) return end();
  const Chunk& v = *chunks_[c];
  auto it = std::lower_bound(v.begin(), v.end(), 0, [&](const IndexEntry& e, int) { return entry_less(e, key, id); });
  return It(this, c, static_cast<size_t>(it - v.begin()));
}

void OrderedIndex::insert(std::string key, int64_t id) {
  if (chunks_.empty()) {
    fences_.reserve(1);
    chunks_.push_back(std::make_unique<Chunk>());
    chunks_.back()->push_back(IndexEntry{key, id});
    fences_.push_back(IndexEntry{std::move(key), id});
    return;
  }
  size_t c = std::min(chunk_for(key, id), chunks_.size() - 1);
  Chunk& v = *chunks_[c];
  auto at = std::lower_bound(v.begin(), v.end(), 0, [&](const IndexEntry& e, int) { return entry_less(e, key, id); });
  bool last = at == v.end();
  if (v.size() >= kMax) {  // room first (geometric), so the split's inserts below cannot fail
    if (fences_.size() == fences_.capacity()) fences_.reserve(fences_.size() * 2);
    if (chunks_.size() == chunks_.capacity()) chunks_.reserve(chunks_.size() * 2);
  }
  IndexEntry fence = last ? IndexEntry{key, id} : IndexEntry{};
  v.insert(at, IndexEntry{std::move(key), id});
  if (last) fences_[c] = std::move(fence);
  if (v.size() > kMax) {  // split in halves
    auto upper = std::make_unique<Chunk>(std::make_move_iterator(v.begin() + kMax / 2), std::make_move_iterator(v.end()));
    v.resize(kMax / 2);
    fences_.insert(fences_.begin() + static_cast<std::ptrdiff_t>(c), v.back());
    chunks_.insert(chunks_.begin() + static_cast<std::ptrdiff_t>(c) + 1, std::move(upper));
  }
}

void OrderedIndex::erase(std::string_view key, int64_t id) {
  size_t c = chunk_for(key, id);
  if (c == chunks_.size()) return;
  Chunk& v = *chunks_[c];
  auto at = std::lower_bound(v.begin(), v.end(), 0, [&](const IndexEntry& e, int) { return entry_less(e, key, id); });
  if (at == v.end() || at->id != id || at->key != key) return;
  bool last = at + 1 == v.end();
  v.erase(at);
  if (v.empty()) {
    chunks_.erase(chunks_.begin() + static_cast<std::ptrdiff_t>(c));
    fences_.erase(fences_.begin() + static_cast<std::ptrdiff_t>(c));
  } else if (last) {
    fences_[c] = v.back();
  }
}

void OrderedIndex::assign(std::vector<IndexEntry> sorted) {
  clear();
  fences_.reserve(sorted.size() / (kMax / 2) + 1);
  for (size_t i = 0; i < sorted.size(); i += kMax / 2) {
    auto chunk = std::make_unique<Chunk>();
    size_t n = std::min(kMax / 2, sorted.size() - i);
    chunk->reserve(n);
    for (size_t k = 0; k < n; ++k) chunk->push_back(std::move(sorted[i + k]));
    fences_.push_back(chunk->back());
    chunks_.push_back(std::move(chunk));
  }
}

}  // namespace wo::db
