// woc explain [WO-E###] (explain_verb.cpp): the catalog of common/explain.md.
#pragma once
#include "tools/woc/options.h"

namespace wo::driver {
int explain_verb(const Options& opts);
}
