// Boot recovery (runtime.md §1.12): scan the log's frames from `start` (past
// the file header; 0 in a log of the earlier format) and
// apply them to the store through the same attach/detach path as live
// writes, so every index is rebuilt as it was.
//
// The end of the log is the first frame that is short, has len 0, fails its
// CRC or lacks its mark. That is a torn tail (the one write in flight at the
// crash: everything before it is applied, nothing after) unless a valid frame
// follows somewhere after it: then the log is corrupt in the middle and
// start-up is refused, naming the file and the offset. A frame that passes
// its CRC but does not decode, names an unknown class, re-creates an id,
// touches a missing row or breaks a unique index is corruption too.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "frame.h"
#include "migrate.h"
#include "schema.h"
#include "store.h"

namespace wo::db {

struct ReplayResult {
  uint64_t end = 0;          // end of the intact prefix: the next frame goes here
  bool tail_dirty = false;   // non-zero bytes after `end` (a torn tail to cut off)
  bool has_head = false;     // the log starts with a SCHEMA record
  MigrationPlan plan;        // how the head relates to the program
  uint64_t frames = 0;
  uint64_t records = 0;
};

// `sum`: the checksum the file's frames carry (FileCheck::sum).
bool replay(const uint8_t* data, size_t size, size_t start, const std::string& path, const Schema& program,
            Store& store, ReplayResult* out, std::string* err, FrameSum sum = FrameSum::Crc32c);

}  // namespace wo::db
