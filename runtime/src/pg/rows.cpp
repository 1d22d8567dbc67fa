// Field reads of the PostgreSQL store (decision 0068): a row value is its
// id and the compiled program reads one field at a time, so a page of ten
// products read three fields each would be thirty-one statements. Instead
// a field read fetches its whole row — with the rows after it in the last
// id list this thread's statements returned (a scan, probe, range or sort),
// up to kBatch of them — and the next reads are served from those rows for
// as long as the thread has observed nothing since the fetch (core/observe.h:
// no fiber switch, message, read, or other statement of either store). A
// read served so returns what a read at the fetch would have returned, and
// nothing the program saw in between could have told it otherwise.
#include <unordered_map>
#include <vector>

#include "../core/observe.h"
#include "../core/trap.h"
#include "common/traps.h"
#include "result.h"
#include "store.h"

namespace wo::pg {

namespace {

constexpr size_t kBatch = 256;

struct RowCache {
  uint32_t cls = UINT32_MAX;
  std::vector<int64_t> ids;                   // the last id list of `cls`, in its order
  std::unordered_map<int64_t, size_t> place;  // its ids' places, made at the first fetch from it
  PGresult* rows = nullptr;                   // the rows fetched last: id, then every field
  std::unordered_map<int64_t, int> row_of;    // id -> row of `rows`
  uint64_t seen = ~uint64_t{0};               // t_observed when this was filled

  bool fresh(uint32_t c) const { return seen == t_observed && cls == c; }
  void drop_rows() {
    if (rows) pq().clear(rows);
    rows = nullptr;
    row_of.clear();
  }
  ~RowCache() { drop_rows(); }
};

thread_local RowCache t_rows;

}  // namespace

void Store::remember_ids(uint32_t cls, const WoList* ids) {
  RowCache& rc = t_rows;
  rc.drop_rows();
  rc.cls = cls;
  rc.ids.assign(ids->data, ids->data + ids->len);
  rc.place.clear();
  rc.seen = t_observed;
}

uint64_t Store::get(uint32_t cls, int64_t id, uint32_t f, const WoSite* site) {
  const store::Field& fd = field(cls, f, site);
  RowCache& rc = t_rows;
  bool fresh = rc.fresh(cls);
  if (fresh && rc.rows) {
    auto hit = rc.row_of.find(id);
    if (hit != rc.row_of.end()) return decode_word(rc.rows, fd, hit->second, static_cast<int>(f) + 1);
  }
  // The row, and the rows after it in the last id list when it is there.
  std::string arr = id_array(&id, &id + 1);
  if (fresh && !rc.ids.empty()) {
    if (rc.place.empty())
      for (size_t i = 0; i < rc.ids.size(); ++i) rc.place.emplace(rc.ids[i], i);
    auto at = rc.place.find(id);
    if (at != rc.place.end()) {
      auto from = rc.ids.begin() + static_cast<ptrdiff_t>(at->second);
      arr = id_array(from, from + static_cast<ptrdiff_t>(std::min(kBatch, rc.ids.size() - at->second)));
    }
  }
  const store::ClassDef& c = schema_.classes[cls];
  std::string cols;
  for (const store::Field& x : c.fields) cols += ", " + quote_ident(x.name);
  std::vector<Param> ps{Param{arr.data(), static_cast<int>(arr.size()), true}};
  Res r = exec("SELECT id" + cols + " FROM " + quote_ident(c.name) + " WHERE id = ANY($1::bigint[])" + lock_suffix(),
               ps, Op::Read, site);
  rc.drop_rows();
  if (!fresh) {  // the list is history now
    rc.ids.clear();
    rc.place.clear();
  }
  rc.cls = cls;
  for (int i = 0; i < r.rows(); ++i) rc.row_of.emplace(r.i64(i, 0), i);
  rc.rows = r.release();
  rc.seen = t_observed;
  auto got = rc.row_of.find(id);
  if (got == rc.row_of.end())
    raise(static_cast<int64_t>(TrapCode::DB), site, "no such row");
  return decode_word(rc.rows, fd, got->second, static_cast<int>(f) + 1);
}

}  // namespace wo::pg
