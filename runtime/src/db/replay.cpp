// Log replay (see replay.h).
#include "replay.h"

#include <atomic>
#include <exception>
#include <memory>
#include <system_error>
#include <thread>

#include "boot_memory.h"
#include "bulk_index.h"
#include "model.h"
#include "frame.h"
#include "row.h"

namespace wo::db {

namespace testing {
size_t replay_window_words = size_t{2} << 20;  // 16 MiB
}

namespace {

class Replayer {
 public:
  Replayer(const Schema& program, Store& store, ReplayResult* out, uint32_t version)
      : program_(program), store_(store), out_(out), v3_(version >= 3), v4_(version >= 4), max_id_(store.size(), 0) {}

  // Applies one frame's payload; a message for the corruption otherwise.
  bool frame(std::string_view payload, size_t end, std::string* why) {
    Reader r(payload);
    uint8_t kind = r.u8();
    uint32_t cls = r.u32();
    uint64_t count = r.u64();
    if (!r.ok()) return fail(why, "truncated record header");
    switch (kind) {
      case kGroup:
        for (uint64_t i = 0; i < count; ++i) {
          uint32_t len = r.u32();
          std::string_view sub = r.bytes(len);
          if (!r.ok()) return fail(why, "truncated group");
          if (!record(sub, why)) return false;
        }
        return r.done() || fail(why, "trailing bytes in a group");
      case kRows: {
        if (!v3_ || !out_->has_head || phase_ != Phase::Snapshot) return fail(why, "rows outside a snapshot");
        const ClassMap* m = target(cls, why);
        if (!m) return false;
        blocks_.push_back(Block{payload.substr(r.pos()), m, count, nullptr, 0, 0, {}, {}});
        out_->records += count;
        return true;
      }
      case kSnapshotEnd:
        if (!v3_ || !out_->has_head || phase_ != Phase::Snapshot || !r.done()) return fail(why, "misplaced snapshot end");
        phase_ = Phase::CatchingUp;
        return load_blocks(why);
      case kCaughtUp:
        if (!v3_ || phase_ != Phase::CatchingUp || !r.done()) return fail(why, "misplaced caught-up mark");
        phase_ = Phase::Log;
        out_->snapshot_end = end;
        return true;
      default: return record(payload, why);
    }
  }

  // Whether the failure came from comparing the head with the program (a
  // refused migration) rather than from damaged records.
  bool refused() const { return refused_; }

  // The ids (past every id a record named: rows inserted, even if removed
  // since, and the NEXT_ID marks), the indexes (in bulk, unless the caller
  // builds them) and the ref counts.
  bool finish(bool indexes, std::string* why) {
    if (!blocks_.empty() && !load_blocks(why)) return false;  // a snapshot without its end (not written so)
    for (size_t c = 0; c < store_.size(); ++c) {
      Table& t = store_.table(static_cast<uint32_t>(c));
      t.next_id = std::max(t.next_id, max_id_[c] + 1);
    }
    if (indexes && !build_indexes(store_, why)) return false;
    store_.recount();
    return true;
  }

 private:
  // Where a frame may be: in a checkpoint's snapshot, in the log bytes copied
  // after it (idempotent), or in the log.
  enum class Phase { Snapshot, CatchingUp, Log };

  static bool fail(std::string* why, std::string msg) {
    *why = std::move(msg);
    return false;
  }
  static std::string where(const Table& t, int64_t id) { return " (" + t.def().name + " id " + std::to_string(id) + ")"; }

  // The class a record names, mapped onto the program's.
  const ClassMap* target(uint32_t cls, std::string* why) {
    auto m = out_->plan.by_log_id.find(cls);
    if (m == out_->plan.by_log_id.end()) {
      fail(why, "record of unknown class id " + std::to_string(cls));
      return nullptr;
    }
    return &m->second;
  }

  // A copy of `row` becomes row `id` of `t` (any row there before is
  // freed); the table owns its blobs, `row`'s memory stays the caller's.
  void place(Table& t, uint32_t target, int64_t id, const Row* row) {
    if (t.find(id)) t.destroy(id);
    t.place(id, row);
    max_id_[target] = std::max(max_id_[target], id);
  }

  // A snapshot's ROWS frame, decoded once every block is known, into its
  // part of one scratch buffer: per row its id, then the Row (header and
  // slots) that Table::place copies into its page.
  struct Block {
    std::string_view body;  // n times `id:u64 row`
    const ClassMap* map;
    uint64_t count;
    uint64_t* out = nullptr;  // room for `count` rows
    size_t words = 0;         // per row: 1 + the Row's words
    uint64_t done = 0;        // rows decoded
    std::string why;
    std::exception_ptr error;  // an OOM trap on the helper thread
  };

