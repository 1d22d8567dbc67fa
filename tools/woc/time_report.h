// `--time-report` (alias `-ftime-report`): where a woc run spends its time.
// Each phase of the driver (load, sema, codegen, verify, optimise, machine
// code, object write, link, JIT, the program's run) is timed — wall clock and
// CPU (user + sys of woc and of the children it waited for, e.g. the linker) —
// and the table is printed on stderr when the process exits (an atexit
// handler, so a program that ends with its own exit still gets it). Level
// `passes` adds LLVM's own per-pass timings (its -time-passes report).
#pragma once

namespace wo::driver {

enum class TimeReport { Off, Phases, Passes };

// Turns the report on (once, from main, after the command line is parsed);
// the CPU time spent so far is the start-up (loading woc and its libraries).
void enable_time_report(TimeReport level);

// One timed phase, from construction to stop() or destruction. Phases opened
// while another is open are shown indented under it (their time is part of
// the outer one's). Costs nothing but a branch when the report is off.
class Phase {
 public:
  explicit Phase(const char* name);
  ~Phase() { stop(); }
  Phase(const Phase&) = delete;
  Phase& operator=(const Phase&) = delete;
  void stop();

 private:
  int index_ = -1;
};

}  // namespace wo::driver
