#!/usr/bin/env bash
# HTTPS and the HTTP client (issue 27 item 6; `make bench-http` runs it after
# run.sh). One run, peers measured beside woc:
#   1. HTTPS hello: GET /hello over TLS (a P-256 certificate made here) from
#      woc (wo/main.wo, one actor per connection, each doing its handshake:
#      App.handle_tls_conn; WO_SHARDS=1 and 2), Go net/http (GOMAXPROCS=1 and
#      2) and Crystal HTTP::Server (one thread), loaded by wrk, 64 connections,
#      (a) keep-alive and (b) `Connection: close`, so every request is a new
#      TCP connection and a new TLS handshake. Per server: requests/s and
#      requests per second of the server's CPU (its user+sys from /proc).
#   2. The client: framework/client (client/main.wo) against Go's
#      net/http client (client/main.go), each making BENCH_CLIENT_N GETs one
#      after the other on a keep-alive connection, plain and over TLS, to the
#      same server (Go, GOMAXPROCS=1). Per client: requests/s and requests per
#      second of the client's own CPU.
# Aims (issue 27): at least Go's requests per CPU-second on each line.
#
# Environment: WOC, BENCH_QUICK=1 (3 s per run), BENCH_HTTP_SECS,
# BENCH_CLIENT_N (default 20,000; 5,000 quick), BENCH_OUT (default build/bench;
# results in https.txt). Exit 0 when every woc run served, 1 otherwise.
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
source "$ROOT/bench/lib/format.sh"
HERE=$ROOT/bench/http
WOC=${WOC:-$ROOT/build/bin/woc}
OUTDIR=${BENCH_OUT:-$ROOT/build/bench}
[[ ${BENCH_QUICK:-0} == 0 ]] && SECS=${BENCH_HTTP_SECS:-10} || SECS=${BENCH_HTTP_SECS:-3}
[[ ${BENCH_QUICK:-0} == 0 ]] && N=${BENCH_CLIENT_N:-20000} || N=${BENCH_CLIENT_N:-5000}
unset WO_SHARDS GOMAXPROCS
hr() { say "----------------------------------------------------------------------------------------------"; }
for t in wrk openssl python3 go; do
  have $t || { say "bench/http/tls.sh: $t is required (scripts/setup-deps.sh)" >&2; exit 1; }
done
ulimit -n 8192 2>/dev/null || true

TMP=$(mktemp -d "${TMPDIR:-/tmp}/wohttps.XXXXXX")
server=
cleanup() {
  [[ -n $server ]] && kill -KILL "$server" 2>/dev/null
  rm -rf "$TMP"
}
trap cleanup EXIT
mkdir -p "$OUTDIR"
bench_results "$OUTDIR/https.txt"
machine_facts
hr
say "woc HTTPS and client benchmark   $(date -u '+%Y-%m-%d %H:%M UTC')   $SECS s per run, 64 connections; $N client requests"
say "machine: $ncpu cores, ${cpu:-unknown CPU}; load average at start: $loadavg"
hr

source "$ROOT/scripts/lib/test-pki.sh"
make_test_pki "$TMP" IP:127.0.0.1 || { say "bench/http/tls.sh: openssl failed: $(tail -2 "$TMP/openssl.log")"; exit 1; }

say "building ..."
"$WOC" build "$HERE/wo" -O2 -o "$TMP/wo" >"$TMP/wo.err" 2>&1 || { say "woc build failed: $(head -3 "$TMP/wo.err")"; exit 1; }
"$WOC" build "$HERE/client" -O2 -o "$TMP/woclient" >"$TMP/woc.err" 2>&1 || { say "woc build (client) failed: $(head -3 "$TMP/woc.err")"; exit 1; }
GOCACHE=$OUTDIR/http-gocache GO111MODULE=off go build -o "$TMP/go" "$HERE/go/main.go" 2>"$TMP/go.err" || { say "go build failed"; exit 1; }
GOCACHE=$OUTDIR/http-gocache GO111MODULE=off go build -o "$TMP/goclient" "$HERE/client/main.go" 2>"$TMP/goc.err" || { say "go build (client) failed"; exit 1; }
cr=0
if have crystal && crystal build --release --no-debug -o "$TMP/cr" "$HERE/crystal/main.cr" >"$TMP/cr.err" 2>&1; then cr=1; fi

