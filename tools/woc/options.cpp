// Parses woc's command line. Options may appear before or after the verb and
// the path; everything after `--` belongs to the program (`woc run` only).
#include "tools/woc/options.h"

#include <string_view>

#include "tools/woc/options_tools.h"

namespace wo::driver {
namespace {

Verb verb_named(std::string_view s) {
  if (s == "run") return Verb::Run;
  if (s == "build") return Verb::Build;
  if (s == "check") return Verb::Check;
  return tool_verb_named(s);
}

// Takes the value of an option written either glued (`-DX`, `--emit-llvm=F`)
// or as the next argument (`-D X`). Returns false if the value is missing.
bool take_value(std::string_view arg, size_t prefix_len, int argc, char** argv, int& i,
                std::string& out) {
  if (arg.size() > prefix_len) {
    std::string_view rest = arg.substr(prefix_len);
    if (rest.front() == '=') rest.remove_prefix(1);
    out = std::string(rest);
    return !out.empty();
  }
  if (i + 1 >= argc) return false;
  out = argv[++i];
  return !out.empty();
}

// --color=never|always|auto and --error-format=human|json (how diagnostics
// are shown); returns a usage error or "".
std::string diagnostic_option(std::string_view a, int argc, char** argv, int& i, Options& o) {
  bool color = a.substr(0, 7) == "--color";
  size_t n = color ? 7 : 14;
  if (a.size() > n && a[n] != '=') return "unknown option `" + std::string(a) + "` (see woc --help)";
  std::string& slot = color ? o.color : o.error_format;
  std::string name(a.substr(0, n));
  if (!take_value(a, n, argc, argv, i, slot)) return name + (color ? " needs never, always or auto" : " needs human or json");
  if (color ? (slot != "never" && slot != "always" && slot != "auto") : (slot != "human" && slot != "json"))
    return name + ": unknown value `" + slot + "` (expected " + (color ? "never, always or auto)" : "human or json)");
  return "";
}

}  // namespace

ParseResult parse_options(int argc, char** argv) {
  ParseResult r;
  Options& o = r.opts;
  std::vector<std::string> positional;
  bool saw_dashdash = false;
  for (int i = 1; i < argc; ++i) {
    std::string_view a = argv[i];
    if (a == "--") {
      for (int j = i + 1; j < argc; ++j) o.program_args.emplace_back(argv[j]);
      saw_dashdash = true;
      break;
    }
    if (a == "--help" || a == "-h") {
      o.help = true;
    } else if (a == "--update-deps") {
      o.update_deps = true;
    } else if (a == "--version") {
      o.version = true;
    } else if (auto level = codegen::opt_level_flag(a)) {
      o.opt_level = *level;
    } else if (a == "-g") {
      o.debug_info = true;  // full DWARF for a debugger (codegen/debug_info.cpp)
    } else if (a.substr(0, 2) == "-D") {
      std::string flag;
      if (!take_value(a, 2, argc, argv, i, flag)) {
        r.error = "-D needs a flag name";
        return r;
      }
      o.defines.insert(flag);
    } else if (a.substr(0, 2) == "-o") {
      if (!take_value(a, 2, argc, argv, i, o.output)) {
        r.error = "-o needs a file name";
        return r;
      }
    } else if (a.substr(0, 11) == "--emit-llvm") {
      if (a.size() > 11 && a[11] != '=') {
        r.error = "unknown option `" + std::string(a) + "` (see woc --help)";
        return r;
      }
      if (!take_value(a, 11, argc, argv, i, o.emit_llvm)) {
        r.error = "--emit-llvm needs a file name";
        return r;
      }
    } else if (a == "--time-report" || a == "-ftime-report" || a == "--time-report=phases") {
      o.time_report = TimeReport::Phases;
    } else if (a == "--time-report=passes") {
      o.time_report = TimeReport::Passes;
    } else if (a.substr(0, 14) == "--time-report=") {
      r.error = "--time-report: unknown value `" + std::string(a.substr(14)) + "` (expected phases or passes)";
      return r;
    } else if (a.substr(0, 7) == "--color" || a.substr(0, 14) == "--error-format") {
      if (std::string bad = diagnostic_option(a, argc, argv, i, o); !bad.empty()) {
        r.error = bad;
        return r;
      }
    } else if (int took = parse_tool_flag(a, argc, argv, i, o, r.error); took != 0) {
      if (took < 0) return r;
    } else if (a.size() > 1 && a[0] == '-') {
      r.error = "unknown option `" + std::string(a) + "` (see woc --help)";
      return r;
    } else {
      positional.emplace_back(a);
    }
  }
  if (!positional.empty()) {
    o.verb = verb_named(positional[0]);
    if (o.verb == Verb::None) {
      r.error = "unknown command `" + positional[0] +
                "` (expected run, build, check, test, fmt or explain)";
      return r;
    }
  }
  if (o.help || o.version) return r;
  if (saw_dashdash && o.verb != Verb::Run && o.verb != Verb::None) {
    r.error = "arguments after `--` are only accepted by `woc run`";
    return r;
  }
  if (o.verb == Verb::None) {
    r.error = "no command given (see woc --help)";
    return r;
  }
  if (o.time_report != TimeReport::Off && o.verb != Verb::Run && o.verb != Verb::Build &&
      o.verb != Verb::Check && o.verb != Verb::Test) {
    r.error = "--time-report is only accepted by `woc run`, `build`, `check` and `test`";
    return r;
  }
  if (finish_tool_verb(r, positional)) return r;
  if (positional.size() < 2) {
    r.error = "missing program path (a .wo file or a program directory)";
    return r;
  }
  if (positional.size() > 2) {
    r.error = "unexpected argument `" + positional[2] + "`" +
              (o.verb == Verb::Run ? " (pass program arguments after `--`)" : "");
    return r;
  }
  o.path = positional[1];
  if (o.verb == Verb::Build && o.output.empty()) r.error = "build needs -o OUT";
  if (o.verb != Verb::Build && !o.output.empty()) r.error = "-o is only accepted by `woc build`";
  if (o.debug_info && o.verb != Verb::Build && o.verb != Verb::Run)
    r.error = "-g is only accepted by `woc run` and `woc build`";
  return r;
}

std::string help_text(Verb verb) {
  const char* common =  // after each verb's "Options:" heading and its own options
      "  -D FLAG           define FLAG for #if (repeatable; also -DFLAG)\n"
      "  -O0 .. -O3        optimisation level (default -O2)\n"
      "  --emit-llvm FILE  also write the optimised LLVM IR to FILE\n"
      "  --update-deps     re-resolve wo.toml git deps, ignoring (and rewriting) wo.lock\n"
      "  --color=WHEN      colour diagnostics: auto (default: on a terminal, unless\n"
      "                    NO_COLOR is set), always or never\n"
      "  --error-format=F  diagnostics as human text (default) or json: one JSON\n"
      "                    object per line on stderr (docs/decisions/0040)\n"
      "  --time-report     print the wall and CPU time of each phase (load, sema,\n"
      "                    codegen, verify, optimise, machine code, link or JIT, run)\n"
      "                    on stderr at exit; --time-report=passes adds LLVM's own\n"
      "                    per-pass timings; -ftime-report is the same as --time-report\n"
      "  -h, --help        show this help\n";
  switch (verb) {
    case Verb::Run:
      return std::string(
                 "Usage: woc run PATH [options] [-- ARGS...]\n"
                 "\n"
                 "Compiles the program at PATH (a .wo file or a program directory) and runs it\n"
                 "in process with the LLVM JIT. ARGS after `--` are passed to main.\n"
                 "Exit status: the program's own; 1 on compile errors; 2 on usage or I/O errors.\n"
                 "\n"
                 "Options:\n"
                 "  -g                full debug info (locals, types), registered with gdb's JIT interface\n") +
             common;
    case Verb::Build:
      return std::string(
                 "Usage: woc build PATH -o OUT [options]\n"
                 "\n"
                 "Compiles the program at PATH to the native executable OUT, linked with the\n"
                 "woc runtime (libwo_runtime.a next to woc, or in ../lib/woc when installed).\n"
                 "Exit status: 0 on success; 1 on compile errors; 2 on usage, I/O or link errors.\n"
                 "\n"
                 "Options:\n"
                 "  -o OUT            the executable to write\n"
                 "  -g                full DWARF debug info (locals, types) for gdb; without it the\n"
                 "                    executable still carries line tables (trap backtraces)\n") +
             common;
    case Verb::Check:
      return std::string(
                 "Usage: woc check PATH [options]\n"
                 "\n"
                 "Reports the diagnostics of the program at PATH without running it.\n"
                 "Exit status: 0 if there are no errors (warnings allowed); 1 on errors;\n"
                 "2 on usage or I/O errors.\n"
                 "\n"
                 "Options:\n") +
             common;
    case Verb::Fmt:
    case Verb::Test:
    case Verb::Explain:
      return tool_help(verb);
    case Verb::None:
      break;
  }
  return std::string(
             "Usage: woc <command> PATH [options]\n"
             "\n"
             "The compiler of the .wo language. PATH is a .wo file or a program directory.\n"
             "\n"
             "Commands:\n"
             "  run PATH [-- ARGS...]   compile and run in process (JIT)\n"
             "  build PATH -o OUT       compile to a native executable\n"
             "  check PATH              report diagnostics only\n"
             "  test [PATH]             run the fn test_*() of the *_test.wo files\n"
             "  fmt [--check] PATH...   lay .wo files out in the canonical style\n"
             "  explain [WO-E###]       explain a diagnostic code (alone: list them)\n"
             "  lsp                     the language server for editors (stdio; woc lsp --help)\n"
             "\n"
             "Options:\n") +
         common +
         "  --version         print the version\n"
         "\n"
         "Exit status: 0 ok; 1 compile errors; 2 usage or I/O errors; under `run`, the\n"
         "program's own status. `woc <command> --help` describes one command.\n";
}

}  // namespace wo::driver
