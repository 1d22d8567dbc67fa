#!/usr/bin/env python3
"""Raw-socket probes for tests/stdlib/serve-test.sh (App.serve, decision 0082).

    serve_probe.py PROBE PORT

Each probe prints `ok <facts>` or `bad <facts>` (one line) and exits 0. Every
socket has a timeout, so no probe can hang the test; every wait is for an
event (an answer, a close), never a sleep standing in for one.
"""
import socket
import sys
import time

BIG = 16 << 20  # GET /big's body: far more than loopback's socket buffers hold


def connect(port, timeout=10.0):
    s = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    s.settimeout(timeout)
    return s


def get(path, close=True):
    return ("GET %s HTTP/1.1\r\nHost: a\r\n%s\r\n" % (path, "Connection: close\r\n" if close else "")).encode()


def read_to_eof(s, limit=64 << 20):
    data = b""
    while len(data) < limit:
        try:
            chunk = s.recv(1 << 20)
        except (ConnectionResetError, BrokenPipeError):
            break
        except socket.timeout:
            return data, False
        if not chunk:
            break
        data += chunk
    return data, True


def read_response(s):
    """One response with a Content-Length body: (status, headers, body)."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = s.recv(65536)
        if not chunk:
            raise EOFError("closed before a response head: %r" % data[:80])
        data += chunk
    head, rest = data.split(b"\r\n\r\n", 1)
    lines = head.decode("latin-1").split("\r\n")
    headers = {}
    for line in lines[1:]:
        k, _, v = line.partition(":")
        headers[k.strip().lower()] = v.strip()
    n = int(headers.get("content-length", "0"))
    while len(rest) < n:
        chunk = s.recv(1 << 20)
        if not chunk:
            raise EOFError("closed mid-body")
        rest += chunk
    return int(lines[0].split(" ")[1]), headers, rest[:n]


def pending(s):
    """What the server has sent on s so far without waiting: b"" for nothing
    yet, None when it has closed."""
    s.setblocking(False)
    try:
        data = s.recv(65536)
        return None if data == b"" else data
    except BlockingIOError:
        return b""
    except (ConnectionResetError, BrokenPipeError):
        return None
    finally:
        s.settimeout(10.0)


def keepalive(port):
    """Two requests on one connection; the first answer says keep-alive."""
    s = connect(port)
    s.sendall(get("/one", close=False))
    st1, h1, b1 = read_response(s)
    s.sendall(get("/two", close=True))
    st2, h2, b2 = read_response(s)
    rest, closed = read_to_eof(s)
    s.close()
    ok = (st1, h1.get("connection"), b1, st2, h2.get("connection"), b2, rest, closed) == \
        (200, "keep-alive", b"hi /one\n", 200, "close", b"hi /two\n", b"", True)
    print("%s %s %s %r; %s %s %r; then %r closed=%s" %
          ("ok" if ok else "bad", st1, h1.get("connection"), b1, st2, h2.get("connection"), b2, rest, closed))


def shared(port):
    """One App for every connection: a handler's counter goes 1, 2, 3 across
    three connections (the §3.2 pattern would build an App per connection)."""
    got = []
    for _ in range(3):
        s = connect(port)
        s.sendall(get("/count"))
        got.append(read_response(s)[2].decode())
        s.close()
    ok = [int(g.split()[-1]) for g in got] == [1, 2, 3] if all(g.startswith("count ") for g in got) else False
    print("%s %s" % ("ok" if ok else "bad", got))


def half_sent(port):
    """A client that sent half a request holds nobody: another client's
    request is answered while the half one is still waiting for its read
    deadline (nothing received, not closed); the half one then gets 400."""
    t0 = time.monotonic()
    a = connect(port, 15)
    a.sendall(b"GET /half HTTP/1.1\r\nHo")
    b = connect(port)
    b.sendall(get("/whole"))
    st, _, body = read_response(b)
    tb = time.monotonic() - t0
    b.close()
    a_then = pending(a)
    data, closed = read_to_eof(a)
    ta = time.monotonic() - t0
    a.close()
    ok = st == 200 and body == b"hi /whole\n" and a_then == b"" and data.startswith(b"HTTP/1.1 400 ") and \
        b"timed out mid-request" in data and closed
    print("%s the whole request answered %d after %.2f s with the half one %s; the half one got %r after %.2f s" %
          ("ok" if ok else "bad", st, tb, "still waiting" if a_then == b"" else "answered already: %r" % (a_then,),
           data.split(b"\r\n")[0], ta))


def idle_conn(port):
    """An idle connection (connected, silent) holds nobody."""
    t0 = time.monotonic()
    a = connect(port, 15)
    b = connect(port)
    b.sendall(get("/after-idle"))
    st, _, body = read_response(b)
    tb = time.monotonic() - t0
    b.close()
    a_then = pending(a)
    a.close()
    ok = st == 200 and a_then == b""
    print("%s answered %d after %.2f s while the idle connection was %s" %
          ("ok" if ok else "bad", st, tb, "still open" if a_then == b"" else "gone or answered: %r" % (a_then,)))


def slow_reader(port):
    """A client that does not read its 16 MiB answer holds nobody; it gets
    all of it once it reads."""
    t0 = time.monotonic()
    a = connect(port, 15)
    a.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 65536)
    a.sendall(get("/big"))
    b = connect(port)
    b.sendall(get("/after-big"))
    st, _, body = read_response(b)
    tb = time.monotonic() - t0
    b.close()
    st_a, _, big = read_response(a)
    ta = time.monotonic() - t0
    a.close()
    ok = st == 200 and body == b"hi /after-big\n" and st_a == 200 and len(big) == BIG
    print("%s answered %d after %.2f s; the slow reader then got %d of %d bytes after %.2f s" %
          ("ok" if ok else "bad", st, tb, len(big), BIG, ta))


def refused_with_body(port):
    """A refused request whose body is still arriving, sent by a strict client:
    the 413 must reach it (the server drains before closing)."""
    for _ in range(3):
        s = connect(port)
        try:
            s.sendall(b"POST /x HTTP/1.1\r\nHost: a\r\nContent-Length: 2097152\r\n\r\n" + b"a" * 900000)
        except OSError as e:
            print("bad send failed: %s" % e)
            return
        got, _ = read_to_eof(s)
        s.close()
    line = got.split(b"\r\n")[0].decode()
    print("%s %s" % ("ok" if line.startswith("HTTP/1.1 413 ") else "bad", line))


def hold(port):
    """For the SIGTERM leg: an idle keep-alive connection and a half-sent
    request stay open until the server closes them; prints when it did."""
    t0 = time.monotonic()
    a = connect(port, 10)
    a.sendall(get("/first", close=False))
    read_response(a)
    b = connect(port, 10)
    b.sendall(b"GET /half HTTP/1.1\r\nHo")
    print("held", flush=True)
    ra, ca = read_to_eof(a)
    rb, cb = read_to_eof(b)
    print("%s closed %s %s after %.2f s (%r, %r)" %
          ("ok" if ca and cb else "bad", ca, cb, time.monotonic() - t0, ra[:40], rb[:40]), flush=True)


def main():
    probe, port = sys.argv[1], int(sys.argv[2])
    try:
        {"keepalive": keepalive, "shared": shared, "half-sent": half_sent, "idle-conn": idle_conn,
         "slow-reader": slow_reader, "refused-with-body": refused_with_body, "hold": hold}[probe](port)
    except Exception as e:  # a refused or reset connection is a failed check, not a crash
        print("bad %s: %r" % (probe, e))


main()
