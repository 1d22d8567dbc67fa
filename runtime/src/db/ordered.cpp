// Sorted chunks (see ordered.h).
#include "ordered.h"

#include <algorithm>
#include <climits>

#include "../core/heap.h"
#include "../core/trap.h"

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
  for (const OrdEntry& e : pending_) free_entry(e);
  chunks_.clear();
  fences_.clear();
  pending_.clear();
  pending_plain_ = true;
  size_ = 0;
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
  OrdEntry x = make_entry(key, id);
  try {
    place(x);
  } catch (...) {
    free_entry(x);
    throw;
  }
}

void OrderedIndex::place(const OrdEntry& x) {
  // Everything that can fail first (a chunk, room in the two arrays), so a
  // failure changes nothing.
  std::string_view key = x.key();
  int64_t id = x.id;
  {
    if (chunks_.empty()) {
      fences_.reserve(1);
      chunks_.reserve(1);
      chunks_.push_back(new_chunk());
      Chunk& v = *chunks_.back();
      v.e[0] = x;
      v.n = 1;
      fences_.push_back(x);
      size_ = 1;
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
    size_++;
  }
}

void OrderedIndex::erase(std::string_view key, int64_t id) {
  for (size_t i = pending_.size(); i-- > 0;) {  // newest first: undo's order
    const OrdEntry& p = pending_[i];
    if (p.id != id || p.key() != key) continue;
    free_entry(p);
    pending_.erase(pending_.begin() + static_cast<std::ptrdiff_t>(i));
    if (pending_.empty()) pending_plain_ = true;
    return;
  }
  size_t c = chunk_for(key, id);
  if (c == chunks_.size()) return;
  Chunk& v = *chunks_[c];
  size_t at = in_chunk(v, key, id);
  if (at == v.n || v.e[at].id != id || v.e[at].key() != key) return;
  free_entry(v.e[at]);
  std::memmove(&v.e[at], &v.e[at + 1], (v.n - at - 1) * sizeof(OrdEntry));
  v.n--;
  size_--;
  if (v.n == 0) {
    arena_.free(chunks_[c]);
    chunks_.erase(chunks_.begin() + static_cast<std::ptrdiff_t>(c));
    fences_.erase(fences_.begin() + static_cast<std::ptrdiff_t>(c));
  } else if (at == v.n) {
    fences_[c] = v.e[v.n - 1];
  }
}

void OrderedIndex::defer(std::string_view key, int64_t id) {
  OrdEntry x = make_entry(key, id);
  try {
    pending_.push_back(x);
  } catch (...) {
    free_entry(x);
    throw;
  }
  if (x.len != 8) pending_plain_ = false;
}

namespace {

// An 8-byte key as the number whose order is the key's bytewise order.
uint64_t key_word(const OrdEntry& e) {
  uint64_t w;
  std::memcpy(&w, e.b, 8);
  return __builtin_bswap64(w);
}

}  // namespace

namespace {

// (key, id) order of entries.
bool entry_before(const OrdEntry& a, const OrdEntry& b) { return entry_less(a, b.key(), b.id); }

// In-place most-significant-byte-first radix sort of entries whose keys are
// all 8 bytes, on key byte `byte` (7 = the most significant) and below; a
// small range, or one down to its last byte, is finished by std::sort on
// (key, id). In place: a scratch array as large as the list would be fresh
// memory, whose first touch cost more than the sort (docs/perf/restart.md).
void radix_sort(OrdEntry* a, size_t n, int byte) {
  while (n > 48 && byte >= 0) {
    size_t count[256] = {};
    int shift = 8 * byte;
    for (size_t i = 0; i < n; ++i) count[(key_word(a[i]) >> shift) & 0xFF]++;
    size_t start[256], next[256], sum = 0;
    for (size_t v = 0; v < 256; ++v) {
      start[v] = next[v] = sum;
      sum += count[v];
    }
    if (count[(key_word(a[0]) >> shift) & 0xFF] == n) {  // every key has this byte
      --byte;
      continue;
    }
    // Cycle leader: each entry goes straight to its bucket's next free place.
    for (size_t v = 0; v < 256; ++v) {
      size_t end = start[v] + count[v];
      while (next[v] < end) {
        OrdEntry x = a[next[v]];
        size_t d = (key_word(x) >> shift) & 0xFF;
        while (d != v) {
          std::swap(x, a[next[d]++]);
          d = (key_word(x) >> shift) & 0xFF;
        }
        a[next[v]++] = x;
      }
    }
    for (size_t v = 0; v < 256; ++v)
      if (count[v] > 1) radix_sort(a + start[v], count[v], byte - 1);
    return;
  }
  std::sort(a, a + n, entry_before);
}

}  // namespace

void OrderedIndex::sort_pending() {
  size_t n = pending_.size();
  if (n < 2) return;
  if (!pending_plain_) {
    std::sort(pending_.begin(), pending_.end(), entry_before);
    return;
  }
  // 8-byte keys (every Int-shaped or Float column): start at the highest
  // byte where any two keys differ, so a million keys below 2^24 take three
  // passes.
  uint64_t first = key_word(pending_[0]), differ = 0;
  for (const OrdEntry& e : pending_) differ |= key_word(e) ^ first;
  if (differ == 0) {  // one key: (key, id) order is id order
    std::sort(pending_.begin(), pending_.end(), [](const OrdEntry& a, const OrdEntry& b) { return a.id < b.id; });
    return;
  }
  radix_sort(pending_.data(), n, (63 - __builtin_clzll(differ)) / 8);
}

void OrderedIndex::settle() {
  if (pending_.empty()) return;
  sort_pending();
  // Few against what is there: one by one, in key order (neighbours share
  // chunks). Else one merge, which writes every entry once.
  if (pending_.size() * 16 < size_) {
    size_t done = 0;
    try {
      for (; done < pending_.size(); ++done) place(pending_[done]);
    } catch (...) {
      pending_.erase(pending_.begin(), pending_.begin() + static_cast<std::ptrdiff_t>(done));
      throw;
    }
    pending_.clear();
  } else {
    merge_pending();
  }
  pending_plain_ = true;
}

void OrderedIndex::merge_pending() {
  // Chunks 7/8 full: a bulk of entries packed close, with room for a few
  // inserts each before a split.
  size_t total = size_ + pending_.size();
  size_t per = kMax - kMax / 8;
  size_t nchunks = (total + per - 1) / per;
  std::vector<Chunk*> fresh;
  std::vector<OrdEntry> fences;
  try {
    fresh.reserve(nchunks);
    fences.reserve(nchunks);
    while (fresh.size() < nchunks) fresh.push_back(new_chunk());
  } catch (...) {
    for (Chunk* c : fresh) arena_.free(c);
    throw;
  }
  // Nothing below allocates. Entries are spread evenly over the chunks.
  size_t oc = 0, oi = 0, pj = 0;
  auto next = [&]() -> const OrdEntry& {
    while (oc < chunks_.size() && oi == chunks_[oc]->n) {
      ++oc;
      oi = 0;
    }
    bool old_left = oc < chunks_.size();
    if (pj == pending_.size() ||
        (old_left && entry_less(chunks_[oc]->e[oi], pending_[pj].key(), pending_[pj].id)))
      return chunks_[oc]->e[oi++];
    return pending_[pj++];
  };
  size_t base = total / nchunks, extra = total % nchunks;
  for (size_t k = 0; k < nchunks; ++k) {
    Chunk& v = *fresh[k];
    size_t m = base + (k < extra ? 1 : 0);
    for (size_t i = 0; i < m; ++i) v.e[i] = next();
    v.n = static_cast<uint32_t>(m);
    fences.push_back(v.e[m - 1]);
  }
  for (Chunk* c : chunks_) arena_.free(c);
  chunks_ = std::move(fresh);
  fences_ = std::move(fences);
  pending_.clear();
  size_ = total;
  hint_ = 0;
}

void OrderedIndex::assign(std::vector<IndexEntry> sorted) {
  size_t i = 0;
  assign_from(sorted.size(), [&] {
    const IndexEntry& e = sorted[i++];
    return std::pair<std::string_view, int64_t>(e.key, e.id);
  });
}

}  // namespace wo::db
