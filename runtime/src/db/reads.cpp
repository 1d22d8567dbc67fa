// Reads and queries. Every path that compares values does it on index keys
// (key.h), so a probe, a range, a sort and a scan agree on what is equal and
// what comes first. Results are fresh `multi Int` lists of ids.
#include <algorithm>
#include <climits>
#include <cstring>
#include <vector>

#include "../core/heap.h"
#include "../core/trap.h"
#include "common/traps.h"
#include "engine.h"

namespace wo::db {
namespace {

[[noreturn]] void no_row(const WoSite* site) { raise(static_cast<int64_t>(TrapCode::DB), site, "no such row"); }

// Collects ids in a reused per-thread buffer and makes the owned result
// list in one allocation at the end (growing it push by push cost a
// quarter of a 100-row range scan).
class IdList {
 public:
  explicit IdList(int64_t cap) : v_(buffer()) {
    v_.clear();
    if (cap > 0) v_.reserve(static_cast<size_t>(cap));
  }
  void push(int64_t id) { v_.push_back(id); }
  int64_t size() const { return static_cast<int64_t>(v_.size()); }
  WoList* release() {
    WoList* xs = wo_list_new(WO_ELEM_INT, size());
    if (!v_.empty()) std::memcpy(xs->data, v_.data(), v_.size() * sizeof(int64_t));
    xs->len = size();
    return xs;
  }

