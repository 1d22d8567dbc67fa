#!/usr/bin/env bash
# CPU per request of the middleware routes (issue 10's aim, measured on a
# loaded machine; `make bench-middleware-cpu`). Requests/s moves with the
# machine's load and the disk; the CPU time the server spends per request
# does much less, so this is the figure to compare between runs and
# branches. The same server as run.sh (wo/main.wo, WO_SHARDS=2, a key pool
# of 4, wrk -t2 -c64 keep-alive, a fresh store per run), in the modes that
# split the Limiter's cost into its parts:
#   bare      GET /products
#   call      + an Mw whose `call` to a pool actor is answered at once
#   volatile  + that actor counts the hit in a durable: false table
#   durable   + ... in a durable table (log record, fdatasync, held reply)
#   txn       + ... the same inside `transaction { }`
#   limited   porch's Limiter (Mw + Aw) instead of the split Mw
#   idem      POST behind Idempotent, a fresh key per request
# For each: server CPU (user+sys of every thread, from /proc/PID/stat) per
# request, the same for wrk, and what the two together predict for the
# route's throughput against bare when the cores are the bound
# ((bare server + bare wrk) / (server + wrk)). Rounds alternate the modes
# (bare, call, ..., bare, call, ...); the median of the rounds is printed.
# For the modes that write, also the records per fdatasync (the server's
# WO_WAL_STATS line) and, from a raw append + fdatasync probe on the same
# disk (fsync_rate.py), the CPU one fdatasync costs: divided by the batch,
# that is the disk's share of a durable request's CPU.
#
#   WOC=PATH           the woc to use (default build/bin/woc)
#   BENCH_ROUNDS=N     rounds (default 3)
#   BENCH_SECS=N       seconds per run (default 3)
#   BENCH_MODES="..."  the modes (default: all of the above)
#   BENCH_OUT=DIR      where middleware-cpu.txt goes (default build/bench)
#   BENCH_SERVER=PATH  a server already built from wo/ (default: build it with WOC)
#   BENCH_FSYNC=0      skip the raw fdatasync probe (bench/compare.sh's rounds)
# Exit status: 0 when every run served only 2xx answers, 1 otherwise (ctest's
# bench.middleware-cpu.smoke runs one short round of every mode).
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
HERE=$ROOT/bench/middleware
WOC=${WOC:-$ROOT/build/bin/woc}
ROUNDS=${BENCH_ROUNDS:-3}
SECS=${BENCH_SECS:-3}
MODES=${BENCH_MODES:-bare call volatile durable txn limited idem}
OUT=${BENCH_OUT:-$ROOT/build/bench}
command -v wrk >/dev/null || bash "$ROOT/scripts/setup-deps.sh" wrk
mkdir -p "$OUT"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/wo-bench-mwcpu.XXXXXX")
server=
cleanup() {
  [[ -n $server ]] && kill -KILL "$server" 2>/dev/null
  rm -rf "$TMP"
}
trap cleanup EXIT
failed=0
TCK=$(getconf CLK_TCK)

if [[ -n ${BENCH_SERVER:-} ]]; then
  cp "$BENCH_SERVER" "$TMP/server" || { echo "bench-middleware-cpu: cannot copy BENCH_SERVER=$BENCH_SERVER"; exit 1; }
else
  "$WOC" build -O2 "$HERE/wo" -o "$TMP/server" || { echo "bench-middleware-cpu: woc build failed"; exit 1; }
fi
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
# utime + stime of every thread of PID, in clock ticks
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }

declare -A SRV WRK BATCH  # mode -> space-separated µs/request (records per fdatasync) of each round
# measure MODE: one run; appends to SRV[MODE] and WRK[MODE]
measure() {
  local mode=$1 port out t0 t1 req wrk_cpu extra=()
  [[ $mode == idem ]] && extra=(-s "$HERE/idem.lua")
  port=$(free_port)
  rm -rf "$TMP/data" && mkdir "$TMP/data"
  echo "bench-middleware-cpu: $mode on port $port ($(date -u +%T))" >&2  # where a run stood, if it hangs
  WO_WAL_STATS=1 WO_SHARDS=2 WO_DATA=$TMP/data "$TMP/server" "$port" 4 "$mode" >"$TMP/$mode.log" 2>&1 &
  server=$!
  for _ in $(seq 200); do grep -qs listening "$TMP/$mode.log" && break; sleep 0.05; done
  if ! grep -qs listening "$TMP/$mode.log"; then
    failed=1
    echo "bench-middleware-cpu: $mode: the server is not listening after 10 s; its log:"; tail -5 "$TMP/$mode.log"
    kill -KILL "$server" 2>/dev/null; wait "$server" 2>/dev/null; server=
    return
  fi
  timeout 30 wrk -t2 -c64 -d1s "${extra[@]}" "http://127.0.0.1:$port/products" >/dev/null 2>&1  # warm-up
  t0=$(cpu_ticks "$server")
  out=$(/usr/bin/time -f 'wrkcpu %U %S' timeout $((SECS + 30)) wrk -t2 -c64 -d"${SECS}s" "${extra[@]}" "http://127.0.0.1:$port/products" 2>&1)
  if ! t1=$(cpu_ticks "$server" 2>/dev/null); then
    failed=1
    echo "bench-middleware-cpu: $mode: the server died during the run; its log:"; tail -5 "$TMP/$mode.log"
    wait "$server" 2>/dev/null; server=
    return
  fi
  kill -TERM "$server"
  # a server that does not stop on SIGTERM is a failure to report, not a hang
  for _ in $(seq 200); do kill -0 "$server" 2>/dev/null || break; sleep 0.05; done
  if kill -0 "$server" 2>/dev/null; then
    failed=1
    echo "bench-middleware-cpu: $mode: the server did not stop within 10 s of SIGTERM; its log:"; tail -5 "$TMP/$mode.log"
    kill -KILL "$server"
  fi
  local status=0
  wait "$server" 2>/dev/null || status=$?
  server=
  if ((status != 0 && status != 143 && status != 137)); then  # 143: the TERM above; 137: the KILL
    failed=1
    echo "bench-middleware-cpu: $mode: the server exited with status $status; its log:"; tail -5 "$TMP/$mode.log"
    return
  fi
  if grep -q "Non-2xx" <<<"$out" || ! grep -q "requests in" <<<"$out"; then
    failed=1
    echo "bench-middleware-cpu: $mode: errors or non-2xx answers:"; echo "$out"
    return
  fi
  req=$(awk '/requests in/ {print $1}' <<<"$out")
  BATCH[$mode]+="$(awk '/^walstats/ {for (i = 2; i <= NF; i++) {split($i, kv, "="); v[kv[1]] = kv[2]}
                        if (v["batches"] > 0) printf "%.1f", v["records"] / v["batches"]}' "$TMP/$mode.log") "
  wrk_cpu=$(awk '/^wrkcpu/ {print $2 + $3}' <<<"$out")
  SRV[$mode]+="$(awk -v a="$t0" -v b="$t1" -v r="$req" -v t="$TCK" 'BEGIN {printf "%.2f", (b - a) / t * 1e6 / r}') "
  WRK[$mode]+="$(awk -v c="$wrk_cpu" -v r="$req" 'BEGIN {printf "%.2f", c * 1e6 / r}') "
}
source "$ROOT/bench/lib/format.sh"  # median

