// The small heap (runtime/src/core/small_heap.h, decision 0069): size classes,
// reuse, frees from another thread, malloc's blocks told apart, and a Text
// that outgrows it. Off under ASan/TSan (small_alloc answers NULL there):
// those cases then only check that.
#include <doctest/doctest.h>

#include <condition_variable>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "runtime/src/core/heap.h"
#include "runtime/src/core/small_heap.h"
#include "wo_runtime.h"

namespace {

bool small_on() {
  void* p = wo::small_alloc(16);
  if (!p) return false;
  wo::small_free(p);
  return true;
}

}  // namespace

TEST_CASE("small heap: blocks of every class are aligned, owned, big enough and do not overlap") {
  if (!small_on()) {
    CHECK(wo::small_alloc(64) == nullptr);
    return;
  }
  std::vector<std::pair<unsigned char*, size_t>> blocks;
  for (size_t round = 0; round < 40; ++round)
    for (size_t n = 1; n <= wo::kSmallMax; n += 7) {
      auto* p = static_cast<unsigned char*>(wo::small_alloc(n));
      REQUIRE(p != nullptr);
      CHECK(reinterpret_cast<uintptr_t>(p) % 16 == 0);
      CHECK(wo::small_owns(p));
      CHECK(wo::small_usable(p) >= n);
      CHECK(wo::small_usable(p) < n + 16);
      std::memset(p, static_cast<int>((n + round) & 0xFF), n);
      blocks.emplace_back(p, n);
    }
  size_t bad = 0;
  for (size_t i = 0; i < blocks.size(); ++i) {
    auto [p, n] = blocks[i];
    size_t round = i / ((wo::kSmallMax + 6) / 7);
    for (size_t j = 0; j < n; ++j) bad += p[j] != static_cast<unsigned char>((n + round) & 0xFF);
  }
  CHECK(bad == 0);
  for (auto [p, n] : blocks) wo::heap_free(p);
}

TEST_CASE("small heap: a freed block is reused by its class, also when another thread freed it") {
  if (!small_on()) return;
  void* a = wo::small_alloc(40);
  wo::heap_free(a);
  CHECK(wo::small_alloc(33) == a);  // the same 48-byte class, last in first out
  void* b = nullptr;
  std::thread t([&] { b = wo::small_alloc(100); });
  t.join();
  REQUIRE(b != nullptr);
  wo::heap_free(b);  // on this thread's list now
  CHECK(wo::small_alloc(112) == b);
  wo::heap_free(a);
  wo::heap_free(b);
}

TEST_CASE("small heap: malloc's blocks are not its own, and heap_free gives them back to free") {
  void* m = std::malloc(64);
  CHECK_FALSE(wo::small_owns(m));
  wo::heap_free(m);
  void* big = std::malloc(wo::kSmallMax * 4);
  CHECK_FALSE(wo::small_owns(big));
  wo::heap_free(big);
}

TEST_CASE("small heap: Texts and objects come from it; a Text appended past its class moves to malloc intact") {
  WoText* t = wo_text_new("k", 1);
  CHECK(wo::small_owns(t) == small_on());
  std::string want = "k";
  for (int i = 0; i < 200; ++i) {
    std::string piece = std::to_string(i) + ",";
    WoText* p = wo_text_new(piece.data(), static_cast<int64_t>(piece.size()));
    t = wo_text_append(t, p);
    wo_release(p);
    want += piece;
  }
  t = wo_text_append(t, t);  // itself, across the move
  want += want;
  CHECK(std::string(t->bytes, static_cast<size_t>(t->len)) == want);
  CHECK(t->bytes[t->len] == '\0');
  CHECK_FALSE(wo::small_owns(t));
  wo_release(t);
  void* o = wo_alloc(48, nullptr);
  CHECK(wo::small_owns(o) == small_on());
  wo_release(o);
}

// An actor's message is copied by the sender's thread and released by the
// receiver's: blocks flow one way. Without the depot the receiver's lists
// grew and the sender carved a new run for every 64 KiB it sent.
TEST_CASE("small heap: blocks freed by a consumer thread are reused by the producer thread") {
  if (!small_on()) return;
  constexpr int kRounds = 300, kBlocks = 4000;  // 300 x 4000 x 48 B = 57 MB sent in all
  std::vector<void*> box(kBlocks);
  std::mutex mu;
  std::condition_variable cv;
  int produced = 0, consumed = 0;  // rounds
  size_t runs_before = wo::small_runs_taken();
  std::thread consumer([&] {
    for (int r = 0; r < kRounds; ++r) {
      std::unique_lock lk(mu);
      cv.wait(lk, [&] { return produced > r; });
      for (void* p : box) wo::heap_free(p);
      consumed = r + 1;
      cv.notify_all();
    }
  });
  for (int r = 0; r < kRounds; ++r) {
    std::unique_lock lk(mu);
    cv.wait(lk, [&] { return consumed == r; });
    for (void*& p : box) {
      p = wo::small_alloc(40);
      REQUIRE(p != nullptr);
      std::memset(p, r & 0xFF, 40);
    }
    produced = r + 1;
    cv.notify_all();
  }
  consumer.join();
  // Live at once: one round (4000 x 48 B = 3 runs), plus what each thread
  // may keep (two batches: one run) and the depot's share.
  CHECK(wo::small_runs_taken() - runs_before < 20);
}
