#!/usr/bin/env python3
"""Raw-socket probes for scripts/web-app-accept.sh (framework.md §9.4).

    web-app-accept.py freeport
    web-app-accept.py PROBE PORT [ARG]

Each probe prints one line, `ok <facts>` or `bad <facts>`, and exits 0; the
shell script turns it into an `ok`/`FAIL` check. Every socket operation has a
timeout, so no probe can hang the gate. Requests carry `host: a` and the
gate's bearer token unless the probe is about their absence.
"""
import json
import os
import socket
import ssl
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from urllib.parse import quote

AUTH = "authorization: Bearer s3cr3t\r\n"


# WA_TLS_CA set (web-app-accept.sh with WA_TLS=1): every probe speaks TLS,
# trusting that CA file, so the same legs check the server over HTTPS.
TLS_CTX = None
if os.environ.get("WA_TLS_CA"):
    TLS_CTX = ssl.create_default_context(cafile=os.environ["WA_TLS_CA"])


def connect(port, timeout=5.0):
    s = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    s.settimeout(timeout)
    if TLS_CTX is not None:
        s = TLS_CTX.wrap_socket(s, server_hostname="127.0.0.1")
    return s


def read_to_eof(s, limit=1 << 20):
    """All bytes until the peer closes (a reset counts as a close). Returns
    (data, closed): closed is False when the socket timeout ran out first."""
    data = b""
    while len(data) < limit:
        try:
            chunk = s.recv(65536)
        except (ConnectionResetError, BrokenPipeError):
            return data, True
        except socket.timeout:
            return data, False
        if not chunk:
            return data, True
        data += chunk
    return data, False


def status_of(data):
    line = data.split(b"\r\n", 1)[0].decode("latin-1")
    parts = line.split(" ")
    return parts[1] if len(parts) > 1 and line.startswith("HTTP/1.1 ") else "none(%r)" % line[:40]


def get(path, close=True, extra=""):
    return ("GET %s HTTP/1.1\r\nhost: a\r\n%s%s%s\r\n" %
            (path, AUTH, extra, "connection: close\r\n" if close else "")).encode()


def freeport():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    print(s.getsockname()[1])
    s.close()


def slow(port):
    """Two GET /slow at once: both answer `slow done`, together in < 700 ms."""
    out = [None, None]

    def one(i):
        try:
            s = connect(port, 5)
            s.sendall(get("/slow"))
            out[i] = read_to_eof(s)[0]
            s.close()
        except OSError as e:
            out[i] = repr(e).encode()

    t0 = time.monotonic()
    ts = [threading.Thread(target=one, args=(i,)) for i in range(2)]
    for t in ts:
        t.start()
    for t in ts:
        t.join(10)
    ms = int((time.monotonic() - t0) * 1000)
    done = sum(1 for b in out if b and b"slow done" in b)
    verdict = "ok" if done == 2 and ms < 700 else "bad"
    print("%s %d of 2 said 'slow done' in %d ms (limit 700)" % (verdict, done, ms))


def idle(port):
    """A client that sends nothing is closed within 2500 ms."""
    s = connect(port, 5)
    t0 = time.monotonic()
    data, closed = read_to_eof(s)
    ms = int((time.monotonic() - t0) * 1000)
    s.close()
    ok = closed and not data and ms < 2500
    print("%s closed=%s after %d ms (limit 2500), %d bytes received" % ("ok" if ok else "bad", closed, ms, len(data)))


def loris(port):
    """Half a request, then silence: 400 and a close within 2500 ms."""
    s = connect(port, 5)
    s.sendall(b"GET /products HTTP/1.1\r\nhost: a\r\nauthor")
    t0 = time.monotonic()
    data, closed = read_to_eof(s)
    ms = int((time.monotonic() - t0) * 1000)
    s.close()
    st = status_of(data)
    ok = closed and st == "400" and ms < 2500
    print("%s status %s, closed=%s after %d ms (limit 2500)" % ("ok" if ok else "bad", st, closed, ms))


def exchange(port, request):
    """The bytes a fresh connection answers `request` with, read to EOF."""
    s = connect(port, 5)
    try:
        s.sendall(request)
    except OSError:
        pass
    data, _ = read_to_eof(s)
    s.close()
    return data


def raw_status(port, request):
    return status_of(exchange(port, request))


def two_cl(port):
    """Content-Length 0 and 5 on a GET that would otherwise be a 200."""
    st = raw_status(port, ("GET /products HTTP/1.1\r\nhost: a\r\n" + AUTH +
                           "content-length: 0\r\ncontent-length: 5\r\nconnection: close\r\n\r\nhello").encode())
    print("%s status %s (want 400)" % ("ok" if st == "400" else "bad", st))


