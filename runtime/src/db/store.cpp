// The row choke points: attach, detach, set_field.
#include "store.h"

#include "../sched/external_wait.h"

namespace wo::db {

Store::Store(const Schema* schema) : schema_(schema) {
  for (const ClassDef& c : schema->classes) tables_.push_back(std::make_unique<Table>(&c));
}

int Store::missing_ref(const Table& t, const uint64_t* slots) const {
  if (!t.has_refs()) return -1;
  const ClassDef& c = t.def();
  for (size_t i = 0; i < c.fields.size(); ++i) {
    const Field& f = c.fields[i];
    if (f.kind == Kind::Ref && !ref_target_exists(f, slots[i])) return static_cast<int>(i);
  }
  return -1;
}

bool Store::ref_target_exists(const Field& f, uint64_t target) const {
  if (target == 0) return true;
  uint32_t cls = static_cast<uint32_t>(f.ref_class);
  if (foreign(cls)) {
    sched::NoParkScope hold_the_shard;  // the caller holds the engine's write lock
    return foreign_holder_->exists(cls, static_cast<int64_t>(target));
  }
  return tables_[cls]->find(static_cast<int64_t>(target)) != nullptr;
}

void Store::hold_foreign(std::vector<bool> classes, store::Backend* holder) {
  foreign_ = std::move(classes);
  foreign_holder_ = holder;
}

uint64_t Store::foreign_inbound(uint32_t cls, int64_t id) const {
  auto it = foreign_inbound_.find({cls, id});
  return it == foreign_inbound_.end() ? 0 : it->second;
}

void Store::bump(const Field& f, uint64_t target, int delta) {
  if (!counting_ || target == 0) return;
  uint32_t cls = static_cast<uint32_t>(f.ref_class);
  if (foreign(cls)) {
    auto key = std::make_pair(cls, static_cast<int64_t>(target));
    uint64_t& n = foreign_inbound_[key];
    n += static_cast<uint64_t>(static_cast<int64_t>(delta));
    if (n == 0) foreign_inbound_.erase(key);
    return;
  }
  if (Row* r = tables_[cls]->find(static_cast<int64_t>(target))) r->inbound += delta;
}

void Store::count_refs(const ClassDef& c, const uint64_t* slots, int delta) {
  for (size_t i = 0; i < c.fields.size(); ++i)
    if (c.fields[i].kind == Kind::Ref) bump(c.fields[i], slots[i], delta);
}

void Store::attach(Table& t, int64_t id, const Row* row, const RowKeys* keys) {
  Row* in = t.place(id, row);
  try {
    t.index_add(id, in->slots(), keys);
  } catch (...) {
    t.drop(id);  // the caller still owns `row`'s blobs
    throw;
  }
  if (t.has_refs()) count_refs(t.def(), in->slots(), +1);
}

Row* Store::detach(Table& t, int64_t id) {
  Row* out = t.copy_out(id);  // the one allocation, before anything changes
  Row* row = t.find(id);
  if (t.has_refs()) count_refs(t.def(), row->slots(), -1);
  t.index_remove(id, row->slots());
  t.drop(id);
  return out;
}

void Store::destroy(Table& t, int64_t id) {
  Row* row = t.find(id);
  if (t.has_refs()) count_refs(t.def(), row->slots(), -1);
  t.index_remove(id, row->slots());
  t.destroy(id);
}

uint64_t Store::set_field(Table& t, int64_t id, uint32_t f, uint64_t w) {
  Row* row = t.find(id);
  uint64_t* s = row->slots();
  const Field& fd = t.def().fields[f];
  std::vector<TableIndex*> touched;
  for (TableIndex& ix : t.indexes)
    if (ix.covers(f)) touched.push_back(&ix);
  for (TableIndex* ix : touched) t.index_remove_from(*ix, id, s);
  uint64_t old = s[f];
  s[f] = w;
  size_t done = 0;
  try {
    for (; done < touched.size(); ++done) t.index_add_to(*touched[done], id, s);
  } catch (...) {  // put everything back as it was
    while (done > 0) t.index_remove_from(*touched[--done], id, s);
    s[f] = old;
    for (TableIndex* ix : touched) t.index_add_to(*ix, id, s);
    throw;
  }
  if (fd.kind == Kind::Ref) {
    bump(fd, old, -1);
    bump(fd, w, +1);
  }
  return old;
}

void Store::recount() {
  bool refs = false;  // no ref field anywhere: every count is the 0 rows start with
  for (const ClassDef& c : schema_->classes)
    for (const Field& f : c.fields) refs = refs || f.kind == Kind::Ref;
  if (!refs) {
    counting_ = true;
    return;
  }
  for (auto& t : tables_) t->each([](int64_t, Row* r) { r->inbound = 0; });
  foreign_inbound_.clear();
  counting_ = true;
  for (auto& t : tables_) t->each([&](int64_t, Row* r) { count_refs(t->def(), r->slots(), +1); });
}

}  // namespace wo::db
