// The command line of `woc`: one verb (run, build, check), one program path,
// and the flags shared by the verbs. Parsing never prints or exits; main.cpp
// decides what to do with the result.
#pragma once
#include <set>
#include <string>
#include <vector>

#include "codegen/opt_level.h"
#include "tools/woc/time_report.h"

namespace wo::driver {

enum class Verb { None, Run, Build, Check, Fmt, Test, Explain };

struct Options {
  Verb verb = Verb::None;
  std::string path;                       // a .wo file or a program directory
  std::string output;                     // -o OUT (build)
  std::string emit_llvm;                  // --emit-llvm FILE ("" = no)
  std::set<std::string> defines;          // -D FLAG, for #if
  codegen::OptLevel opt_level = codegen::kDefaultOptLevel;  // -O0 .. -O3
  bool debug_info = false;                // -g: full DWARF (run, build)
  std::vector<std::string> program_args;  // run: the arguments after `--`
  bool update_deps = false;               // --update-deps: re-resolve git deps, ignoring wo.lock
  std::string color = "auto";             // --color=never|always|auto (diagnostics; tools/woc/diag_output.h)
  std::string error_format = "human";     // --error-format=human|json
  bool help = false;                      // --help (for `verb`, or general)
  bool version = false;                   // --version
  TimeReport time_report = TimeReport::Off;  // --time-report[=passes], -ftime-report (time_report.h)
  // fmt, test, explain (options_tools.cpp)
  std::vector<std::string> paths;         // fmt: the files/directories (`-`: stdin)
  bool fmt_check = false;                 // fmt --check: report, do not rewrite
  std::string filter;                     // test --filter REGEX
  int jobs = 0;                           // test -j N (0: the number of cores)
  std::string code;                       // explain: the code asked for ("" = list them)
};

struct ParseResult {
  Options opts;
  std::string error;  // non-empty: a usage error, worded for `woc: <error>`
};

ParseResult parse_options(int argc, char** argv);

// The --help text for `verb` (Verb::None: the general one).
std::string help_text(Verb verb);

}  // namespace wo::driver
