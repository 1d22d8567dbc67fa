// Snapshot writer (see checkpoint.h).
#include "checkpoint.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "model.h"
#include "file_header.h"
#include "frame.h"
#include "log_file.h"

namespace wo::db {

namespace testing {
std::function<void(uint64_t)> after_checkpoint_slice;
std::function<void(int)> during_install;
}

namespace {

bool write_all(int fd, const std::string& buf) {
  for (size_t done = 0; done < buf.size();) {
    ssize_t w = ::write(fd, buf.data() + done, buf.size() - done);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    done += static_cast<size_t>(w);
  }
  return true;
}

}  // namespace

bool clear_stale_checkpoint(const std::string& log_path, std::string* err) {
  std::string tmp = log_path + ".compact";
  struct stat st {};
  if (::lstat(tmp.c_str(), &st) != 0) return true;  // none
  bool ours = false;
  if (S_ISREG(st.st_mode)) {
    int fd = ::open(tmp.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd >= 0) {
      // Enough for a header, or for the first frame of an earlier runtime's
      // snapshot (the schema head alone).
      std::string head(static_cast<size_t>(std::min<off_t>(st.st_size, 1 << 20)), '\0');
      ssize_t n = ::pread(fd, head.data(), head.size(), 0);
      ::close(fd);
      if (n == static_cast<ssize_t>(head.size())) {
        FileKind k = classify_file(reinterpret_cast<const uint8_t*>(head.data()), head.size()).kind;
        ours = k != FileKind::Foreign && k != FileKind::Damaged;  // a newer runtime's is stale too
      }
    }
  }
  if (!ours) {
    *err = tmp + " is in the way: the store writes its checkpoints under that name, and this file is not one it "
                 "wrote; move it away (it is left untouched)";
    return false;
  }
  ::unlink(tmp.c_str());
  return true;
}

bool checkpoint_due(uint64_t used, uint64_t last, uint64_t floor, uint64_t ratio) {
  if (used < floor) return false;
  if (last == 0) return true;
  if (used > last && used - last >= (uint64_t{64} << 20)) return true;
  return ratio > 0 && used > ratio * last;
}

CheckpointFile::~CheckpointFile() {
  if (fd_ < 0) return;
  ::close(fd_);
  if (!installed_) ::unlink(tmp_.c_str());  // not installed: a missed optimisation
}

bool CheckpointFile::create(const std::string& log_path, const Schema& schema, std::string* err) {
  log_path_ = log_path;
  tmp_ = log_path + ".compact";
  // O_EXCL: never truncate a file that appeared under this name (the open
  // deleted any stale one of ours).
  // Read and written: it becomes the log (a later checkpoint reads from it).
  fd_ = ::open(tmp_.c_str(), O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd_ < 0) {
    *err = "cannot create " + tmp_ + ": " + std::strerror(errno);
    return false;
  }
  // The header is durable before anything else is written, so after a crash
  // this file is either ours by its header or no longer than the header.
  buf_ = file_header();
  if (!write_buffered(err)) return false;
  if (::fsync(fd_) != 0) {
    *err = "cannot write " + tmp_ + ": " + std::strerror(errno);
    return false;
  }
  std::string payload;
  put_u8(payload, kSchema);
  put_u32(payload, 0);
  put_u64(payload, kFormatVersion);
  encode_schema(payload, schema);
  append_frame(buf_, payload);
  return true;
}

bool CheckpointFile::encode_slice(const Store& store) {
  size_t rows = 0, looked = 0, start = buf_.size();
  // Ids looked at per slice, so a table with few live rows among many
  // deleted ids does not hold the lock for long either.
  const size_t max_looked = 64 * kSliceRows;
  for (; cls_ < store.size(); ++cls_, next_id_ = 1) {
    const Table& t = store.table(cls_);
    const ClassDef& def = t.def();
    if (!def.durable()) continue;
    rows_.clear();
    put_u8(rows_, kRows);
    put_u32(rows_, def.id);
    put_u64(rows_, 0);  // the count, patched below
    uint64_t n = 0;
    for (; next_id_ < t.next_id; ++next_id_) {
      if (rows == kSliceRows || looked == max_looked || buf_.size() + rows_.size() - start >= kSliceBytes) break;
      ++looked;
      const Row* r = t.find(next_id_);
      if (!r) continue;
      put_u64(rows_, static_cast<uint64_t>(next_id_));
      encode_row(rows_, def, r->slots());
      ++n;
      ++rows;
    }
    if (n > 0) {
      patch_u64(rows_, 5, n);
      append_frame(buf_, rows_);
    }
    if (next_id_ < t.next_id) break;  // the slice is full
    // The class is done: its next id, which its rows need not tell (the
    // last ids deleted, or burnt by an aborted transaction). Read now, under
    // the lock that saw its last rows: an id handed out later is in the log
    // copied after the snapshot.
    rows_.clear();
    put_u8(rows_, kNextId);
    put_u32(rows_, def.id);
    put_u64(rows_, static_cast<uint64_t>(t.next_id));
    append_frame(buf_, rows_);
  }
  slices_++;
  max_slice_rows_ = std::max<uint64_t>(max_slice_rows_, rows);
  return cls_ == store.size();
}

bool CheckpointFile::write_buffered(std::string* err) {
  if (!write_all(fd_, buf_)) {
    *err = "cannot write " + tmp_ + ": " + std::strerror(errno);
    return false;
  }
  written_ += buf_.size();
  buf_.clear();
  // Written back as it goes, a few MiB at a time: on ext4 (data=ordered) a
  // commit's fdatasync of the log commits the journal, which first writes
  // every dirty block of this file; with the whole snapshot dirty that made
  // a writer's commit wait for tens of MiB (a 0.5 s commit seen during a
  // 1M-row checkpoint). Only the checkpoint waits here; no lock is held.
  if (written_ - flushed_ >= (uint64_t{4} << 20)) {
    ::sync_file_range(fd_, static_cast<off_t>(flushed_), static_cast<off_t>(written_ - flushed_),
                      SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE | SYNC_FILE_RANGE_WAIT_AFTER);
    flushed_ = written_;
  }
  return true;
}

namespace {

void mark(std::string& out, uint8_t kind) {
  std::string payload;
  put_u8(payload, kind);
  put_u32(payload, 0);
  put_u64(payload, 0);
  append_frame(out, payload);
}

}  // namespace

void CheckpointFile::end_snapshot() { mark(buf_, kSnapshotEnd); }

bool CheckpointFile::copy_log(int log_fd, uint64_t from, uint64_t to, std::string* err) {
  if (!write_buffered(err)) return false;
  std::string chunk;
  while (from < to) {
    chunk.resize(static_cast<size_t>(std::min<uint64_t>(to - from, uint64_t{1} << 20)));
    ssize_t n = ::pread(log_fd, chunk.data(), chunk.size(), static_cast<off_t>(from));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      *err = "cannot read the log " + log_path_ + ": " + std::strerror(n < 0 ? errno : EIO);
      return false;
    }
    chunk.resize(static_cast<size_t>(n));
    from += static_cast<uint64_t>(n);
    buf_.swap(chunk);
    bool ok = write_buffered(err);
    buf_.swap(chunk);
    if (!ok) return false;
  }
  return true;
}