  void decode(Block& b, BootArena::Cursor& arena) {
    try {
      const ClassDef& from = log_schema_.classes[b.map->log_index];
      const Table& t = store_.table(b.map->target);
      Reader r(b.body);
      uint64_t* at = b.out;
      for (uint64_t i = 0; i < b.count; ++i, at += b.words) {
        auto id = static_cast<int64_t>(r.u64());
        if (!r.ok() || id < 1) {
          b.why = "bad row id in a snapshot" + where(t, id);
          return;
        }
        if (!decode_row_into(r, from, t.def(), b.map->to, reinterpret_cast<Row*>(at + 1), &arena)) {
          b.why = "undecodable row" + where(t, id);
          return;
        }
        at[0] = static_cast<uint64_t>(id);
        b.done++;
      }
      if (!r.done()) b.why = "trailing bytes in a snapshot block";
    } catch (...) {
      b.error = std::current_exception();
    }
  }

  // The snapshot's rows into their tables: the blocks are decoded on two
  // threads (blobs from the boot arena, rows into the scratch buffer; the
  // tables are not touched), then placed in file order on this one.
  bool load_blocks(std::string* why) {
    // A row is at least its 8-byte id, so a count the body cannot hold is
    // cut to what it can (and then fails as a truncated row).
    // The blocks go in windows of about kWindowWords decoded words, one
    // scratch buffer reused for each (a buffer for the whole snapshot was
    // 400 MB of fresh memory at 10M rows, and fresh memory is what boot
    // pays most for).
    const size_t kWindowWords = testing::replay_window_words;
    size_t n = blocks_.size(), most = 0;
    std::vector<size_t> ends;  // each window's end
    for (size_t i = 0, words = 0; i < n; ++i) {
      Block& b = blocks_[i];
      b.count = std::min<uint64_t>(b.count, b.body.size() / 8);
      b.words = 2 + store_.table(b.map->target).def().fields.size();
      size_t w = static_cast<size_t>(b.count) * b.words;
      if (words > 0 && words + w > kWindowWords) {
        ends.push_back(i);
        words = 0;
      }
      words += w;
      most = std::max(most, words);
    }
    if (n > 0) ends.push_back(n);
    std::vector<uint64_t, HugeAllocator<uint64_t>> scratch;
    scratch.resize(most);
    // This thread places each block in file order as soon as it and those
    // before it are decoded, between decoding blocks of its own, so the
    // copying into the id pages overlaps the helper's decoding.
    bool ok = true;
    std::exception_ptr error;
    auto place_block = [&](Block& b) {
      Table& t = store_.table(b.map->target);
      uint64_t* row = b.out;
      for (uint64_t i = 0; i < b.done; ++i, row += b.words) {
        auto id = static_cast<int64_t>(row[0]);
        Row* r = reinterpret_cast<Row*>(row + 1);
        if (ok && t.find(id)) {
          *why = "a snapshot holds a row twice" + where(t, id);
          ok = false;
        }
        if (ok)
          place(t, b.map->target, id, r);
        else
          row_free_blobs(t.def(), r);
      }
      if (ok && b.error) error = b.error;
      if (ok && !b.why.empty()) {
        *why = b.why;
        ok = false;
      }
      if (error) ok = false;
    };
    size_t placed = 0, end = 0;
    std::unique_ptr<std::atomic<bool>[]> ready(new std::atomic<bool>[n]);
    for (size_t i = 0; i < n; ++i) ready[i].store(false, std::memory_order_relaxed);
    std::exception_ptr place_error;  // an OOM trap while placing: rethrown once the helper is joined
    auto place_ready = [&](bool all) {
      try {
        while (placed < end && !place_error && (all || ready[placed].load(std::memory_order_acquire)))
          place_block(blocks_[placed++]);
      } catch (...) {
        place_error = std::current_exception();
      }
    };
    std::atomic<size_t> next{0};
    auto work = [&](BootArena::Cursor* arena, bool places) {
      for (size_t i; (i = next.fetch_add(1)) < end;) {
        decode(blocks_[i], *arena);
        ready[i].store(true, std::memory_order_release);
        if (places) place_ready(false);
      }
    };
    // Kept across windows: each holds the rest of its 1 MiB piece.
    BootArena::Cursor mine(&store_.boot_arena()), theirs(&store_.boot_arena());
    for (size_t w : ends) {
      if (place_error) break;
      uint64_t* at = scratch.data();
      for (size_t i = placed; i < w; ++i) {
        blocks_[i].out = at;
        at += blocks_[i].count * blocks_[i].words;
      }
      end = w;
      next = placed;
      std::thread helper;
      if (end - placed > 1 && std::thread::hardware_concurrency() > 1) {
        try {
          helper = std::thread(work, &theirs, false);
        } catch (const std::system_error&) {  // no thread: this one decodes them all
        }
      }
      work(&mine, true);
      if (helper.joinable()) helper.join();
      place_ready(true);
    }
    if (place_error) std::rethrow_exception(place_error);
    blocks_.clear();
    if (error) std::rethrow_exception(error);
    return ok;
  }

