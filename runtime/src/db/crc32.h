// CRC-32 (IEEE, reflected polynomial 0xEDB88320), the checksum of every WAL
// frame (runtime.md §1.10). Our own small table-driven version, so the
// runtime links nothing beyond libc (native programs link libwo_runtime.a).
#pragma once
#include <cstddef>
#include <cstdint>

namespace wo::db {

// Continues `crc` (0 to start) over `n` bytes: crc32(crc32(0, a), b) equals
// crc32(0, a ++ b), so a frame's header and body can be summed apart.
uint32_t crc32(uint32_t crc, const void* data, size_t n);

}  // namespace wo::db
