// AddressSanitizer sees the runtime's own heap (decision 0077): under ASan a
// block the runtime takes back is poisoned until it is handed out again, for
// every way the runtime hands out memory itself. The small heap and lists'
// mappings step aside (malloc's blocks, poisoned by ASan's free), huge_map
// is calloc, and what the runtime keeps for reuse (the store's block
// arenas, boot's blobs, the HTTP scratch buffers, actors' call records) it
// poisons itself. The cases exist only in a build with -fsanitize=address
// (make test-asan): elsewhere there is nothing to look at.
#include <doctest/doctest.h>

#include "runtime/src/core/asan_poison.h"

#ifdef WO_ASAN_POISON
#include <sanitizer/asan_interface.h>

#include <cstdint>
#include <cstring>
#include <string>

#include "runtime/src/core/heap.h"
#include "runtime/src/core/huge_pages.h"
#include "runtime/src/core/small_heap.h"
#include "runtime/src/db/boot_memory.h"
#include "runtime/src/db/huge.h"
#include "runtime/src/db/row.h"
#include "runtime/src/db/table.h"
#include "runtime/src/http/scratch.h"
#include "runtime/src/sched/shard_internal.h"
#include "wo_runtime.h"

namespace {

const WoSite kSite{"asan", 1, nullptr, 0};

bool poisoned(const void* p) { return __asan_address_is_poisoned(p) != 0; }
// Every byte of [p, p + n) poisoned (p 8-aligned, n a multiple of 8): one
// look per 8-byte granule, whose first byte is poisoned only if all are.
bool all_poisoned(const void* p, size_t n) {
  const auto* b = static_cast<const char*>(p);
  for (size_t i = 0; i < n; i += 8)
    if (!poisoned(b + i)) return false;
  return true;
}
bool none_poisoned(const void* p, size_t n) { return __asan_region_is_poisoned(const_cast<void*>(p), n) == nullptr; }

}  // namespace

TEST_CASE("asan: an object of wo_alloc is malloc's, poisoned once its last reference goes") {
  CHECK(wo::kSanitizedBuild);  // ASan turns the runtime's own heaps off
  void* o = wo_alloc(48, nullptr);
  CHECK_FALSE(wo::small_owns(o));
  CHECK(none_poisoned(o, 48));
  wo_retain(o);
  wo_release(o);
  CHECK_FALSE(poisoned(o));  // one reference left
  wo_release(o);
  CHECK(all_poisoned(o, 48));
}

TEST_CASE("asan: a freed Text is poisoned, and so is the block an append outgrew") {
  WoText* t = wo::text_from("twelve bytes", 12);
  CHECK_FALSE(wo::small_owns(t));
  wo_release(t);
  CHECK(poisoned(t));
  CHECK(poisoned(t->bytes));

  WoText* a = wo::text_from("ab", 2);
  WoText* b = wo::text_from(std::string(100, 'x').c_str(), 100);
  WoText* grown = wo_text_append(a, b);  // a is unique: grown in place or moved
  if (grown != a) CHECK(poisoned(a));
  wo_release(b);
  CHECK(poisoned(b));
  wo_release(grown);
  CHECK(poisoned(grown));
}

TEST_CASE("asan: a big list's slots are malloc's, poisoned when it grows and when it goes") {
  constexpr int64_t kBig = int64_t{1} << 18;  // 2 MiB of slots: a mapping of its own outside ASan
  WoList* xs = wo_list_new(WO_ELEM_SCALAR, kBig);
  for (int64_t i = 0; i < kBig; ++i) wo_list_push(xs, static_cast<uint64_t>(i));
  uint64_t* before = xs->data;
  CHECK(none_poisoned(before, kBig * sizeof(uint64_t)));
  wo_list_push(xs, 1);  // grows past its capacity: a new block
  REQUIRE(xs->data != before);
  CHECK(poisoned(before));
  CHECK(poisoned(before + kBig - 1));
  uint64_t* slots = xs->data;
  wo_release(xs);
  CHECK(poisoned(slots));
  CHECK(poisoned(xs));
}

TEST_CASE("asan: a map's entries and index are poisoned when it goes") {
  WoMap* m = wo_map_new(WO_ELEM_INT, WO_ELEM_INT);
  for (uint64_t k = 0; k < 100; ++k) wo_map_set(m, k, k, &kSite);
  void* entries = m->entries;
  void* index = m->index;
  wo_release(m);
  CHECK(poisoned(entries));
  CHECK(poisoned(index));
  CHECK(poisoned(m));
}

TEST_CASE("asan: huge_map's blocks are calloc's: zeroed, and poisoned when unmapped or moved") {
  constexpr size_t kMiB3 = size_t{3} << 20;
  auto* p = static_cast<char*>(wo::huge_map(kMiB3));
  REQUIRE(p != nullptr);
  CHECK(none_poisoned(p, kMiB3));
  CHECK(p[0] == 0);
  CHECK(p[kMiB3 - 1] == 0);
  p[5] = 7;
  auto* q = static_cast<char*>(wo::huge_remap(p, kMiB3, 2 * kMiB3));
  REQUIRE(q != nullptr);
  CHECK(q[5] == 7);
  CHECK(q[2 * kMiB3 - 1] == 0);  // the new part is zero
  if (q != p) CHECK(poisoned(p));
  wo::huge_unmap(q, 2 * kMiB3);
  CHECK(poisoned(q));
  CHECK(poisoned(q + kMiB3));
}

