// woc fmt [--check] PATH... (fmt_verb.cpp); the layout itself is format/.
#pragma once
#include "tools/woc/options.h"

namespace wo::driver {
int fmt_verb(const Options& opts);
}
