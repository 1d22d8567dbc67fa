// Fuzz target (a): arbitrary bytes as one .wo file through the lexer, the
// parser and sema — what `woc check FILE` runs. In: any bytes. Out: nothing;
// a crash, abort, sanitizer report, leak or timeout is the finding.
#include <cstddef>
#include <cstdint>

#include "fuzz/harness.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  wo::fuzz::analyze_source(std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
