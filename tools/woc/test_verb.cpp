// woc test: compile the program once with its *_test.wo files and a
// generated entry point that runs the test named by WO_TEST_CASE, link it,
// then run every selected test in its own process (fresh tables: a new
// WO_DATA directory each) - up to -j at a time - and report
// (docs/decisions/0038-woc-test.md).
#include "tools/woc/test_verb.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
// GCC 12 reports std::regex's own std::function members as "may be used
// uninitialized" when instrumented (the ASan build): a known false positive
// inside libstdc++, silenced for this file only.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <regex>
#include <sstream>
#include <thread>

#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Target/TargetMachine.h>

#include "common/diagnostics.h"
#include "frontend/ast.h"
#include "frontend/parser.h"
#include "tools/woc/native_build.h"
#include "tools/woc/pipeline.h"
#include "tools/woc/time_report.h"
#include "tools/woc/target.h"

namespace wo::driver {
namespace fs = std::filesystem;
namespace {

constexpr int kTimeoutSeconds = 120;  // one test; a hung test fails instead of hanging woc
constexpr const char* kTestEntry = "woc_test_main";  // the generated entry point

struct TestCase {
  std::string name;    // test_x, or billing/tax.test_x for a test in module billing/tax
  std::string module;  // "" or billing/tax
  std::string fn;      // test_x
  std::string where;   // file:line of the declaration
  bool bad_signature = false;
};

bool is_test_file(const std::string& path) {
  return path.size() > 8 && path.compare(path.size() - 8, 8, "_test.wo") == 0;
}

// Finds the tests, makes the generated entry point the program's (its own
// `main` is kept but not called) and adds the generated files to the main
// module.
void prepare(ast::Program& program, SourceManager& sm, Diagnostics& diags, std::vector<TestCase>& tests) {
  std::vector<std::string> used_modules;
  for (auto& m : program.modules) {
    for (auto& f : m->files) {
      const SourceFile& sf = sm.get(f->file_id);
      if (!is_test_file(sf.path)) continue;
      for (auto& fn : f->fns) {
        if (fn->sig.name.rfind("test_", 0) != 0) continue;
        TestCase t;
        t.module = m->path;
        t.fn = fn->sig.name;
        t.name = m->path.empty() ? t.fn : m->path + "." + t.fn;
        t.where = sf.path + ":" + std::to_string(fn->sig.span.begin.line);
        t.bad_signature = !fn->sig.params.empty();
        fn->is_pub = true;  // callable from the generated main in module ""
        if (!t.module.empty() && !t.bad_signature &&
            std::find(used_modules.begin(), used_modules.end(), t.module) == used_modules.end())
          used_modules.push_back(t.module);
        tests.push_back(std::move(t));
      }
    }
  }
  // The program starts in the generated entry point. The program's own
  // `main` stays: checked and compiled like under `woc check` (so a `use`
  // only it needs is used), never called.
  program.library = false;  // a library is tested through the generated entry point too
  program.entry = kTestEntry;
  auto& main_files = program.modules.front()->files;

  // One generated file per tested module, each with its own `use` (an alias
  // is per file): two modules whose paths end in the same segment (a/util,
  // b/util) would clash in one file. The files join module "", so main sees
  // their dispatch functions unqualified.
  auto add_file = [&](std::string path, std::string text) {
    SourceFile sf;
    sf.path = std::move(path);
    sf.text = std::move(text);
    uint32_t id = sm.add(std::move(sf));
    LexOptions lex;
    main_files.push_back(parse_file(id, lex_file(id, sm.get(id).text, diags, lex), diags));
  };
  auto dispatch_calls = [&](const std::string& module, const std::string& qualifier) {
    std::ostringstream calls;
    for (const TestCase& t : tests)
      if (!t.bad_signature && t.module == module)
        calls << "  if case_name == \"" << t.name << "\" { " << qualifier << t.fn << "() }\n";
    return calls.str();
  };
  std::ostringstream main_src;
  main_src << "use env\nfn " << kTestEntry << "() {\n  let case_name = env.get(\"WO_TEST_CASE\")\n" << dispatch_calls("", "");
  for (size_t i = 0; i < used_modules.size(); ++i) {
    const std::string& m = used_modules[i];
    std::string fn = "woc_test_dispatch_" + std::to_string(i);
    add_file("<woc test dispatch " + m + ">", "use " + m + "\nfn " + fn + "(case_name: Text) {\n" +
                                                 dispatch_calls(m, m.substr(m.rfind('/') + 1) + ".") + "}\n");
    main_src << "  " << fn << "(case_name)\n";
  }
  main_src << "}\n";
  add_file("<woc test main>", main_src.str());
}

struct Running {
  size_t index;
  pid_t pid;
  std::chrono::steady_clock::time_point start;
};

struct Outcome {
  bool done = false;
  bool passed = false;
  std::string detail;  // why it failed, then its output
  double seconds = 0;
};

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The child: the test's own data directory, its output in `log`. Everything
// the child needs is prepared before fork (only async-signal-safe calls after).
pid_t start_test(const std::string& exe, const std::string& name, const fs::path& data, const fs::path& log,
                 const fs::path& cwd) {
  std::vector<std::string> env;
  for (char** e = environ; *e; ++e) {
    std::string_view v = *e;
    if (v.starts_with("WO_TEST_CASE=") || v.starts_with("WO_DATA=") || v.starts_with("WO_EPHEMERAL=")) continue;
    env.emplace_back(v);
  }
  env.push_back("WO_TEST_CASE=" + name);
  env.push_back("WO_DATA=" + data.string());
  std::vector<char*> envp;
  for (std::string& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  std::string log_path = log.string(), dir = cwd.string();
  char* argv[] = {const_cast<char*>(exe.c_str()), nullptr};
  pid_t pid = fork();
  if (pid != 0) return pid;
  setpgid(0, 0);
  int fd = open(log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  if (fd >= 0) {
    dup2(fd, 1);
    dup2(fd, 2);
    close(fd);
  }
  if (chdir(dir.c_str()) != 0) _exit(126);
  execve(exe.c_str(), argv, envp.data());
  _exit(127);
}

std::string indent(const std::string& text) {
  std::string out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out += "    " + line + "\n";
  return out;
}

}  // namespace

int test_verb(const Options& opts) {
  std::regex filter;
  try {
    if (!opts.filter.empty()) filter = std::regex(opts.filter, std::regex::ECMAScript);
  } catch (const std::regex_error& e) {
    return driver_failure("--filter: not a regular expression: " + opts.filter + " (" + e.what() + ")");
  }
  std::string error;
  auto builder = host_machine(opts.opt_level, error);
  std::unique_ptr<llvm::TargetMachine> machine =
      builder ? target_machine(*builder, opts.opt_level, CodeFor::ObjectFile, error) : nullptr;
  if (!machine) return driver_failure("no target for this host: " + error);

  std::vector<TestCase> tests;
  Compiled c = compile(opts, machine.get(), true,
                       [&](ast::Program& p, SourceManager& sm, Diagnostics& d) { prepare(p, sm, d, tests); });
  if (c.status != 0) return c.status;

  std::vector<size_t> selected;
  for (size_t i = 0; i < tests.size(); ++i)
    if (opts.filter.empty() || std::regex_search(tests[i].name, filter)) selected.push_back(i);
  if (tests.empty()) std::cout << "no tests: no fn test_*() in a *_test.wo file under " << opts.path << "\n";
  if (selected.empty()) {
    std::cout << "0 passed, 0 failed\n";
    return 0;
  }

  std::error_code ec;
  char tmpl[] = "/tmp/woc-test-XXXXXX";
  if (!mkdtemp(tmpl)) return driver_failure("cannot create a temporary directory");
  fs::path tmp = tmpl;
  struct Cleanup {
    fs::path dir;
    ~Cleanup() {
      std::error_code e;
      fs::remove_all(dir, e);
    }
  } cleanup{tmp};
  if (c.machine_code_level != opts.opt_level) {
    machine = target_machine(*builder, c.machine_code_level, CodeFor::ObjectFile, error);
    if (!machine) return driver_failure("no target for this host: " + error);
  }
  std::string exe = (tmp / "tests").string();
  if (std::string failed = build_executable(*c.module, *machine, c.machine_code_level, exe, c.unoptimised_parts);
      !failed.empty())
    return driver_failure(failed);
  c.module.reset();

  fs::path cwd = fs::is_directory(opts.path, ec) ? fs::path(opts.path) : fs::path(opts.path).parent_path();
  if (cwd.empty()) cwd = ".";
  cwd = fs::absolute(cwd, ec);

  Phase run_phase("run the tests");
  size_t jobs = opts.jobs > 0 ? static_cast<size_t>(opts.jobs) : std::max(1u, std::thread::hardware_concurrency());
  std::vector<Outcome> outcomes(tests.size());
  std::vector<Running> running;
  size_t next = 0, printed = 0, passed = 0, failed = 0;
  auto print_ready = [&] {
    for (; printed < selected.size() && outcomes[selected[printed]].done; ++printed) {
      const TestCase& t = tests[selected[printed]];
      const Outcome& o = outcomes[selected[printed]];
      char secs[32];
      std::snprintf(secs, sizeof secs, "%.2fs", o.seconds);
      if (o.passed) {
        std::cout << "ok   " << t.name << " (" << secs << ")\n";
      } else {
        std::cout << "FAIL " << t.name << " (" << t.where << ", " << secs << ")\n" << indent(o.detail);
      }
      std::cout.flush();
    }
  };
  while (next < selected.size() || !running.empty()) {
    while (running.size() < jobs && next < selected.size()) {
      size_t i = selected[next++];
      if (tests[i].bad_signature) {
        outcomes[i] = Outcome{true, false, "a test takes no parameters\n", 0};
        ++failed;
        continue;
      }
      fs::path data = tmp / ("data-" + std::to_string(i));
      fs::create_directories(data, ec);
      pid_t pid = start_test(exe, tests[i].name, data, tmp / ("log-" + std::to_string(i)), cwd);
      if (pid < 0) return driver_failure("cannot start a test process");
      running.push_back(Running{i, pid, std::chrono::steady_clock::now()});
    }
    // Bounded poll: reap what finished, kill what ran out of time.
    bool reaped = false;
    for (size_t k = 0; k < running.size();) {
      Running& r = running[k];
      int status = 0;
      pid_t got = waitpid(r.pid, &status, WNOHANG);
      auto now = std::chrono::steady_clock::now();
      double secs = std::chrono::duration<double>(now - r.start).count();
      if (got == 0 && secs < kTimeoutSeconds) {
        ++k;
        continue;
      }
      Outcome& o = outcomes[r.index];
      o.done = true;
      o.seconds = secs;
      if (got == 0) {
        kill(-r.pid, SIGKILL);
        waitpid(r.pid, &status, 0);
        o.detail = "timed out after " + std::to_string(kTimeoutSeconds) + "s\n";
      } else if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
        o.passed = true;
      } else if (WIFSIGNALED(status)) {
        o.detail = "killed by signal " + std::to_string(WTERMSIG(status)) + "\n";
      } else {
        o.detail = "exit status " + std::to_string(WEXITSTATUS(status)) + "\n";
      }
      kill(-r.pid, SIGKILL);  // anything the test left behind in its group
      if (!o.passed) {
        // The trap line (message, function, line) comes first in its output.
        o.detail = slurp(tmp / ("log-" + std::to_string(r.index))) + o.detail;
        ++failed;
      } else {
        ++passed;
      }
      fs::remove_all(tmp / ("data-" + std::to_string(r.index)), ec);
      running.erase(running.begin() + static_cast<long>(k));
      reaped = true;
    }
    print_ready();
    if (!reaped && !running.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  print_ready();
  std::cout << passed << " passed, " << failed << " failed\n";
  return failed == 0 ? 0 : 1;
}

}  // namespace wo::driver
