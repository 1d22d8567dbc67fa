// Checkpoint (runtime.md §1.13), also used to rewrite the log after a
// schema migration or to give a log of the earlier format its header: the
// file header (synced first), the head and one INSERT frame per live durable
// row go to `<log>.compact`, which is fsynced and renamed over the log, and
// then the directory is fsynced. A crash at any point leaves either the old
// or the new log complete; a stale `.compact` is deleted at the next open.
#pragma once
#include <cstdint>
#include <string>

#include "store.h"

namespace wo::db {

// The new log's size, or -1 with *err when the snapshot could not be
// written (the old log is untouched: a missed optimisation). A failure to
// fsync the directory after the rename exits 74: which log survives a crash
// would be unknown.
// Deletes a `.compact` left by a checkpoint that died before its rename. A
// file of that name the store did not write (its header says whose it is:
// a crash can leave only our header, a prefix of it, or zeros no longer
// than it) is refused with *err and left alone; so is anything not a
// regular file.
bool clear_stale_checkpoint(const std::string& log_path, std::string* err);

int64_t write_checkpoint(const std::string& log_path, const Store& store, std::string* err);

// Whether to compact now (a pure function of sizes, no timer: an idle log
// does not grow): `used >= floor` and (never compacted in this process, or
// 64 MiB of garbage, or `used > ratio * last`; ratio 0 turns that term off).
bool checkpoint_due(uint64_t used, uint64_t last, uint64_t floor, uint64_t ratio);

}  // namespace wo::db