def chunked(port):
    """A chunked POST to a GET/DELETE route: 400, where a server that ignored
    the header would route it (405)."""
    st = raw_status(port, ("POST /products/mug HTTP/1.1\r\nhost: a\r\n" + AUTH +
                           "transfer-encoding: chunked\r\nconnection: close\r\n\r\n0\r\n\r\n").encode())
    print("%s status %s (want 400)" % ("ok" if st == "400" else "bad", st))


def head(port):
    """HEAD /products: 200, the GET's Content-Length, no body bytes."""
    def exchange(method):
        s = connect(port, 5)
        s.sendall(("%s /products HTTP/1.1\r\nhost: a\r\n%sconnection: close\r\n\r\n" % (method, AUTH)).encode())
        data, _ = read_to_eof(s)
        s.close()
        head_, _, body = data.partition(b"\r\n\r\n")
        cl = None
        for line in head_.split(b"\r\n")[1:]:
            k, _, v = line.partition(b":")
            if k.strip().lower() == b"content-length":
                cl = v.strip().decode()
        return status_of(data), cl, body

    gs, gcl, gbody = exchange("GET")
    hs, hcl, hbody = exchange("HEAD")
    ok = hs == "200" and gs == "200" and hcl is not None and hcl == gcl and len(hbody) == 0 and len(gbody) > 0
    print("%s HEAD %s content-length %s body %d bytes; GET %s content-length %s body %d bytes" %
          ("ok" if ok else "bad", hs, hcl, len(hbody), gs, gcl, len(gbody)))


def pipeline(port):
    """Two GETs in one write on one connection: two responses."""
    s = connect(port, 5)
    s.sendall(get("/products", close=False) + get("/products", close=True))
    data, closed = read_to_eof(s)
    s.close()
    n = data.count(b"HTTP/1.1 200 ")
    print("%s %d responses with 200 (want 2), closed=%s" % ("ok" if n == 2 else "bad", n, closed))


def soak(port):
    """500 idle plus 500 real connections, 100 at a time, within 60 s."""
    deadline = time.monotonic() + 60

    def idle_one(_):
        try:
            s = connect(port, max(1.0, min(10.0, deadline - time.monotonic())))
        except OSError:
            return "connect"
        try:
            data, closed = read_to_eof(s)
            return "evicted" if closed and not data else "kept"
        finally:
            s.close()

    def real_one(_):
        try:
            s = connect(port, max(1.0, min(10.0, deadline - time.monotonic())))
        except OSError:
            return "connect"
        try:
            s.sendall(get("/products"))
            data, _ = read_to_eof(s)
            return "200" if status_of(data) == "200" else "status " + status_of(data)
        except OSError as e:
            return type(e).__name__
        finally:
            s.close()

    jobs = []
    with ThreadPoolExecutor(max_workers=100) as pool:
        for i in range(500):
            jobs.append(("idle", pool.submit(idle_one, i)))
            jobs.append(("real", pool.submit(real_one, i)))
        tally = {}
        for kind, f in jobs:
            r = f.result(timeout=max(0.1, deadline - time.monotonic()))
            tally[(kind, r)] = tally.get((kind, r), 0) + 1
    evicted = tally.get(("idle", "evicted"), 0)
    answered = tally.get(("real", "200"), 0)
    ok = evicted >= 495 and answered >= 495 and time.monotonic() < deadline
    other = ", ".join("%s %s: %d" % (k, r, n) for (k, r), n in sorted(tally.items())
                      if (k, r) not in (("idle", "evicted"), ("real", "200")))
    print("%s %d of 500 idle evicted, %d of 500 answered 200 (want >= 495 each)%s" %
          ("ok" if ok else "bad", evicted, answered, "; " + other if other else ""))


def churn(port):
    """300 connections one after another, each one GET with Connection: close."""
    answered = 0
    for _ in range(300):
        s = connect(port, 5)
        try:
            s.sendall(get("/products", close=True))
            data, _ = read_to_eof(s)
            answered += status_of(data) == "200"
        finally:
            s.close()
    print("%s %d of 300 answered 200" % ("ok" if answered == 300 else "bad", answered))


def response(port, request):
    """One exchange on a fresh connection, read to EOF: (status, headers
    with lowercase names, body bytes cut at content-length)."""
    data = exchange(port, request)
    head_, _, body = data.partition(b"\r\n\r\n")
    hs = {}
    for line in head_.split(b"\r\n")[1:]:
        k, _, v = line.partition(b":")
        hs[k.strip().lower().decode("latin-1")] = v.strip().decode("latin-1")
    if "content-length" in hs and hs["content-length"].isdigit():
        body = body[:int(hs["content-length"])]
    return status_of(data), hs, body


