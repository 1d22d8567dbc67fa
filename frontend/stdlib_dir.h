// Where woc finds its standard library written in .wo (stdlib/, today only
// stdlib/framework). docs/decisions/0024-stdlib-lookup.md.
#pragma once
#include <string>
#include <vector>

namespace wo {

// The directory holding `framework/`, searched in order:
//   1. $WO_STDLIB when set and non-empty (authoritative: not falling back
//      keeps a mistyped override from silently picking another copy);
//   2. <dir of the woc executable>/../share/woc/stdlib (the installed layout);
//   3. the source tree's stdlib/ compiled in at build time (the build tree).
// Returns "" when none holds framework/; `tried` lists the places looked at.
std::string find_stdlib_dir(std::vector<std::string>& tried);

}  // namespace wo
