// All tables of the program and the three mutations every write path uses
// (statements, transaction undo, replay): attach a row under an id, detach
// it, set one field. They keep the indexes and the inbound-ref counts in
// step with the rows; nothing else touches them (§1.7: index drift came from
// side doors). Locking is the caller's (engine.h).
#pragma once
#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

#include "../store/backend.h"
#include "boot_memory.h"
#include "model.h"
#include "table.h"

namespace wo::db {

class Store {
 public:
  explicit Store(const Schema* schema);

  const Schema& schema() const { return *schema_; }
  size_t size() const { return tables_.size(); }
  Table& table(uint32_t cls) { return *tables_[cls]; }
  const Table& table(uint32_t cls) const { return *tables_[cls]; }

  // The first ref field of `slots` (non-nil) naming a missing row, or -1.
  int missing_ref(const Table& t, const uint64_t* slots) const;
  // Whether the row a ref field's word names exists (nil: yes).
  bool ref_target_exists(const Field& f, uint64_t target) const;

  // Classes whose rows another back end holds (Engine::hold_foreign): a
  // row's ref to one is checked with `holder`'s exists (under the engine's
  // write lock, never parking), and counted here instead of in the target
  // row's `inbound`.
  void hold_foreign(std::vector<bool> classes, store::Backend* holder);
  bool foreign(uint32_t cls) const { return cls < foreign_.size() && foreign_[cls]; }
  // Rows here referring to foreign row (cls, id).
  uint64_t foreign_inbound(uint32_t cls, int64_t id) const;

  // `row` enters `t` as `id` (slot empty): indexes, and +1 on each row it
  // refers to. All or nothing under OOM: on success the table owns the
  // row's blobs (its words are copied into the page; `row`'s own memory
  // stays the caller's), on a trap the caller still owns them.
  void attach(Table& t, int64_t id, const Row* row, const RowKeys* keys = nullptr);
  // The row `id` (present) leaves `t`; returned to the caller as a heap
  // copy (allocated before anything changes).
  Row* detach(Table& t, int64_t id);
  // The row `id` (present) leaves `t` and is freed: no allocation (undo).
  void destroy(Table& t, int64_t id);
  // Field `f` of row `id` becomes `w`; returns the old word (the caller owns it).
  uint64_t set_field(Table& t, int64_t id, uint32_t f, uint64_t w);

  // Replay defers ref counting: rows may arrive before the rows they refer
  // to (a checkpoint writes class by class). recount() rebuilds the counts.
  void set_counting(bool on) { counting_ = on; }
  void recount();

  // Where replay puts the blobs of the rows it loads (boot_memory.h); it
  // outlives every table.
  BootArena& boot_arena() { return arena_; }

 private:
  void count_refs(const ClassDef& c, const uint64_t* slots, int delta);
  void bump(const Field& f, uint64_t target, int delta);

  const Schema* schema_;
  BootArena arena_;  // before tables_: unmapped after their rows are gone
  std::vector<std::unique_ptr<Table>> tables_;
  bool counting_ = true;
  std::vector<bool> foreign_;
  store::Backend* foreign_holder_ = nullptr;
  struct ForeignKeyHash {
    size_t operator()(const std::pair<uint32_t, int64_t>& k) const {
      return std::hash<int64_t>()(k.second) * 31 + k.first;
    }
  };
  std::unordered_map<std::pair<uint32_t, int64_t>, uint64_t, ForeignKeyHash> foreign_inbound_;
};

}  // namespace wo::db
