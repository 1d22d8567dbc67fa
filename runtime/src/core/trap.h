// Traps inside the runtime: the C++ exception that carries one, and the
// helpers that raise it. A trap is {code, line, method, msg} (diagnostics.md
// §5); `line`/`method` come from the WoSite of the faulting call.
#pragma once
#include <cstdint>
#include <string>

#include "trap_record.h"
#include "wo_runtime.h"

namespace wo {

// Name/line used when a trap has no call site (allocation failure, a nil
// receiver in a builtin that takes no WoSite, a foreign exception).
inline constexpr const char* kNoSiteFn = "?";

// Raise `code` at `site` (may be NULL) with `msg` (NULL: the default text
// from common/traps.def).
// `detail` names the values that matter (BOUNDS: index and length; KEY: the
// key; UNIQUE: table and field), shown after an uncaught trap's first line.
[[noreturn]] void raise(int64_t code, const WoSite* site, const char* msg, std::string detail = {});
// "index 7, length 3"
std::string index_detail(int64_t index, int64_t length);
[[noreturn]] void raise_oom();
// BOUNDS `null receiver`: nil where a Text/multi was required (builtins.md §1.4).
[[noreturn]] void raise_null_receiver(const WoSite* site = nullptr);

inline void need(const void* p, const WoSite* site = nullptr) {
  if (!p) [[unlikely]]
    raise_null_receiver(site);
}

// Call only from inside a catch block: the in-flight exception as a trap
// record. wo::Trap as-is; std::bad_alloc -> OOM; anything else -> EXPLICIT (8).
Trap current_trap() noexcept;

// A fresh, owned Error record (fields in spec order) for `t`.
WoError* make_error(const Trap& t);

}  // namespace wo
