// The three verbs of woc. Each returns woc's exit status and has already
// printed whatever the user needs to see.
#pragma once
#include "tools/woc/options.h"

namespace wo::driver {

int check_verb(const Options& opts);  // woc check PATH
int run_verb(const Options& opts);    // woc run PATH [-- ARGS...]
int build_verb(const Options& opts);  // woc build PATH -o OUT

}  // namespace wo::driver
