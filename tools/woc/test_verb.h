// woc test [PATH] [--filter REGEX] [-j N] (test_verb.cpp).
#pragma once
#include "tools/woc/options.h"

namespace wo::driver {
int test_verb(const Options& opts);
}
