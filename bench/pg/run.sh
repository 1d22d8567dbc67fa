#!/usr/bin/env bash
# The PostgreSQL store benchmark (issue 13 item 7; `make bench-pg`, also run
# by `make bench`), against a private server it starts (scripts/pg-temp.sh,
# a Unix socket, default synchronous_commit) and stops at the end:
#   1. store.wo (`woc build -O2`, WO_SHARDS=2) on PostgreSQL and on the
#      embedded store in the same run, interleaved, median of BENCH_RUNS:
#      durable single-row inserts from 1 and 8 writer actors, unique-key
#      lookups; one line per phase with both figures and their ratio.
#   2. examples/web-app's GET /products (10 products) through haproxy
#      (round robin, config generated here) with 1, 2 and 4 woc processes
#      (WO_SHARDS=2 each) on one database, wrk -t2 -c64; then 1 process on
#      the embedded store for reference. Beside req/s: the CPU each part
#      spent per request (woc processes, the PostgreSQL server's processes,
#      haproxy; user+sys from /proc) and the machine's busy cores, which
#      say what the limit is on a loaded machine. The server runs with
#      max_connections = 300 (see below).
#
#   WOC=PATH         the woc to use (default build/bin/woc)
#   BENCH_QUICK=1    1 s per store phase, 2 s per wrk run, one round
#   BENCH_RUNS=N     store rounds (default 3: median)
#   BENCH_OUT=DIR    where pg.txt goes (default build/bench)
#   BENCH_KEEP=1     keep the temporary directory (logs, haproxy configs)
# Exit status: 0; 1 when a run failed (a FAIL line, non-2xx answers);
# 77 with a SKIPPED line when the PostgreSQL server binaries, haproxy or
# wrk are missing, or this woc has no PostgreSQL store.
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
HERE=$ROOT/bench/pg
WOC=${WOC:-$ROOT/build/bin/woc}
SECS=3 HSECS=5 RUNS=${BENCH_RUNS:-3}
[[ ${BENCH_QUICK:-0} == 1 ]] && SECS=1 HSECS=2 RUNS=1
OUT=${BENCH_OUT:-$ROOT/build/bench}
TOKEN=bench
source "$ROOT/bench/lib/format.sh"  # fmt, ratio
source "$ROOT/scripts/lib/gate.sh"  # gate_workdir (tmp, pids, cleanup), gate_stop
source "$ROOT/tests/pg/lib.sh"      # PG_TEMP, pg_start, pg_db, pg_require_backend

skip() { echo "bench-pg: SKIPPED: $1"; exit 77; }
probe=$(mktemp -d)
bash "$PG_TEMP" url "$probe" >/dev/null 2>&1
[[ $? == 77 ]] && { rm -rf "$probe"; skip "no PostgreSQL server binaries (Debian's postgresql-15): no PostgreSQL figures"; }
rm -rf "$probe"
command -v haproxy >/dev/null || skip "haproxy is not installed (scripts/setup-deps.sh haproxy)"
command -v wrk >/dev/null || skip "wrk is not installed (scripts/setup-deps.sh wrk)"
mkdir -p "$OUT"
gate_workdir bench-pg "${BENCH_KEEP:-0}"
trap 'bash "$PG_TEMP" stop "$tmp/pg" >/dev/null 2>&1; gate_cleanup' EXIT
pg_start bench-pg "$tmp"
pg_require_backend bench-pg "$WOC"
# Each woc process's pool grows to the statements it has in flight at once
# (decision 0056: not bounded), and keeps them: 4 processes under 64 wrk
# connections passed the default max_connections of 100 ("too many clients
# already", 500s). Room for 4 x 64 plus the jobs drain:
psql "$pg_url" -qXc "ALTER SYSTEM SET max_connections = 300" && bash "$PG_TEMP" stop "$tmp/pg" &&
  pg_url=$(bash "$PG_TEMP" start "$tmp/pg") || { echo "bench-pg: FAIL: max_connections = 300 and a restart"; exit 1; }
