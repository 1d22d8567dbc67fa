// Writes corpus-style fixtures that hand a nil to every parameter of every
// builtin in common/builtins.def (through sema's builtin_table(), so a new
// builtin is covered without touching this file):
//
//   OUT/run/nil-arg-builtins-K/{main.wo,expected.out}
//       one probe fn per (builtin, parameter): a `?T` local holding nil is
//       passed where the builtin wants a plain T. language.md §8.2 accepts the
//       call; it must trap BOUNDS `null receiver` in the probe, at the line of
//       the call, and `try` in main must catch it (docs/decisions/0012).
//       kProbesPerProgram probes a program: -O2 time grows faster than
//       linearly with the number of `try`s in one function.
//   OUT/compile-fail/nil-arg-NAME-P/{main.wo,expected.code}
//       a nil element or map value (codes `e`, `V`) is stored into a
//       container: WO-E212 at compile time, never a run-time nil.
//
// Parameters of code `a` (json.encode) take any value, nil included: no probe.
// Actor builtins (flag ACTOR) are skipped: see corpus/run/actor-lang-nil-*.
// Usage: wo_nil_arg_programs OUT   (tests/nil_args/run.sh runs the fixtures)
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>
#include <string>

#include "sema/builtins.h"

namespace {

namespace fs = std::filesystem;

struct Arg {
  std::string type;   // the .wo type of a plain argument
  std::string value;  // an expression of that type
};

// A plain argument for parameter code `c`; `c0` is the code of parameter 0
// (the container whose element, key or value `e`/`K`/`V` name).
bool plain_arg(char c, char c0, Arg* out) {
  switch (c) {
    case 'i': case 'n': case 'S': *out = {"Int", "1"}; return true;
    case 'b': *out = {"Bool", "true"}; return true;
    case 'f': *out = {"Float", "1.5"}; return true;
    case 't': *out = {"Text", "\"a\""}; return true;
    case 'y': *out = {"Bytes", "bytes_of_text(\"a\")"}; return true;
    case 'L': *out = {"multi Int", "[1, 2]"}; return true;
    case 'T': *out = {"multi Text", "[\"a\", \"b\"]"}; return true;
    case 'M': *out = {"map<Text, Int>", "{}"}; return true;
    case 'H': *out = {"map<Text, Text>", "{}"}; return true;
    case 'e': return c0 == 'T' ? (*out = {"Text", "\"a\""}, true) : (*out = {"Int", "1"}, true);
    case 'K': *out = {"Text", "\"k\""}; return true;
    case 'V': *out = {"Int", "1"}; return true;
    default: return false;
  }
}

constexpr int kProbesPerProgram = 16;

std::string shown(const wo::sema::BuiltinSig& b) {
  return b.ns.empty() ? std::string(b.name) : std::string(b.ns) + "." + std::string(b.name);
}

void write(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p) << text;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: wo_nil_arg_programs OUT\n";
    return 2;
  }
  fs::path out = argv[1];
  std::set<std::string> namespaces;
  const auto& table = wo::sema::builtin_table();
  for (const auto& b : table)
    if (!b.ns.empty()) namespaces.insert(std::string(b.ns));
  std::string header;
  for (auto& ns : namespaces) header += "use " + ns + "\n";

  // The program being filled: its probe fns, main's calls, the expected output.
  std::ostringstream fns, calls, expected;
  int line = 0;  // the last line written to the program so far
  int programs = 0, probes = 0, refusals = 0;
  auto start_program = [&] {
    fns.str("");
    calls.str("");
    expected.str("");
    line = (int)namespaces.size();
  };
  auto flush_program = [&] {
    fs::path dir = out / "run" / ("nil-arg-builtins-" + std::to_string(programs++));
    write(dir / "main.wo", header + fns.str() + "fn main() {\n" + calls.str() + "  print(\"done\")\n}\n");
    write(dir / "expected.out", expected.str() + "done\n");
  };
  start_program();

  for (size_t bi = 0; bi < table.size(); ++bi) {
    const auto& b = table[bi];
    // Actor operations need an actor to address and trap with their own
    // message (`send: nil actor address`): corpus/run/actor-lang-nil-* covers them.
    if (b.flags & wo::sema::ACTOR) continue;
    std::string params(b.params);
    std::string sig = shown(b) + "(" + params + ")";
    for (size_t p = 0; p < params.size(); ++p) {
      if (params[p] == 'a' || params[p] == 'c') continue;  // any value (a deep_copy may be nil), nil included
      std::ostringstream body;
      std::string call_args;
      for (size_t i = 0; i < params.size(); ++i) {
        Arg a;
        if (!plain_arg(params[i], params[0], &a)) {
          std::cerr << "wo_nil_arg_programs: " << sig << ": no argument for parameter code '" << params[i]
                    << "' (teach plain_arg about it)\n";
          return 2;
        }
        if (i == p)
          body << "  let a" << i << ": ?" << a.type << " = nil\n";
        else
          body << "  let a" << i << ": " << a.type << " = " << a.value << "\n";
        call_args += (i ? ", a" : "a") + std::to_string(i);
      }
      std::string call = shown(b) + "(" + call_args + ")";
      if (!b.result.empty() && b.result.back() == 'X') call += " as Int";  // json.decode
      std::string label = sig + " nil argument " + std::to_string(p + 1);
      if (params[p] == 'e' || params[p] == 'V') {
        // Stored into the container: a nil element is WO-E212 (language.md §8.2).
        std::string dir = "nil-arg-" + std::string(b.ns.empty() ? "" : std::string(b.ns) + "-") +
                          std::string(b.name) + "-" + std::to_string(bi) + "-" + std::to_string(p + 1);
        std::string uses;
        if (!b.ns.empty()) uses = "use " + std::string(b.ns) + "\n";
        write(out / "compile-fail" / dir / "main.wo",
              "-- " + label + " (generated by tests/nil_args)\n" + uses + "fn main() {\n" + body.str() + "  " + call + "\n}\n");
        write(out / "compile-fail" / dir / "expected.code", "WO-E212\n");
        ++refusals;
        continue;
      }
      std::string probe = "probe_" + std::to_string(probes++);
      // A comment, the fn line, one `let` per parameter, then the call.
      int call_line = line + 3 + (int)params.size();
      fns << "-- " << label << "\n";
      fns << "fn " << probe << "() {\n" << body.str();
      fns << "  " << call << "\n  print(\"no trap\")\n}\n\n";
      line = call_line + 3;
      calls << "  try " << probe << "() catch (e) { print(\"" << label << ": ${e.code} ${e.method} ${e.line} ${e.msg}\") }\n";
      expected << label << ": 6 " << probe << " " << call_line << " null receiver\n";
      if (probes % kProbesPerProgram == 0) {
        flush_program();
        start_program();
      }
    }
  }
  if (probes % kProbesPerProgram != 0) flush_program();
  std::cout << probes << " run probes in " << programs << " programs, " << refusals << " compile-fail programs\n";
  return probes > 0 ? 0 : 1;
}
