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

// From this many rows a unique index is built in two parts (below, the
// spilled keys and a second pass over the rows cost more than they save).
constexpr int64_t kSplitFrom = 65536;

struct Pending {
  std::string key;
  uint64_t h;
  int64_t id;
};

struct Job {
  Table* table;
  TableIndex* index;
  int part;  // a unique index built in two parts: 0 or 1 (its table sized already); -1: whole
  std::vector<Pending> spills;  // a part's keys whose probe left the part, in id order
  size_t added = 0;             // a part's entries
  std::string why;  // a unique key seen twice
  std::exception_ptr error;  // an OOM trap, rethrown on the calling thread
};

// A unique index's hash table, sized from the row count: whole, or the
// keys whose probe starts in one half of the slots (the other half is the
// other thread's; UniqueHash::bulk_insert). Each row's slot is prefetched
// kAhead rows before the row goes in (first-in first-out, so of two rows
// with one key the later one is the one reported).
void build_unique(Job& j) {
  constexpr size_t kAhead = 8;
  Table& t = *j.table;
  TableIndex& ix = *j.index;
  if (j.part < 0) {
    ix.unique.clear();
    ix.unique.reserve_empty(static_cast<size_t>(t.live()));
  }
  size_t cap = ix.unique.capacity();
  size_t lo = j.part == 1 ? cap / 2 : 0, hi = j.part == 0 ? cap / 2 : cap;
  Pending ring[kAhead];
  size_t n = 0;
  bool ok = true;
  std::string key;  // the row's, before it goes into the ring
  // A key not held in its slot is confirmed on the row (as unique_find does).
  std::string other;
  auto same = [&](const std::string& k, int64_t id) {
    const Row* r = t.find(id);
    if (!r) return false;
    if (ix.def->cols.size() == 1) return key_equals(t.def().fields[ix.def->cols[0]], r->slots()[ix.def->cols[0]], k);
    t.key_of(ix, r->slots(), other);
    return other == k;
  };
  auto settle = [&](Pending& p) {
    if (!ok) return;
    auto confirm = [&](int64_t id) { return same(p.key, id); };
    int64_t found;
    if (j.part < 0) {
      found = ix.unique.insert_new(p.h, p.id, p.key, confirm);
    } else {
      found = ix.unique.bulk_insert(hi, p.h, p.id, p.key, confirm);
      if (found == UniqueHash::kSpill) {
        j.spills.push_back(p);
        return;
      }
      if (found == 0) j.added++;
    }
    if (found != 0) {
      j.why = "unique index " + ix.label + " violated (" + t.def().name + " id " + std::to_string(p.id) + ")";
      ok = false;
    }
  };
  t.each([&](int64_t id, Row* r) {
    if (!ok || t.key_has_nil(ix, r->slots())) return;
    Pending& p = ring[n % kAhead];
    t.key_of(ix, r->slots(), key);
    uint64_t h = key_hash(key);
    if (j.part >= 0 && (ix.unique.home(h) < lo || ix.unique.home(h) >= hi)) return;  // the other part's
    if (n >= kAhead) settle(p);
    p.key.swap(key);
    p.h = h;
    p.id = id;
    ix.unique.prefetch(p.h);
    ++n;
  });
  for (size_t i = n > kAhead ? n - kAhead : 0; i < n; ++i) settle(ring[i % kAhead]);
}

// The two parts of a unique index are in: their counts, then the spilled
// keys (few: a probe run crossing the middle or the end) one by one.
void finish_unique(Job& a, Job& b) {
  Table& t = *a.table;
  TableIndex& ix = *a.index;
  ix.unique.bulk_added(a.added + b.added);
  for (Job* j : {&a, &b})
    for (const Pending& p : j->spills) {
      if (!a.why.empty()) return;
      std::string other;
      int64_t found = ix.unique.insert_new(p.h, p.id, p.key, [&](int64_t id) {
        const Row* r = t.find(id);
        if (!r) return false;
        t.key_of(ix, r->slots(), other);
        return other == p.key;
      });
      if (found != 0)
        a.why = "unique index " + ix.label + " violated (" + t.def().name + " id " + std::to_string(p.id) + ")";
    }
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
      build_unique(j);
    else
      build_ordered(*j.table, *j.index);
  } catch (...) {
    j.error = std::current_exception();
  }
}

}  // namespace

bool build_indexes(Store& store, std::string* why) {
  // Shared by this thread and one helper (2 cores is the machine we measure
  // on; more helpers would only contend for memory bandwidth). A large
  // unique index is two jobs (its hash table's halves), listed first: it
  // was the longest job by far, the other thread idle once the rest were done.
  bool two = std::thread::hardware_concurrency() > 1;
  std::vector<Job> jobs, rest;
  for (size_t c = 0; c < store.size(); ++c) {
    Table& t = store.table(static_cast<uint32_t>(c));
    if (t.live() == 0) continue;
    for (TableIndex& ix : t.indexes) {
      if (ix.def->unique && two && t.live() >= kSplitFrom) {
        ix.unique.clear();
        ix.unique.reserve_empty(static_cast<size_t>(t.live()));
        jobs.push_back(Job{&t, &ix, 0, {}, 0, {}, {}});
        jobs.push_back(Job{&t, &ix, 1, {}, 0, {}, {}});
      } else {
        rest.push_back(Job{&t, &ix, -1, {}, 0, {}, {}});
      }
    }
  }
  size_t parts = jobs.size();
  for (Job& j : rest) jobs.push_back(std::move(j));
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i; (i = next.fetch_add(1)) < jobs.size();) run(jobs[i]);
  };
  std::thread helper;
  if (jobs.size() > 1 && two) {
    try {
      helper = std::thread(work);
    } catch (const std::system_error&) {  // no thread: this one does it all
    }
  }
  work();
  if (helper.joinable()) helper.join();
  for (const Job& j : jobs)
    if (j.error) std::rethrow_exception(j.error);
  for (size_t i = 0; i < parts; i += 2)
    if (jobs[i].why.empty() && jobs[i + 1].why.empty()) finish_unique(jobs[i], jobs[i + 1]);
  for (const Job& j : jobs)
    if (!j.why.empty()) {
      *why = j.why;
      return false;
    }
  return true;
}

}  // namespace wo::db