failed=0
fail() { echo "bench-pg: FAIL: $*"; failed=1; }
report=()  # the lines of the summary, also written to pg.txt
line() { report+=("$*"); echo "$*"; }

"$WOC" build -O2 "$HERE/store.wo" -o "$tmp/store" 2>"$tmp/build.err" || { cat "$tmp/build.err"; exit 1; }
"$WOC" build -O2 "$ROOT/examples/web-app" -o "$tmp/web-app" 2>"$tmp/build.err" || { cat "$tmp/build.err"; exit 1; }
line "bench-pg: $(date -u '+%F %T') UTC, $(nproc) cores, load average at the start $(cut -d' ' -f1-3 /proc/loadavg)"

# ---------------------------------------------------------------- the store
# store SIDE ROUND: one run of store.wo; `<phase> <ops> <µs> <rows>` lines.
store() {
  local data
  if [[ $1 == pg ]]; then
    data=$(pg_db "st$2") || { fail "CREATE DATABASE st$2"; return; }
  else
    data=$tmp/emb$2 && mkdir -p "$data"
  fi
  BENCH_SECS=$SECS WO_SHARDS=2 WO_DATA=$data timeout $((SECS * 3 + 120)) "$tmp/store" >"$tmp/$1.$2" 2>"$tmp/$1.$2.err" ||
    fail "store.wo on $1 (round $2): status $?: $(head -3 "$tmp/$1.$2.err" | tr '\n' ' ')"
  grep -q FAIL "$tmp/$1.$2.err" && fail "store.wo on $1: $(grep -m1 FAIL "$tmp/$1.$2.err")"
}
for ((r = 1; r <= RUNS; r++)); do
  store pg "$r"
  store emb "$r"
done
# rate SIDE PHASE: the median ops/s over the rounds
rate() {
  for ((r = 1; r <= RUNS; r++)); do awk -v p="$2" '$1 == p && $3 > 0 {printf "%.1f\n", $2 * 1e6 / $3}' "$tmp/$1.$r"; done |
    sort -n | awk '{v[NR] = $1} END {if (NR) print v[int((NR + 1) / 2)]; else print "-"}'
}
us() { awk -v r="$1" 'BEGIN { if (r + 0 > 0) printf "%.1f", 1e6 / r; else print "-" }'; }
store_line() {  # name phase what
  local p e
  p=$(rate pg "$2") e=$(rate emb "$2")
  line "pg-store $1: woc on postgresql $(fmt "$p") $3/s ($(fmt "$(us "$p")") µs each), peer woc on the embedded store $(fmt "$e") $3/s ($(fmt "$(us "$e")") µs each), ratio $(awk -v a="$p" -v b="$e" 'BEGIN { if (a + 0 > 0 && b + 0 > 0) printf "%.3gx", a / b; else print "-" }')"
}
line "pg-store: bench/pg/store.wo, WO_SHARDS=2, ${SECS} s per phase, median of $RUNS, load average $(cut -d' ' -f1-3 /proc/loadavg)"
store_line "durable1 (1 writer actor)" durable1 inserts
store_line "durable8 (8 writer actors)" durable8 inserts
store_line "unique-key lookup" lookup lookups
p1=$(rate pg durable1) p8=$(rate pg durable8)
line "pg-store durable8 / durable1 on postgresql: $(ratio "$p8" "$p1" 1) (the embedded store's: $(ratio "$(rate emb durable8)" "$(rate emb durable1)" 1))"

