// Runs the `main` that woc generated for race.wo on two threads at once with
// one shared `args` list (see race.wo). Under ThreadSanitizer this must be
// reported as a data race inside wo_main_entry: the test (tests/CMakeLists.txt,
// tsan.generated_code_race) passes only then.
#include <cstdint>
#include <cstdio>
#include <thread>

#include "wo_runtime.h"

extern "C" int64_t wo_main_entry(WoList* args);

int main() {
  WoList* args = wo_list_new(WO_ELEM_TEXT, 1);
  wo_list_push(args, reinterpret_cast<uint64_t>(wo_text_new("shared", 6)));
  int64_t r1 = 0, r2 = 0;
  std::thread a([&] { r1 = wo_main_entry(args); });
  std::thread b([&] { r2 = wo_main_entry(args); });
  a.join();
  b.join();
  wo_release(args);
  std::printf("%lld %lld\n", static_cast<long long>(r1), static_cast<long long>(r2));
  return 0;
}