freeport() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
HZ=$(getconf CLK_TCK)
ticks() { sed 's/^.*) //' "/proc/$1/stat" 2>/dev/null | awk '{print $12 + $13}'; }
start() {  # BIN ENV...: a server on $port, TLS when BENCH_TLS_CERT is in ENV
  local bin=$1 i
  shift
  port=$(freeport)
  env "$@" "$bin" "$port" >"$TMP/server.log" 2>&1 &
  server=$!
  for ((i = 0; i < 200; i++)); do
    grep -q listening "$TMP/server.log" 2>/dev/null && return 0
    kill -0 "$server" 2>/dev/null || return 1
    sleep 0.05
  done
  return 1
}
stop() {
  kill -TERM "$server" 2>/dev/null
  sleep 0.2
  kill -KILL "$server" 2>/dev/null
  wait "$server" 2>/dev/null
  server=
}
TLSENV=(BENCH_TLS_CERT="$TMP/cert.pem" BENCH_TLS_KEY="$TMP/key.pem")
# aim KEY LABEL WOC GO: woc's figure against Go's (higher is better), the
# issue's aim being at least Go's: a line and a record, met or MISSED.
aim() {
  local r met
  r=$(ratio "$3" "$4" 1)
  met=$(awk -v x="${3:-0}" -v y="${4:-0}" 'BEGIN {print (y > 0 && x >= y) ? "met" : "MISSED"}')
  say "$2: $r (aim >= 1x) $met"
  rec aim "$1" "$r" "$met"
}

# ---------------------------------------------------------------- 1. HTTPS hello
declare -A RPS PC
serve_bench() {  # NAME BIN ENV...
  local name=$1 bin=$2 mode out t0 t1 rps cores
  shift 2
  if ! start "$bin" "$@" "${TLSENV[@]}"; then
    failures+=("$name: did not start: $(head -2 "$TMP/server.log" | tr '\n' ' ')")
    [[ $name == woc* ]] && woc_failed=1
    return
  fi
  for mode in keepalive close; do
    local hdr=()
    [[ $mode == close ]] && hdr=(-H "Connection: close")
    wrk -t2 -c64 -d1s "${hdr[@]}" "https://127.0.0.1:$port/hello" >/dev/null 2>&1
    t0=$(ticks "$server")
    out=$(wrk -t2 -c64 -d${SECS}s "${hdr[@]}" "https://127.0.0.1:$port/hello" 2>&1)
    t1=$(ticks "$server")
    rps=$(awk '/^Requests\/sec:/ {printf "%.0f", $2}' <<<"$out")
    if [[ -z $rps || -z $t0 || -z $t1 ]] || grep -q 'Non-2xx' <<<"$out"; then
      failures+=("$name $mode: $(grep -v '^ ' <<<"$out" | tail -2 | tr '\n' ' ')")
      [[ $name == woc* ]] && woc_failed=1
      continue
    fi
    cores=$(awk -v a="$t0" -v b="$t1" -v hz="$HZ" -v s="$SECS" 'BEGIN {printf "%.2f", (b - a) / hz / s}')
    RPS[$name.$mode]=$rps
    PC[$name.$mode]=$(awk -v r="$rps" -v c="$cores" 'BEGIN {if (c > 0) printf "%.0f", r / c; else print "-"}')
    rec https "$mode" "$name" "$rps" "req/s; $cores cores; ${PC[$name.$mode]} req/s per core"
  done
  stop
}
say "HTTPS hello: wrk -t2 -c64 (keep-alive, then Connection: close) ..."
serve_bench "Go (1)" "$TMP/go" GOMAXPROCS=1
serve_bench "Go (2)" "$TMP/go" GOMAXPROCS=2
((cr)) && serve_bench "Crystal (1)" "$TMP/cr"
serve_bench "woc (1 shard)" "$TMP/wo" WO_SHARDS=1
serve_bench "woc (2 shards)" "$TMP/wo" WO_SHARDS=2
say ""
printf '%-16s %14s %14s   %16s %16s\n' server "keep-alive/s" "per core" "new conn/s" "per core"
for name in "Go (1)" "Go (2)" "Crystal (1)" "woc (1 shard)" "woc (2 shards)"; do
  [[ -n ${RPS[$name.keepalive]:-} || -n ${RPS[$name.close]:-} ]] || continue
  printf '%-16s %14s %14s   %16s %16s\n' "$name" "$(fmt "${RPS[$name.keepalive]:--}")" "$(fmt "${PC[$name.keepalive]:--}")" \
    "$(fmt "${RPS[$name.close]:--}")" "$(fmt "${PC[$name.close]:--}")"