# ---------------------------------------------------------------- HTTP
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
tck=$(getconf CLK_TCK)
# cpu PID...: user+sys of the processes, in clock ticks
cpu() { local p; for p in "$@"; do awk '{print $14 + $15}' "/proc/$p/stat" 2>/dev/null; done | awk '{s += $1} END {print s + 0}'; }
pg_pids() { local pm; pm=$(head -1 "$tmp/pg/data/postmaster.pid"); echo "$pm" $(pgrep -P "$pm"); }
busy() { awk '/^cpu / {print $2 + $3 + $4 + $7 + $8, $2 + $3 + $4 + $5 + $6 + $7 + $8}' /proc/stat; }
H=(-H 'Host: a' -H "Authorization: Bearer $TOKEN")
seeded=()
declare -A RPS CPU_WOC CPU_PG CPU_HA BUSY
# http NAME N DATA: N web-app processes on DATA behind haproxy, wrk through it
http() {
  local name=$1 n=$2 data=$3 ports=() wpids=() i port cfg out t0 t1 w0 w1 g0 g1 h0 h1 req
  for ((i = 0; i < n; i++)); do
    port=$(free_port)
    WA_TOKEN=$TOKEN WO_SHARDS=2 WO_DATA=$data "$tmp/web-app" "$port" >"$tmp/$name.$i.log" 2>&1 &
    pids+=($!) wpids+=($!) ports+=("$port")
  done
  for ((i = 0; i < n; i++)); do
    local k
    for ((k = 0; k < 400; k++)); do grep -q listening "$tmp/$name.$i.log" 2>/dev/null && break; sleep 0.05; done
    grep -q listening "$tmp/$name.$i.log" || { fail "$name: process $i did not start: $(head -3 "$tmp/$name.$i.log" | tr '\n' ' ')"; return; }
  done
  local hp; hp=$(free_port)
  cfg=$tmp/haproxy-$name.cfg
  printf 'global\n  maxconn 512\ndefaults\n  mode http\n  timeout connect 5s\n  timeout client 30s\n  timeout server 30s\nfrontend shop\n  bind 127.0.0.1:%s\n  default_backend apps\nbackend apps\n  balance roundrobin\n' "$hp" >"$cfg"
  for ((i = 0; i < n; i++)); do printf '  server w%s 127.0.0.1:%s\n' "$i" "${ports[$i]}" >>"$cfg"; done
  haproxy -f "$cfg" -db >"$tmp/haproxy-$name.log" 2>&1 &
  local ha=$!
  pids+=("$ha")
  for ((i = 0; i < 200; i++)); do curl -s -o /dev/null --max-time 2 "http://127.0.0.1:$hp/" && break; sleep 0.05; done
  if [[ " ${seeded[*]} " != *" $data "* ]]; then  # 10 products, once per store
    for ((i = 0; i < 10; i++)); do
      curl -s -o /dev/null --max-time 10 "${H[@]}" -H 'content-type: application/json' \
        --data "{\"name\":\"item$i\",\"price\":$i.5,\"stock\":$((i + 1))}" "http://127.0.0.1:$hp/products"
    done
    seeded+=("$data")
  fi
  wrk -t2 -c64 -d1s "${H[@]}" "http://127.0.0.1:$hp/products" >/dev/null 2>&1  # warm-up: connections, pools
  w0=$(cpu "${wpids[@]}") g0=$(cpu $(pg_pids)) h0=$(cpu "$ha") t0=$(busy)
  out=$(wrk -t2 -c64 -d"${HSECS}s" "${H[@]}" "http://127.0.0.1:$hp/products" 2>&1)
  w1=$(cpu "${wpids[@]}") g1=$(cpu $(pg_pids)) h1=$(cpu "$ha") t1=$(busy)
  if grep -q 'Non-2xx\|Socket errors' <<<"$out"; then
    fail "$name: $(grep 'Non-2xx\|Socket errors' <<<"$out" | tr '\n' ' ')"
    grep -h -m3 -i 'trap\|error\|fatal' "$tmp/$name".*.log | sed 's/^/  /'
  fi
  req=$(awk '/requests in/ {print $1}' <<<"$out")
  RPS[$name]=$(awk '/Requests\/sec/ {print $2}' <<<"$out")
  [[ ${req:-0} -gt 0 ]] || { fail "$name: no requests: $out"; req=1; }
  CPU_WOC[$name]=$(awk -v d=$((w1 - w0)) -v r="$req" -v t="$tck" 'BEGIN {printf "%.0f", d / t * 1e6 / r}')
  CPU_PG[$name]=$(awk -v d=$((g1 - g0)) -v r="$req" -v t="$tck" 'BEGIN {printf "%.0f", d / t * 1e6 / r}')
  CPU_HA[$name]=$(awk -v d=$((h1 - h0)) -v r="$req" -v t="$tck" 'BEGIN {printf "%.0f", d / t * 1e6 / r}')
  BUSY[$name]=$(awk -v a="$t0" -v b="$t1" -v n="$(nproc)" 'BEGIN {split(a, x, " "); split(b, y, " ");
    printf "%.1f", (y[1] - x[1]) / (y[2] - x[2]) * n}')
  for ((i = ${#pids[@]} - 1; i >= 0; i--)); do gate_stop "${pids[$i]}" 5000; done
  pids=()
  line "pg-http $name: $(fmt "${RPS[$name]}") req/s; CPU per request: woc ${CPU_WOC[$name]} µs, postgres ${CPU_PG[$name]} µs, haproxy ${CPU_HA[$name]} µs; machine busy ${BUSY[$name]} of $(nproc) cores"
}
db=$(pg_db shop) || { fail "CREATE DATABASE shop"; exit 1; }
line "pg-http: examples/web-app GET /products (10 products) through haproxy round robin, wrk -t2 -c64 ${HSECS} s, WO_SHARDS=2 per process"
http pg1 1 "$db"
http pg2 2 "$db"
http pg4 4 "$db"
mkdir -p "$tmp/emb-http"
http emb1 1 "$tmp/emb-http"
grow() {  # NAME PEER N
  awk -v n="$1" -v w="${RPS[$1]:-}" -v p="${RPS[$2]:-}" -v k="$3" 'BEGIN {
    if (w !~ /^[0-9.]+$/ || p !~ /^[0-9.]+$/ || p + 0 == 0) { printf "pg-http %s processes: woc -, peer -, ratio - (aim > 1x: grows) MISSED\n", k; exit }
    r = w / p
    printf "pg-http %s processes: woc %.0f req/s, peer %d process%s %.0f req/s, ratio %.2fx (aim > 1x: grows with processes) %s\n",
      k, w, k / 2, (k / 2 > 1 ? "es" : ""), p, r, (r > 1 ? "met" : "MISSED") }'
}
line "$(grow pg2 pg1 2)"
line "$(grow pg4 pg2 4)"
line "pg-http 1 process, postgresql vs the embedded store: woc $(fmt "${RPS[pg1]:-}") req/s, peer $(fmt "${RPS[emb1]:-}") req/s, ratio $(ratio "${RPS[pg1]:-}" "${RPS[emb1]:-}" 1)"
# What stops the growth: the cores when the machine is busy, else the part
# that spends the most CPU per request.
line "$(awk -v b="${BUSY[pg4]:-0}" -v n="$(nproc)" -v w="${CPU_WOC[pg4]:-0}" -v g="${CPU_PG[pg4]:-0}" -v h="${CPU_HA[pg4]:-0}" 'BEGIN {
  s = w + g + h; if (s == 0) s = 1
  lim = b >= 0.9 * n ? "the cores (the machine was busy " b " of " n " cores)" : (g > w ? "PostgreSQL" : "the woc processes")
  printf "pg-http limit at 4 processes: %s; of the measured CPU per request woc %.0f%%, postgres %.0f%%, haproxy %.0f%%\n", lim, 100 * w / s, 100 * g / s, 100 * h / s }')"
line "bench-pg: load average at the end $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%s\n' "${report[@]}" >"$OUT/pg.txt"
exit "$failed"
