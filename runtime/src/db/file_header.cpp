// The store file header (see file_header.h).
#include "file_header.h"

#include "model.h"
#include "frame.h"

namespace wo::db {
namespace {

constexpr char kMagic[8] = {'\x89', 'W', 'O', 'D', 'B', '\r', '\n', '\x1a'};

}  // namespace

std::string file_header() {
  std::string h(kMagic, sizeof kMagic);
  put_u32(h, kFileVersion);
  put_u32(h, 0);
  return h;
}

FileCheck classify_file(const uint8_t* data, size_t size) {
  const std::string ours = file_header();
  if (size <= kHeaderSize) {
    // The header is written first and synced before anything else, so a
    // crash while it was written leaves at most its bytes, some of them
    // possibly still zero (a size that reached the disk before the data).
    // (Also a version-2 or -3 header torn so: the byte at 8 was 2 or 3 then.)
    bool torn = true;
    for (size_t i = 0; i < size && torn; ++i)
      torn = data[i] == 0 || data[i] == static_cast<uint8_t>(ours[i]) || (i == 8 && (data[i] == 2 || data[i] == 3));
    if (torn && size < kHeaderSize) return {FileKind::Fresh};
    if (torn && std::string_view(reinterpret_cast<const char*>(data), size) != ours) return {FileKind::Fresh};
  }
  if (size >= kHeaderSize && std::memcmp(data, kMagic, sizeof kMagic) == 0) {
    uint32_t version = load_u32(data + 8);
    uint32_t flags = load_u32(data + 12);
    if ((version == kFileVersion || version == 3) && flags == 0) return {FileKind::Store, version};
    if (version == 2 && flags == 0) return {FileKind::Legacy, version, kHeaderSize, FrameSum::Crc32};
    if (version > kFileVersion) return {FileKind::Newer, version};
    return {FileKind::Damaged, version};
  }
  std::string_view payload;
  size_t next;
  if (read_frame(data, size, 0, &payload, &next, FrameSum::Crc32)) return {FileKind::Legacy, 1, 0, FrameSum::Crc32};
  return {FileKind::Foreign};
}

std::string refusal(const FileCheck& c, const std::string& path) {
  switch (c.kind) {
    case FileKind::Newer:
      return path + " was written by a newer version of the store (file format " + std::to_string(c.version) +
             "; this runtime reads formats 1 to " + std::to_string(kFileVersion) +
             "); refusing to open it (the file is left untouched)";
    case FileKind::Damaged:
      return path + " has a damaged store header (format " + std::to_string(c.version) +
             "); refusing to open it (the file is left untouched)";
    default:
      return path +
             " is not a wo store (it has no store header and is not a log of the earlier format); refusing to "
             "open it (the file is left untouched): point WO_DATA at a new file or a directory";
  }
}

}  // namespace wo::db
