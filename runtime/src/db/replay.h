// Boot recovery (runtime.md §1.12): scan the log's frames from `start` (past
// the file header; 0 in a log of the earlier format) and apply them to the
// tables' rows; then every index is built once from the final rows
// (bulk_index.h) and the ref counts are recounted. Rows and indexes end as
// live writes through attach/detach would have left them; a unique key held
// by two rows at the end is corruption (a log the store wrote never has one).
//
// A checkpoint (file format 3, checkpoint.h) starts with ROWS frames (a
// snapshot taken in slices while writers went on), then SNAPSHOT_END, the log
// bytes written meanwhile, and CAUGHT_UP. Between those two marks records are
// applied idempotently, as full row images: INSERT and UPDATE put the row
// whatever was there, REMOVE of a missing row and the lazily written schema
// head are no-ops. Everywhere else the strict rules below hold.
//
// Each table's next id ends past every id a record named (an INSERT's row,
// even if a later REMOVE took it away) and at least at its NEXT_ID marks
// (format 4: a checkpoint's, an aborted transaction's; docs/decisions/0080),
// so no id is handed out twice, whatever the log was cut down to.
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
#include "model.h"
#include "store.h"

namespace wo::db {

struct ReplayResult {
  uint64_t end = 0;          // end of the intact prefix: the next frame goes here
  bool tail_dirty = false;   // non-zero bytes after `end` (a torn tail to cut off)
  bool has_head = false;     // the log starts with a SCHEMA record
  MigrationPlan plan;        // how the head relates to the program
  uint64_t frames = 0;
  uint64_t records = 0;
  uint64_t snapshot_end = 0; // end of the checkpoint's frames through CAUGHT_UP (0: none)
};

// `version`: the file header's (1: headerless); the checkpoint frames are
// read only in files of version 3 and later. `sum`: the checksum the file's
// frames carry (FileCheck::sum). `indexes`: false leaves every index empty
// for the caller to build (build_indexes, bulk_index.h: the engine builds a
// large store's in the background, decision 0070); a unique key held twice
// is then found there, not here.
bool replay(const uint8_t* data, size_t size, size_t start, uint32_t version, const std::string& path,
            const Schema& program, Store& store, ReplayResult* out, std::string* err,
            FrameSum sum = FrameSum::Crc32c, bool indexes = true);

namespace testing {
// Tests: how many decoded words of a snapshot's rows boot holds at a time
// (its blocks go in windows of about this much; default 2 Mi words).
extern size_t replay_window_words;
}  // namespace testing

}  // namespace wo::db
