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
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

namespace wo::db {

inline constexpr size_t kHeaderSize = 16;
inline constexpr uint32_t kFileVersion = 3;  // 1: the headerless log (frames from offset 0)
// 2: header + frames of kinds 1-6; 3 adds the checkpoint frames (frame.h).
// A file of version 2 is read as it is (and appended to: its frames are
// the same); its next checkpoint writes version 3.
inline constexpr uint32_t kOldestHeaderVersion = 2;

// The header this runtime writes.
std::string file_header();

// What a file's first bytes say about whose it is.
enum class FileKind {
  Fresh,    // empty, or a header torn while it was created (shorter than or
            // as long as the header, every byte ours or zero): initialise it
  Store,    // our header, versions 2 to this one: frames from kHeaderSize
  Legacy,   // version 1: a valid frame at offset 0; replay from 0, then rewrite
  Newer,    // our magic with a version this runtime does not read
  Damaged,  // our magic with a version or flags no runtime ever wrote
  Foreign,  // anything else: not ours, never touched
};

struct FileCheck {
  FileKind kind;
  uint32_t version = 0;  // Store / Newer / Damaged: the header's version
};

FileCheck classify_file(const uint8_t* data, size_t size);

// One line for a refused file (Newer, Damaged, Foreign), naming `path`.
std::string refusal(const FileCheck& c, const std::string& path);

}  // namespace wo::db