def error_body(hs, body):
    """The message of a JSON error body, or a text saying why it is not one:
    (message, None) or (None, why). The body must parse with Python's json
    as an object with exactly one key, "error", holding a string."""
    if not hs.get("content-type", "").startswith("application/json"):
        return None, "content-type %r" % hs.get("content-type")
    try:
        v = json.loads(body.decode("utf-8"))
    except ValueError as e:
        return None, "not JSON (%s): %r" % (e, body[:120])
    if not isinstance(v, dict) or list(v) != ["error"] or not isinstance(v["error"], str):
        return None, "not {\"error\": <string>}: %r" % body[:120]
    return v["error"], None


# Messages that break a body built by pasting the text between quotes:
# quotes, backslashes (one at the end, too), every kind of control byte, a
# NUL, DEL, non-ASCII UTF-8, and the empty text.
ERROR_MESSAGES = [
    'field "title" is required',
    "back\\slash \\\" and a trailing one \\",
    "line\nbreak\ttab\rreturn\bback\fform",
    "\x01\x02\x1f\x00 and \x7f",
    "caf\u00e9 \u2028 </script> {\"error\":\"x\"}",
    "",
]
# builder -> (status, the message the body must hold; None: the one sent)
ERROR_BUILDERS = {
    "bad_request": ("400", None),
    "conflict": ("409", None),
    "error_json": ("422", None),
    "not_found": ("404", "not found"),
    "unauthorized": ("401", "unauthorized"),
    "method_not_allowed": ("405", "method not allowed"),
    "server_error": ("500", "internal error"),
    "trap": ("500", "internal error"),
}


def error_builders(port):
    """Every error builder (GET /error-probe/<builder>?msg=...) with every
    message of ERROR_MESSAGES: the status, and a body that Python's json
    parses back to the message (decision 0091)."""
    bad, n = [], 0
    for builder, (status, fixed) in ERROR_BUILDERS.items():
        for msg in ERROR_MESSAGES:
            target = "/error-probe/%s?msg=%s" % (builder, quote(msg.encode("utf-8"), safe=""))
            st, hs, body = response(port, get(target))
            got, why = error_body(hs, body)
            want = msg if fixed is None else fixed
            n += 1
            if st != status or why is not None or got != want:
                bad.append("%s(%r): status %s, %s" % (builder, msg, st, why or "message %r" % got))
    print("%s %d of %d builder answers are JSON holding their message%s" %
          ("ok" if not bad else "bad", n - len(bad), n, "; " + "; ".join(bad[:3]) if bad else ""))


def error_served(port):
    """The error bodies the framework writes itself: unknown route, wrong
    method, no token, wrong host, and malformed requests (the reason text
    comes from the HTTP parser): each parses as {"error": <string>}."""
    cases = [
        ("404", get("/no/such/route")),
        ("405", ("PUT /products HTTP/1.1\r\nhost: a\r\n%scontent-length: 0\r\nconnection: close\r\n\r\n" %
                 AUTH).encode()),
        ("401", b"GET /products HTTP/1.1\r\nhost: a\r\nconnection: close\r\n\r\n"),
        ("421", ("GET /products HTTP/1.1\r\nhost: evil\r\n%sconnection: close\r\n\r\n" % AUTH).encode()),
        ("400", b"GET /products HTTP/1.1\r\nhost: a\r\nbad header line\r\n\r\n"),
        ("400", ("GET /products HTTP/1.1\r\nhost: a\r\n" + AUTH +
                 "content-length: 0\r\ncontent-length: 5\r\nconnection: close\r\n\r\nhello").encode()),
    ]
    bad = []
    for status, request in cases:
        st, hs, body = response(port, request)
        got, why = error_body(hs, body)
        if st != status or why is not None or not got:
            bad.append("want %s, got %s: %s" % (status, st, why or "empty message"))
    print("%s %d of %d served error bodies are {\"error\": <text>}%s" %
          ("ok" if not bad else "bad", len(cases) - len(bad), len(cases), "; " + "; ".join(bad[:3]) if bad else ""))


def main():
    probe = sys.argv[1]
    if probe == "freeport":
        return freeport()
    port = int(sys.argv[2])
    try:
        {"slow": slow, "idle": idle, "loris": loris, "two-cl": two_cl, "chunked": chunked,
         "head": head, "pipeline": pipeline, "soak": soak,
         "churn": churn, "error-builders": error_builders, "error-served": error_served}[probe](port)
    except Exception as e:  # a refused or reset connection is a failed check, not a crash
        print("bad %s: %r" % (probe, e))


main()
