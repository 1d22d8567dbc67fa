#!/usr/bin/env bash
# Two web-app processes on one PostgreSQL database behind haproxy (issue 13
# items 5 and 6): examples/web-app built with woc, started twice with the same
# WO_DATA=postgresql://… and WA_LIMIT (porch on: a Limiter, POST /orders
# behind Idempotent), haproxy round-robin in front (config generated here,
# private ports). The legs:
#   - a product created through one process is listed through the other;
#   - 30 parallel (backgrounded) requests through haproxy reach both
#     processes, and a probe after them finds the limiter's count exact
#     (x-ratelimit-remaining = limit - 31);
#   - idempotent duplicates sent at the same moment to different processes
#     run the handler once per key (the orders table's row count) and give
#     both clients the same status and body;
#   - a flag flipped through one process is seen through the other.
#
#   tests/pg/two-process.sh WOC
# Exit 0 all legs passed, 1 a failure, 77 no PostgreSQL server binaries or
# no haproxy. Every process started here is stopped at exit.
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
WOC=${1:-$ROOT/build/bin/woc}
TOKEN=s3cr3t
LIMIT=1000
KEYS=${PG_IDEM_KEYS:-12}
source "$ROOT/scripts/lib/gate.sh"  # ok, bad, check, gate_finish, gate_stop, gate_workdir
finish() { gate_finish two-process; }
command -v haproxy >/dev/null || { echo "two-process: SKIPPED: haproxy is not installed (scripts/setup-deps.sh)"; exit 77; }
gate_preflight two-process curl python3 psql
gate_workdir two-process "${PG_KEEP:-0}"
source "$ROOT/tests/pg/lib.sh"  # pg_start, pg_db, pg_require_backend
stop_pg() { bash "$PG_TEMP" stop "$tmp/pg" >/dev/null 2>&1; gate_cleanup; }
trap stop_pg EXIT
pg_start two-process "$tmp"
pg_require_backend two-process "$WOC"
db=$(pg_db shop) || { bad pg-database "CREATE DATABASE failed"; finish; }

out=$("$WOC" build "$ROOT/examples/web-app" -o "$tmp/web-app" 2>&1)
check build "$?" "woc build examples/web-app: $(head -5 <<<"$out" | tr '\n' ' ')"
[[ -x $tmp/web-app ]] || finish
freeport() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# start NAME PORT: one web-app process on the shared database; waits
# (bounded) for its `listening` line.
start() {
  local clock=()
  [[ $1 == b ]] && clock=("${other_machine[@]}")
  WA_TOKEN=$TOKEN WA_LIMIT=$LIMIT WO_SHARDS=2 WO_DATA=$db "${clock[@]}" "$tmp/web-app" "$2" >"$tmp/$1.log" 2>&1 &
  pids+=($!)
  local i
  for ((i = 0; i < 400; i++)); do
    grep -q listening "$tmp/$1.log" 2>/dev/null && return 0
    kill -0 "${pids[-1]}" 2>/dev/null || break
    sleep 0.05
  done
  bad "$1-starts" "no 'listening' line: $(head -5 "$tmp/$1.log" | tr '\n' ' ')"
  finish
}
# Process b runs as if on another machine: its monotonic clock is a day
# ahead (a time namespace, when this kernel and user may make one), so the
# porch's windows and claims must not compare monotonic readings across
# processes (decision 0059).
other_machine=()
if unshare -T --monotonic 86400 --boottime 86400 true 2>/dev/null; then
  other_machine=(unshare -T --monotonic 86400 --boottime 86400)
else
  echo "two-process: note: no time namespace here; both processes share one monotonic clock"
fi
pa=$(freeport) pb=$(freeport) ph=$(freeport)
start a "$pa"
start b "$pb"
ok two-processes-listening

# haproxy: round-robin over both, one decision per request; x-served-by
# names the process that answered. The client's own X-Forwarded-For goes
# through untouched (the limiter trusts it).
cat >"$tmp/haproxy.cfg" <<CFG
global
  maxconn 512
defaults
  mode http
  timeout connect 5s
  timeout client 30s
  timeout server 30s
frontend shop
  bind 127.0.0.1:$ph
  default_backend apps
backend apps
  balance roundrobin
  http-response set-header x-served-by %s
  server a 127.0.0.1:$pa
  server b 127.0.0.1:$pb
CFG
haproxy -f "$tmp/haproxy.cfg" -db >"$tmp/haproxy.log" 2>&1 &
pids+=($!)
for ((i = 0; i < 200; i++)); do
  curl -s -o /dev/null --max-time 2 "http://127.0.0.1:$ph/" && break
  sleep 0.05
done
H=(-H 'host: a' -H "authorization: Bearer $TOKEN")
JSON=(-H 'content-type: application/json')

# 1. created through a, listed through b (and through haproxy, twice: both)
code=$(curl -s -o "$tmp/create" -w '%{http_code}' --max-time 10 "${H[@]}" "${JSON[@]}" \
  --data '{"name":"samovar","price":42.5,"stock":3}' "http://127.0.0.1:$pa/products")
