#!/usr/bin/env bash
# The HTTP benchmark (`make bench-http`, also run by `make bench`; not part of
# `make test`): the same two routes, GET /hello (text "hello world") and
# GET /json ({"message":"hello world"}), served on 127.0.0.1 by
#   woc      wo/main.wo: the framework (`use framework`), one actor per
#            connection (framework.md §3.2), `woc build -O2`;
#            WO_SHARDS=1 and 2
#   Go       go/main.go: net/http, GOMAXPROCS=1 and 2
#   Crystal  crystal/main.cr: HTTP::Server, --release, single-threaded (its
#            default: built without -Dpreview_mt)
# and loaded in one run by wrk (keep-alive, 64 connections, BENCH_WRK_THREADS wrk threads (2),
# BENCH_HTTP_SECS seconds per route after a 1 s warm-up).
#
# Figures per server and route: requests/s; the server's CPU time over the
# run (from /proc/PID/stat), hence "cores busy" and requests/s per core
# (requests / the server's CPU seconds: on a 2-core machine wrk takes a share
# of the CPU too, so per-core is the fair comparison); wrk's p99 latency.
# Then each server's RSS (VmRSS) when idle and with 1,000 idle keep-alive
# connections held open by idle.py (each made one request first), and the
# bytes per connection. Ratios are woc against the peers of the same run.
#
# Environment:
#   WOC=PATH             the woc to use (default build/bin/woc)
#   BENCH_QUICK=1        3 s per route instead of 10
#   BENCH_HTTP_SECS=N    seconds per route
#   BENCH_WRK_THREADS=N  wrk threads (default 2); 1 leaves a core to a
#                        one-thread server on a 2-core machine, so p99 shows
#                        the server rather than CPU oversubscription
#   BENCH_OUT=DIR        where http.txt goes (default build/bench)
#   BENCH_INSTALL=0      do not install golang-go, crystal, wrk with
#                        scripts/setup-deps.sh
#
# Exit status: 0 when every woc run served (every response 2xx), 1 otherwise.
# A peer that fails is reported, not fatal.
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
source "$ROOT/bench/lib/format.sh"  # say, have, bench_results, rec, machine_facts, fmt, ratio, bench_end
HERE=$ROOT/bench/http
WOC=${WOC:-$ROOT/build/bin/woc}
OUTDIR=${BENCH_OUT:-$ROOT/build/bench}
[[ ${BENCH_QUICK:-0} == 0 ]] && SECS=${BENCH_HTTP_SECS:-10} || SECS=${BENCH_HTTP_SECS:-3}
CONNS=64
WRK_THREADS=${BENCH_WRK_THREADS:-2}
IDLE=1000
unset WO_SHARDS WO_MAILBOX GOMAXPROCS CRYSTAL_WORKERS

