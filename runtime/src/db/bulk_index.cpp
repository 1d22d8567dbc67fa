// Index building in bulk (see bulk_index.h).
#include "bulk_index.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <string_view>
#include <exception>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

#include "boot_memory.h"

namespace wo::db {
namespace {

struct Job {
  Table* table;
  TableIndex* index;
  std::string why;  // a unique key seen twice
  std::exception_ptr error;  // an OOM trap, rethrown on the calling thread
};

// A unique index's hash table, sized from the row count. Each row's slot is
// prefetched kAhead rows before the row goes in (first-in first-out, so of
// two rows with one key the later one is the one reported).
void build_unique(Table& t, TableIndex& ix, std::string* why) {
  constexpr size_t kAhead = 8;
  struct Pending {
    std::string key;
    uint64_t h;
    int64_t id;
  };
  ix.unique.clear();
  ix.unique.reserve_empty(static_cast<size_t>(t.live()));
  Pending ring[kAhead];
  size_t n = 0;
  bool ok = true;
  // A key not held in its slot is confirmed on the row (as unique_find does).
  std::string other;
  auto same = [&](const std::string& key, int64_t id) {
    const Row* r = t.find(id);
    if (!r) return false;
    if (ix.def->cols.size() == 1) return key_equals(t.def().fields[ix.def->cols[0]], r->slots()[ix.def->cols[0]], key);
    t.key_of(ix, r->slots(), other);
    return other == key;
  };
  auto settle = [&](const Pending& p) {
    if (!ok) return;
    if (ix.unique.insert_new(p.h, p.id, p.key, [&](int64_t id) { return same(p.key, id); }) != 0) {
      *why = "unique index " + ix.label + " violated (" + t.def().name + " id " + std::to_string(p.id) + ")";
      ok = false;
    }
  };
  t.each([&](int64_t id, Row* r) {
    if (!ok || t.key_has_nil(ix, r->slots())) return;
    Pending& p = ring[n % kAhead];
    if (n >= kAhead) settle(p);
    t.key_of(ix, r->slots(), p.key);
    p.h = key_hash(p.key);
    p.id = id;
    ix.unique.prefetch(p.h);
    ++n;
  });
  for (size_t i = n > kAhead ? n - kAhead : 0; i < n; ++i) settle(ring[i % kAhead]);
}

// Whether every key of `ix` is 8 bytes that compare as one big-endian word:
// a single non-nullable column of an Int-shaped kind or Float (key.h).
bool word_keys(const Table& t, const TableIndex& ix) {
  if (ix.def->cols.size() != 1) return false;
  const Field& f = t.def().fields[ix.def->cols[0]];
  return !f.nullable && !is_blob(f.kind);
}

// Sorts (key, id) pairs given in id order by key, ties kept in id order: a
// least-significant-digit radix sort by bytes, skipping the bytes every key
// shares (an id-like or small Int column varies in two or three of eight).
// Four passes over 16-byte pairs instead of std::sort's ~20 comparisons
// per entry.
struct WordRef {
  uint64_t key;
  int64_t id;
};
using WordRefs = std::vector<WordRef, HugeAllocator<WordRef>>;

void radix_sort(WordRefs& a) {
  size_t count[8][256] = {};
  for (const WordRef& r : a)
    for (int b = 0; b < 8; ++b) count[b][r.key >> (8 * b) & 0xFF]++;
  WordRefs tmp;
  for (int b = 0; b < 8; ++b) {
    if (count[b][a.empty() ? 0 : a[0].key >> (8 * b) & 0xFF] == a.size()) continue;  // one value: order kept
    if (tmp.empty()) tmp.resize(a.size());
    size_t at[256];
    for (size_t v = 0, sum = 0; v < 256; ++v) {
      at[v] = sum;
      sum += count[b][v];
    }
    for (const WordRef& r : a) tmp[at[r.key >> (8 * b) & 0xFF]++] = r;
    a.swap(tmp);
  }
}

// The ordered side of a secondary index of word keys (word_keys): the keys
// are collected as integers, radix-sorted, and written into the chunks with
// no string per entry (the general path below held 1M keys as strings
// twice: 80 MB of fresh memory, which costs here more than the sort).
void build_ordered_words(Table& t, TableIndex& ix) {
  WordRefs refs;
  refs.reserve(static_cast<size_t>(t.live()));
  std::string key;
  t.each([&](int64_t id, Row* r) {
    t.key_of(ix, r->slots(), key);
    uint64_t w;
    std::memcpy(&w, key.data(), 8);
    refs.push_back(WordRef{__builtin_bswap64(w), id});
  });
  radix_sort(refs);
  size_t i = 0;
  char b[8];
  ix.ordered.assign_from(refs.size(), [&] {
    const WordRef& r = refs[i++];
    uint64_t w = __builtin_bswap64(r.key);
    std::memcpy(b, &w, 8);
    return std::pair<std::string_view, int64_t>(std::string_view(b, 8), r.id);
  });
  ix.ordered_ready = true;
}

// The ordered side of a secondary index: every (key, id) in one sort. The
// entries are collected in id order and sorted as (8-byte key prefix, slot)
// pairs, so almost every comparison is one integer compare on 16 contiguous
// bytes (sorting the entries themselves was a memcmp and a 40-byte move per
// step); full keys are compared only when their prefixes tie, and equal keys
// keep id order because slots are in id order.
void build_ordered(Table& t, TableIndex& ix) {
  if (word_keys(t, ix)) return build_ordered_words(t, ix);
  std::vector<IndexEntry> all;
  all.reserve(static_cast<size_t>(t.live()));
  t.each([&](int64_t id, Row* r) {
    all.push_back(IndexEntry{{}, id});
    t.key_of(ix, r->slots(), all.back().key);
  });
  struct Ref {
    uint64_t prefix;  // the key's first 8 bytes, big-endian, zero-padded
    size_t slot;
  };
  std::vector<Ref, HugeAllocator<Ref>> refs(all.size());
  for (size_t i = 0; i < all.size(); ++i) {
    unsigned char b[8] = {};
    std::memcpy(b, all[i].key.data(), std::min<size_t>(8, all[i].key.size()));
    uint64_t p = 0;
    for (unsigned char c : b) p = p << 8 | c;
    refs[i] = Ref{p, i};
  }
  std::sort(refs.begin(), refs.end(), [&](const Ref& a, const Ref& b) {
    if (a.prefix != b.prefix) return a.prefix < b.prefix;
    int c = std::string_view(all[a.slot].key).compare(all[b.slot].key);
    return c < 0 || (c == 0 && a.slot < b.slot);
  });
  size_t i = 0;
  ix.ordered.assign_from(refs.size(), [&] {
    const IndexEntry& e = all[refs[i++].slot];
    return std::pair<std::string_view, int64_t>(e.key, e.id);
  });
  ix.ordered_ready = true;
}

void run(Job& j) {
  try {
    if (j.index->def->unique)
      build_unique(*j.table, *j.index, &j.why);
    else
      build_ordered(*j.table, *j.index);
  } catch (...) {
    j.error = std::current_exception();
  }
}

}  // namespace

bool build_indexes(Store& store, std::string* why) {
  std::vector<Job> jobs;
  for (size_t c = 0; c < store.size(); ++c) {
    Table& t = store.table(static_cast<uint32_t>(c));
    if (t.live() == 0) continue;
    for (TableIndex& ix : t.indexes) jobs.push_back(Job{&t, &ix, {}, {}});
  }
  // Shared by this thread and one helper (2 cores is the machine we measure
  // on; more helpers would only contend for memory bandwidth).
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i; (i = next.fetch_add(1)) < jobs.size();) run(jobs[i]);
  };
  std::thread helper;
  if (jobs.size() > 1 && std::thread::hardware_concurrency() > 1) {
    try {
      helper = std::thread(work);
    } catch (const std::system_error&) {  // no thread: this one does it all
    }
  }
  work();
  if (helper.joinable()) helper.join();
  for (const Job& j : jobs)
    if (j.error) std::rethrow_exception(j.error);
  for (const Job& j : jobs)
    if (!j.why.empty()) {
      *why = j.why;
      return false;
    }
  return true;
}

}  // namespace wo::db
