// Runs the `main` that an AddressSanitizer woc generated for freed.wo
// (tests/CMakeLists.txt, asan.generated_code_heap) and watches ASan's
// allocator meanwhile: the six Probe objects, allocated by the wo_alloc fast
// path inlined into generated code (the runtime's helpers bitcode, compiled
// without -fsanitize), must each be a block of ASan's allocator, and each
// must be poisoned once the program has dropped it. A small-heap block (or
// any allocator inlined past ASan) would be neither: the hooks would not see
// it and the read after free would go unreported (docs/decisions/0077).
#include <sanitizer/asan_interface.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>

#include "wo_runtime.h"

extern "C" {
int64_t wo_main_entry(WoList* args);
// <sanitizer/allocator_interface.h>, which GCC does not install.
int __sanitizer_install_malloc_and_free_hooks(void (*malloc_hook)(const volatile void*, size_t),
                                              void (*free_hook)(const volatile void*));
}

namespace {

constexpr size_t kProbeSize = sizeof(WoHeader) + 11 * sizeof(int64_t);  // freed.wo's Probe
constexpr int64_t kTag = 770077007700;
constexpr int kMax = 64;

bool watching = false;
const volatile void* seen[kMax];  // blocks of Probe's size ASan handed out while watching
int n_seen = 0;
const volatile void* probes[kMax];  // ... freed with a Probe's tag in its first field
int n_probes = 0;

void on_malloc(const volatile void* p, size_t n) {
  if (watching && n == kProbeSize && n_seen < kMax) seen[n_seen++] = p;
}

void on_free(const volatile void* p) {
  if (!watching) return;
  for (int i = 0; i < n_seen; ++i) {
    if (seen[i] != p) continue;
    int64_t tag;
    std::memcpy(&tag, const_cast<const char*>(static_cast<const volatile char*>(p)) + sizeof(WoHeader), sizeof tag);
    if (tag == kTag && n_probes < kMax) probes[n_probes++] = p;
  }
}

}  // namespace

int main() {
  __sanitizer_install_malloc_and_free_hooks(on_malloc, on_free);
  WoList* args = wo_list_new(WO_ELEM_TEXT, 1);
  wo_list_push(args, reinterpret_cast<uint64_t>(wo_text_new("a", 1)));
  watching = true;
  int64_t r = wo_main_entry(args);
  watching = false;
  wo_release(args);
  int fail = 0;
  if (r != 1 + 6 * 10 + 15) {
    std::printf("FAIL: main returned %lld, expected 76\n", static_cast<long long>(r));
    fail = 1;
  }
  if (n_probes != 6) {
    std::printf("FAIL: ASan's allocator handed out and took back %d Probe objects, expected 6\n", n_probes);
    fail = 1;
  }
  for (int i = 0; i < n_probes; ++i) {
    if (!__asan_address_is_poisoned(const_cast<const void*>(probes[i]))) {
      std::printf("FAIL: dropped Probe %d is not poisoned\n", i);
      fail = 1;
    }
  }
  if (!fail) std::printf("asan.generated_code_heap: %d Probe objects, each ASan's and poisoned once dropped\n", n_probes);
  return fail;
}
