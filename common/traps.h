// Trap codes (common/traps.def) as an enum plus their default messages.
#pragma once
#include <cstdint>

namespace wo {

enum class TrapCode : int64_t {
#define TRAP(id, num, msg) id = num,
#include "traps.def"
#undef TRAP
};

inline const char* trap_default_message(int64_t code) {
  switch (code) {
#define TRAP(id, num, msg) case num: return msg;
#include "traps.def"
#undef TRAP
    default: return "unknown trap";
  }
}

// BOUNDS: nil where a plain value is required — a nil ?T argument for a plain
// parameter (raised by generated code at the call) or a nil container or Text
// reaching the runtime (diagnostics.md §5.1, builtins.md §1.4).
inline constexpr const char* kNullReceiverMessage = "null receiver";

}  // namespace wo
