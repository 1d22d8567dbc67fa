// Index keys: one order-preserving byte string per (index, row), so a plain
// bytewise compare gives the order of §1.6 and bytewise equality gives the
// equality of probes and @unique. Every index (unique, secondary, composite)
// and every query path (probe, range, sort, scan fallback) goes through these
// functions: the probe's canonicalisation is by construction the one index
// maintenance used (lesson 2 of §1.16).
//
// Per column: a nullable field starts with 0x00 (nil, sorts first) or 0x01;
// Int-shaped kinds are big-endian with the sign bit flipped; Float is
// canonicalised (-0.0 -> 0.0, every NaN -> one NaN) then mapped to the
// total order (-Inf < ... < -0.0 == 0.0 < ... < +Inf < NaN); Text/Bytes are
// the bytes with 0x00 escaped as 0x00 0xFF and ended by 0x00 0x00, so a
// proper prefix sorts first and composite keys stay unambiguous.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

#include "row.h"
#include "schema.h"

namespace wo::db {

// One column from an engine word (blobs as Blob*).
void append_key(std::string& out, const Field& f, uint64_t engine_word);
// One column from an ABI word (blobs as WoText*/WoBytes*): probe keys.
void append_key_abi(std::string& out, const Field& f, uint64_t abi_word);

// Whether the key of one column holding engine word `w` is `key` (what
// append_key would write), without building it where that can be avoided.
bool key_equals(const Field& f, uint64_t engine_word, std::string_view key);

// The Float bits an index sees: -0.0 as 0.0, every NaN as 0x7FF8000000000000.
uint64_t canonical_float(uint64_t bits);

}  // namespace wo::db
