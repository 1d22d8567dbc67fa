// Flags and help of `woc fmt`, `woc test` and `woc explain` (options_tools.h).
#include "tools/woc/options_tools.h"

#include <cstdlib>

namespace wo::driver {

Verb tool_verb_named(std::string_view s) {
  if (s == "fmt") return Verb::Fmt;
  if (s == "test") return Verb::Test;
  if (s == "explain") return Verb::Explain;
  return Verb::None;
}

int parse_tool_flag(std::string_view a, int argc, char** argv, int& i, Options& o, std::string& error) {
  if (a == "--check") {
    o.fmt_check = true;
    return 1;
  }
  if (a == "--filter" || a.substr(0, 9) == "--filter=") {
    if (a.size() > 9) {
      o.filter = std::string(a.substr(9));
    } else if (i + 1 < argc) {
      o.filter = argv[++i];
    }
    if (o.filter.empty()) {
      error = "--filter needs a regular expression";
      return -1;
    }
    return 1;
  }
  if (a.substr(0, 2) == "-j") {
    std::string v;
    if (a.size() > 2) {
      v = std::string(a.substr(2));
    } else if (i + 1 < argc) {
      v = argv[++i];
    }
    char* end = nullptr;
    long n = v.empty() ? 0 : std::strtol(v.c_str(), &end, 10);
    if (v.empty() || *end != '\0' || n < 1 || n > 1024) {
      error = "-j needs a number of parallel tests (1..1024)";
      return -1;
    }
    o.jobs = static_cast<int>(n);
    return 1;
  }
  return 0;
}

bool finish_tool_verb(ParseResult& r, const std::vector<std::string>& positional) {
  Options& o = r.opts;
  if (o.fmt_check && o.verb != Verb::Fmt) {
    r.error = "--check is only accepted by `woc fmt`";
    return true;
  }
  if ((!o.filter.empty() || o.jobs != 0) && o.verb != Verb::Test) {
    r.error = std::string(o.filter.empty() ? "-j" : "--filter") + " is only accepted by `woc test`";
    return true;
  }
  if (o.verb != Verb::Fmt && o.verb != Verb::Test && o.verb != Verb::Explain) return false;
  if (!o.output.empty()) {
    r.error = "-o is only accepted by `woc build`";
    return true;
  }
  if (o.debug_info) {  // refused, never silently dropped
    r.error = "-g is only accepted by `woc run` and `woc build`";
    return true;
  }
  if (o.verb != Verb::Test && (!o.defines.empty() || !o.emit_llvm.empty() || o.update_deps)) {
    r.error = std::string("-D, --emit-llvm and --update-deps are not accepted by `woc ") +
              (o.verb == Verb::Fmt ? "fmt" : "explain") + "`";
    return true;
  }
  if (o.verb == Verb::Test && !o.emit_llvm.empty()) {
    r.error = "--emit-llvm is not accepted by `woc test`";
    return true;
  }
  std::vector<std::string> rest(positional.begin() + 1, positional.end());
  switch (o.verb) {
    case Verb::Fmt:
      if (rest.empty()) r.error = "fmt needs at least one PATH (a .wo file, a directory, or - for stdin)";
      o.paths = rest;
      break;
    case Verb::Test:
      if (rest.size() > 1) r.error = "unexpected argument `" + rest[1] + "` (woc test takes one PATH)";
      o.path = rest.empty() ? "." : rest[0];
      break;
    case Verb::Explain:
      if (rest.size() > 1) r.error = "unexpected argument `" + rest[1] + "` (woc explain takes one code)";
      if (!rest.empty()) o.code = rest[0];
      break;
    default:
      break;
  }
  return true;
}

std::string tool_help(Verb verb) {
  switch (verb) {
    case Verb::Fmt:
      return "Usage: woc fmt [--check] PATH...\n"
             "\n"
             "Rewrites each .wo file in the canonical layout (docs/decisions/0037): two-space\n"
             "indentation, one space around binary operators, comments and single blank\n"
             "lines kept. A directory means every .wo file under it (dot-directories and\n"
             ".wo-deps skipped). `-` formats standard input to standard output.\n"
             "\n"
             "  --check           change nothing; name each file that is not formatted\n"
             "  -h, --help        show this help\n"
             "\n"
             "Exit status: 0 ok (with --check: every file formatted); 1 a file does not\n"
             "parse, or (--check) some file would change; 2 usage or I/O errors.\n";
    case Verb::Test:
      return std::string(
                 "Usage: woc test [PATH] [--filter REGEX] [-j N] [options]\n"
                 "\n"
                 "Runs every `fn test_*()` declared in the *_test.wo files of the program or\n"
                 "module tree at PATH (default: the current directory; a *_test.wo file alone\n"
                 "is also accepted). The program is compiled once with its test files (which\n"
                 "run, build and check leave out); each test then runs in its own process, with\n"
                 "fresh tables. A trap - a failed assert(cond, msg) or assert_eq(a, b) among\n"
                 "them - fails the test and is shown with its message and line. The last line\n"
                 "is `N passed, M failed`. A test still running after 120 s is killed and fails.\n"
                 "\n"
                 "  --filter REGEX    run only the tests whose name matches REGEX (ECMAScript,\n"
                 "                    searched anywhere in the name)\n"
                 "  -j N              run N tests at a time (default: the number of cores)\n"
                 "  -D FLAG           define FLAG for #if (repeatable; also -DFLAG)\n"
                 "  -O0 .. -O3        optimisation level (default -O2)\n"
                 "  --update-deps     re-resolve wo.toml git deps, ignoring (and rewriting) wo.lock\n"
                 "  --time-report     the wall and CPU time of each phase on stderr at exit\n"
                 "                    (=passes: with LLVM's per-pass timings; also -ftime-report)\n"
                 "  -h, --help        show this help\n") +
             "\n"
             "Exit status: 0 all tests passed (or none matched); 1 a test failed or the\n"
             "program has compile errors; 2 usage, I/O or link errors.\n";
    case Verb::Explain:
      return "Usage: woc explain [WO-E###]\n"
             "\n"
             "Explains a diagnostic code: what it means, a short wrong example and its\n"
             "fix (the same text as docs/language/diagnostics.md). `E201`, `e201` and `201`\n"
             "name WO-E201 too. Without a code, lists every code with its summary.\n"
             "\n"
             "  -h, --help        show this help\n"
             "\n"
             "Exit status: 0 ok; 2 unknown code or usage error.\n";
    default:
      return "";
  }
}

}  // namespace wo::driver
