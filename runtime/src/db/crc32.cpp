// Slicing-by-4 CRC-32: four table lookups per 4 bytes. Checkpoints sum
// megabytes at once, so the plain byte-at-a-time loop would show there.
// CRC-32C: the SSE4.2 `crc32` instruction, 8 bytes at a time, when the CPU
// has it; the same slicing tables for the Castagnoli polynomial otherwise.
#include "crc32.h"

#include <array>
#include <cstring>

#if defined(__x86_64__)
#include <cpuid.h>
#include <nmmintrin.h>
#endif

namespace wo::db {
namespace {

using Tables = std::array<std::array<uint32_t, 256>, 4>;

constexpr Tables make_tables(uint32_t poly) {
  Tables t{};
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t c = i;
    for (int k = 0; k < 8; ++k) c = (c & 1) ? poly ^ (c >> 1) : c >> 1;
    t[0][i] = c;
  }
  for (uint32_t i = 0; i < 256; ++i)
    for (int s = 1; s < 4; ++s) t[s][i] = (t[s - 1][i] >> 8) ^ t[0][t[s - 1][i] & 0xFF];
  return t;
}

constexpr Tables kTables = make_tables(0xEDB88320u);
constexpr Tables kTablesC = make_tables(0x82F63B78u);

uint32_t slice4(const Tables& t, uint32_t crc, const void* data, size_t n) {
  const auto* p = static_cast<const unsigned char*>(data);
  uint32_t c = ~crc;
  while (n >= 4) {
    uint32_t w;
    std::memcpy(&w, p, 4);  // little-endian hosts only (static_assert in store/codec.h)
    c ^= w;
    c = t[3][c & 0xFF] ^ t[2][(c >> 8) & 0xFF] ^ t[1][(c >> 16) & 0xFF] ^ t[0][c >> 24];
    p += 4;
    n -= 4;
  }
  while (n--) c = t[0][(c ^ *p++) & 0xFF] ^ (c >> 8);
  return ~c;
}

#if defined(__x86_64__)
__attribute__((target("sse4.2"))) uint32_t crc32c_sse42(uint32_t crc, const void* data, size_t n) {
  const auto* p = static_cast<const unsigned char*>(data);
  uint64_t c = ~crc;
  while (n >= 8) {
    uint64_t w;
    std::memcpy(&w, p, 8);
    c = _mm_crc32_u64(c, w);
    p += 8;
    n -= 8;
  }
  auto c32 = static_cast<uint32_t>(c);
  while (n--) c32 = _mm_crc32_u8(c32, *p++);
  return ~c32;
}

// Whether the CPU has SSE4.2, asked on the first CRC-32C (docs/decisions/0067):
// one `cpuid` leaf, not __builtin_cpu_supports, whose libgcc constructor
// runs a dozen `cpuid`s in every executable's start (each traps to the
// hypervisor in a VM: ~50 us of a woc hello's 0.7 ms), program using the
// store or not.
bool has_sse42() {
  unsigned a = 0, b = 0, c = 0, d = 0;
  return __get_cpuid(1, &a, &b, &c, &d) && (c & bit_SSE4_2) != 0;
}
#endif

}  // namespace

uint32_t crc32(uint32_t crc, const void* data, size_t n) { return slice4(kTables, crc, data, n); }

uint32_t crc32c_portable(uint32_t crc, const void* data, size_t n) { return slice4(kTablesC, crc, data, n); }

uint32_t crc32c(uint32_t crc, const void* data, size_t n) {
#if defined(__x86_64__)
  static const bool sse42 = has_sse42();  // a constant after the first call (thread-safe initialisation)
  return sse42 ? crc32c_sse42(crc, data, n) : crc32c_portable(crc, data, n);
#else
  return crc32c_portable(crc, data, n);
#endif
}

}  // namespace wo::db
