#!/usr/bin/env bash
# App.serve_sequential, the sequential mode (framework.md §2.3, §3.1;
# decision 0025): the `listening on` line, a connection closed after its
# response unless pipelined bytes are already buffered (`Connection: close`
# said on the wire), HTTP/1.0 closed, a trap answered 500 with the loop
# going on, a refused request's answer reaching a client still sending its
# body, and SIGTERM ending serve with 0 well within 3 s.
# Then App.serve, the concurrent mode (decision 0082), on the same server
# binary: keep-alive, one App shared by every connection, the same refusals
# and trap, and what makes it concurrent — a half-sent request, an idle
# connection and a client that does not read a 16 MiB answer each hold
# nobody (another client is answered while the first still waits; every
# wait is for an event, tests/stdlib/serve_probe.py) — and SIGTERM ending it
# with 0 within 3 s while connections are open. Built natively once; a few
# legs again through `woc run`.
#
#   tests/stdlib/serve-test.sh WOC
set -uo pipefail
woc=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
tmp=$(mktemp -d)
server=
cleanup() {
  [[ -n $server ]] && kill "$server" 2>/dev/null
  rm -rf "$tmp"
}
trap cleanup EXIT
trap '' PIPE
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$here/../lib/expect.sh"
source "$here/../lib/listen.sh"  # start_listening

mkdir "$tmp/app"
cat >"$tmp/app/main.wo" <<'WO'
use framework
use framework/http
use framework/router

class Hi {
  fn handle(req: Req) -> Resp {
    return ok_text("hi ${req.path}\n")
  }
}

-- One App for every connection in App.serve: the count goes on across them.
class Count {
  n: Int
  fn handle(req: Req) -> Resp {
    self.n += 1
    return ok_text("count ${self.n}")
  }
}

class Big {
  body: Text
  fn handle(req: Req) -> Resp {
    return ok_text(self.body)
  }
}

class Boom {
  fn handle(req: Req) -> Resp {
    let xs: multi Int = []
    return ok_text("${xs[2]}")
  }
}

fn main(args: multi Text) -> Int {
  let port = parse_int(args[0])
  if port == nil {
    return 2
  }
  let big = "x"
  while len(big) < 16777216 {
    big = big .. big
  }
  let app = App { middleware: [], routes: [] }
  app.get("/boom", Boom {})
  app.get("/count", Count { n: 0 })
  app.get("/big", Big { body: big })
  app.get("/*rest", Hi {})
  let rc = 0
  if args[1] == "seq" {
    rc = app.serve_sequential("127.0.0.1", port)
  } else {
    rc = app.serve("127.0.0.1", port)
  }
  print("serve returned ${rc}")
  return rc
}
WO
cd "$tmp" || exit 2
if ! "$woc" build "$tmp/app" -o "$tmp/server" 2>"$tmp/build.err"; then
  cat "$tmp/build.err"
  echo "FAIL build"
  exit 1
fi

# start MODE [jit]: the server on a free port ($port; it traps IO when the
# port is taken: the next is tried); `jit`: through `woc run`.
start() {
  if [[ ${2:-} == jit ]]; then
    start_listening 47610 47660 "$tmp/out" "$tmp/err" env WO_EPHEMERAL=1 "$woc" run "$tmp/app" -- "{port}" "$1"
  else
    start_listening 47610 47660 "$tmp/out" "$tmp/err" env WO_EPHEMERAL=1 "$tmp/server" "{port}" "$1"
  fi
  if [[ -z $port ]]; then
    echo "FAIL no server started ($1)"; cat "$tmp/err"; exit 1
  fi
  pass=$((pass + 1))
}

# sigterm NAME: SIGTERM; serve returns 0 within 3 s (the loop polls every 250 ms).
sigterm() {
  local start status ms
  start=$(date +%s%N)
  kill -TERM "$server"
  for _ in $(seq 60); do
    kill -0 "$server" 2>/dev/null || break
    sleep 0.05
  done
  wait "$server"
  status=$?
  server=
  ms=$((($(date +%s%N) - start) / 1000000))
  if [[ $status -eq 0 && $ms -lt 3000 ]] && grep -q '^serve returned 0$' "$tmp/out"; then
    pass=$((pass + 1))
  else
    fail=$((fail + 1))
    echo "FAIL $1: status $status after $ms ms; stdout:"; cat "$tmp/out"
  fi
}

start seq

