// The slow paths of the hot helpers in helpers.cpp: out of line and cold,
// defined in the runtime's other files, so that the fast paths woc inlines
// into generated code stay small (docs/decisions/0052).
#pragma once
#include <cstdint>

#include "wo_runtime.h"

namespace wo {

// Makes room for one more element of `xs` (builtins/list.cpp); on OOM releases
// `pending` (the value being pushed) and traps.
[[gnu::cold, gnu::noinline]] void list_grow(WoList* xs, uint64_t pending);

}  // namespace wo
