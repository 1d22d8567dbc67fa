// Log replay (see replay.h).
#include "replay.h"

#include "codec.h"
#include "frame.h"
#include "row.h"

namespace wo::db {
namespace {

class Replayer {
 public:
  Replayer(const Schema& program, Store& store, ReplayResult* out)
      : program_(program), store_(store), out_(out), max_id_(store.size(), 0) {}

  // Applies one frame's payload; a message for the corruption otherwise.
  bool frame(std::string_view payload, std::string* why) {
    Reader r(payload);
    uint8_t kind = r.u8();
    r.u32();
    uint64_t count = r.u64();
    if (!r.ok()) return fail(why, "truncated record header");
    if (kind != kGroup) return record(payload, why);
    for (uint64_t i = 0; i < count; ++i) {
      uint32_t len = r.u32();
      std::string_view sub = r.bytes(len);
      if (!r.ok()) return fail(why, "truncated group");
      if (!record(sub, why)) return false;
    }
    return r.done() || fail(why, "trailing bytes in a group");
  }

  // Whether the failure came from comparing the head with the program (a
  // refused migration) rather than from damaged records.
  bool refused() const { return refused_; }

  void finish() {
    for (size_t c = 0; c < store_.size(); ++c) {
      Table& t = store_.table(static_cast<uint32_t>(c));
      t.next_id = std::max(t.next_id, max_id_[c] + 1);
    }
    store_.recount();
  }

 private:
  static bool fail(std::string* why, std::string msg) {
    *why = std::move(msg);
    return false;
  }

  bool record(std::string_view payload, std::string* why) {
    Reader r(payload);
    uint8_t kind = r.u8();
    uint32_t cls = r.u32();
    int64_t id = static_cast<int64_t>(r.u64());
    if (!r.ok()) return fail(why, "truncated record header");
    // The head is the log's first record, alone or first in the first group
    // (it is staged lazily with the first durable write).
    bool first = !out_->has_head;
    if (first != (kind == kSchema)) return fail(why, first ? "the log does not start with a schema record" : "a second schema record");
    if (first) {
      if (!decode_schema(r, &log_schema_)) return fail(why, "undecodable schema record");
      out_->has_head = true;
      refused_ = !plan_migration(log_schema_, program_, &out_->plan, why);
      return !refused_;
    }
    auto m = out_->plan.by_log_id.find(cls);
    if (m == out_->plan.by_log_id.end()) return fail(why, "record of unknown class id " + std::to_string(cls));
    const ClassDef& from = log_schema_.classes[m->second.log_index];
    Table& t = store_.table(m->second.target);
    const ClassDef& to = t.def();
    std::string where = " (" + to.name + " id " + std::to_string(id) + ")";
    out_->records++;
    switch (kind) {
      case kInsert:
      case kUpdate: {
        if (id < 1) return fail(why, "bad row id" + where);
        Row* row = decode_row(r, from, to, m->second.to);
        if (!row || !r.done()) {
          row_free(to, row);
          return fail(why, "undecodable row" + where);
        }
        Row* old = t.find(id);
        if (kind == kInsert && old) {
          row_free(to, row);
          return fail(why, "insert re-creates an existing row" + where);
        }
        if (kind == kUpdate && !old) {
          row_free(to, row);
          return fail(why, "update of a missing row" + where);
        }
        if (const TableIndex* ix = t.unique_conflict(row->slots(), id)) {
          row_free(to, row);
          return fail(why, "unique index " + ix->label + " violated" + where);
        }
        if (old) row_free(to, store_.detach(t, id));
        store_.attach(t, id, row);
        max_id_[m->second.target] = std::max(max_id_[m->second.target], id);
        return true;
      }
      case kRemove:
        if (!t.find(id)) return fail(why, "remove of a missing row" + where);
        if (!r.done()) return fail(why, "remove with a body" + where);
        row_free(to, store_.detach(t, id));
        return true;
      default: return fail(why, "unknown record kind " + std::to_string(kind) + where);  // GROUP inside GROUP too
    }
  }

  const Schema& program_;
  Store& store_;
  ReplayResult* out_;
  Schema log_schema_;
  std::vector<int64_t> max_id_;
  bool refused_ = false;
};

}  // namespace

bool replay(const uint8_t* data, size_t size, size_t start, const std::string& path, const Schema& program,
            Store& store, ReplayResult* out, std::string* err, FrameSum sum) {
  *out = ReplayResult{};
  store.set_counting(false);
  Replayer rp(program, store, out);
  size_t off = start;
  for (;;) {
    std::string_view payload;
    size_t next;
    if (!read_frame(data, size, off, &payload, &next, sum)) {
      size_t at;
      if (find_valid_frame_after(data, size, off, &at, sum)) {
        *err = "the log " + path + " is corrupt at offset " + std::to_string(off) +
               " (a damaged record followed by a valid one at offset " + std::to_string(at) +
               "); refusing to start";
        return false;
      }
      break;  // the torn tail (or the zero-filled preallocation)
    }
    std::string why;
    if (!rp.frame(payload, &why)) {
      if (rp.refused()) {  // a refused migration, not corruption
        *err = why + " (log " + path + ")";
      } else {
        *err = "replay found corruption beyond a torn tail: " + path + " at offset " + std::to_string(off) + ": " + why;
      }
      return false;
    }
    out->frames++;
    off = next;
  }
  out->end = off;
  for (size_t i = off; i < size; ++i)
    if (data[i] != 0) {
      out->tail_dirty = true;
      break;
    }
  rp.finish();
  return true;
}

}  // namespace wo::db