  bool record(std::string_view payload, std::string* why) {
    Reader r(payload);
    uint8_t kind = r.u8();
    uint32_t cls = r.u32();
    int64_t id = static_cast<int64_t>(r.u64());
    if (!r.ok()) return fail(why, "truncated record header");
    bool lenient = phase_ == Phase::CatchingUp;
    // The head is the log's first record, alone or first in the first group
    // (it is staged lazily with the first durable write). A log copied after
    // a snapshot may hold this process's head again: it is the snapshot's.
    bool first = !out_->has_head;
    if (lenient && !first && kind == kSchema) return true;
    if (first != (kind == kSchema)) return fail(why, first ? "the log does not start with a schema record" : "a second schema record");
    if (first) {
      if (!decode_schema(r, &log_schema_)) return fail(why, "undecodable schema record");
      out_->has_head = true;
      refused_ = !plan_migration(log_schema_, program_, &out_->plan, why);
      if (!v3_) phase_ = Phase::Log;  // no snapshot frames in older files
      return !refused_;
    }
    const ClassMap* m = target(cls, why);
    if (!m) return false;
    if (kind == kNextId) {  // anywhere after the head, in a snapshot too (a mark, not a record)
      if (!v4_) return fail(why, "a next-id mark in a file of format 3 or earlier");
      if (id < 1 || !r.done()) return fail(why, "bad next-id mark" + where(store_.table(m->target), id));
      max_id_[m->target] = std::max(max_id_[m->target], id - 1);
      return true;
    }
    if (phase_ == Phase::Snapshot) phase_ = Phase::Log;  // a log without a snapshot
    const ClassDef& from = log_schema_.classes[m->log_index];
    Table& t = store_.table(m->target);
    out_->records++;
    switch (kind) {
      case kInsert:
      case kUpdate: {
        if (id < 1) return fail(why, "bad row id" + where(t, id));
        row_buf_.resize(1 + t.def().fields.size());
        Row* row = reinterpret_cast<Row*>(row_buf_.data());
        if (!decode_row_into(r, from, t.def(), m->to, row, &arena_)) return fail(why, "undecodable row" + where(t, id));
        if (!r.done()) {
          row_free_blobs(t.def(), row);
          return fail(why, "undecodable row" + where(t, id));
        }
        Row* old = t.find(id);
        if (!lenient && kind == kInsert && old) {
          row_free_blobs(t.def(), row);
          return fail(why, "insert re-creates an existing row" + where(t, id));
        }
        if (!lenient && kind == kUpdate && !old) {
          row_free_blobs(t.def(), row);
          return fail(why, "update of a missing row" + where(t, id));
        }
        place(t, m->target, id, row);
        return true;
      }
      case kRemove:
        if (!r.done()) return fail(why, "remove with a body" + where(t, id));
        if (!t.find(id)) return lenient || fail(why, "remove of a missing row" + where(t, id));
        t.destroy(id);
        return true;
      default: return fail(why, "unknown record kind " + std::to_string(kind) + where(t, id));  // GROUP inside GROUP too
    }
  }

  const Schema& program_;
  Store& store_;
  ReplayResult* out_;
  bool v3_, v4_;
  Phase phase_ = Phase::Snapshot;
  Schema log_schema_;
  std::vector<int64_t> max_id_;
  bool refused_ = false;
  std::vector<Block> blocks_;  // ROWS frames not yet decoded
  BootArena::Cursor arena_{&store_.boot_arena()};  // this thread's, for the log's records
  std::vector<uint64_t> row_buf_;  // a log record's row, before it is placed
};

}  // namespace

bool replay(const uint8_t* data, size_t size, size_t start, uint32_t version, const std::string& path,
            const Schema& program, Store& store, ReplayResult* out, std::string* err, FrameSum sum, bool indexes) {
  *out = ReplayResult{};
  store.set_counting(false);
  // Blobs take at most about twice their bytes in the file (an 8-byte
  // length for a 4-byte one, 8-byte alignment); address space only.
  store.boot_arena().open(2 * size + (size_t{64} << 20));
  Replayer rp(program, store, out, version);
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
    if (!rp.frame(payload, next, &why)) {
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
  std::string why;
  if (!rp.finish(indexes, &why)) {
    *err = "replay found corruption beyond a torn tail: " + path + ": " + why;
    return false;
  }
  return true;
}

}  // namespace wo::db
