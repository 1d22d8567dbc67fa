// The VM heap's ceiling (runtime/src/core/heap_cap.h, decision 0081): what a
// value's blocks charge is given back when it is freed, whichever way they
// grew (a Text appended in place, a list's malloc'd and mapped slots, a
// map's entries and index), so a long-running program's count does not
// drift; a charge past the cap is refused and says so once. The cap itself
// (WO_HEAP_MB, trap 4, peak RSS) is tests/limits/heap-cap-test.sh.
#include <doctest/doctest.h>

#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include "runtime/src/core/heap.h"
#include "runtime/src/core/heap_cap.h"
#include "runtime/src/core/trap.h"
#include "wo_runtime.h"

namespace {

// Values of every kind that charge the heap, built and freed.
void churn() {
  // Texts above the small heap's sizes, one grown in place past 1 MiB
  WoText* t = wo::text_from("0123456789abcdef", 16);
  for (int i = 0; i < 17; ++i) t = wo_text_append(t, t);
  WoText* u = wo_concat(t, t);
  wo_release(u);
  wo_release(t);
  // a list whose slots pass 2 MiB (a mapping of its own, grown by mremap)
  WoList* xs = wo_list_new(WO_ELEM_INT, 0);
  for (int64_t i = 0; i < 600000; ++i) wo_list_push(xs, static_cast<uint64_t>(i));
  wo_release(xs);
  // a list of Texts made with a capacity, a map grown and thinned
  WoList* ts = wo_list_new(WO_ELEM_TEXT, 1000);
  for (int i = 0; i < 1000; ++i) wo_list_push(ts, reinterpret_cast<uint64_t>(wo::text_from("some text", 9)));
  wo_release(ts);
  WoMap* m = wo_map_new(WO_ELEM_INT, WO_ELEM_INT);
  for (int64_t i = 0; i < 50000; ++i) wo_map_set(m, static_cast<uint64_t>(i), static_cast<uint64_t>(i), nullptr);
  for (int64_t i = 0; i < 50000; i += 2) wo_map_remove(m, static_cast<uint64_t>(i));
  wo_release(m);
}

}  // namespace

TEST_CASE("heap cap: what values charge comes back when they are freed") {
  churn();  // the small heap's runs, charged once and kept, are in place now
  int64_t before = wo::heap_used_bytes();
  for (int round = 0; round < 3; ++round) churn();
  CHECK(wo::heap_used_bytes() == before);
  // freed on another thread: that thread's credit, given back when it ends
  WoText* t = wo::text_from("0123456789abcdef", 16);
  for (int i = 0; i < 16; ++i) t = wo_text_append(t, t);
  CHECK(wo::heap_used_bytes() > before);
  std::thread([t] { wo_release(t); }).join();
  CHECK(wo::heap_used_bytes() == before);
}

TEST_CASE("heap cap: a charge past the cap is refused, nothing is charged, and raise_oom names the cap") {
  int64_t before = wo::heap_used_bytes();
  CHECK(wo::heap_cap_bytes() >= (int64_t{64} << 20));  // the default's floor (or WO_HEAP_MB)
  CHECK_FALSE(wo::heap_charge(static_cast<size_t>(wo::heap_cap_bytes()) + 1));
  CHECK(wo::heap_used_bytes() == before);
  CHECK(wo::big_alloc(static_cast<size_t>(wo::heap_cap_bytes()) + 1) == nullptr);
  bool trapped = false;
  try {
    wo::raise_oom();
  } catch (const wo::Trap& t) {
    trapped = true;
    CHECK(t.code == 4);
    CHECK(t.msg == "out of memory");
    CHECK(t.detail.find("the VM heap's ceiling") == 0);
  }
  CHECK(trapped);
  CHECK_FALSE(wo::heap_cap_refused());  // raise_oom read it
  // a Text too long for the cap traps OOM through the ordinary path
  int64_t cap = wo::heap_cap_bytes();
  wo::heap_cap_set_for_tests(before + (int64_t{32} << 20));
  WoText* t = wo::text_from("ab", 2);
  bool oom = false;
  try {
    for (;;) t = wo_text_append(t, t);
  } catch (const wo::Trap& e) {
    oom = e.code == 4;
  }
  CHECK(oom);
  CHECK(wo::heap_used_bytes() < wo::heap_cap_bytes());
  wo::heap_cap_set_for_tests(cap);
  // wo_text_append released its argument when it trapped: what is left is
  // at most a few small-heap runs taken meanwhile
  CHECK(wo::heap_used_bytes() - before < (int64_t{1} << 20));
  // exempt: a charge the cap refuses is granted (the Error record of a trap being caught)
  int64_t mid = wo::heap_used_bytes();
  {
    wo::HeapCapExempt exempt;
    CHECK(wo::heap_charge(static_cast<size_t>(wo::heap_cap_bytes()) + 1));
  }
  wo::heap_credit(static_cast<size_t>(wo::heap_cap_bytes()) + 1);
  CHECK(wo::heap_used_bytes() == mid);
}

namespace {

struct FakeCgroups {
  std::string root;
  FakeCgroups() {
    char tmpl[] = "/tmp/wo-heap-cap.XXXXXX";
    root = mkdtemp(tmpl);
  }
  ~FakeCgroups() { std::filesystem::remove_all(root); }
  void write(const std::string& rel, const std::string& text) {
    std::filesystem::create_directories(std::filesystem::path(root + "/" + rel).parent_path());
    std::ofstream(root + "/" + rel) << text;
  }
  int64_t cap() { return wo::heap_default_cap_for_tests((root + "/self").c_str(), (root + "/sys").c_str()); }
};

constexpr int64_t kMiB = int64_t{1} << 20;

}  // namespace

TEST_CASE("heap cap: the default is half of the cgroup's memory limit or of RAM, at least 64 MiB") {
  int64_t ram = static_cast<int64_t>(sysconf(_SC_PHYS_PAGES)) * sysconf(_SC_PAGE_SIZE);
  int64_t half_ram = std::max<int64_t>(ram / 2 / kMiB * kMiB, 64 * kMiB);
  {  // no cgroup file: RAM
    FakeCgroups f;
    CHECK(f.cap() == half_ram);
  }
  {  // cgroup v2, a limit on the process's own group
    FakeCgroups f;
    f.write("self", "0::/svc/app\n");
    f.write("sys/svc/app/memory.max", "1073741824\n");
    CHECK(f.cap() == 512 * kMiB);
  }
  {  // v2: `max` here, a parent's limit binds
    FakeCgroups f;
    f.write("self", "0::/svc/app\n");
    f.write("sys/svc/app/memory.max", "max\n");
    f.write("sys/svc/memory.max", "805306368\n");
    CHECK(f.cap() == 384 * kMiB);
  }
  {  // cgroup v1 (a hybrid host: v2 line without the memory controller)
    FakeCgroups f;
    f.write("self", "12:cpu,cpuacct:/x\n4:memory:/process_api/one\n0::/\n");
    f.write("sys/memory/process_api/one/memory.limit_in_bytes", "2147483648\n");
    f.write("sys/memory/memory.limit_in_bytes", "9223372036854771712\n");
    CHECK(f.cap() == 1024 * kMiB);
  }
  {  // a small container: never below 64 MiB
    FakeCgroups f;
    f.write("self", "0::/\n");
    f.write("sys/memory.max", "67108864\n");
    CHECK(f.cap() == 64 * kMiB);
  }
}