hr() { say "----------------------------------------------------------------------------------------------"; }
if [[ ${BENCH_INSTALL:-1} != 0 ]]; then
  missing=()
  have go || missing+=(golang-go)
  have crystal || missing+=(crystal)
  have wrk || missing+=(wrk)
  if ((${#missing[@]})); then
    say "bench/http: installing ${missing[*]} (scripts/setup-deps.sh)"
    bash "$ROOT/scripts/setup-deps.sh" "${missing[@]}" >/dev/null 2>&1 || true
  fi
fi
have wrk || { say "bench/http: wrk is required (apt-get install -y wrk)" >&2; exit 1; }
have python3 || { say "bench/http: python3 is required" >&2; exit 1; }
[[ -x $WOC ]] || { say "bench/http: $WOC is not an executable (make build)" >&2; exit 1; }
ulimit -n 8192 2>/dev/null || ulimit -n "$(ulimit -Hn)"

TMP=$(mktemp -d "${TMPDIR:-/tmp}/wohttp.XXXXXX")
server=
cleanup() {
  [[ -n $server ]] && kill -KILL "$server" 2>/dev/null
  rm -rf "$TMP"
}
trap cleanup EXIT
mkdir -p "$OUTDIR"
bench_results "$OUTDIR/http.txt"

# ---------------------------------------------------------------- machine
machine_facts
go_version=$(have go && go version | sed 's/^go version //' || echo "not installed")
cr_version=$(have crystal && crystal --version 2>/dev/null | sed -n 1p || echo "not installed")
woc_version=$("$WOC" --version 2>/dev/null | sed -n 1p)
wrk_version=$(wrk -v 2>&1 | sed -n 1p | cut -d' ' -f1-2)
hr
say "woc HTTP benchmark   $(date -u '+%Y-%m-%d %H:%M UTC')   $SECS s per route, $CONNS connections, keep-alive"
say "machine: $ncpu cores, ${cpu:-unknown CPU}, $(uname -sr)"
say "load average at start: $loadavg"
awk -v l="${loadavg%% *}" 'BEGIN {exit !(l > 0.5)}' &&
  say "WARNING: the machine is busy (load ${loadavg%% *}): every figure is inflated, unevenly"
say "woc: $WOC ${woc_version:+($woc_version)}   Go: $go_version   Crystal: $cr_version (one thread)   $wrk_version, $WRK_THREADS wrk threads"
hr
rec "# woc http bench; tab-separated: kind, route, variant, value, unit"
rec machine nproc "$ncpu"
rec machine cpu "${cpu:-unknown}"
rec machine loadavg "$loadavg"
rec tool woc "${woc_version:-unknown}"
rec tool go "$go_version"
rec tool crystal "$cr_version"

# ---------------------------------------------------------------- build
say "building (woc build -O2, go build, crystal build --release) ..."
declare -A built
if "$WOC" build "$HERE/wo" -O2 -o "$TMP/wo" >"$TMP/wo.err" 2>&1; then
  built[wo]=1
else
  failures+=("woc: woc build failed: $(grep -m3 -E 'error|rror:' "$TMP/wo.err" | tr '\n' ' ')")
  woc_failed=1
fi
if have go; then
  GOCACHE=$OUTDIR/http-gocache GO111MODULE=off go build -o "$TMP/go" "$HERE/go/main.go" >"$TMP/go.err" 2>&1 &&
    built[go]=1 || failures+=("Go: go build failed: $(head -3 "$TMP/go.err" | tr '\n' ' ')")
fi
if have crystal; then
  crystal build --release --no-debug -o "$TMP/cr" "$HERE/crystal/main.cr" >"$TMP/cr.err" 2>&1 &&
    built[cr]=1 || failures+=("Crystal: crystal build failed: $(head -3 "$TMP/cr.err" | tr '\n' ' ')")
fi

# variant -> binary and environment
VARIANTS="go1 go2 cr wo1 wo2"
declare -A BIN=([go1]=go [go2]=go [cr]=cr [wo1]=wo [wo2]=wo)
declare -A ENVS=([go1]="GOMAXPROCS=1" [go2]="GOMAXPROCS=2" [cr]="" [wo1]="WO_SHARDS=1" [wo2]="WO_SHARDS=2")
declare -A LABEL=([go1]="Go (1)" [go2]="Go (2)" [cr]="Crystal (1)" [wo1]="woc (1 shard)" [wo2]="woc (2 shards)")

freeport() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
# start VARIANT: starts the server, sets $server and $port; waits (bounded)
# for its `listening` line
start() {
  local v=$1 i
  port=$(freeport)
  # shellcheck disable=SC2086
  env ${ENVS[$v]} "$TMP/${BIN[$v]}" "$port" >"$TMP/server.log" 2>&1 &
  server=$!
  for ((i = 0; i < 200; i++)); do
    grep -q listening "$TMP/server.log" 2>/dev/null && return 0
    kill -0 "$server" 2>/dev/null || break
    sleep 0.05
  done
  echo "did not start: $(head -3 "$TMP/server.log" | tr '\n' ' ')" >"$TMP/why"
  stop
  return 1
}
stop() {
  local i
  kill -TERM "$server" 2>/dev/null
  for ((i = 0; i < 60; i++)); do kill -0 "$server" 2>/dev/null || break; sleep 0.05; done
  kill -KILL "$server" 2>/dev/null
  wait "$server" 2>/dev/null
  server=
}
cpu_ticks() { sed 's/^.*) //' "/proc/$server/stat" 2>/dev/null | awk '{print $12 + $13}'; }
rss_kib() { awk '/^VmRSS:/ {print $2}' "/proc/$server/status" 2>/dev/null; }
HZ=$(getconf CLK_TCK)
# to_ms "1.23ms" -> 1.23
to_ms() { awk -v v="$1" 'BEGIN {
  n = v + 0; u = v; sub(/^[0-9.]+/, "", u)
  if (u == "us") n /= 1000; else if (u == "s") n *= 1000; else if (u == "m") n *= 60000
  printf "%.2f", n }'; }

# bench VARIANT ROUTE -> sets F[route.variant.{rps,cores,pc,p99}] or FAIL
declare -A F
bench() {
  local v=$1 r=$2 url t0 t1 out rps p99 non2xx errs
  url=http://127.0.0.1:$port/$r
  wrk -t"$WRK_THREADS" -c$CONNS -d1s "$url" >/dev/null 2>&1
  t0=$(cpu_ticks)
  out=$(wrk -t"$WRK_THREADS" -c$CONNS -d${SECS}s --latency "$url" 2>&1)
  t1=$(cpu_ticks)
  rps=$(awk '/^Requests\/sec:/ {print $2}' <<<"$out")
  p99=$(awk '$1 == "99%" {print $2}' <<<"$out")
  non2xx=$(awk '/Non-2xx or 3xx responses:/ {print $NF}' <<<"$out")
  errs=$(grep -m1 'Socket errors' <<<"$out")
  if [[ -z $rps || -z $p99 || -n $non2xx || -z $t0 || -z $t1 ]] || ! kill -0 "$server" 2>/dev/null; then
    F[$r.$v.rps]=FAIL
    failures+=("${LABEL[$v]} /$r: ${non2xx:+$non2xx non-2xx responses; }$(kill -0 "$server" 2>/dev/null || echo 'the server died; ')$(grep -v '^ ' <<<"$out" | tail -3 | tr '\n' ' ')")
    [[ $v == wo* ]] && woc_failed=1
    rec run "$r" "$v" FAIL "$out"
    return
  fi
  local cores pc
  cores=$(awk -v a="$t0" -v b="$t1" -v hz="$HZ" -v s="$SECS" 'BEGIN {printf "%.2f", (b - a) / hz / s}')
  pc=$(awk -v rps="$rps" -v c="$cores" 'BEGIN {if (c > 0) printf "%.0f", rps / c; else print "-"}')
  F[$r.$v.rps]=$(printf '%.0f' "$rps")
  F[$r.$v.cores]=$cores
  F[$r.$v.pc]=$pc
  F[$r.$v.p99]=$(to_ms "$p99")
  [[ -n $errs ]] && failures+=("${LABEL[$v]} /$r: $errs")
  rec run "$r" "$v" "${F[$r.$v.rps]}" "req/s; $cores cores busy; $pc req/s per core; p99 ${F[$r.$v.p99]} ms${errs:+; $errs}"
}

# idle_rss VARIANT -> sets R[variant.{base,held,per}] or FAIL
declare -A R
idle_rss() {
  local v=$1 base held n
  curl -s --max-time 5 -o /dev/null "http://127.0.0.1:$port/hello"
  base=$(rss_kib)
  coproc HOLD { python3 "$HERE/idle.py" "$port" "$IDLE"; }
  local line=""
  read -r -t 60 line <&"${HOLD[0]}"
  held=$(rss_kib)
  n=${line#ready }
  eval "exec ${HOLD[1]}>&-"
  wait "$HOLD_PID" 2>/dev/null
  if [[ $line != ready* || $n != "$IDLE" || -z $base || -z $held ]]; then
    R[$v.held]=FAIL
    failures+=("${LABEL[$v]} idle connections: ${line:-no answer from idle.py} (want ready $IDLE)")
    [[ $v == wo* ]] && woc_failed=1
    return
  fi
  R[$v.base]=$base
  R[$v.held]=$held
  R[$v.per]=$(awk -v a="$base" -v b="$held" -v n="$IDLE" 'BEGIN {printf "%.0f", (b - a) * 1024 / n}')
  rec run idle "$v" "$held" "KiB VmRSS with $IDLE idle connections ($base KiB before; ${R[$v.per]} bytes per connection)"
}

say "running ..."
for v in $VARIANTS; do
  [[ -n ${built[${BIN[$v]}]:-} ]] || continue
  for r in hello json; do
    printf '  %-16s /%-6s ... ' "${LABEL[$v]}" "$r"
    if ! start "$v"; then
      F[$r.$v.rps]=FAIL
      failures+=("${LABEL[$v]}: $(cat "$TMP/why")")
      [[ $v == wo* ]] && woc_failed=1
      say FAIL
      continue
    fi
    bench "$v" "$r"
    stop
    say "${F[$r.$v.rps]} req/s"
  done
  printf '  %-16s %-7s ... ' "${LABEL[$v]}" idle
  if start "$v"; then
    idle_rss "$v"
    stop
    say "${R[$v.held]:-FAIL} KiB"
  else
    failures+=("${LABEL[$v]}: $(cat "$TMP/why")")
    say FAIL
  fi
done
hr

# ---------------------------------------------------------------- tables
fmt2() { fmt "$1" 2; }

for r in hello json; do
  say "GET /$r: requests/s, cores the server kept busy, requests/s per core, p99 latency (ms)"
  printf '  %-16s %12s %8s %14s %10s\n' server "req/s" cores "req/s/core" "p99 ms"
  for v in $VARIANTS; do
    printf '  %-16s %12s %8s %14s %10s\n' "${LABEL[$v]}" "$(fmt2 "${F[$r.$v.rps]:--}")" "${F[$r.$v.cores]:--}" \
      "$(fmt2 "${F[$r.$v.pc]:--}")" "${F[$r.$v.p99]:--}"
  done
  say "  woc per core vs Go, same thread count: 1: $(ratio "${F[$r.wo1.pc]:--}" "${F[$r.go1.pc]:--}" 1)" \
    "  2: $(ratio "${F[$r.wo2.pc]:--}" "${F[$r.go2.pc]:--}" 1)   (aim >= 1.2x)"
  say "  woc (1 shard) per core vs Crystal: $(ratio "${F[$r.wo1.pc]:--}" "${F[$r.cr.pc]:--}" 1)   (aim >= 1x)"
  say "  p99, woc vs Go (>= 1x: woc's is lower): 1: $(ratio "${F[$r.wo1.p99]:--}" "${F[$r.go1.p99]:--}" 0)" \
    "  2: $(ratio "${F[$r.wo2.p99]:--}" "${F[$r.go2.p99]:--}" 0)   (aim >= 1x)"
  for v in $VARIANTS; do
    for k in rps cores pc p99; do rec figure "$r" "$v.$k" "${F[$r.$v.$k]:--}"; done
  done
  say ""
done
say "RSS with $IDLE idle keep-alive connections (VmRSS, KiB; bytes per connection = growth / $IDLE)"
printf '  %-16s %12s %12s %10s\n' server "idle" "1,000 conns" "B/conn"
for v in $VARIANTS; do
  printf '  %-16s %12s %12s %10s\n' "${LABEL[$v]}" "$(fmt2 "${R[$v.base]:--}")" "$(fmt2 "${R[$v.held]:--}")" "$(fmt2 "${R[$v.per]:--}")"
  for k in base held per; do rec figure idle "$v.$k" "${R[$v.$k]:--}"; done
done
bench_end
