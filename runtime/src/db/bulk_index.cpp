// Index building in bulk (see bulk_index.h).
#include "bulk_index.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <string_view>
#include <exception>
#include <system_error>
#include <thread>
#include <vector>

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
  auto settle = [&](const Pending& p) {
    if (!ok) return;
    if (t.unique_find(ix, p.key, p.h) != 0) {
      *why = "unique index " + ix.label + " violated (" + t.def().name + " id " + std::to_string(p.id) + ")";
      ok = false;
      return;
    }
    ix.unique.insert(p.h, p.id, p.key);
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

// The ordered side of a secondary index: every (key, id) in one sort. The
// entries are collected in id order and sorted as (8-byte key prefix, slot)
// pairs, so almost every comparison is one integer compare on 16 contiguous
// bytes (sorting the entries themselves was a memcmp and a 40-byte move per
// step); full keys are compared only when their prefixes tie, and equal keys
// keep id order because slots are in id order.
void build_ordered(Table& t, TableIndex& ix) {
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
  std::vector<Ref> refs(all.size());
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
  std::vector<IndexEntry> sorted;
  sorted.reserve(all.size());
  for (const Ref& r : refs) sorted.push_back(std::move(all[r.slot]));
  all = {};
  ix.ordered.assign(std::move(sorted));
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
