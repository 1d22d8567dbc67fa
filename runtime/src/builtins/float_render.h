// Float rendering (language.md §3.8, docs/decisions/0003), shared by
// float_to_text and json.encode.
#pragma once
#include <cstddef>

namespace wo {

// Writes the rendering of `f` to `out` (at least 32 bytes); returns its length.
size_t render_float(double f, char* out);

}  // namespace wo
