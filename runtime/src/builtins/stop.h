// The SIGTERM/SIGINT latch of env.stopping() (builtins.md §1.4, §8): armed by
// the first call; once armed, a signal ends a blocking builtin of `main`
// (time.sleep, proc.run's wait) by ending the program with status 0, while
// the `_dl` variants return their timeout value instead. Actors' blocking
// builtins go on through the stop drain (decision 0027).
#pragma once

namespace wo {

bool stop_armed();
bool stop_requested();     // a SIGTERM/SIGINT arrived since the latch was armed
[[noreturn]] void stop_exit();  // flushes stdout/stderr and exits with status 0

namespace sched {
// A stop signal arrived and the current fiber is `main` (or no actors run):
// its blocking builtin ends the program. Other fibers keep running through
// the stop drain (decision 0027).
bool stop_ends_current();
// The stop-signal handler writes to this eventfd (-1: none) so a parked
// `main` notices a SIGTERM/SIGINT at once; the scheduler sets it to shard
// 0's wake-up fd while actors run (sched/shard.cpp).
void set_stop_wake_fd(int fd);
}  // namespace sched

}  // namespace wo
