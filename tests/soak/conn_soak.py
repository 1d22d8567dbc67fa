#!/usr/bin/env python3
"""The client of tests/soak/conn-soak.sh: N short connections against a
server, its RSS and open fds measured from /proc.

    conn_soak.py PID PORT N [THREADS]

Each connection sends one GET /hello (every tenth sends two, keep-alive,
then Connection: close), reads the answers to the server's close and
closes. After the first 10,000 connections (the warm-up) and again after
all N, it waits (bounded) for the server's fd count to come back to what it
was before the first connection, then reads VmRSS. Prints the figures and
`ok` or `bad` with the reason: bad when any answer was not a 200, when the
fds did not come back, or when VmRSS grew more than SOAK_RSS_SLACK_KB
(default 5120 kB; `none`: no bound, for sanitizer builds) between the two
readings. Exit status 0 for ok, 1 for bad.
"""
import os
import socket
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from procstat import cpu_s, fds, rss_kb  # noqa: E402

WARMUP = 10000
ONE = b"GET /hello HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n"
TWO = b"GET /hello HTTP/1.1\r\nHost: a\r\n\r\n" + ONE


def run(port, n, threads, tally):
    lock = threading.Lock()
    left = [n]

    def worker():
        ok = bad = 0
        first_bad = None
        while True:
            with lock:
                if left[0] == 0:
                    break
                left[0] -= 1
                i = left[0]
            want = 2 if i % 10 == 0 else 1
            try:
                s = socket.create_connection(("127.0.0.1", port), timeout=10)
                s.settimeout(10)
                s.sendall(TWO if want == 2 else ONE)
                data = b""
                while True:
                    b = s.recv(65536)
                    if not b:
                        break
                    data += b
                s.close()
                if data.count(b"HTTP/1.1 200 ") == want:
                    ok += 1
                else:
                    bad += 1
                    first_bad = first_bad or data[:80]
            except OSError as e:
                bad += 1
                first_bad = first_bad or repr(e)
        with lock:
            tally["ok"] += ok
            tally["bad"] += bad
            if first_bad and not tally["first_bad"]:
                tally["first_bad"] = first_bad

    ts = [threading.Thread(target=worker) for _ in range(threads)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()


def settle(pid, base, limit_s=10.0):
    """Waits (bounded) until the server's fds are back at `base`; returns the
    count it saw last."""
    end = time.monotonic() + limit_s
    n = fds(pid)
    while n > base and time.monotonic() < end:
        time.sleep(0.05)
        n = fds(pid)
    return n


def main():
    pid, port, n = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
    threads = int(sys.argv[4]) if len(sys.argv) > 4 else 4
    slack_env = os.environ.get("SOAK_RSS_SLACK_KB", "5120")
    slack = None if slack_env == "none" else int(slack_env)
    if n <= WARMUP:
        print("bad N must be more than the %d warm-up connections" % WARMUP)
        return 1
    base_fds = fds(pid)
    rss0 = rss_kb(pid)
    tally = {"ok": 0, "bad": 0, "first_bad": None}
    cpu0 = cpu_s(pid)
    t0 = time.monotonic()
    run(port, WARMUP, threads, tally)
    fds1 = settle(pid, base_fds)
    rss1 = rss_kb(pid)
    t1 = time.monotonic()
    run(port, n - WARMUP, threads, tally)
    fds2 = settle(pid, base_fds)
    rss2 = rss_kb(pid)
    t2 = time.monotonic()
    cpu = cpu_s(pid) - cpu0
    print("connections: %d (%d answered 200, %d not) in %.1f s (%.0f/s)" %
          (n, tally["ok"], tally["bad"], t2 - t0, n / (t2 - t0)))
    print("server CPU: %.2f s, %.1f us per connection" % (cpu, cpu * 1e6 / n))
    print("VmRSS kB: %d at start, %d after %d, %d after %d: %+d kB over the last %d (%.1f bytes/connection)" %
          (rss0, rss1, WARMUP, rss2, n, rss2 - rss1, n - WARMUP, (rss2 - rss1) * 1024.0 / (n - WARMUP)))
    print("open fds: %d at start, %d after %d, %d at the end" % (base_fds, fds1, WARMUP, fds2))
    why = []
    if tally["bad"]:
        why.append("%d connections not answered 200 (first: %r)" % (tally["bad"], tally["first_bad"]))
    if fds1 > base_fds or fds2 > base_fds:
        why.append("fds did not come back to %d (%d, %d)" % (base_fds, fds1, fds2))
    if slack is not None and rss2 - rss1 > slack:
        why.append("VmRSS grew %d kB after the warm-up (limit %d kB)" % (rss2 - rss1, slack))
    print("bad " + "; ".join(why) if why else "ok")
    return 1 if why else 0


sys.exit(main())
