// The log file: where WO_DATA points (§1.9), appends that are on disk before
// they return (§1.11), and the one way out when the disk fails: a diagnostic
// and exit 74, never a retry (after a failed fsync the kernel may have
// dropped the dirty pages, so a retry can falsely succeed).
//
// The file is grown ahead of the write position with real zero bytes, not
// fallocate: overwriting written blocks needs no metadata update, so each
// commit's fdatasync flushes data only, and the zeros are how the reader
// finds the end (len 0).
#pragma once
#include <atomic>
#include <cstdint>
#include <string>
#include <string_view>

namespace wo::db {

// WO_DATA -> the log path: an existing directory (or a path ending in '/')
// holds `shard-0.wal`; anything else is the log file itself, whose parent
// must exist. A log path that is a symbolic link becomes the file it names
// (a checkpoint renames over the log: over the link it would replace the
// link and leave the real file behind); a dangling link is refused.
// Refusals name the path (and the parent).
bool resolve_data_path(const std::string& data, std::string* log, std::string* err);

[[noreturn]] void die_durability(const char* op, const std::string& path, int err, uint64_t nrec);
// fsync of the directory holding `path` (a rename is durable only then).
bool fsync_parent_dir(const std::string& path, int* err);

class LogFile {
 public:
  LogFile() = default;
  ~LogFile();
  LogFile(const LogFile&) = delete;
  LogFile& operator=(const LogFile&) = delete;

  // Opens (or creates) the log without following a symbolic link and
  // without changing a byte of it: whose file it is is decided by its header
  // (file_header.h) before anything is written.
  bool open(const std::string& path, std::string* err);
  // Makes the file an empty store: the header alone, synced, and the
  // directory synced (the file's name is durable only then). For a new file
  // or one whose header was torn while it was created. Exits 74 on failure.
  void initialise();
  // Gives a log of file format 3 the current header (format 4 only adds a
  // frame kind, decision 0080): its version byte rewritten and synced,
  // before anything is appended. false with *err (nothing else written).
  bool upgrade_header(std::string* err);
  int fd() const { return fd_; }
  const std::string& path() const { return path_; }
  uint64_t end() const { return end_; }     // where the next frame goes
  uint64_t size() const { return size_; }   // file size; zeros past end()
  void set_end(uint64_t end) { end_ = end; }

  // Writes `bytes` at end(), fdatasyncs, advances end(); while a mirror is
  // set, the same on the mirror. Exits 74 on failure.
  void append_durable(std::string_view bytes, uint64_t nrec);
  // Cuts the file at end() (drops a torn tail's bytes so they can never be
  // read as records later) and syncs. Exits 74 on failure.
  void truncate_at_end();
  // Takes the file now at path() (a checkpoint renamed over it): its frames
  // end at `end`, zeros follow up to `size` (its preallocation). The old
  // file's descriptor goes to *retired for the caller to close later: closing
  // the last reference to a replaced log frees its blocks, which took 10-30
  // ms that no commit should wait for.
  bool reopen(uint64_t end, uint64_t size, int* retired, std::string* err);

  // A checkpoint's install without stopping commits (docs/decisions/0074):
  // from mirror() on, every append also goes to `fd` (the new file, named
  // `mirror_name` in messages; its frames end at `end`, zeros follow up to
  // `size`) and is fdatasynced there too, so both files hold every
  // acknowledged frame while the new one's rename becomes durable. Once it
  // is, mirror_durable() (any thread) has the next append switch to the new
  // file first; take_mirror() (leader) makes sure it has switched and
  // returns the old descriptor, to be closed later with release_retired().
  // drop_mirror() forgets the new file (the install failed before its
  // rename; the caller still owns `fd`). mirror/take/drop: leader only.
  void mirror(int fd, uint64_t end, uint64_t size, std::string mirror_name);
  void mirror_durable() { mirror_durable_.store(true, std::memory_order_release); }
  int take_mirror();
  void drop_mirror() { mirror_fd_ = -1; }

 private:
  void switch_to_mirror();
  // Writes at `*end` of `fd` (zeros grown past `*size` as needed); no sync.
  void write_at(int fd, uint64_t end, uint64_t* size, std::string_view bytes, uint64_t nrec, const std::string& name);

  std::string path_;
  int fd_ = -1;
  uint64_t end_ = 0;
  uint64_t size_ = 0;
  int mirror_fd_ = -1;  // the checkpoint's new file during its install (the checkpoint's until the switch)
  uint64_t mirror_end_ = 0, mirror_size_ = 0;
  std::string mirror_name_;
  std::atomic<bool> mirror_durable_{false};  // its rename is durable: switch at the next append
  int retired_fd_ = -1;                      // the log's old descriptor after the switch
};

// Closes a log replaced by a checkpoint, first freeing its blocks a few MiB
// at a time, each step's journal commit done before the next: freed in one
// close, 40 MB of blocks (discarded, on a volume mounted with `discard`)
// held every commit's device flush for 5-60 ms. A file that still has a
// name (a hard link someone made) is only closed.
void release_retired(int fd);

namespace testing {
// When > 0, the n-th next log fdatasync fails with EIO (counts down). Tests only.
extern std::atomic<int> fail_sync_countdown;
// When set, called before each log fdatasync (a test holds a round in its sync).
extern std::atomic<void (*)()> before_sync;
}  // namespace testing

}  // namespace wo::db
