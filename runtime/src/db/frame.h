// WAL frames (runtime.md §1.10, adopted with two changes):
//
//   frame   := len:u32  crc:u32  payload[len]  mark:u32      (mark = "WOL1")
//   crc     := CRC-32C of the payload (store file format 3 on; formats 1 and 2
//              carry runtime.md's IEEE CRC-32 and are still read:
//              docs/decisions/0054-libraries-where-they-win.md)
//   payload := kind:u8  class_id:u32  row_id:u64  body
//
// kinds 1 INSERT (body: the row), 2 REMOVE (empty), 3 UPDATE (the whole row),
// 5 SCHEMA (the head, see store/schema.h; row_id = format version 1), and ours:
// 6 GROUP (class_id 0, row_id = n, body = n sub-records `len:u32 payload`).
// File format 3 adds the checkpoint's frames (docs/decisions/0051):
// 7 ROWS (class_id, row_id = n, body = n times `id:u64 row`), 8 SNAPSHOT_END
// and 9 CAUGHT_UP (both class_id 0, row_id 0, no body): the log bytes copied
// between them were written while the snapshot was taken, and replay applies
// them idempotently (see replay.h).
// File format 4 adds 10 NEXT_ID (class_id, row_id = the class's next id, no
// body): replay leaves that class's next id at least there. A checkpoint
// writes one per durable table (its rows alone do not tell an id past the
// last live row), and an aborted transaction stages one per durable table it
// inserted into, whose ids it burns (docs/decisions/0080).
// One group commit writes exactly one frame: a lone record as a plain frame,
// anything more (several writers' records, a transaction) as one GROUP under
// one CRC. So a torn write loses the whole batch or nothing, a transaction
// is never applied in part, and at most one frame (the last) can be torn.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace wo::db {

inline constexpr uint32_t kMark = 0x574F4C31;  // "WOL1" little-endian
enum RecordKind : uint8_t { kInsert = 1, kRemove = 2, kUpdate = 3, kDelta = 4, kSchema = 5, kGroup = 6,
                          kRows = 7, kSnapshotEnd = 8, kCaughtUp = 9, kNextId = 10 };
inline constexpr size_t kPayloadHeader = 13;
inline constexpr size_t kFrameOverhead = 12;
// A staging buffer starts with this much room, so the frame header can be
// written in place in front of its sub-records (one contiguous pwrite).
inline constexpr size_t kStageReserve = 8 + kPayloadHeader;
// Largest frame we write (a batch stops before it; a bigger transaction traps).
inline constexpr size_t kMaxFrame = size_t{1} << 30;
inline constexpr uint64_t kFormatVersion = 1;

// The checksum a file's frames carry (file_header.h says which): frames are
// always written with CRC-32C.
enum class FrameSum : uint8_t { Crc32c, Crc32 };

// Appends a sub-record header (`len` patched by end_record) and returns its offset.
size_t begin_record(std::string& out, uint8_t kind, uint32_t cls, uint64_t row);
void end_record(std::string& out, size_t at);

// Seals a staging buffer (kStageReserve bytes, then `nrec` >= 1 sub-records)
// into one frame in place and returns the bytes to write.
std::string_view seal_frame(std::string& buf, uint32_t nrec);
// Appends a plain frame around `payload` (checkpoints, tests).
void append_frame(std::string& out, std::string_view payload);

// Reads the frame at `off`: its payload and the next offset, or false when
// it is short, has len 0, a CRC mismatch or no mark.
bool read_frame(const uint8_t* data, size_t size, size_t off, std::string_view* payload, size_t* next,
                FrameSum sum = FrameSum::Crc32c);
// The first offset in (from, size) where a valid frame starts: a bad frame
// followed by a good one is corruption in the middle, not a torn tail.
bool find_valid_frame_after(const uint8_t* data, size_t size, size_t from, size_t* at,
                            FrameSum sum = FrameSum::Crc32c);

}  // namespace wo::db