TEST_CASE("asan: a store arena's freed block is poisoned until it is handed out again") {
  for (size_t block : {size_t{48}, size_t{3000}, (size_t{2} << 20) + 16}) {  // small regions, 2 MiB ones, one block each
    CAPTURE(block);
    wo::db::BlockArena a(block);
    auto* x = static_cast<char*>(a.alloc());
    auto* y = static_cast<char*>(a.alloc());
    CHECK(none_poisoned(x, block));
    CHECK(none_poisoned(y, block));
    std::memset(x, 1, block);
    a.free(x);
    CHECK(all_poisoned(x, block));  // the free-list link included
    CHECK(none_poisoned(y, block));  // its neighbour is not
    auto* z = static_cast<char*>(a.alloc());
    REQUIRE(z == x);  // reused
    CHECK(none_poisoned(z, block));
    CHECK(z[block - 1] == 0);
    a.free(y);
    CHECK(poisoned(y));
    a.release_all();
  }
}

TEST_CASE("asan: a deleted row is poisoned in its page until its slot is filled again") {
  wo::db::ClassDef def;
  def.name = "T";
  def.fields.resize(3);  // three Int fields
  wo::db::Table t(&def);
  for (int64_t id = 1; id <= 3; ++id) {
    wo::db::Row* r = wo::db::row_alloc(def);
    r->slots()[0] = static_cast<uint64_t>(id);
    t.put(id, r);
  }
  wo::db::Row* two = t.find(2);
  REQUIRE(two != nullptr);
  t.drop(2);
  CHECK(t.find(2) == nullptr);  // the present flag is still readable
  CHECK(all_poisoned(two, sizeof(wo::db::Row) + 3 * sizeof(uint64_t)));
  CHECK(none_poisoned(t.find(1), sizeof(wo::db::Row) + 3 * sizeof(uint64_t)));
  CHECK(none_poisoned(t.find(3), sizeof(wo::db::Row) + 3 * sizeof(uint64_t)));
  wo::db::Row* r = wo::db::row_alloc(def);
  r->slots()[0] = 22;
  t.put(2, r);
  REQUIRE(t.find(2) == two);
  CHECK(none_poisoned(two, sizeof(wo::db::Row) + 3 * sizeof(uint64_t)));
  CHECK(two->slots()[0] == 22);
  // the last rows of a page: the page goes back to the arena, poisoned whole
  wo::db::Row* one = t.find(1);
  t.drop(1);
  t.drop(2);
  t.drop(3);
  CHECK(poisoned(one));
  CHECK(poisoned(reinterpret_cast<const char*>(one) - sizeof(uint64_t)));  // its present flag too, now
}

TEST_CASE("asan: a boot blob that is freed is poisoned though its arena keeps it") {
  wo::db::BootArena arena;
  arena.open(size_t{4} << 20);
  REQUIRE(arena.is_open());  // no other arena is live in this process now
  wo::db::BootArena::Cursor cur(&arena);
  auto* b = static_cast<wo::db::Blob*>(cur.alloc(sizeof(wo::db::Blob) + 11));
  auto* next = static_cast<wo::db::Blob*>(cur.alloc(sizeof(wo::db::Blob) + 3));
  REQUIRE(b != nullptr);
  REQUIRE(next != nullptr);
  b->len = 11;
  std::memcpy(b->bytes(), "hello world", 11);
  next->len = 3;
  REQUIRE(wo::db::boot_arena_owns(b));
  wo::db::blob_free(reinterpret_cast<uint64_t>(b));
  CHECK(all_poisoned(b, 24));  // len and the bytes, up to the next blob
  CHECK(none_poisoned(next, sizeof(wo::db::Blob) + 3));
  wo::db::blob_free(reinterpret_cast<uint64_t>(next));
}

TEST_CASE("asan: an idle HTTP scratch buffer is poisoned until its next lease") {
  char* buf = nullptr;
  wo::http::Field* fields = nullptr;
  {
    wo::http::ScratchLease s;
    s->buf.append("GET / HTTP/1.1\r\n", 16);
    s->fields.push_back({});
    buf = s->buf.data();
    fields = s->fields.data();
  }
  CHECK(poisoned(buf));
  CHECK(poisoned(fields));
  wo::http::ScratchLease again;  // the same Scratch, the last one given back
  REQUIRE(again->buf.data() == buf);
  CHECK(none_poisoned(buf, again->buf.capacity()));
  CHECK(none_poisoned(fields, sizeof(wo::http::Field)));
}

TEST_CASE("asan: a finished call's record is poisoned while it waits for reuse") {
  wo::sched::CallWait* w = wo::sched::new_wait();
  w->reply = 5;
  wo::sched::free_wait(w);
  CHECK(all_poisoned(w, sizeof(wo::sched::CallWait) & ~size_t{7}));
  wo::sched::CallWait* again = wo::sched::new_wait();
  REQUIRE(again == w);  // this thread's list gives it back
  CHECK(none_poisoned(again, sizeof(wo::sched::CallWait)));
  CHECK(again->reply == 0);  // constructed afresh
  wo::sched::free_wait(again);
}

#endif  // WO_ASAN_POISON
