// The unique index's hash (runtime/src/db/unique_hash.h): from 2 MiB of
// slots it doubles in place (mremap, then a rehash without a second array).
// Every entry must stay reachable across doublings — with tombstones, and
// with probe runs at the very end of the table, the case whose entries wait
// for the rehash's second pass.
#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/src/db/unique_hash.h"

using wo::db::key_hash;
using wo::db::UniqueHash;

namespace {

std::string key_of(int64_t i) { return "x" + std::to_string(i); }
const auto no_row = [](int64_t) { return false; };  // every key here fits its slot

// Whether each (hashes[i], key_of(i)) finds id i + 1, for i in [from, to).
bool all_found(const UniqueHash& u, const std::vector<uint64_t>& hashes, int64_t from, int64_t to) {
  for (int64_t i = from; i < to; ++i)
    if (u.find(hashes[static_cast<size_t>(i)], key_of(i), no_row) != i + 1) return false;
  return true;
}

}  // namespace

TEST_CASE("the unique hash keeps every key across in-place doublings, with tombstones") {
  UniqueHash u;
  constexpr int64_t n = 400000;  // up to 2^20 slots: four doublings in place
  std::vector<uint64_t> hashes;
  for (int64_t i = 0; i < n; ++i) {
    hashes.push_back(key_hash(key_of(i)));
    u.insert(hashes.back(), i + 1, key_of(i));
  }
  CHECK(u.size() == static_cast<size_t>(n));
  CHECK(u.capacity() == (size_t{1} << 20));
  CHECK(all_found(u, hashes, 0, n));
  CHECK(u.find(key_hash("absent"), "absent", no_row) == 0);
  // Erase every third (tombstones), then grow again past them.
  for (int64_t i = 0; i < n; i += 3) u.erase(hashes[static_cast<size_t>(i)], i + 1);
  for (int64_t i = n; i < 2 * n; ++i) {
    hashes.push_back(key_hash(key_of(i)));
    u.insert(hashes.back(), i + 1, key_of(i));
  }
  bool ok = true;
  for (int64_t i = 0; i < 2 * n; ++i) {
    int64_t want = i < n && i % 3 == 0 ? 0 : i + 1;
    ok = ok && u.find(hashes[static_cast<size_t>(i)], key_of(i), no_row) == want;
  }
  CHECK(ok);
}

TEST_CASE("entries whose probe runs off the table's end during an in-place doubling stay reachable") {
  // 2^16 slots (2 MiB: a mapping) doubling to 2^17: many keys whose new home
  // is the table's last slots, so a run reaches the end while the old half is
  // being rehashed; the rest spread as usual.
  UniqueHash u;
  constexpr size_t kOld = size_t{1} << 16;
  std::vector<uint64_t> hashes;
  int64_t i = 0;
  for (; u.capacity() < kOld || u.size() < kOld * 3 / 4 - 1; ++i) {
    uint64_t h = key_hash(key_of(i));
    if (i % 16 == 0) h = (h & ~uint64_t{(kOld * 2) - 1}) | (kOld * 2 - 1 - (i / 16) % 8) | (uint64_t{1} << 40);
    hashes.push_back(h);
    u.insert(h, i + 1, key_of(i));
    REQUIRE(u.capacity() <= kOld);
  }
  CHECK(all_found(u, hashes, 0, i));
  int64_t before = i;
  for (; u.capacity() == kOld; ++i) {  // the doubling
    hashes.push_back(key_hash(key_of(i)));
    u.insert(hashes.back(), i + 1, key_of(i));
  }
  CHECK(u.capacity() == kOld * 2);
  CHECK(all_found(u, hashes, 0, i));
  // Still an ordinary table: erase, insert, find.
  for (int64_t k = 0; k < before; k += 16) u.erase(hashes[static_cast<size_t>(k)], k + 1);
  bool ok = true;
  for (int64_t k = 0; k < i; ++k)
    ok = ok && u.find(hashes[static_cast<size_t>(k)], key_of(k), no_row) == (k < before && k % 16 == 0 ? 0 : k + 1);
  CHECK(ok);
}

TEST_CASE("a moved-from unique hash is empty and the moved-to one works") {
  UniqueHash a;
  for (int64_t i = 0; i < 100000; ++i) a.insert(key_hash(key_of(i)), i + 1, key_of(i));
  UniqueHash b(std::move(a));
  CHECK(b.find(key_hash(key_of(99999)), key_of(99999), no_row) == 100000);
  CHECK(a.capacity() == 0);  // NOLINT(bugprone-use-after-move): the moved-from state is defined
  a = std::move(b);
  CHECK(a.find(key_hash(key_of(5)), key_of(5), no_row) == 6);
}
