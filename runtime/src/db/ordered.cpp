// Sorted chunks (see ordered.h).
#include "ordered.h"

#include <algorithm>
#include <climits>

#include "../heap.h"
#include "../trap.h"

namespace wo::db {

OrdEntry OrderedIndex::make_entry(std::string_view key, int64_t id) {
  OrdEntry e;
  std::memset(&e, 0, sizeof e);
  if (key.size() > UINT32_MAX) raise_oom();  // a key this long cannot be held (nor allocated, in practice)
  e.len = static_cast<uint32_t>(key.size());
  e.id = id;
  if (e.len <= OrdEntry::kInline) {
    if (e.len) std::memcpy(e.b, key.data(), e.len);
  } else {
    char* p = static_cast<char*>(heap_malloc(e.len));
    std::memcpy(p, key.data(), e.len);
    std::memcpy(e.b + 4, &p, sizeof p);
  }
  return e;
}

void OrderedIndex::clear() {
  for (auto& c : chunks_)
    for (uint32_t i = 0; i < c->n; ++i) free_entry(c->e[i]);
  chunks_.clear();
  fences_.clear();
  arena_.release_all();
}

size_t OrderedIndex::chunk_for(std::string_view key, int64_t id) const {
  size_t lo = 0, hi = chunks_.size();
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (entry_less(fences_[mid], key, id)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

size_t OrderedIndex::in_chunk(const Chunk& v, std::string_view key, int64_t id) {
  size_t lo = 0, hi = v.n;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (entry_less(v.e[mid], key, id)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

OrderedIndex::It OrderedIndex::lower_bound(std::string_view key, int64_t id) const {
  size_t c = chunk_for(key, id);
  if (c == chunks_.size()) return end();
  const Chunk& v = *chunks_[c];
  const char* lines = reinterpret_cast<const char*>(&v);  // as in insert: its lines in parallel
  for (size_t b = 0; b < sizeof(Chunk); b += 64) __builtin_prefetch(lines + b);
  return It(this, c, in_chunk(v, key, id));
}

void OrderedIndex::prefetch(std::string_view key, int64_t id) const {
  if (chunks_.empty()) return;
  hint_ = std::min(chunk_for(key, id), chunks_.size() - 1);
  const char* lines = reinterpret_cast<const char*>(chunks_[hint_]);
  for (size_t b = 0; b < sizeof(Chunk); b += 64) __builtin_prefetch(lines + b);
}

void OrderedIndex::insert(std::string_view key, int64_t id) {
  // Everything that can fail first (the key's copy, a chunk, room in the
  // two arrays), so a failure changes nothing.
  OrdEntry x = make_entry(key, id);
  try {
    if (chunks_.empty()) {
      fences_.reserve(1);
      chunks_.reserve(1);
      chunks_.push_back(new_chunk());
      Chunk& v = *chunks_.back();
      v.e[0] = x;
      v.n = 1;
      fences_.push_back(x);
      return;
    }
    // The chunk prefetch() found, if it is still the one (checked against
    // its neighbours' fences); else the search over the fences again.
    size_t c = hint_;
    size_t last = chunks_.size() - 1;
    if (c > last || (c > 0 && !entry_less(fences_[c - 1], key, id)) || (c < last && entry_less(fences_[c], key, id)))
      c = std::min(chunk_for(key, id), last);
    Chunk& v = *chunks_[c];
    // A random key's chunk is rarely in cache: ask for all of its lines at
    // once, so the binary search and the shift below wait for memory about
    // once instead of once per step (those misses were most of an insert).
    const char* lines = reinterpret_cast<const char*>(&v);
    for (size_t b = 0; b < sizeof(Chunk); b += 64) __builtin_prefetch(lines + b);
    Chunk* upper = nullptr;
    if (v.n >= kMax) {  // geometric growth of the arrays, as push_back would
      if (fences_.size() == fences_.capacity()) fences_.reserve(fences_.size() * 2);
      if (chunks_.size() == chunks_.capacity()) chunks_.reserve(chunks_.size() * 2);
      upper = new_chunk();
    }
    size_t at = in_chunk(v, key, id);
    std::memmove(&v.e[at + 1], &v.e[at], (v.n - at) * sizeof(OrdEntry));
    v.e[at] = x;
    v.n++;
    if (at + 1 == v.n) fences_[c] = x;
    if (upper) {  // split in halves
      upper->n = static_cast<uint32_t>(v.n - kMax / 2);
      std::memcpy(upper->e, &v.e[kMax / 2], upper->n * sizeof(OrdEntry));
      v.n = kMax / 2;
      fences_.insert(fences_.begin() + static_cast<std::ptrdiff_t>(c), v.e[v.n - 1]);
      chunks_.insert(chunks_.begin() + static_cast<std::ptrdiff_t>(c) + 1, upper);
    }
  } catch (...) {
    free_entry(x);
    throw;
  }
}

void OrderedIndex::erase(std::string_view key, int64_t id) {
  size_t c = chunk_for(key, id);
  if (c == chunks_.size()) return;
  Chunk& v = *chunks_[c];
  size_t at = in_chunk(v, key, id);
  if (at == v.n || v.e[at].id != id || v.e[at].key() != key) return;
  free_entry(v.e[at]);
  std::memmove(&v.e[at], &v.e[at + 1], (v.n - at - 1) * sizeof(OrdEntry));
  v.n--;
  if (v.n == 0) {
    arena_.free(chunks_[c]);
    chunks_.erase(chunks_.begin() + static_cast<std::ptrdiff_t>(c));
    fences_.erase(fences_.begin() + static_cast<std::ptrdiff_t>(c));
  } else if (at == v.n) {
    fences_[c] = v.e[v.n - 1];
  }
}

void OrderedIndex::assign(std::vector<IndexEntry> sorted) {
  size_t i = 0;
  assign_from(sorted.size(), [&] {
    const IndexEntry& e = sorted[i++];
    return std::pair<std::string_view, int64_t>(e.key, e.id);
  });
}

}  // namespace wo::db