for _ in $(seq "$ROUNDS"); do
  for mode in $MODES; do measure "$mode"; done
done
fsyncs=- fsync_us=-
[[ ${BENCH_FSYNC:-1} == 0 ]] || read -r fsyncs fsync_us < <(python3 "$HERE/fsync_rate.py" "$TMP" "$SECS" cpu)
for mode in $MODES; do
  [[ -n ${SRV[$mode]:-} ]] || failed=1  # every run of the mode failed
done

{
  echo "middleware CPU per request: wrk -t2 -c64, ${SECS} s per run, median of $ROUNDS alternating rounds, WO_SHARDS=2, key pool of 4, $(date -u '+%F %T') UTC"
  echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
  printf '  %-9s %14s %12s %14s %16s %10s   %s\n' mode "server us/req" "wrk us/req" "server vs bare" "predicted req/s" "rec/fsync" "server us/req of each round"
  bs=$(median "${SRV[bare]:-}") bw=$(median "${WRK[bare]:-}")
  for mode in $MODES; do
    s=$(median "${SRV[$mode]:-}") w=$(median "${WRK[$mode]:-}") b=-
    [[ $mode =~ ^(durable|txn|limited|idem)$ ]] && b=$(median "${BATCH[$mode]:-}")
    awk -v m="$mode" -v s="$s" -v w="$w" -v b="$b" -v bs="$bs" -v bw="$bw" -v all="${SRV[$mode]:-}" 'BEGIN {
      if (s !~ /^[0-9.]+$/) { printf "  %-9s %14s\n", m, "-"; exit }
      vs = "-"; pred = "-"   # without a bare run there is nothing to compare with
      if (bs ~ /^[0-9.]+$/) { vs = sprintf("%.2fx", s / bs); pred = sprintf("%.2fx", (bs + bw) / (s + w)) }
      printf "  %-9s %14.2f %12.2f %14s %16s %10s   %s\n", m, s, w, vs, pred, b, all }'
  done
  echo "  raw append + fdatasync of the same disk (one writer): $fsyncs/s, $fsync_us us CPU each" \
    "(per durable request: that / rec/fsync)"
  # Issue 26 item 4's aims, and the floor the spec's rule puts under them
  # (framework.md §7.1: every hit is a durable row write acknowledged after
  # its fdatasync): bare plus this disk's fdatasync CPU shared by the
  # measured batch, before any call, table or middleware work at all.
  for pair in limited:1.25 idem:1.4; do
    mode=${pair%%:*} aim=${pair#*:}
    [[ " $MODES " == *" $mode "* && " $MODES " == *" bare "* ]] || continue
    awk -v m="$mode" -v s="$(median "${SRV[$mode]:-}")" -v bs="$bs" -v aim="$aim" \
        -v b="$(median "${BATCH[$mode]:-}")" -v f="$fsync_us" 'BEGIN {
      name = (m == "limited" ? "Limiter" : "Idempotent")
      if (s !~ /^[0-9.]+$/ || bs !~ /^[0-9.]+$/ || bs + 0 == 0) { printf "porch %s CPU: - (aim <=%sx bare) MISSED\n", name, aim; exit }
      r = s / bs
      floor = (b ~ /^[0-9.]+$/ && b + 0 > 0 && f ~ /^[0-9.]+$/) ? sprintf("%.2fx", (bs + f / b) / bs) : "-"
      printf "porch %s CPU: woc %.2f us/req, peer bare %.2f us/req, ratio %.2fx (aim <=%sx bare) %s; floor of a durable hit on this disk %s\n",
             name, s, bs, r, aim, (r <= aim ? "met" : "MISSED"), floor }'
  done
} | tee "$OUT/middleware-cpu.txt"
exit "$failed"
