// What a disk holds after a power loss, from the journal of tests/db/fs_shim.c.
//
// The model is POSIX's promise and no more: a file's bytes and size are on
// disk as of its last fsync/fdatasync; a name (a create, a rename, an unlink)
// is on disk as of the last fsync of its directory. Everything after that is
// "pending" and may or may not have reached the disk. A crash state is the
// synced state plus some of the pending operations; the ones `materialise`
// can build:
//
//   Synced      none of them
//   All         all of them (the process died, the kernel wrote everything)
//   Prefix      the first k, in order, the k-th write cut at any byte (a
//               disk that writes in order and stops)
//   Scattered   each pending write's 512-byte sectors kept or lost one by one
//               (a disk that reorders), names a prefix in order
//
// Start from the directory's files as they were when the process started
// (all durable: the previous crash state), then feed the journal.
#pragma once
#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <vector>

namespace disk_model {

enum class Variant { Synced, All, Prefix, Scattered };
const char* variant_name(Variant v);

class Disk {
 public:
  // `files`: name -> bytes in the directory before the process ran.
  explicit Disk(const std::map<std::string, std::string>& files);

  // Applies the journal at `path`; false with *err when it is malformed.
  bool replay_journal(const std::string& path, std::string* err);

  // The directory after a power loss now: name -> bytes.
  std::map<std::string, std::string> materialise(Variant v, std::mt19937_64& rng) const;

  // Every prefix of the pending operations, as (k, keep): the first k whole,
  // then `keep` bytes of the k-th (a write). Each byte of the non-zero writes
  // is a cut point (every `stride`-th when there are more than `max`); zero
  // writes (preallocation) are cut at their ends and middle.
  std::vector<std::pair<size_t, size_t>> prefix_cuts(size_t max) const;
  std::map<std::string, std::string> materialise_prefix(size_t k, size_t keep) const;

  // For reports: pending operations; events journaled (the shim's "any"
  // class but mmap); renames.
  size_t pending() const { return pending_.size(); }
  size_t events() const { return events_; }
  size_t renames() const { return renames_; }

 private:
  struct Inode {
    std::string cur, synced;
  };
  struct Op {
    enum Kind { Write, Trunc, Link, Unlink, Rename } kind;
    int ino = -1;
    uint64_t off = 0;  // Write: offset; Trunc: size
    std::string bytes;
    std::string name, to;
  };

  static bool is_data(const Op& op) { return op.kind == Op::Write || op.kind == Op::Trunc; }
  static void apply_data(std::string& file, const Op& op, size_t keep);
  static void apply_name(std::map<std::string, int>& ns, const Op& op);

  std::vector<Inode> inodes_;
  std::map<std::string, int> names_, synced_names_;
  std::map<int, int> fds_;  // fd -> inode (-2: the directory)
  std::vector<Op> pending_;
  size_t events_ = 0, renames_ = 0;
};

}  // namespace disk_model