bool CheckpointFile::sync(std::string* err) {
  if (!write_buffered(err)) return false;
  // Room for the log bytes install still copies (a round or two) and for
  // the new log's first commits: real zeros to the next MiB past 1 MiB of
  // slack, so neither install's sync nor those commits change the file's
  // size or allocation (each such change is a journal commit).
  constexpr uint64_t kMiB = uint64_t{1} << 20;
  uint64_t to = (written_ + 2 * kMiB) / kMiB * kMiB;
  static const char zeros[64 << 10] = {};
  for (uint64_t at = written_; at < to;) {
    ssize_t w = ::pwrite(fd_, zeros, static_cast<size_t>(std::min<uint64_t>(sizeof zeros, to - at)), static_cast<off_t>(at));
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      *err = "cannot write " + tmp_ + ": " + std::strerror(w < 0 ? errno : ENOSPC);
      return false;
    }
    at += static_cast<uint64_t>(w);
  }
  zeroed_to_ = to;
  if (::fdatasync(fd_) != 0) {
    *err = "cannot write " + tmp_ + ": " + std::strerror(errno);
    return false;
  }
  return true;
}

int64_t CheckpointFile::caught_up(std::string* err) {
  mark(buf_, kCaughtUp);
  if (!write_buffered(err)) return -1;
  return static_cast<int64_t>(written_);
}

bool CheckpointFile::publish(std::string* err) {
  // fdatasync: the data and whatever metadata reading it needs (the size,
  // if the last bytes outgrew the zeros); the file's times need not wait.
  // Before the rename: the name must never reach a file without its frames.
  if (::fdatasync(fd_) != 0) {
    *err = "cannot write " + tmp_ + ": " + std::strerror(errno);
    return false;
  }
  // Taken before the name is the log's: no other process can lock the new
  // log between the rename and us (the old file's lock goes with its fd).
  if (::flock(fd_, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK) {
    *err = tmp_ + " is locked by another process";
    return false;
  }
  if (testing::during_install) testing::during_install(1);
  if (::rename(tmp_.c_str(), log_path_.c_str()) != 0) {
    *err = "cannot rename " + tmp_ + ": " + std::strerror(errno);
    return false;
  }
  installed_ = true;
  if (testing::during_install) testing::during_install(2);
  int derr = 0;
  if (!fsync_parent_dir(log_path_, &derr)) die_durability("fsync (directory, after checkpoint)", log_path_, derr, 0);
  return true;
}

int64_t CheckpointFile::install(std::string* err) {
  int64_t end = caught_up(err);
  if (end < 0 || !publish(err)) return -1;
  ::close(release_fd());
  return end;
}

int64_t write_checkpoint(const std::string& log_path, const Store& store, std::string* err) {
  CheckpointFile cf;
  if (!cf.create(log_path, store.schema(), err)) return -1;
  for (bool done = false; !done;) {
    done = cf.encode_slice(store);
    if (!cf.write_buffered(err)) return -1;
  }
  cf.end_snapshot();
  return cf.install(err);
}

}  // namespace wo::db