done
for mode in keepalive close; do
  for n in 1 2; do
    w="woc ($n shard$([[ $n == 2 ]] && echo s))"
    aim "https-$mode-$n" "https $mode: $w per core vs Go ($n)" "${PC[$w.$mode]:-}" "${PC[Go ($n).$mode]:-}"
  done
done
hr

# ---------------------------------------------------------------- 2. the client
declare -A CRPS CPC
client_bench() {  # NAME BIN URL [CA]
  local name=$1 bin=$2 url=$3 ca=${4:-} t0 t1 out s0 s1
  s0=$(date +%s%N)
  out=$( /usr/bin/time -f '%U %S' "$bin" "$url" "$N" ${ca:+"$ca"} 2>"$TMP/time" )
  s1=$(date +%s%N)
  if [[ $out != "done $N" ]]; then
    failures+=("$name $url: $out $(tail -2 "$TMP/time" | tr '\n' ' ')")
    [[ $name == woc* ]] && woc_failed=1
    return
  fi
  local cpu
  cpu=$(tail -1 "$TMP/time" | awk '{print $1 + $2}')
  CRPS[$name]=$(awk -v n="$N" -v a="$s0" -v b="$s1" 'BEGIN {printf "%.0f", n / ((b - a) / 1e9)}')
  CPC[$name]=$(awk -v n="$N" -v c="$cpu" 'BEGIN {if (c > 0) printf "%.0f", n / c; else print "-"}')
  rec client "$name" "${CRPS[$name]}" "req/s; ${CPC[$name]} req per client CPU-second"
}
say "the client: $N sequential keep-alive GETs against Go's server (GOMAXPROCS=1) ..."
start "$TMP/go" GOMAXPROCS=1 || { say "Go server did not start"; exit 1; }
client_bench "Go http" "$TMP/goclient" "http://127.0.0.1:$port/hello"
client_bench "woc http" "$TMP/woclient" "http://127.0.0.1:$port/hello"
stop
start "$TMP/go" GOMAXPROCS=1 "${TLSENV[@]}" || { say "Go TLS server did not start"; exit 1; }
client_bench "Go https" "$TMP/goclient" "https://127.0.0.1:$port/hello" "$TMP/ca.pem"
client_bench "woc https" "$TMP/woclient" "https://127.0.0.1:$port/hello" "$TMP/ca.pem"
stop
printf '%-12s %12s %22s\n' client "req/s" "req per CPU-second"
for name in "Go http" "woc http" "Go https" "woc https"; do
  printf '%-12s %12s %22s\n' "$name" "$(fmt "${CRPS[$name]:--}")" "$(fmt "${CPC[$name]:--}")"
done
for s in http https; do
  aim "client-$s" "client $s: woc per CPU-second vs Go" "${CPC[woc $s]:-}" "${CPC[Go $s]:-}"
done
bench_end
