// woc: the command-line driver of the .wo compiler. Parses the command line
// and hands over to one verb (verbs.h); see README.md in this folder.
#include <cstring>
#include <iostream>

#include "tools/woc/big_stack.h"
#include "tools/woc/build_memory.h"
#include "tools/woc/explain_verb.h"
#include "tools/woc/fmt_verb.h"
#include "tools/woc/lsp/server.h"
#include "tools/woc/test_verb.h"
#include "tools/woc/time_report.h"
#include "tools/woc/options.h"
#include "tools/woc/pipeline.h"
#include "tools/woc/verbs.h"
#include "woc_config.h"

namespace {

int woc_main(const wo::driver::ParseResult& parsed) {
  using namespace wo::driver;
  const Options& opts = parsed.opts;
  if (opts.help) {
    std::cout << help_text(opts.verb);
    return 0;
  }
  if (opts.version) {
    std::cout << "woc " << WOC_VERSION << "\n";
    return 0;
  }
  if (!parsed.error.empty()) return driver_failure(parsed.error);
  enable_time_report(opts.time_report);
  switch (opts.verb) {
    case Verb::Run: return run_verb(opts);
    case Verb::Build: return build_verb(opts);
    case Verb::Check: return check_verb(opts);
    case Verb::Fmt: return fmt_verb(opts);
    case Verb::Test: return test_verb(opts);
    case Verb::Explain: return explain_verb(opts);
    case Verb::None: break;
  }
  return driver_failure("no command given (see woc --help)");
}

}  // namespace

int main(int argc, char** argv) {
  using namespace wo::driver;
  // Deep programs: see big_stack.h.
  // `woc lsp` speaks the Language Server Protocol on stdio, with flags of its own.
  if (argc >= 2 && std::strcmp(argv[1], "lsp") == 0)
    return run_on_big_stack(kCompilerStackBytes, [&] { return wo::lsp::lsp_main(argc, argv, WOC_VERSION); });
  ParseResult parsed = parse_options(argc, argv);
  // Before the big-stack thread makes its first allocation (build_memory.h).
  if (parsed.error.empty() && parsed.opts.verb == Verb::Build && parsed.opts.opt_level == wo::codegen::OptLevel::O0)
    use_huge_page_heap();
  return run_on_big_stack(kCompilerStackBytes, [&] { return woc_main(parsed); });
}
