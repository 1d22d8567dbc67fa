// Maps the command line and the terminal to RenderOptions (diag_output.h).
#include "tools/woc/diag_output.h"

#include <unistd.h>

#include <cstdlib>

namespace wo::driver {

RenderOptions render_options(const Options& opts) {
  RenderOptions r;
  if (opts.error_format == "json") {
    r.format = RenderOptions::Format::Json;  // no colour, no count line: a tool reads every line
    return r;
  }
  if (opts.color == "always") {
    r.color = true;
  } else if (opts.color == "auto") {
    // https://no-color.org: a non-empty NO_COLOR turns default colour off; an explicit --color=always wins.
    const char* no = std::getenv("NO_COLOR");
    r.color = isatty(STDERR_FILENO) && !(no && *no);
  }
  r.count_line = true;
  return r;
}

}  // namespace wo::driver
