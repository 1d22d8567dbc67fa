// Frame encoding and scanning (see frame.h).
#include "frame.h"

#include "model.h"
#include "crc32.h"

namespace wo::db {

size_t begin_record(std::string& out, uint8_t kind, uint32_t cls, uint64_t row) {
  size_t at = out.size();
  put_u32(out, 0);
  put_u8(out, kind);
  put_u32(out, cls);
  put_u64(out, row);
  return at;
}

void end_record(std::string& out, size_t at) {
  patch_u32(out, at, static_cast<uint32_t>(out.size() - at - 4));
}

std::string_view seal_frame(std::string& buf, uint32_t nrec) {
  if (nrec == 1) {  // [reserve-4: len][reserve: crc over the sub-record's payload]
    size_t start = kStageReserve - 4;
    uint32_t len = load_u32(buf.data() + kStageReserve);
    uint32_t crc = crc32c(0, buf.data() + kStageReserve + 4, len);
    patch_u32(buf, start, len);
    patch_u32(buf, kStageReserve, crc);
    put_u32(buf, kMark);
    return std::string_view(buf).substr(start);
  }
  std::string hdr;
  put_u8(hdr, kGroup);
  put_u32(hdr, 0);
  put_u64(hdr, nrec);
  buf.replace(8, kPayloadHeader, hdr);
  uint32_t len = static_cast<uint32_t>(buf.size() - 8);
  patch_u32(buf, 0, len);
  patch_u32(buf, 4, crc32c(0, buf.data() + 8, len));
  put_u32(buf, kMark);
  return buf;
}

void append_frame(std::string& out, std::string_view payload) {
  put_u32(out, static_cast<uint32_t>(payload.size()));
  put_u32(out, crc32c(0, payload.data(), payload.size()));
  out.append(payload);
  put_u32(out, kMark);
}

bool read_frame(const uint8_t* data, size_t size, size_t off, std::string_view* payload, size_t* next,
                FrameSum sum) {
  if (off > size || size - off < kFrameOverhead) return false;
  uint32_t len = load_u32(data + off);
  if (len == 0 || len > size - off - kFrameOverhead) return false;
  if (load_u32(data + off + 8 + len) != kMark) return false;
  uint32_t crc = sum == FrameSum::Crc32c ? crc32c(0, data + off + 8, len) : crc32(0, data + off + 8, len);
  if (crc != load_u32(data + off + 4)) return false;
  *payload = std::string_view(reinterpret_cast<const char*>(data + off + 8), len);
  *next = off + kFrameOverhead + len;
  return true;
}

bool find_valid_frame_after(const uint8_t* data, size_t size, size_t from, size_t* at, FrameSum sum) {
  std::string_view p;
  size_t next;
  for (size_t off = from + 1; off + kFrameOverhead <= size; ++off) {
    uint32_t len = load_u32(data + off);
    if (len == 0 || len > size - off - kFrameOverhead) continue;  // cheap rejections first
    if (load_u32(data + off + 8 + len) != kMark) continue;
    if (read_frame(data, size, off, &p, &next, sum)) {
      *at = off;
      return true;
    }
  }
  return false;
}

}  // namespace wo::db
