// `woc build`'s link in woc's own process, with lld's ELF driver
// (docs/decisions/0071). In: the objects, the runtime archive, the output and
// which C++ runtime; out: the executable, lld's messages on stderr.
#pragma once
#include <string>
#include <vector>

namespace wo::driver {

// True when this woc was built with lld's libraries and the linker line it
// was configured with still names files that exist (the host's crt files and
// libraries: a changed compiler installation falls back to `c++`).
bool in_process_link_available(bool static_cxx);

// Links `objects` and `archive` into `out` as `c++ -fuse-ld=lld` would; ""
// or why not (lld's own messages are already on stderr).
std::string link_in_process(const std::vector<std::string>& objects, const std::string& archive,
                            const std::string& out, bool static_cxx);

}  // namespace wo::driver
