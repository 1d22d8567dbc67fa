#!/usr/bin/env python3
"""The load of bench/soak/web-app-soak.sh: a mix against examples/web-app
for SECS seconds, with the server's VmRSS and open fds sampled over time.

    web_app_mix.py PID PORT SECS SAMPLES.tsv

The mix, each part on its own threads:
  keep-alive  2 threads, each on one connection: GET /products,
              GET /products/mug, GET /api/ping, GET /nego, round and round
              (a new connection when the server closes one)
  churn       2 threads: one connection per request (GET /products/mug,
              Connection: close)
  slow        1 thread keeping up to 24 bad clients open at once, in turn:
              a half-sent request (the server answers 400 at its read
              deadline), a silent connection (closed at the idle deadline),
              a request dribbled a byte at a time (answered), a client that
              reads its answer a few bytes at a time
  writes      1 thread: POST /flags/banner flipping on/off, POST /orders
              (a `confirm` job each, drained at the accept seam), GET /jobs
The server needs WA_TOKEN=s3cr3t and a product `mug` (made here first).

Every SAMPLE_S seconds (5) a line goes to SAMPLES.tsv: seconds, VmRSS kB,
open fds, requests answered so far, answers that were not what the part
expects. At the end: the figures and `ok` / `bad`: bad when any answer was
unexpected (a 5xx, a refused connection, a wrong status), when the fds do
not come back within 10 s of the load's end to what they were before it, or
when VmRSS grew more than SOAK_RSS_SLACK_KB (default 10240) from the sample
at the end of the warm-up (the first tenth of the run, at least 30 s) to the
end. Exit status 0 for ok, 1 for bad.
"""
import json
import os
import socket
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "lib"))
from procstat import fds, rss_kb  # noqa: E402

AUTH = "authorization: Bearer s3cr3t\r\n"
SAMPLE_S = 5


def req(method, path, body=None, close=False):
    b = body.encode() if body is not None else b""
    extra = "content-type: application/json\r\ncontent-length: %d\r\n" % len(b) if body is not None else ""
    return ("%s %s HTTP/1.1\r\nhost: a\r\n%s%s%s\r\n" %
            (method, path, AUTH, extra, "connection: close\r\n" if close else "")).encode() + b


class Reader:
    """Responses with a Content-Length body off one socket."""

    def __init__(self, s):
        self.s, self.buf = s, b""

    def response(self):
        while b"\r\n\r\n" not in self.buf:
            chunk = self.s.recv(65536)
            if not chunk:
                raise EOFError("closed")
            self.buf += chunk
        head, rest = self.buf.split(b"\r\n\r\n", 1)
        lines = head.decode("latin-1").split("\r\n")
        n = 0
        for line in lines[1:]:
            k, _, v = line.partition(":")
            if k.strip().lower() == "content-length":
                n = int(v)
        while len(rest) < n:
            chunk = self.s.recv(65536)
            if not chunk:
                raise EOFError("closed mid-body")
            rest += chunk
        self.buf = rest[n:]
        return int(lines[0].split(" ")[1]), rest[:n]


