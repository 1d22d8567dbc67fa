// How woc shows diagnostics: --color (auto: stderr is a terminal and NO_COLOR
// is unset or empty), --error-format, and the closing count line.
#pragma once
#include "common/render.h"
#include "tools/woc/options.h"

namespace wo::driver {

RenderOptions render_options(const Options& opts);

}  // namespace wo::driver
