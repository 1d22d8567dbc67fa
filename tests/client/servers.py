"""Servers for the framework client's tests (tests/client/run.sh): one raw
HTTP/1.1 server on a socket per connection (thread per connection), plain
and, with --tls CERT KEY, TLS. Written here, not with woc, so the client is
checked against a server that is not ours; the hostile paths are the point.

    servers.py PORTFILE [--tls CERT KEY]

Writes the port it listens on to PORTFILE, then serves until killed.
Paths:
  /hello      200, Content-Length, keep-alive
  /chunked    200, chunked in three chunks
  /close      200, no length: the body ends at the close
  /echo       200, "METHOD BODY" of the request (and its content-type)
  /redirect   302 to /hello;  /loop: 302 to itself
  /stall      the head, then nothing (the client's deadline must end it)
  /huge       Content-Length 1 GB, then bytes as fast as the client reads
  /lie        Content-Length 100, 10 bytes, then the close
  /midchunk   a chunk cut off by the close
  /badstatus  a malformed status line
  /bighead    a head of 100 KB of headers
"""
import socket
import ssl
import sys
import threading
import time


def read_request(conn):
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = conn.recv(65536)
        if not chunk:
            return None, None, None, b""
        data += chunk
    head, _, rest = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    method, path, _ = lines[0].split(" ", 2)
    headers = {}
    for line in lines[1:]:
        k, _, v = line.partition(":")
        headers[k.strip().lower()] = v.strip()
    n = int(headers.get("content-length", "0"))
    while len(rest) < n:
        chunk = conn.recv(65536)
        if not chunk:
            break
        rest += chunk
    return method, path, headers, rest[:n]


def answer(conn, status, body, extra=b""):
    conn.sendall(b"HTTP/1.1 %d X\r\nContent-Length: %d\r\n%s\r\n" % (status, len(body), extra) + body)


def serve(conn):
    try:
        while True:
            method, path, headers, body = read_request(conn)
            if method is None:
                return
            if path == "/hello":
                answer(conn, 200, b"hello" if method != "HEAD" else b"", b"X-Kind: plain\r\n")
            elif path == "/chunked":
                conn.sendall(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
                             b"4\r\nabcd\r\n3\r\nefg\r\n1\r\nh\r\n0\r\n\r\n")
            elif path == "/close":
                conn.sendall(b"HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nuntil the close")
                return
            elif path == "/echo":
                ct = headers.get("content-type", "-").encode()
                answer(conn, 200, method.encode() + b" " + ct + b" " + body)
            elif path == "/redirect":
                answer(conn, 302, b"", b"Location: /hello\r\n")
            elif path == "/loop":
                answer(conn, 302, b"", b"Location: /loop\r\n")
            elif path == "/stall":
                conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n")
                time.sleep(30)
                return
            elif path == "/huge":
                conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 1000000000\r\n\r\n")
                block = b"x" * 65536
                for _ in range(1000000000 // 65536):
                    conn.sendall(block)
                return
            elif path == "/lie":
                conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n0123456789")
                return
            elif path == "/midchunk":
                conn.sendall(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n10\r\nonly six")
                return
            elif path == "/badstatus":
                conn.sendall(b"HTTP/1.1 two hundred OK\r\n\r\n")
                return
            elif path == "/bighead":
                conn.sendall(b"HTTP/1.1 200 OK\r\n" + b"X-Pad: " + b"p" * 100000 + b"\r\nContent-Length: 0\r\n\r\n")
                return
            else:
                answer(conn, 404, b"no such path")
    except (OSError, ssl.SSLError):
        pass
    finally:
        try:
            conn.close()
        except OSError:
            pass


def main():
    portfile = sys.argv[1]
    ctx = None
    if len(sys.argv) == 5 and sys.argv[2] == "--tls":
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(sys.argv[3], sys.argv[4])
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("127.0.0.1", 0))
    s.listen(64)
    with open(portfile + ".tmp", "w") as f:
        f.write(str(s.getsockname()[1]))
    import os
    os.rename(portfile + ".tmp", portfile)
    while True:
        c, _ = s.accept()
        if ctx is not None:
            try:
                c.settimeout(5)
                c = ctx.wrap_socket(c, server_side=True)
                c.settimeout(None)
            except (OSError, ssl.SSLError):
                c.close()
                continue
        threading.Thread(target=serve, args=(c,), daemon=True).start()


main()
