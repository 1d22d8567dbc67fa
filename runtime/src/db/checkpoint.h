// Checkpoint (runtime.md §1.13, file format 3: docs/decisions/0050, 0051;
// format 4: 0080), also used to rewrite the log after a schema migration or
// to give a log of an earlier format the current header. `<log>.compact`
// gets the file header (synced first), the schema head, the snapshot as ROWS
// frames (each up to 4096 rows of one class) and after each durable class's
// rows its NEXT_ID (ids past the last live row are never handed out again),
// SNAPSHOT_END, the log bytes written while the snapshot was taken, and
// CAUGHT_UP; it is fsynced and renamed over the log, and then the directory
// is fsynced. A crash at any point leaves either the
// old or the new log complete; a stale `.compact` is deleted at the next open.
// While a live store installs it, commits go on into both files (LogFile's
// mirror, docs/decisions/0074), so both stay complete until the switch.
//
// The snapshot need not be consistent (a fuzzy checkpoint): it is taken in
// slices under the engine's lock while writers go on between them, from a
// log position `start` read before the first slice. Every change a slice
// can see was staged before it, so it is in the log from `start` on (or
// still staged: the caller waits until everything staged before the last
// slice is durable); replaying those log bytes after the snapshot, each
// record a full row image applied idempotently, ends in the state of the log.
#pragma once
#include <algorithm>
#include <cstdint>
#include <functional>
#include <string>

#include "store.h"

namespace wo::db {

// Deletes a `.compact` left by a checkpoint that died before its rename. A
// file of that name the store did not write (its header says whose it is:
// a crash can leave only our header, a prefix of it, or zeros no longer
// than it) is refused with *err and left alone; so is anything not a
// regular file.
bool clear_stale_checkpoint(const std::string& log_path, std::string* err);

// Whether to compact now (a pure function of sizes, no timer: an idle log
// does not grow): `used >= floor` and (never compacted in this process, or
// 64 MiB of garbage, or `used > ratio * last`; ratio 0 turns that term off).
bool checkpoint_due(uint64_t used, uint64_t last, uint64_t floor, uint64_t ratio);

// One checkpoint being written. Failures are a missed optimisation: the old
// log is untouched and the destructor deletes the unfinished file.
class CheckpointFile {
 public:
  static constexpr size_t kSliceRows = 4096;          // rows per slice (and per ROWS frame)
  static constexpr size_t kSliceBytes = size_t{1} << 20;  // encoded bytes per slice

  CheckpointFile() = default;
  ~CheckpointFile();
  CheckpointFile(const CheckpointFile&) = delete;
  CheckpointFile& operator=(const CheckpointFile&) = delete;

  // Creates `<log>.compact` (O_EXCL: never a file that appeared under that
  // name), writes and fsyncs the header, and buffers the schema head.
  bool create(const std::string& log_path, const Schema& schema, std::string* err);
  // Encodes the next live durable rows after the cursor into the buffer: at
  // most kSliceRows rows and about kSliceBytes bytes. The caller holds the
  // engine's lock (shared is enough: only rows are read). true once every
  // row has been encoded.
  bool encode_slice(const Store& store);
  // Writes the buffer (no lock needed).
  bool write_buffered(std::string* err);
  // The SNAPSHOT_END frame (buffered).
  void end_snapshot();
  // Appends the log's bytes [from, to) (durable frames, read from `log_fd`).
  bool copy_log(int log_fd, uint64_t from, uint64_t to, std::string* err);
  // Grows the file with zeros past what is written so far (the new log's
  // preallocation, as LogFile keeps it) and fdatasyncs it all, so the final
  // sync, in install, flushes a few data blocks and no metadata.
  bool sync(std::string* err);
  // CAUGHT_UP, fdatasync, rename over the log, fsync of the directory (a
  // failure of that exits 74: which log survives a crash would be unknown).
  // The new log's end (its frames' end), or -1 with *err.
  int64_t install(std::string* err);
  // The same in two steps, for a live store (decision 0074): caught_up()
  // writes CAUGHT_UP (no sync) and returns the frames' end, or -1 with *err;
  // the caller, as the commit leader, then lets commits append to fd() too.
  // publish() then, with commits going on, fdatasyncs, renames and fsyncs
  // the directory; false with *err (only before the rename) leaves the old
  // log the log. After it the caller takes fd() with release_fd().
  int64_t caught_up(std::string* err);
  bool publish(std::string* err);
  int fd() const { return fd_; }
  int release_fd() {
    int fd = fd_;
    fd_ = -1;
    return fd;
  }
  // The file's size: the end, or past it the zeros sync() wrote.
  uint64_t file_size() const { return std::max(written_, zeroed_to_); }

  uint64_t slices() const { return slices_; }
  uint64_t max_slice_rows() const { return max_slice_rows_; }

 private:
  std::string log_path_, tmp_;
  int fd_ = -1;
  std::string buf_, rows_;
  uint64_t written_ = 0;
  uint64_t flushed_ = 0;   // written back so far (sync_file_range, see write_buffered)
  uint64_t zeroed_to_ = 0; // the preallocation's end (sync)
  uint32_t cls_ = 0;       // the cursor: class, then the next id to look at
  int64_t next_id_ = 1;
  uint64_t slices_ = 0, max_slice_rows_ = 0;
  bool installed_ = false;  // renamed over the log: the name is no longer ours to delete
};

// A whole checkpoint at once (no log after the snapshot): the open-time
// rewrite, when nothing else runs. The new log's size, or -1 with *err.
int64_t write_checkpoint(const std::string& log_path, const Store& store, std::string* err);

namespace testing {
// Tests: called by a checkpoint after each slice, with no lock held (a
// write may run there), and told the slice's number (1, 2, ...).
extern std::function<void(uint64_t)> after_checkpoint_slice;
// Tests: called by an install with no lock and no commit round held (the
// rewrite at open calls steps 1 and 2 only), at step 1 (the new file has caught up and commits go to both files;
// before its fdatasync and rename), 2 (renamed, before the directory's
// fsync) and 3 (the rename is durable; before the switch to the new file).
extern std::function<void(int)> during_install;
}  // namespace testing

}  // namespace wo::db
