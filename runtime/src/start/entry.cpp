// Program entry (wo_start): sets up the process as runtime.md §5.1/§5.2 ask
// (line-buffered stdout, SIGPIPE ignored), builds `args`, runs the program's
// `main`, and turns an uncaught trap into the one stderr line of
// language.md §16.4 plus exit status 1.
#include <sys/resource.h>

#include <csignal>
#include <cstdio>
#include <cstring>
#include <string>

#include "../core/backtrace.h"
#include "../core/heap.h"
#include "../core/heap_cap.h"
#include "../core/trap.h"
#include "../sched/fiber_local.h"
#include "../sched/placement.h"
#include "../sched/sched.h"
#include "wo_db.h"

namespace {

// args: a multi Text of argv[1..] (the program path excluded).
WoList* make_args(int argc, char** argv) {
  int64_t n = argc > 1 ? argc - 1 : 0;
  WoList* args = wo_list_new(WO_ELEM_TEXT, n);
  wo::OwnedGuard guard(args);
  for (int64_t i = 0; i < n; ++i) {
    const char* a = argv[i + 1];
    wo_list_push(args, reinterpret_cast<uint64_t>(wo::text_from(a, std::strlen(a))));
  }
  guard.disown();
  return args;
}

// `trap <code> in <fn> at line <line>: <msg>\n` on stderr, written at once,
// then (unless WO_BACKTRACE=0) where, with which values and through which
// calls (core/backtrace.h; the first line stays the one harnesses parse).
void report_uncaught(const wo::Trap& t) {
  std::string line = "trap " + std::to_string(t.code) + " in " + t.method + " at line " +
                     std::to_string(t.line) + ": " + t.msg + "\n" + wo::trap_extra_lines(t);
  std::fwrite(line.data(), 1, line.size(), stderr);
  std::fflush(stderr);
}

// The lowest frame address generated code may use: the stack's size from
// RLIMIT_STACK (8 MiB when unlimited), measured from here, minus a margin
// for the trap's own unwinding.
uintptr_t stack_limit_from_here() {
  rlimit rl{};
  uintptr_t size = 8u << 20;
  if (getrlimit(RLIMIT_STACK, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY) size = rl.rlim_cur;
  const uintptr_t margin = 256u << 10;
  char here;
  auto top = reinterpret_cast<uintptr_t>(&here);
  return size > 2 * margin ? top - size + margin : top - size / 2;
}

}  // namespace

extern "C" int wo_start(int argc, char** argv, WoEntry entry) {
  wo::heap_cap_start();  // WO_HEAP_MB; a bad value exits 2 here (runtime.md §5.1 step 2)
  wo::sched::read_spread(true);  // WO_PLACEMENT, likewise
  std::setvbuf(stdout, nullptr, _IOLBF, BUFSIZ);
  std::signal(SIGPIPE, SIG_IGN);

  wo::sched::init_thread_local(stack_limit_from_here());
  int status = 0;
  WoList* args = nullptr;
  try {
    args = make_args(argc, argv);
    int64_t result = entry(args);
    status = static_cast<int>(result & 0xFF);
  } catch (const wo::sched::Unwind&) {
    status = 0;  // a stop signal ended a park of `main` (runtime.md §5.4)
  } catch (...) {
    wo::Trap t = wo::current_trap();
    std::fflush(stdout);  // what was printed before the trap comes first
    report_uncaught(t);
    status = 1;
  }
  wo_sched_shutdown();  // actors end with `main` (a no-op when the entry already did it)
  wo_db_flush();        // what unwound fibers applied is written (a no-op after wo_db_close)
  wo_release(args);  // `main` only borrowed its arguments
  wo_gc_collect();   // cycles of traced objects left at exit are reclaimed too
  std::fflush(stdout);
  return status;
}
