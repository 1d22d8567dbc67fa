#!/usr/bin/env bash
# The middleware benchmark (issue 10; `make bench-middleware`, also run by
# `make bench`): wrk (keep-alive, 64 connections, 2 threads) against the
# web-app's product list served by woc three ways (wo/main.wo): bare, behind
# porch's Limiter, and as a POST behind Idempotent with a fresh key per
# request (idem.lua); WO_SHARDS=2, a key pool of 4 actors. Prints requests/s
# and p99 for each, the cost of each middleware against the bare route, and
# the idempotent POSTs/s against the disk's raw fdatasync rate
# (fsync_rate.py, one writer) measured in the same run, on the same disk,
# and one line per middleware against issue 10's aim (>= 0.9x bare).
#
#   WOC=PATH                 the woc to use (default build/bin/woc)
#   BENCH_QUICK=1            3 s per run instead of 10
#   BENCH_OUT=DIR            where middleware.txt goes (default build/bench)
#   BENCH_POOL=N             the key pool's size (default 4)
#   BENCH_WRK_THREADS=N      wrk threads (default 2); with 1, wrk is also
#                            pinned to the last CPU, so it loads the server
#                            from one core instead of competing for both
#   WO_WAL_STATS=1           also print each server's group-commit figures
#                            (batches = fdatasyncs, records) at its stop
# Exit status: 0 when every run served only 2xx answers, 1 otherwise.
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
HERE=$ROOT/bench/middleware
WOC=${WOC:-$ROOT/build/bin/woc}
SECS=10
[[ ${BENCH_QUICK:-0} == 1 ]] && SECS=3
OUT=${BENCH_OUT:-$ROOT/build/bench}
POOL=${BENCH_POOL:-4}
WRK_THREADS=${BENCH_WRK_THREADS:-2}
WRK=(wrk -t"$WRK_THREADS")
[[ $WRK_THREADS == 1 ]] && command -v taskset >/dev/null && WRK=(taskset -c "$(($(nproc) - 1))" wrk -t1)
source "$ROOT/bench/lib/format.sh"  # fmt, ratio
command -v wrk >/dev/null || bash "$ROOT/scripts/setup-deps.sh" wrk
mkdir -p "$OUT"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/wo-bench-mw.XXXXXX")
server=
cleanup() {
  [[ -n $server ]] && kill -KILL "$server" 2>/dev/null
  rm -rf "$TMP"
}
trap cleanup EXIT
failed=0

"$WOC" build -O2 "$HERE/wo" -o "$TMP/server" || { echo "bench-middleware: woc build failed"; exit 1; }
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

declare -A RPS P99 WAL
# run MODE METHOD-SCRIPT...: a fresh server and store per mode
run() {
  local mode=$1 port out
  shift
  port=$(free_port)
  rm -rf "$TMP/data" && mkdir "$TMP/data"
  WO_SHARDS=2 WO_DATA=$TMP/data "$TMP/server" "$port" "$POOL" "$mode" >"$TMP/$mode.log" 2>&1 &
  server=$!
  for _ in $(seq 200); do grep -q listening "$TMP/$mode.log" && break; sleep 0.05; done
  "${WRK[@]}" -c64 -d1s "$@" "http://127.0.0.1:$port/products" >/dev/null 2>&1  # warm-up
  out=$("${WRK[@]}" -c64 -d"${SECS}s" --latency "$@" "http://127.0.0.1:$port/products" 2>&1)
  kill -TERM "$server"; wait "$server" 2>/dev/null; server=
  WAL[$mode]=$(grep -m1 '^walstats' "$TMP/$mode.log")
  if grep -q "Non-2xx" <<<"$out" || ! grep -q "Requests/sec" <<<"$out"; then
    failed=1
    echo "bench-middleware: $mode: errors or non-2xx answers:"; echo "$out"
  fi
  RPS[$mode]=$(awk '/Requests\/sec/ {print $2}' <<<"$out")
  P99[$mode]=$(awk '$1 == "99%" {v = $2; if (v ~ /us$/) v = v / 1000; else if (v ~ /ms$/) v = v + 0; else if (v ~ /s$/) v = v * 1000; print v}' <<<"$out")
}
# The bench-line format of `make bench`: NAME: woc X, peer Y, ratio R (aim A) met|MISSED.
aim_line() {
  awk -v n="$1" -v w="${RPS[$2]}" -v b="${RPS[bare]}" 'BEGIN {
    if (w !~ /^[0-9.]+$/ || b !~ /^[0-9.]+$/ || b + 0 == 0) { printf "%s: woc -, peer bare -, ratio - (aim >=0.9x bare) MISSED\n", n; exit }
    r = w / b
    printf "%s: woc %.0f req/s, peer bare %.0f req/s, ratio %.2fx (aim >=0.9x bare) %s\n", n, w, b, r, (r >= 0.9 ? "met" : "MISSED") }'
}
run bare
run limited
run idem -s "$HERE/idem.lua"
fsync=$(python3 "$HERE/fsync_rate.py" "$TMP" 3)

{
  echo "middleware benchmark: ${WRK[*]} -c64, ${SECS} s per run, WO_SHARDS=2, key pool of $POOL, $(date -u '+%F %T') UTC"
  echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
  printf '  %-34s %12s %10s %14s\n' route "req/s" "p99 ms" "vs bare"
  printf '  %-34s %12s %10s %14s\n' "GET /products (bare)" "$(fmt "${RPS[bare]}" 2)" "${P99[bare]}" "1.00x"
  printf '  %-34s %12s %10s %14s\n' "GET /products behind Limiter" "$(fmt "${RPS[limited]}" 2)" "${P99[limited]}" "$(ratio "${RPS[limited]}" "${RPS[bare]}" 1)"
  printf '  %-34s %12s %10s %14s\n' "POST /products behind Idempotent" "$(fmt "${RPS[idem]}" 2)" "${P99[idem]}" "$(ratio "${RPS[idem]}" "${RPS[bare]}" 1)"
  echo "  raw fdatasync rate of the same disk (one writer): $(fmt "$fsync") writes/s;" \
    "idempotent POSTs per fdatasync-second: $(ratio "${RPS[idem]}" "$fsync" 1)"
  for mode in bare limited idem; do
    [[ -n ${WAL[$mode]} ]] && echo "  $mode: ${WAL[$mode]}"
  done
  # issue 10's aim: the middleware costs <= 10% of the bare route's throughput
  aim_line "middleware limiter" limited
  aim_line "middleware idempotent" idem
} | tee "$OUT/middleware.txt"
exit "$failed"
