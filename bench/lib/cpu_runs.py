#!/usr/bin/env python3
"""CPU time of each run of a command: cpu_runs.py RUNS CMD [ARG...]

Prints one line per run: the run's CPU time (user + sys of the child, from
wait4's rusage, microsecond resolution) and its wall time, in ms. stdout and
stderr of the command go to /dev/null. Exit status 1 if a run failed.

Used by bench/run.sh for the aim lines (fib, alloc, wordcount, start-up):
hyperfine reports the MEAN of user and sys over its runs, so one run slowed
by other work on the machine moves a round's figure; taking the median of
the runs themselves does not (docs/decisions/0067).
"""
import os
import sys
import time


def main():
    runs = int(sys.argv[1])
    cmd = sys.argv[2:]
    devnull = os.open(os.devnull, os.O_RDWR)
    for _ in range(runs):
        start = time.perf_counter()
        # posix_spawn (vfork-like in glibc): the child does not start as a
        # copy of this Python process, whose page-table copy and faults
        # would count as the command's CPU time (~2 ms).
        pid = os.posix_spawnp(cmd[0], cmd, os.environ, file_actions=[
            (os.POSIX_SPAWN_DUP2, devnull, 0),
            (os.POSIX_SPAWN_DUP2, devnull, 1),
            (os.POSIX_SPAWN_DUP2, devnull, 2)])
        _, status, usage = os.wait4(pid, 0)
        wall = (time.perf_counter() - start) * 1000
        if status != 0:
            print(f"cpu_runs: {' '.join(cmd)} failed (status {status})", file=sys.stderr)
            return 1
        print(f"{(usage.ru_utime + usage.ru_stime) * 1000:.3f} {wall:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
