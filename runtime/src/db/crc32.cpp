// Slicing-by-4 CRC-32: four table lookups per 4 bytes. Checkpoints sum
// megabytes at once, so the plain byte-at-a-time loop would show there.
#include "crc32.h"

#include <array>
#include <cstring>

namespace wo::db {
namespace {

using Tables = std::array<std::array<uint32_t, 256>, 4>;

constexpr Tables make_tables() {
  Tables t{};
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t c = i;
    for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
    t[0][i] = c;
  }
  for (uint32_t i = 0; i < 256; ++i)
    for (int s = 1; s < 4; ++s) t[s][i] = (t[s - 1][i] >> 8) ^ t[0][t[s - 1][i] & 0xFF];
  return t;
}

constexpr Tables kTables = make_tables();

}  // namespace

uint32_t crc32(uint32_t crc, const void* data, size_t n) {
  const auto* p = static_cast<const unsigned char*>(data);
  uint32_t c = ~crc;
  while (n >= 4) {
    uint32_t w;
    std::memcpy(&w, p, 4);  // little-endian hosts only (static_assert in codec.h)
    c ^= w;
    c = kTables[3][c & 0xFF] ^ kTables[2][(c >> 8) & 0xFF] ^ kTables[1][(c >> 16) & 0xFF] ^
        kTables[0][c >> 24];
    p += 4;
    n -= 4;
  }
  while (n--) c = kTables[0][(c ^ *p++) & 0xFF] ^ (c >> 8);
  return ~c;
}

}  // namespace wo::db