# send REQUEST_BYTES: one connection, the answer with CRs removed (bounded).
# The bytes go out in one write (bash's printf may split them, and the
# sequential mode keeps a connection only for bytes already buffered).
send() {
  printf "$1" >"$tmp/request"
  exec 3<>"/dev/tcp/127.0.0.1/$port" || return 1
  cat "$tmp/request" >&3
  timeout 5 cat <&3 | tr -d '\r'
  exec 3<&-
}

# same NAME WANT GOT: exact comparison.
same() {
  if [[ $3 == "$2" ]]; then pass=$((pass + 1)); else fail=$((fail + 1)); printf 'FAIL %s: got\n%s\n' "$1" "$3"; fi
}
head_200=$'HTTP/1.1 200 OK\ncontent-type: text/plain; charset=utf-8'
same one-request-closes "$head_200"$'\nConnection: close\nContent-Length: 5\n\nhi /' \
  "$(send 'GET / HTTP/1.1\r\nHost: a\r\n\r\n')"
same pipelined "$head_200"$'\nConnection: keep-alive\nContent-Length: 6\n\nhi /a\n'"$head_200"$'\nConnection: close\nContent-Length: 6\n\nhi /b' \
  "$(send 'GET /a HTTP/1.1\r\nHost: a\r\n\r\nGET /b HTTP/1.1\r\nHost: a\r\n\r\n')"
expect http10-closes 0 'Connection: close' -- send 'GET /old HTTP/1.0\r\n\r\n'
expect trap-500 0 '^HTTP/1.1 500 Internal Server Error' -- send 'GET /boom HTTP/1.1\r\nHost: a\r\n\r\n'
expect after-trap 0 'hi /still' -- send 'GET /still HTTP/1.1\r\nHost: a\r\n\r\n'
expect malformed-400 0 '^HTTP/1.1 400 Bad Request' -- send 'NOT HTTP\r\n\r\n'

# A refused request whose body is still arriving, sent by a strict client
# (one that gives up when its write fails, as bash and many scripts do): the
# 413 must reach it. The server drains before closing; closing with unread
# bytes resets the connection and breaks the client's write (seen failing
# without the drain in most attempts at 900 kB).
probe() { # NAME PROBE: ok when serve_probe.py says ok
  local r
  r=$(timeout 60 python3 "$here/serve_probe.py" "$2" "$port" 2>&1)
  if [[ $r == ok* ]]; then pass=$((pass + 1)); [[ -n ${SERVE_VERBOSE:-} ]] && echo "ok   $1: ${r#ok }"; else fail=$((fail + 1)); echo "FAIL $1: $r"; fi
}
probe refused-with-body-413 refused-with-body
sigterm sigterm

# ---------------------------------------------------------------- App.serve
start conc
probe conc-keep-alive keepalive
probe conc-one-app shared
same conc-pipelined "$head_200"$'\nConnection: keep-alive\nContent-Length: 6\n\nhi /a\n'"$head_200"$'\nConnection: close\nContent-Length: 6\n\nhi /b' \
  "$(send 'GET /a HTTP/1.1\r\nHost: a\r\n\r\nGET /b HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n')"
expect conc-http10-closes 0 'Connection: close' -- send 'GET /old HTTP/1.0\r\n\r\n'
expect conc-trap-500 0 '^HTTP/1.1 500 Internal Server Error' -- send 'GET /boom HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n'
expect conc-malformed-400 0 '^HTTP/1.1 400 Bad Request' -- send 'NOT HTTP\r\n\r\n'
probe conc-refused-with-body-413 refused-with-body
probe conc-half-sent-holds-nobody half-sent
probe conc-idle-holds-nobody idle-conn
probe conc-slow-reader-holds-nobody slow-reader
# SIGTERM with an idle keep-alive connection and a half-sent request open:
# serve returns 0 within 3 s and both are closed.
python3 "$here/serve_probe.py" hold "$port" >"$tmp/hold" 2>&1 &
holder=$!
for _ in $(seq 200); do grep -q held "$tmp/hold" && break; sleep 0.05; done
sigterm conc-sigterm
wait "$holder"
if grep -q '^ok closed' "$tmp/hold"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL conc-sigterm-closes: $(cat "$tmp/hold")"; fi

# The same server through the JIT (the net.conns_* symbols resolved in process).
start conc jit
probe jit-keep-alive keepalive
probe jit-idle-holds-nobody idle-conn
sigterm jit-sigterm

echo "$pass passed, $fail failed"
[[ $fail -eq 0 ]]