class Mix:
    def __init__(self, port, secs):
        self.port, self.end = port, time.monotonic() + secs
        self.lock = threading.Lock()
        self.answered = 0
        self.unexpected = {}

    def running(self):
        return time.monotonic() < self.end

    def count(self, what, ok=True):
        with self.lock:
            if ok:
                self.answered += 1
            else:
                self.unexpected[what] = self.unexpected.get(what, 0) + 1

    def connect(self, timeout=10):
        s = socket.create_connection(("127.0.0.1", self.port), timeout=timeout)
        s.settimeout(timeout)
        return s

    def keepalive(self):
        paths = ["/products", "/products/mug", "/api/ping", "/nego"]
        while self.running():
            try:
                s = self.connect()
                r = Reader(s)
                i = 0
                while self.running():
                    p = paths[i % len(paths)]
                    i += 1
                    s.sendall(req("GET", p))
                    st, _ = r.response()
                    self.count("keep-alive %s %d" % (p, st), st == 200)
                s.close()
            except (OSError, EOFError):
                pass  # the server may close a keep-alive connection (its idle deadline): reconnect

    def churn(self):
        while self.running():
            try:
                s = self.connect()
                s.sendall(req("GET", "/products/mug", close=True))
                st, _ = Reader(s).response()
                s.close()
                self.count("churn %d" % st, st == 200)
            except (OSError, EOFError) as e:
                self.count("churn " + type(e).__name__, False)

    def writes(self):
        on = False
        n = 0
        while self.running():
            n += 1
            try:
                s = self.connect()
                r = Reader(s)
                if n % 3 == 0:
                    on = not on
                    s.sendall(req("POST", "/flags/banner", json.dumps({"on": on})))
                    st, _ = r.response()
                    self.count("flag %d" % st, st == 200)
                s.sendall(req("POST", "/orders", json.dumps({"product": "mug", "qty": 1 + n % 3})))
                st, _ = r.response()
                self.count("order %d" % st, st == 201)
                s.sendall(req("GET", "/jobs", close=True))
                st, _ = r.response()
                self.count("jobs %d" % st, st == 200)
                s.close()
            except (OSError, EOFError) as e:
                self.count("writes " + type(e).__name__, False)
            time.sleep(0.1)

    def one_bad_client(self, kind):
        try:
            s = self.connect(timeout=30)
            if kind == "half":
                s.sendall(b"GET /products HTTP/1.1\r\nhost: a\r\nauthor")
                data = b""
                while True:
                    chunk = s.recv(65536)
                    if not chunk:
                        break
                    data += chunk
                self.count("half-sent " + data[:12].decode("latin-1"), data.startswith(b"HTTP/1.1 400"))
            elif kind == "silent":
                data = s.recv(65536)
                self.count("silent got %r" % data[:12], data == b"")
            elif kind == "dribble":
                for ch in req("GET", "/products/mug", close=True):
                    s.sendall(bytes([ch]))
                    time.sleep(0.002)
                st, _ = Reader(s).response()
                self.count("dribble %d" % st, st == 200)
            else:  # a slow reader
                s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
                s.sendall(req("GET", "/products", close=True))
                data = b""
                while True:
                    chunk = s.recv(16)
                    if not chunk:
                        break
                    data += chunk
                    time.sleep(0.001)
                self.count("slow-reader " + data[:12].decode("latin-1"), data.startswith(b"HTTP/1.1 200"))
            s.close()
        except (OSError, EOFError) as e:
            self.count("%s %s" % (kind, type(e).__name__), False)

    def slow(self):
        kinds = ["half", "silent", "dribble", "reader"]
        live = []
        i = 0
        while self.running():
            live = [t for t in live if t.is_alive()]
            while len(live) < 24 and self.running():
                t = threading.Thread(target=self.one_bad_client, args=(kinds[i % len(kinds)],))
                i += 1
                t.start()
                live.append(t)
            time.sleep(0.05)
        for t in live:
            t.join(30)


def setup(port):
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    s.settimeout(10)
    s.sendall(req("POST", "/products", json.dumps({"name": "mug", "price": 9.5, "stock": 1000000}), close=True))
    st, _ = Reader(s).response()
    s.close()
    return st


def main():
    pid, port, secs, out = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
    slack = int(os.environ.get("SOAK_RSS_SLACK_KB", "10240"))
    st = setup(port)
    if st not in (201, 409):
        print("bad could not create the product mug: %d" % st)
        return 1
    base_fds = fds(pid)
    mix = Mix(port, secs)
    threads = [threading.Thread(target=f) for f in
               [mix.keepalive, mix.keepalive, mix.churn, mix.churn, mix.slow, mix.writes]]
    t0 = time.monotonic()
    for t in threads:
        t.start()
    warm = max(30.0, secs / 10.0)
    samples = []
    with open(out, "w") as f:
        f.write("secs\trss_kb\tfds\tanswered\tunexpected\n")
        while any(t.is_alive() for t in threads):
            time.sleep(SAMPLE_S)
            with mix.lock:
                answered, unexpected = mix.answered, sum(mix.unexpected.values())
            row = (time.monotonic() - t0, rss_kb(pid), fds(pid), answered, unexpected)
            samples.append(row)
            f.write("%.0f\t%d\t%d\t%d\t%d\n" % row)
            f.flush()
    for t in threads:
        t.join()
    end = time.monotonic() + 10
    fds_end = fds(pid)
    while fds_end > base_fds and time.monotonic() < end:
        time.sleep(0.1)
        fds_end = fds(pid)
    rss_end = rss_kb(pid)
    after_warm = [s for s in samples if s[0] >= warm]
    rss_warm = after_warm[0][1] if after_warm else samples[0][1]
    peak = max(s[1] for s in samples)
    print("%.0f s: %d answers as expected (%.0f/s), %d not" %
          (secs, mix.answered, mix.answered / secs, sum(mix.unexpected.values())))
    for what, n in sorted(mix.unexpected.items(), key=lambda kv: -kv[1])[:10]:
        print("  unexpected: %s x %d" % (what, n))
    print("VmRSS kB: %d at %.0f s (the end of the warm-up), %d at the end, peak %d: %+d kB after the warm-up" %
          (rss_warm, warm, rss_end, peak, rss_end - rss_warm))
    print("open fds: %d before the load, %d after it" % (base_fds, fds_end))
    why = []
    if mix.unexpected:
        why.append("%d unexpected answers" % sum(mix.unexpected.values()))
    if fds_end > base_fds:
        why.append("fds did not come back to %d (%d)" % (base_fds, fds_end))
    if rss_end - rss_warm > slack:
        why.append("VmRSS grew %d kB after the warm-up (limit %d kB)" % (rss_end - rss_warm, slack))
    print("bad " + "; ".join(why) if why else "ok")
    return 1 if why else 0


sys.exit(main())