check create-through-a "$([[ $code == 201 ]]; echo $?)" "POST /products on a: $code $(head -c 200 "$tmp/create")"
code=$(curl -s -o "$tmp/list" -w '%{http_code}' --max-time 10 "${H[@]}" "http://127.0.0.1:$pb/products")
check listed-through-b "$([[ $code == 200 ]] && grep -q '"name":"samovar"' "$tmp/list"; echo $?)" \
  "GET /products on b: $code $(head -c 200 "$tmp/list")"
for n in 1 2; do
  curl -s -D "$tmp/h$n" -o "$tmp/l$n" --max-time 10 "${H[@]}" "http://127.0.0.1:$ph/products" >/dev/null
done
served=$(cat "$tmp/h1" "$tmp/h2" | tr -d '\r' | sed -n 's/^x-served-by: //p' | sort | tr '\n' ' ')
check listed-through-haproxy "$([[ $served == 'a b ' ]] && grep -q samovar "$tmp/l1" && grep -q samovar "$tmp/l2"; echo $?)" \
  "two GET /products through haproxy: served by '$served'"

# 2. the limiter's count across both processes: 30 parallel, then a probe
xff=(-H 'x-forwarded-for: 6.6.6.8')
clients=()
for ((i = 0; i < 30; i++)); do
  curl -s -D "$tmp/par$i.h" -o /dev/null -w '%{http_code}\n' --max-time 20 "${H[@]}" "${xff[@]}" \
    "http://127.0.0.1:$ph/products" >"$tmp/par$i.code" &
  clients+=($!)
done
wait "${clients[@]}"
n200=$(cat "$tmp"/par*.code | grep -c '^200$')
served=$(cat "$tmp"/par*.h | tr -d '\r' | sed -n 's/^x-served-by: //p' | sort | uniq -c | awk '{printf "%s:%s ", $2, $1}')
check parallel-30-spread "$([[ $n200 == 30 && $served == *a:* && $served == *b:* ]]; echo $?)" \
  "want 30 x 200 over both processes, got $n200 x 200, served by $served"
curl -s -D "$tmp/probe.h" -o /dev/null --max-time 10 "${H[@]}" "${xff[@]}" "http://127.0.0.1:$ph/products"
left=$(tr -d '\r' <"$tmp/probe.h" | sed -n 's/^x-ratelimit-remaining: //p')
check limiter-exact-across-processes "$([[ $left == $((LIMIT - 31)) ]]; echo $?)" \
  "want x-ratelimit-remaining $((LIMIT - 31)) after 31 requests, got '$left'"

# 3. idempotent duplicates at the same moment, one to each process
orders() { psql "$db" -AtXc 'SELECT count(*) FROM orders' 2>&1; }
before=$(orders)
same=0
for ((k = 1; k <= KEYS; k++)); do
  clients=()
  for p in a b; do
    port=$pa; [[ $p == b ]] && port=$pb
    curl -s -o "$tmp/idem$k$p" -w '%{http_code}' --max-time 30 "${H[@]}" "${JSON[@]}" \
      -H "idempotency-key: order-$k" --data '{"product":"samovar","qty":1}' \
      "http://127.0.0.1:$port/orders" >"$tmp/idem$k$p.code" &
    clients+=($!)
  done
  wait "${clients[@]}"
  if [[ $(cat "$tmp/idem${k}a.code") == 201 && $(cat "$tmp/idem${k}b.code") == 201 ]] &&
    cmp -s "$tmp/idem${k}a" "$tmp/idem${k}b"; then
    same=$((same + 1))
  fi
done
after=$(orders)
check idempotent-same-answer "$([[ $same == "$KEYS" ]]; echo $?)" \
  "want both duplicates 201 with the same body for all $KEYS keys, got $same; last: $(cat "$tmp/idem${KEYS}a.code") $(cat "$tmp/idem${KEYS}b.code")"
check idempotent-once-across-processes "$([[ $before =~ ^[0-9]+$ && $after =~ ^[0-9]+$ && $((after - before)) == "$KEYS" ]]; echo $?)" \
  "want $KEYS orders for $KEYS keys sent twice each, got $before -> $after"

# 4. a flag flipped through a is seen through b (no per-process cache on a shared store)
code=$(curl -s -o "$tmp/flag" -w '%{http_code}' --max-time 10 "${H[@]}" "${JSON[@]}" --data '{"on":true}' \
  "http://127.0.0.1:$pa/flags/banner")
curl -s -D "$tmp/banner.h" -o /dev/null --max-time 10 "${H[@]}" "http://127.0.0.1:$pb/products"
check flag-across-processes "$([[ $code == 200 ]] && tr -d '\r' <"$tmp/banner.h" | grep -qi '^x-store-banner: on$'; echo $?)" \
  "POST /flags/banner on a: $code; GET /products on b: $(tr -d '\r' <"$tmp/banner.h" | grep -i banner || echo 'no banner header')"

for ((i = ${#pids[@]} - 1; i >= 0; i--)); do
  gate_stop "${pids[$i]}" 5000 || bad stop "pid ${pids[$i]} needed SIGKILL"
done
pids=()
finish
