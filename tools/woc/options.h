// The command line of `woc`: one verb (run, build, check), one program path,
// and the flags shared by the verbs. Parsing never prints or exits; main.cpp
// decides what to do with the result.
#pragma once
#include <set>
#include <string>
#include <vector>

namespace wo::driver {

enum class Verb { None, Run, Build, Check };

struct Options {
  Verb verb = Verb::None;
  std::string path;                       // a .wo file or a program directory
  std::string output;                     // -o OUT (build)
  std::string emit_llvm;                  // --emit-llvm FILE ("" = no)
  std::set<std::string> defines;          // -D FLAG, for #if
  int opt_level = 2;                      // -O0 .. -O3
  bool debug_info = false;                // -g: full DWARF (run, build)
  std::vector<std::string> program_args;  // run: the arguments after `--`
  bool update_deps = false;               // --update-deps: re-resolve git deps, ignoring wo.lock
  bool help = false;                      // --help (for `verb`, or general)
  bool version = false;                   // --version
};

struct ParseResult {
  Options opts;
  std::string error;  // non-empty: a usage error, worded for `woc: <error>`
};

ParseResult parse_options(int argc, char** argv);

// The --help text for `verb` (Verb::None: the general one).
std::string help_text(Verb verb);

}  // namespace wo::driver
