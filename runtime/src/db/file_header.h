// The store file header: every file the store writes (the log, and the
// `<log>.compact` that becomes the log) starts with these 16 bytes, so the
// store can tell its own files from anything else WO_DATA may name and never
// overwrites what it did not write (docs/decisions/0013-store-files-and-durability.md):
//
//   header := magic[8] = 89 'W' 'O' 'D' 'B' 0D 0A 1A   version:u32   flags:u32 = 0
//
// (the PNG trick: a high byte, then CR LF and ^Z, so no text file starts
// like this and a text-mode copy is caught). Frames (frame.h) follow it.
// Version 1 is the log of before the header: frames from offset 0, still
// read (recognised by a valid first frame) and rewritten with a header.
// Version 2 is the header with frames under the IEEE CRC-32; version 3 sums
// them with CRC-32C (docs/decisions/0054): a version-2 file is read with its
// own CRC and rewritten in the current format, like a version-1 one. Version
// 4 adds the NEXT_ID frame (frame.h, docs/decisions/0080); a version-3 file
// is one already, so it is read as it is and only its header's version is
// rewritten (one byte) before anything is appended.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

#include "frame.h"

namespace wo::db {

inline constexpr size_t kHeaderSize = 16;
inline constexpr uint32_t kFileVersion = 4;  // 1: the headerless log (frames from offset 0)
// 2: header + frames of kinds 1-6 under the IEEE CRC-32; 3 adds the
// checkpoint frames (frame.h) and sums every frame with CRC-32C. A file of
// version 2 is read under its own CRC and rewritten as version 3 at open
// (the Legacy path), so no file ever mixes the two checksums and a runtime
// that reads only version 2 refuses the file instead of misreading it.
// 4 adds NEXT_ID: a runtime of version 3 refuses a file that may hold one
// as "written by a newer version" rather than as corruption.

// The header this runtime writes.
std::string file_header();

// What a file's first bytes say about whose it is.
enum class FileKind {
  Fresh,    // empty, or a header torn while it was created (shorter than or
            // as long as the header, every byte ours or zero): initialise it
  Store,    // our header, this version or 3 (version says which; a 3 gets the
            // current header before anything is appended): frames from kHeaderSize
  Legacy,   // an earlier version (1: a valid frame at offset 0; 2: our header
            // with IEEE CRCs): replay it from `start` under `sum`, then rewrite
  Newer,    // our magic with a version this runtime does not read
  Damaged,  // our magic with a version or flags no runtime ever wrote
  Foreign,  // anything else: not ours, never touched
};

struct FileCheck {
  FileKind kind;
  uint32_t version = 0;  // Store / Legacy / Newer / Damaged: the file's format
  size_t start = kHeaderSize;         // Store / Legacy: where the frames begin
  FrameSum sum = FrameSum::Crc32c;    // Store / Legacy: their checksum
};

FileCheck classify_file(const uint8_t* data, size_t size);

// One line for a refused file (Newer, Damaged, Foreign), naming `path`.
std::string refusal(const FileCheck& c, const std::string& path);

}  // namespace wo::db
