#!/usr/bin/env python3
"""Holds N idle keep-alive connections to 127.0.0.1:PORT for bench/http/run.sh.

    idle.py PORT N

Each connection sends one `GET /hello` and reads its answer (so the server
has surely accepted it and parked it waiting for the next request), then
stays open and silent. Prints `ready K` (K = connections answered) once all
are parked, then waits until stdin closes; exit closes them all. Every
socket operation has a 10 s timeout.
"""
import socket
import sys

port, n = int(sys.argv[1]), int(sys.argv[2])
conns = []
answered = 0
for _ in range(n):
    try:
        s = socket.create_connection(("127.0.0.1", port), timeout=10)
        s.settimeout(10)
        s.sendall(b"GET /hello HTTP/1.1\r\nhost: bench\r\n\r\n")
        got = b""
        while b"hello world" not in got:
            chunk = s.recv(4096)
            if not chunk:
                break
            got += chunk
        if b"hello world" in got:
            answered += 1
        conns.append(s)
    except OSError:
        break
print("ready %d" % answered, flush=True)
sys.stdin.read()
