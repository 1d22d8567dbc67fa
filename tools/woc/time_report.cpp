// The phase table of --time-report (time_report.h).
#include "tools/woc/time_report.h"

#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <llvm/IR/PassTimingInfo.h>
#include <llvm/Pass.h>

namespace wo::driver {
namespace {

using Clock = std::chrono::steady_clock;

// CPU seconds of this process and of the children it has waited for (the
// linker `woc build` runs, the tests `woc test` runs).
double cpu_seconds() {
  auto secs = [](int who) {
    rusage ru{};
    getrusage(who, &ru);
    return ru.ru_utime.tv_sec + ru.ru_stime.tv_sec + (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
  };
  return secs(RUSAGE_SELF) + secs(RUSAGE_CHILDREN);
}

struct Entry {
  const char* name;
  int depth;
  Clock::time_point wall_start;
  double cpu_start;
  double wall = 0, cpu = 0;
  bool open = true;
};

struct State {
  TimeReport level = TimeReport::Off;
  Clock::time_point start;
  double startup_cpu = 0;  // CPU spent before main: loading woc and its shared libraries
  std::vector<Entry> phases;
  int depth = 0;
};

State& state() {
  static State s;
  return s;
}

void close(Entry& e, Clock::time_point now, double cpu) {
  e.wall = std::chrono::duration<double>(now - e.wall_start).count();
  e.cpu = cpu - e.cpu_start;
  e.open = false;
}

void print_report() {
  State& s = state();
  auto now = Clock::now();
  double cpu = cpu_seconds();
  // A phase still open (the program's run when it called exit) ends here.
  for (Entry& e : s.phases)
    if (e.open) close(e, now, cpu);
  if (s.level == TimeReport::Passes) llvm::reportAndResetTimings(nullptr);
  std::fprintf(stderr, "woc: time report: wall and CPU (user + sys, with the children woc waited for), ms\n");
  std::fprintf(stderr, "  %-40s %10s %10s\n", "phase", "wall", "CPU");
  std::fprintf(stderr, "  %-40s %10s %10.1f\n", "start-up (loading woc, before main)", "-", s.startup_cpu * 1e3);
  for (const Entry& e : s.phases) {
    std::string name = std::string(2 * static_cast<size_t>(e.depth), ' ') + e.name;
    std::fprintf(stderr, "  %-40s %10.1f %10.1f\n", name.c_str(), e.wall * 1e3, e.cpu * 1e3);
  }
  std::fprintf(stderr, "  %-40s %10.1f %10.1f\n", "total (since main; CPU since start-up)",
               std::chrono::duration<double>(now - s.start).count() * 1e3, cpu * 1e3);
  std::fflush(stderr);
}

}  // namespace

void enable_time_report(TimeReport level) {
  State& s = state();
  if (level == TimeReport::Off || s.level != TimeReport::Off) return;
  s.level = level;
  s.start = Clock::now();
  s.startup_cpu = cpu_seconds();
  // LLVM's per-pass timers: the optimiser's (new pass manager, printed when the
  // pipeline finishes) and the code generator's (legacy pass manager, printed
  // with the table).
  if (level == TimeReport::Passes) llvm::TimePassesIsEnabled = true;
  std::atexit(print_report);
}

Phase::Phase(const char* name) {
  State& s = state();
  if (s.level == TimeReport::Off) return;
  index_ = static_cast<int>(s.phases.size());
  s.phases.push_back(Entry{name, s.depth++, Clock::now(), cpu_seconds()});
}

void Phase::stop() {
  if (index_ < 0) return;
  State& s = state();
  close(s.phases[static_cast<size_t>(index_)], Clock::now(), cpu_seconds());
  --s.depth;
  index_ = -1;
}

}  // namespace wo::driver
