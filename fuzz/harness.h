// What the fuzz targets run on one input: the stages of woc's pipeline
// (tools/woc/pipeline.cpp) on a one-file program held in memory, stopping
// where woc stops (front-end errors: no sema; any error: no codegen), so that
// every finding replays with `woc check` / `woc check --emit-llvm` on the
// input saved as a file.
#pragma once
#include <memory>
#include <sstream>
#include <string>
#include <string_view>

#include "common/diagnostics.h"
#include "frontend/loader.h"
#include "sema/program_info.h"
#include "sema/sema.h"

namespace wo::fuzz {

struct Analyzed {
  SourceManager sources;
  Diagnostics diags{sources};
  ast::Program program;                     // sema's annotations point into it: keep it with info
  std::unique_ptr<sema::ProgramInfo> info;  // set when there was no error
};

// Lex + parse + sema, as `woc check` does; renders the diagnostics (to
// nowhere, unless `render` is off) since their rendering reads the source
// text at every location.
inline std::unique_ptr<Analyzed> analyze_source(std::string_view src, bool render = true) {
  auto a = std::make_unique<Analyzed>();
  a->program = load_source("fuzz.wo", std::string(src), a->sources, a->diags, LexOptions{});
  std::unique_ptr<sema::ProgramInfo> info;
  if (!a->diags.has_errors()) info = sema::analyze(a->program, a->diags);
  if (render) {
    std::ostringstream sink;
    a->diags.render(sink);
  }
  if (!a->diags.has_errors()) a->info = std::move(info);
  return a;
}

}  // namespace wo::fuzz
