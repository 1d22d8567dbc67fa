// The frame checksums (runtime.md §1.10). Our own small versions, so the
// runtime links nothing beyond libc (native programs link libwo_runtime.a).
//
// crc32c (Castagnoli, reflected polynomial 0x82F63B78) is what frames carry
// from store file format 3 on: SSE4.2 computes it in hardware, 5-10x the
// table-driven IEEE CRC on this machine (docs/perf/libraries.md, bench/libs,
// docs/decisions/0054). crc32 (IEEE, reflected 0xEDB88320) stays to read
// files of formats 1 and 2.
#pragma once
#include <cstddef>
#include <cstdint>

namespace wo::db {

// Continues `crc` (0 to start) over `n` bytes: crc32(crc32(0, a), b) equals
// crc32(0, a ++ b), so a frame's header and body can be summed apart.
uint32_t crc32(uint32_t crc, const void* data, size_t n);

// The same contract with the Castagnoli polynomial: the SSE4.2 instruction
// when the CPU has it (checked once at run time), else a table.
uint32_t crc32c(uint32_t crc, const void* data, size_t n);
// The table version alone (the fallback; tests compare the two).
uint32_t crc32c_portable(uint32_t crc, const void* data, size_t n);

}  // namespace wo::db
