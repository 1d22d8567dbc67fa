// The store's block arenas (runtime/src/db/huge.h): zeroed blocks, freed
// blocks reused by their arena, regions that grow past 2 MiB, moves. An ordered
// index whose chunks come and go stays right (its chunks are arena blocks;
// an insert reuses the chunk its prefetch found only when it is right).
#include <doctest/doctest.h>

#include <cstdint>
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "runtime/src/db/huge.h"
#include "runtime/src/db/ordered.h"

using wo::db::BlockArena;

namespace {

bool all_zero(const void* p, size_t n) {
  const auto* b = static_cast<const unsigned char*>(p);
  for (size_t i = 0; i < n; ++i)
    if (b[i]) return false;
  return true;
}

}  // namespace

TEST_CASE("huge: arena blocks are distinct, zeroed, and reused zeroed after free") {
  BlockArena a(3000);  // ~700 blocks per 2 MiB region: this crosses several regions
  std::vector<char*> blocks;
  std::set<char*> seen;
  for (int i = 0; i < 2000; ++i) {
    auto* b = static_cast<char*>(a.alloc());
    REQUIRE(all_zero(b, 3000));
    std::memset(b, i % 250 + 1, 3000);
    CHECK(seen.insert(b).second);
    blocks.push_back(b);
  }
  for (int i = 0; i < 2000; ++i) CHECK(static_cast<unsigned char>(blocks[i][2999]) == i % 250 + 1);  // no overlap
  a.free(blocks[7]);
  a.free(blocks[1500]);
  auto* r1 = static_cast<char*>(a.alloc());
  auto* r2 = static_cast<char*>(a.alloc());
  CHECK(std::set<char*>{r1, r2} == std::set<char*>{blocks[7], blocks[1500]});  // reused, not new
  CHECK(all_zero(r1, 3000));
  CHECK(all_zero(r2, 3000));
  BlockArena moved(std::move(a));  // the blocks now belong to `moved`
  moved.free(r1);
  CHECK(moved.alloc() == r1);
  a.release_all();  // the moved-from arena owns nothing: a no-op
}

TEST_CASE("huge: an ordered index filled and emptied in random order stays sorted (chunks are arena blocks)") {
  wo::db::OrderedIndex ix;
  std::set<std::pair<std::string, int64_t>> ref;
  uint64_t x = 42;
  auto key = [](uint64_t v) {
    std::string k(8, '\0');
    for (int i = 0; i < 8; ++i) k[i] = static_cast<char>(v >> (56 - 8 * i));
    return k;
  };
  for (int round = 0; round < 3; ++round) {
    for (int64_t id = round * 100000 + 1; id <= round * 100000 + 20000; ++id) {  // (key, id) absent
      x = x * 6364136223846793005u + 1442695040888963407u;
      std::string k = key((x >> 33) % 5000);
      // insert checks the chunk prefetch found: sometimes it was found for
      // another key (a stale hint must not be used)
      ix.prefetch(id % 3 ? k : key((x >> 13) % 5000), id);
      ix.insert(k, id);
      ref.insert({k, id});
    }
    // erase every other entry, in key order
    int n = 0;
    for (auto it = ref.begin(); it != ref.end();) {
      if (n++ % 2) {
        ix.erase(it->first, it->second);
        it = ref.erase(it);
      } else {
        ++it;
      }
    }
    std::vector<std::pair<std::string, int64_t>> got;
    for (auto it = ix.begin(); it != ix.end(); ++it) got.push_back({std::string(it->key), it->id});
    REQUIRE(got == std::vector<std::pair<std::string, int64_t>>(ref.begin(), ref.end()));
    // and a lower_bound lands where the reference says
    auto probe = key(2500);
    auto it = ix.lower_bound(probe, 0);
    auto rit = ref.lower_bound({probe, 0});
    REQUIRE((it == ix.end()) == (rit == ref.end()));
    if (rit != ref.end()) CHECK(it->id == rit->second);
  }
  for (auto& [k, id] : ref) ix.erase(k, id);
  CHECK(ix.begin() == ix.end());
}
