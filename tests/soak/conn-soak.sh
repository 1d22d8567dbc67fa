#!/usr/bin/env bash
# Connection churn soak (issue 25 item 4): a framework server under N short
# connections must not grow — VmRSS within SOAK_RSS_SLACK_KB (5 MB) of what
# it was after the first 10,000 connections, and its open fds (counted in
# /proc/PID/fd) back at what they were before the first one.
#
#   tests/soak/conn-soak.sh WOC MODE N [THREADS]
#
# MODE
#   actors  the per-connection pattern of framework.md §3.2: the app's
#           accept loop spawns one actor per connection, which builds its own
#           App and calls app.handle_conn — one actor per connection ever
#           accepted, so this needs the runtime to collect actors nobody can
#           reach any more (it fails while every actor lives as long as the
#           program: ~400 bytes per connection)
#   pool    the same with the workers reused through a pool actor (what
#           examples/web-app did while actors were never freed): for
#           bench/soak/run.sh's comparison of connection rates
#   serve   App.serve, the concurrent mode (decision 0082): no actor at all
# N: connections (make test: 40,000; make bench, bench/soak/run.sh: 200,000).
# THREADS: client threads making them (default 4).
# The client is tests/soak/conn_soak.py; the server is built natively with WOC
# into a temporary directory, runs with WO_SHARDS=2.
set -uo pipefail
woc=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
mode=$2
n=$3
threads=${4:-4}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/conn-soak.XXXXXX")
server=
cleanup() {
  [[ -n $server ]] && kill -KILL "$server" 2>/dev/null
  rm -rf "$tmp"
}
trap cleanup EXIT
ulimit -n 8192 2>/dev/null || true

mkdir "$tmp/app"
cat >"$tmp/app/main.wo" <<'WO'
use env
use net
use framework
use framework/http
use framework/router

class Hello {
  pad: Int
  fn handle(req: Req) -> Resp {
    return ok_text("hello world")
  }
}

fn make_app() -> App {
  let app = App { middleware: [], routes: [] }
  app.use_after(Aw { a: SecurityHeaders {} })
  app.get("/hello", Hello { pad: 0 })
  return app
}

class NewConn {
  fd: Int
}

-- framework.md §3.2: one actor per connection, its own App.
class ConnWorker {
  pad: Int
  fn receive(m: NewConn) {
    let app = make_app()
    app.handle_conn(m.fd, 5000, 5000)
  }
}

-- The pool: a worker reports itself idle when its connection ends; `Take`
-- answers an idle worker or a new one.
class PooledConn {
  fd: Int
  me: actor PooledConn
}

class PoolWorker {
  idle: actor IdleMsg
  fn receive(m: PooledConn) {
    let app = make_app()
    app.handle_conn(m.fd, 5000, 5000)
    send(self.idle, Done(m.me))
  }
}

type IdleMsg = Take(pool: actor IdleMsg) | Done(w: actor PooledConn)

class IdleWorker {
  w: actor PooledConn
}

class IdleWorkers {
  free: multi IdleWorker
  fn receive(m: IdleMsg) -> actor PooledConn {
    switch m {
      case Take(pool):
        if len(self.free) > 0 {
          return pop(self.free).w
        }
        return spawn PoolWorker { idle: pool }
      case Done(w):
        push(self.free, IdleWorker { w: w })
        return w
    }
  }
}

fn main(args: multi Text) -> Int {
  let port = parse_int(args[1])
  if port == nil {
    return 2
  }
  if args[0] == "serve" {
    let app = make_app()
    return app.serve("127.0.0.1", port)
  }
  let pooled = args[0] == "pool"
  let idle: actor IdleMsg = spawn IdleWorkers { free: [] }
  let lsn = net.listen("127.0.0.1", port)
  print("listening on 127.0.0.1:${port}")
  while not env.stopping() {
    let c = net.accept_dl(lsn, 250)
    if c != nil {
      if pooled {
        let pw = call(idle, Take(idle))
        send(pw, PooledConn { fd: c, me: pw })
      } else {
        let w = spawn ConnWorker { pad: 0 }
        send(w, NewConn { fd: c })
      }
    }
  }
  net.close(lsn)
  return 0
}
WO
if ! "$woc" build "$tmp/app" -o "$tmp/server" 2>"$tmp/build.err"; then
  cat "$tmp/build.err"
  echo "FAIL build"
  exit 1
fi

source "$(dirname "${BASH_SOURCE[0]}")/../lib/listen.sh"  # start_listening
start_listening 47700 47760 "$tmp/out" "$tmp/err" env WO_SHARDS=2 "$tmp/server" "$mode" "{port}"
if [[ -z $port ]]; then
  echo "FAIL no server started"; cat "$tmp/err"; exit 1
fi

echo "conn-soak: mode $mode, $n connections, $threads client threads"
python3 "$here/conn_soak.py" "$server" "$port" "$n" "$threads"
status=$?
kill -TERM "$server" 2>/dev/null
wait "$server" 2>/dev/null
server=
if [[ -s $tmp/err ]]; then
  echo "server stderr (first lines):"
  head -5 "$tmp/err"
fi
exit $status