 private:
  static std::vector<int64_t>& buffer() {
    thread_local std::vector<int64_t> v;
    return v;
  }
  std::vector<int64_t>& v_;
};

using It = OrderedIndex::It;

It first_of(const OrderedIndex& s, const std::string& key) { return s.lower_bound(key, INT64_MIN); }
It past(const OrderedIndex& s, const std::string& key) { return s.lower_bound(key, INT64_MAX); }

// Calls f(id) for every row of `t` whose key in `ix`-shaped columns equals
// `key`, ascending id, until f returns false. `ix` may be NULL (then, or
// when only its hash side exists and the key is nil, scan the column
// `field`: single-column indexes only).
template <class F>
void each_equal(const Table& t, const TableIndex* ix, uint32_t field, const std::string& key, bool key_nil, F&& f) {
  if (ix && ix->def->unique && !key_nil) {
    if (int64_t id = t.unique_find(*ix, key, key_hash(key))) {
      // The hash slot answered without touching the row; a program almost
      // always reads it next (wo_db_get): start loading it now.
      t.prefetch(id);
      f(id);
    }
    return;
  }
  if (ix && ix->ordered_ready) {
    for (auto it = first_of(ix->ordered, key); it != ix->ordered.end() && it->key == key; ++it)
      if (!f(it->id)) return;
    return;
  }
  // key_equals: a Text key is compared in place (a scan while the indexes
  // are built, decision 0070, is a whole table's worth of them).
  const Field& fd = t.def().fields[field];
  bool go = true;
  t.each([&](int64_t id, Row* r) {
    if (go && key_equals(fd, r->slots()[field], key)) go = f(id);
  });
}

// Emits (key, id) pairs already in ascending key order, ties by ascending
// id, as `flags` asks: DESC reverses the keys but keeps ties ascending.
template <class It>
void emit_ordered(It begin, It end, bool desc, int64_t limit, IdList& out) {
  if (!desc) {
    for (It it = begin; it != end && (limit < 0 || out.size() < limit); ++it) out.push(it->id);
    return;
  }
  It hi = end;
  while (hi != begin && (limit < 0 || out.size() < limit)) {
    It lo = hi;
    --lo;
    while (lo != begin && std::prev(lo)->key == lo->key) --lo;
    for (It it = lo; it != hi && (limit < 0 || out.size() < limit); ++it) out.push(it->id);
    hi = lo;
  }
}

}  // namespace

Engine::Hold Engine::lock_read_settled(const TableIndex* ix) {
  auto lk = lock_read();
  if (!ix || ix->ordered.pending() == 0) return lk;
  lk.unlock();
  {
    auto w = lock_write();
    const_cast<TableIndex*>(ix)->ordered.settle();  // the write lock: nobody reads it meanwhile
  }
  return lock_read();
}

void Engine::ensure_ordered(Table& t, uint32_t index) {
  auto lk = lock_write();  // builds once; maintained by every write from then on
  if (!t.indexes[index].ordered_ready) t.build_ordered(t.indexes[index]);
}

uint64_t Engine::get(uint32_t cls, int64_t id, uint32_t f, const WoSite* site) {
  Table& t = table(cls, site);
  const Field& fd = field(t, f, site);
  auto lk = lock_read();
  Row* r = t.find(id);
  if (!r) no_row(site);
  return word_to_abi(fd, r->slots()[f]);
}

bool Engine::exists(uint32_t cls, int64_t id) {
  if (cls >= store_.size()) return false;
  auto lk = lock_read();
  return store_.table(cls).find(id) != nullptr;
}

int64_t Engine::count(uint32_t cls, const WoSite* site) {
  Table& t = table(cls, site);
  auto lk = lock_read();
  return t.live();
}

WoList* Engine::scan(uint32_t cls, const WoSite* site) {
  Table& t = table(cls, site);
  auto lk = lock_read();
  IdList out(t.live());
  t.each([&](int64_t id, Row*) { out.push(id); });
  return out.release();
}

WoList* Engine::probe(uint32_t cls, uint32_t f, uint64_t key, int64_t limit, const WoSite* site) {
  Table& t = table(cls, site);
  const Field& fd = field(t, f, site);
  std::string k;
  append_key_abi(k, fd, key);
  const TableIndex* ix = index_on(t, f);
  bool nil = is_nil(fd, key);
  if (ix && ix->def->unique && !nil) {
    // A unique probe (the common `where x.k == key`): at most one id, so
    // no id buffer; the list is made after the lock is let go.
    int64_t id;
    {
      auto lk = lock_read();
      id = t.unique_find(*ix, k, key_hash(k));
      // The hash slot answered without touching the row; a program almost
      // always reads it next (wo_db_get): start loading it now.
      if (id) t.prefetch(id);
    }
    bool hit = id && limit != 0;
    WoList* xs = wo_list_new(WO_ELEM_INT, hit ? 1 : 0);
    if (hit) {
      xs->data[0] = static_cast<uint64_t>(id);
      xs->len = 1;
    }
    return xs;
  }
  auto lk = lock_read_settled(ix);
  IdList out(0);
  each_equal(t, ix, f, k, nil, [&](int64_t id) {
    out.push(id);
    return limit < 0 || out.size() < limit;
  });
  return out.release();
}

int64_t Engine::probe_count(uint32_t cls, uint32_t f, uint64_t key, const WoSite* site) {
  Table& t = table(cls, site);
  const Field& fd = field(t, f, site);
  std::string k;
  append_key_abi(k, fd, key);
  const TableIndex* ix = index_on(t, f);
  auto lk = lock_read_settled(ix);
  int64_t n = 0;
  each_equal(t, ix, f, k, is_nil(fd, key), [&](int64_t) {
    ++n;
    return true;
  });
  return n;
}

WoList* Engine::probe_index(uint32_t cls, uint32_t index, const uint64_t* keys, const WoSite* site) {
  Table& t = table(cls, site);
  if (index >= t.indexes.size()) raise(static_cast<int64_t>(TrapCode::DB), site, "no such index");
  const TableIndex& ix = t.indexes[index];
  std::string k;
  bool nil = false;
  for (size_t i = 0; i < ix.def->cols.size(); ++i) {
    const Field& fd = t.def().fields[ix.def->cols[i]];
    append_key_abi(k, fd, keys[i]);
    nil = nil || is_nil(fd, keys[i]);
  }
  auto lk = lock_read_settled(&ix);
  IdList out(0);
  if (!indexes_built()) {  // decision 0070: a scan until they are
    std::string other;
    t.each([&](int64_t id, Row* r) {
      t.key_of(ix, r->slots(), other);
      if (other == k) out.push(id);
    });
    return out.release();
  }
  if (nil && !ix.ordered_ready) {  // nil keys are not in a unique hash: build the ordered side
    lk.unlock();
    ensure_ordered(t, index);
    lk = lock_read_settled(&ix);
  }
  each_equal(t, &ix, 0, k, nil, [&](int64_t id) {
    out.push(id);
    return true;
  });
  return out.release();
}

WoList* Engine::range(uint32_t cls, uint32_t f, uint64_t lo, uint64_t hi, uint32_t flags, int64_t limit,
                      const WoSite* site) {
  Table& t = table(cls, site);
  const Field& fd = field(t, f, site);
  std::string lk_key, hk_key;
  if (flags & WO_DB_LO) append_key_abi(lk_key, fd, lo);
  if (flags & WO_DB_HI) append_key_abi(hk_key, fd, hi);
  bool desc = flags & WO_DB_DESC;
  const TableIndex* ix = index_on(t, f);
  if (ix && !ix->ordered_ready) ensure_ordered(t, static_cast<uint32_t>(ix - t.indexes.data()));
  auto lk = lock_read_settled(ix);
  IdList out(0);
  if (ix) {
    const OrderedIndex& s = ix->ordered;
    auto b = !(flags & WO_DB_LO) ? s.begin() : (flags & WO_DB_LO_OPEN) ? past(s, lk_key) : first_of(s, lk_key);
    if (!desc) {
      // Ascending: walk from b and stop at the first key past the upper
      // bound, instead of a second search from the top for the end (its
      // cache misses were a third of a 100-row range query).
      bool has_hi = flags & WO_DB_HI, hi_open = flags & WO_DB_HI_OPEN;
      std::string_view hk(hk_key);
      s.walk(b, s.end(), [&](const OrdEntry& x) {
        if (limit >= 0 && out.size() >= limit) return false;
        if (has_hi) {
          std::string_view k = x.key();
          int c;
          if (k.size() == 8 && hk.size() == 8) {
            uint64_t p, q;
            std::memcpy(&p, k.data(), 8);
            std::memcpy(&q, hk.data(), 8);
            p = __builtin_bswap64(p);
            q = __builtin_bswap64(q);
            c = p < q ? -1 : p > q;
          } else {
            c = k.compare(hk);
          }
          if (c > 0 || (c == 0 && hi_open)) return false;
        }
        out.push(x.id);
        return true;
      });
      return out.release();
    }
    auto e = !(flags & WO_DB_HI) ? s.end() : (flags & WO_DB_HI_OPEN) ? first_of(s, hk_key) : past(s, hk_key);
    if (b == s.end() || (e != s.end() && key_id_less(e->key, e->id, b->key, b->id))) e = b;  // empty (also lo > hi)
    emit_ordered(b, e, desc, limit, out);
    return out.release();
  }
  std::vector<IndexEntry> rows;  // scan in id order, then a stable sort
  t.each([&](int64_t id, Row* r) {
    std::string k;
    append_key(k, fd, r->slots()[f]);
    if ((flags & WO_DB_LO) && ((flags & WO_DB_LO_OPEN) ? k <= lk_key : k < lk_key)) return;
    if ((flags & WO_DB_HI) && ((flags & WO_DB_HI_OPEN) ? k >= hk_key : k > hk_key)) return;
    rows.push_back(IndexEntry{std::move(k), id});
  });
  std::stable_sort(rows.begin(), rows.end(), [](const IndexEntry& a, const IndexEntry& b) { return a.key < b.key; });
  emit_ordered(rows.begin(), rows.end(), desc, limit, out);
  return out.release();
}

void Engine::sort(uint32_t cls, WoList* ids, uint32_t f, bool desc, const WoSite* site) {
  Table& t = table(cls, site);
  const Field& fd = field(t, f, site);
  wo::need(ids, site);
  std::vector<IndexEntry> rows;
  rows.reserve(static_cast<size_t>(ids->len));
  {
    auto lk = lock_read();
    for (int64_t i = 0; i < ids->len; ++i) {
      auto id = static_cast<int64_t>(ids->data[i]);
      Row* r = t.find(id);
      if (!r) no_row(site);
      std::string k;
      append_key(k, fd, r->slots()[f]);
      rows.push_back(IndexEntry{std::move(k), id});
    }
  }
  sort_ids_by_key(rows, desc, ids);
}

}  // namespace wo::db
