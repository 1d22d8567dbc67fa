// Output builtins (builtins.md §2): print, print_err, print_int. Each call
// writes one line through stdio, so it shares stdout's line buffering (set
// by wo_start) with everything else that writes there.
#include <charconv>
#include <cstdio>
#include <cstring>

#include "../core/trap.h"
#include "wo_actor.h"

namespace {

void write_line(FILE* f, const char* p, size_t n) {
  // Short lines go out in one fwrite: on unbuffered stderr that is one write(2).
  char buf[512];
  if (n < sizeof buf) {
    std::memcpy(buf, p, n);
    buf[n] = '\n';
    std::fwrite(buf, 1, n + 1, f);
    return;
  }
  flockfile(f);
  fwrite_unlocked(p, 1, n, f);
  putc_unlocked('\n', f);
  funlockfile(f);
}

}  // namespace

extern "C" {

void wo_print(WoText* t) {
  wo_sched_durable_barrier();  // after the actor's commits (decision 0045)
  wo::need(t);
  write_line(stdout, t->bytes, static_cast<size_t>(t->len));
}

void wo_print_err(WoText* t) {
  wo_sched_durable_barrier();  // after the actor's commits (decision 0045)
  wo::need(t);
  write_line(stderr, t->bytes, static_cast<size_t>(t->len));
}

void wo_print_int(int64_t n) {
  wo_sched_durable_barrier();  // after the actor's commits (decision 0045)
  char buf[24];
  char* end = std::to_chars(buf, buf + sizeof buf - 1, n).ptr;
  *end++ = '\n';
  std::fwrite(buf, 1, static_cast<size_t>(end - buf), stdout);
}

}  // extern "C"
