#!/usr/bin/env bash
# The porch gate legs (framework.md §9.5-§9.8; ctest `porch`, label web-app):
# builds the small programs under tests/porch with `woc build` and drives
# them with curl: the key pool (leg 47), the limiter (legs 48-56), the
# idempotency layer (legs 57-72), its deadline for a waiting duplicate
# (idem-deadline-*, decision 0047) and its saturation (legs 73-79). Parallel
# legs use backgrounded curl processes. tests/porch/mutants.sh runs this
# script against broken variants (each must fail a leg).
#
#   scripts/porch-accept.sh [WOC]
#
# Environment: PORCH_SRC=DIR takes the test programs from DIR instead of
# tests/porch (to run the legs against a deliberately broken copy);
# WO_STDLIB as for woc (a broken copy of the framework); PORCH_KEEP=1 keeps
# the temporary directory. Every server runs on a free port, every wait is
# bounded. Prints `ok   NAME` or `FAIL NAME -- DETAIL` per check and
# `porch-accept: N checks, M failures`; exits 1 on any failure.
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
WOC=${1:-$ROOT/build/bin/woc}
SRC=${PORCH_SRC:-$ROOT/tests/porch}
FREEPORT="python3 $ROOT/scripts/web-app-accept.py freeport"

source "$ROOT/scripts/lib/gate.sh"  # ok, bad, check, gate_finish, gate_preflight, gate_workdir
finish() { gate_finish porch-accept; }

gate_preflight porch-accept curl python3

gate_workdir porch-accept "${PORCH_KEEP:-0}"

# build NAME: woc build $SRC/NAME -> $tmp/NAME; 0 when the binary exists
build() {
  local out st
  out=$("$WOC" build "$SRC/$1" -o "$tmp/$1" 2>&1)
  st=$?
  [[ $st == 0 && -x $tmp/$1 ]] && return 0
  echo "woc build $1: exit $st: $(head -5 <<<"$out" | tr '\n' ' ')"
  return 1
}

server=
# start BIN LOG DATA ARGS...: starts a server with WO_DATA=DATA (plus any
# SERVER_ENV), waits (bounded, 10 s) for `listening`; sets $server
start() {
  local bin=$1 log=$2 data=$3 i
  shift 3
  mkdir -p "$data"
  env ${SERVER_ENV:-} WO_DATA="$data" "$bin" "$@" >"$log" 2>&1 &
  server=$!
  pids+=("$server")
  for ((i = 0; i < 200; i++)); do
    grep -q listening "$log" 2>/dev/null && return 0
    kill -0 "$server" 2>/dev/null || return 1
    sleep 0.05
  done
  return 1
}
# stop MS: SIGTERM, then waits (bounded) for the exit; 0 = it exited, else
# it is killed with SIGKILL and 1 is returned
stop() { gate_stop "$server" "$1"; }
# hit URL [CURL ARGS...]: sets $code, $body, $hdrs (lowercased names)
hit() {
  local url=$1
  shift
  code=$(curl -s --max-time 5 -o "$tmp/body" -D "$tmp/hdrs" -w '%{http_code}' "$@" "$url" 2>/dev/null)
  body=$(cat "$tmp/body" 2>/dev/null)
  hdrs=$(tr -d '\r' <"$tmp/hdrs" 2>/dev/null | sed 's/^\([^:]*\):/\L\1:/')
}
# header NAME: the value of header NAME in $hdrs ("" if absent)
header() { sed -n "s/^$1: *//p" <<<"$hdrs" | head -1; }

# ------------------------------------------------------------- 9.5 key pool
if msg=$(build keypool-driver); then
  mkdir -p "$tmp/kp-data"
  out=$(WO_DATA=$tmp/kp-data timeout 20 "$tmp/keypool-driver" 2>&1)
  check keypool-counts-1-then-2 "$(grep -qx 'counts 1 2' <<<"$out"; echo $?)" "want 'counts 1 2', got: $(tr '\n' ' ' <<<"$out")"
  read -r reset before after < <(sed -n 's/^reset \([0-9]*\) before \([0-9]*\) after \([0-9]*\)$/\1 \2 \3/p' <<<"$out")
  check keypool-reset-instant "$([[ -n ${reset:-} && $reset -ge $((before + 55000)) && $reset -le $((after + 65000)) ]]; echo $?)" \
    "reset_at '${reset:-?}' not within [before + 55000, after + 65000] ms (before ${before:-?}, after ${after:-?})"
else
  bad keypool-counts-1-then-2 "$msg"
fi

# ------------------------------------------------------------- 9.6 limiter
if msg=$(build limiter-server); then
  ok limiter-compiles
  lport=$($FREEPORT)
  lbase=http://127.0.0.1:$lport
  if start "$tmp/limiter-server" "$tmp/limiter.log" "$tmp/lim-data" "$lport" 5; then
    codes=
    for i in 1 2 3 4 5 6; do
      hit "$lbase/ping" -H 'x-forwarded-for: 6.6.6.6'
      codes="$codes $code"
    done
    check limiter-threshold-429 "$([[ $codes == " 200 200 200 200 200 429" ]]; echo $?)" "want 200x5 then 429, got$codes"
    check limiter-429-retry-after "$([[ $(header retry-after) =~ ^[0-9]+$ ]]; echo $?)" "the 429 has no numeric retry-after: $(tr '\n' ' ' <<<"$hdrs")"
    check limiter-429-remaining-0 "$([[ $(header x-ratelimit-remaining) == 0 ]]; echo $?)" "want x-ratelimit-remaining: 0 on the 429, got '$(header x-ratelimit-remaining)'"
    hit "$lbase/ping" -H 'x-forwarded-for: 6.6.6.7'
    check limiter-allowed-headers "$([[ $code == 200 && $(header x-ratelimit-limit) == 5 && $(header x-ratelimit-remaining) == 4 ]]; echo $?)" \
      "want 200 with x-ratelimit-limit: 5 and remaining 4 on a fresh key, got $code, limit '$(header x-ratelimit-limit)', remaining '$(header x-ratelimit-remaining)'"
    codes=
    for i in 1 2 3 4 5 6; do
      hit "$lbase/ping"     # no XFF, a new connection each time: keyed on the peer
      codes="$codes $code"
    done
    check limiter-peer-fallback "$([[ $codes == " 200 200 200 200 200 200" ]]; echo $?)" "want six 200s keyed on net.peer, got$codes"
    stop 3000
    check limiter-sigterm-stops $? "still running 3 s after SIGTERM (killed)"
    rport=$($FREEPORT)
    if start "$tmp/limiter-server" "$tmp/limiter-2.log" "$tmp/lim-data" "$rport" 5; then
      hit "http://127.0.0.1:$rport/ping" -H 'x-forwarded-for: 6.6.6.6'
      check limiter-restart-still-limited "$([[ $code == 429 ]]; echo $?)" "want 429 for 6.6.6.6 after a restart on the same WO_DATA, got $code"
      stop 3000
    else
      bad limiter-restart-still-limited "the restarted server did not start: $(head -3 "$tmp/limiter-2.log" | tr '\n' ' ')"
    fi
    # 30 truly parallel clients (backgrounded curl processes), then a probe
    cport=$($FREEPORT)
    if start "$tmp/limiter-server" "$tmp/limiter-3.log" "$tmp/lim-data-3" "$cport" 1000; then
      cpids=()
      for i in $(seq 1 30); do
        curl -s --max-time 10 -o /dev/null -w '%{http_code}\n' -H 'x-forwarded-for: 6.6.6.8' \
          "http://127.0.0.1:$cport/ping" >"$tmp/par.$i" 2>/dev/null &
        cpids+=($!)
      done
      wait "${cpids[@]}"
      n200=$(cat "$tmp"/par.* | grep -cx 200)
      hit "http://127.0.0.1:$cport/ping" -H 'x-forwarded-for: 6.6.6.8'
      check limiter-exact-under-30-parallel "$([[ $n200 == 30 && $(header x-ratelimit-remaining) == 969 ]]; echo $?)" \
        "want 30 x 200 and x-ratelimit-remaining 969 on the probe, got $n200 x 200 and '$(header x-ratelimit-remaining)'"
      stop 3000
    else
      bad limiter-exact-under-30-parallel "the server did not start: $(head -3 "$tmp/limiter-3.log" | tr '\n' ' ')"
    fi
  else
    bad limiter-threshold-429 "the server did not start: $(head -3 "$tmp/limiter.log" | tr '\n' ' ')"
  fi
else
  bad limiter-compiles "$msg"
fi

# ------------------------------------------------------------- 9.7 idempotency
# post PATH KEY BODY OUTFILE [HEADERFILE]: one keyed POST; prints the status
post() {
  curl -s --max-time 10 -o "$4" -D "${5:-/dev/null}" -w '%{http_code}' -X POST -H "idempotency-key: $2" \
    -H 'content-type: text/plain' --data-binary "$3" "$ibase$1" 2>/dev/null
}
# count PATH: N from {"count":N}
count() { curl -s --max-time 5 "$ibase$1" 2>/dev/null | sed -n 's/^{"count":\([0-9]*\)}$/\1/p'; }
ms() { date +%s%3N; }
if msg=$(build idem-server); then
  ok idem-compiles
  iport=$($FREEPORT)
  ibase=http://127.0.0.1:$iport
  if start "$tmp/idem-server" "$tmp/idem.log" "$tmp/idem-data" "$iport"; then
    a=$(post /create leg8-key hello "$tmp/r1"); b=$(post /create leg8-key hello "$tmp/r2")
    check idem-replay-200-200 "$([[ $a == 200 && $b == 200 ]]; echo $?)" "want 200, 200, got $a, $b"
    check idem-replay-byte-identical "$(cmp -s "$tmp/r1" "$tmp/r2"; echo $?)" "bodies differ: '$(head -c 80 "$tmp/r1")' vs '$(head -c 80 "$tmp/r2")'"
    n=$(count /execs)
    check idem-handler-ran-once "$([[ $n == 1 ]]; echo $?)" "want ExecMark count 1, got '$n'"

    a=$(post /create leg9-key bodyA "$tmp/r3"); b=$(post /create leg9-key bodyB "$tmp/r4")
    check idem-digest-mismatch-422 "$([[ $a == 200 && $b == 422 ]]; echo $?)" "want 200 then 422, got $a, $b"
    check idem-422-is-refusal "$(grep -q 'idempotency key reused with a different request' "$tmp/r4" && ! grep -q bodyA "$tmp/r4"; echo $?)" \
      "the 422 body is '$(head -c 120 "$tmp/r4")'"
    n=$(count /execs)
    check idem-mismatch-not-run "$([[ $n == 2 ]]; echo $?)" "want ExecMark count 2, got '$n'"

    # two truly parallel duplicates (backgrounded curl processes)
    t0=$(ms)
    post /create leg10-key same "$tmp/c1" >"$tmp/c1.code" &
    p1=$!
    post /create leg10-key same "$tmp/c2" >"$tmp/c2.code" &
    p2=$!
    wait $p1 $p2
    t1=$(ms)
    check idem-concurrent-both-200 "$([[ $(cat "$tmp/c1.code") == 200 && $(cat "$tmp/c2.code") == 200 ]]; echo $?)" \
      "want 200 and 200, got $(cat "$tmp/c1.code") and $(cat "$tmp/c2.code")"
    check idem-concurrent-same-body "$(cmp -s "$tmp/c1" "$tmp/c2"; echo $?)" "'$(head -c 80 "$tmp/c1")' vs '$(head -c 80 "$tmp/c2")'"
    check idem-concurrent-overlapped "$([[ $((t1 - t0)) -lt 900 ]]; echo $?)" "the two took $((t1 - t0)) ms (serial would be 1000+)"
    n=$(count /execs)
    check idem-concurrent-once "$([[ $n == 3 ]]; echo $?)" "want ExecMark count 3, got '$n'"

    a=$(post /flaky leg11-key x "$tmp/f1"); b=$(post /flaky leg11-key x "$tmp/f2")
    check idem-5xx-not-replayed "$([[ $a == 500 && $b == 200 ]]; echo $?)" "want 500 then 200, got $a, $b"

    post /flaky2 leg12-key y "$tmp/g1" >"$tmp/g1.code" &
    p1=$!
    post /flaky2 leg12-key y "$tmp/g2" >"$tmp/g2.code" &
    p2=$!
    wait $p1 $p2
    pair=$(sort <(cat "$tmp/g1.code"; echo) <(cat "$tmp/g2.code"; echo) | tr -d '\n')
    check idem-concurrent-5xx-one-each "$([[ $pair == 200500 ]]; echo $?)" "want one 500 and one 200, got $(cat "$tmp/g1.code") and $(cat "$tmp/g2.code")"
    n=$(count /flaky2count)
    check idem-concurrent-5xx-both-ran "$([[ $n == 2 ]]; echo $?)" "want FlakyMark2 count 2, got '$n'"

    base_rows=$(count /idemkeycount)
    for i in 1 2 3; do post /alwaysfail leg13-key z "$tmp/z" >/dev/null; done
    n=$(count /idemkeycount)
    check idem-no-row-accumulation "$([[ -n $base_rows && $n == "$base_rows" ]]; echo $?)" "IdempotencyKey rows $base_rows before, $n after three failing attempts"

    # the deadline for a waiting duplicate (decision 0047): POST /held has
    # wait_ms 300 and holds its handler until POST /release; one key actor
    post /held dl-key one "$tmp/h1" "$tmp/h1.h" >"$tmp/h1.code" &
    ph1=$!
    for ((i = 0; i < 200; i++)); do
      [[ $(count /heldcount) == 1 ]] && break
      sleep 0.05
    done
    check idem-deadline-first-running "$([[ $(count /heldcount) == 1 ]]; echo $?)" "the held handler did not start within 10 s"
    post /held dl-fresh two "$tmp/h2" >"$tmp/h2.code" &  # a fresh key queued behind it
    ph2=$!
    t0=$(ms)
    c=$(post /held dl-key one "$tmp/h3" "$tmp/h3.h")
    t1=$(ms)
    check idem-deadline-409 "$([[ $c == 409 ]]; echo $?)" "want 409 for a duplicate of a running request, got $c"
    check idem-deadline-409-body "$(grep -q 'request in progress' "$tmp/h3"; echo $?)" "the 409 body is '$(head -c 100 "$tmp/h3")'"
    ra=$(tr -d '\r' <"$tmp/h3.h" | sed -n 's/^[Rr]etry-[Aa]fter: *//p')
    check idem-deadline-409-retry-after "$([[ $ra =~ ^[0-9]+$ ]]; echo $?)" "the 409 has retry-after '$ra'"
    check idem-deadline-within-bound "$([[ $((t1 - t0)) -ge 300 && $((t1 - t0)) -lt 2500 ]]; echo $?)" \
      "the duplicate answered after $((t1 - t0)) ms (wait_ms 300; want [300, 2500))"
    check idem-deadline-first-still-running "$(kill -0 $ph1 2>/dev/null && [[ ! -s $tmp/h1.code ]]; echo $?)" \
      "the first request ended before the release: $(cat "$tmp/h1.code")"
    rel=$(curl -s --max-time 5 -o /dev/null -w '%{http_code}' -X POST "$ibase/release" 2>/dev/null)
    wait $ph1 $ph2
    check idem-deadline-first-200 "$([[ $rel == 200 && $(cat "$tmp/h1.code") == 200 ]]; echo $?)" \
      "want the release 200 and the first request 200, got $rel and $(cat "$tmp/h1.code")"
    check idem-deadline-fresh-not-refused "$([[ $(cat "$tmp/h2.code") == 200 ]]; echo $?)" \
      "a fresh key queued behind the held one got $(cat "$tmp/h2.code") ('$(head -c 80 "$tmp/h2")'), want 200"
    c=$(post /held dl-key one "$tmp/h4")
    check idem-deadline-retry-replays "$([[ $c == 200 ]] && cmp -s "$tmp/h1" "$tmp/h4"; echo $?)" \
      "the retry got $c '$(head -c 80 "$tmp/h4")', the first '$(head -c 80 "$tmp/h1")'"
    n=$(count /heldcount)
    check idem-deadline-duplicate-not-run "$([[ $n == 2 ]]; echo $?)" "want HeldMark count 2 (first and fresh), got '$n'"

    stop 3000
    check idem-sigterm-stops $? "still running 3 s after SIGTERM (killed)"
  else
    bad idem-replay-200-200 "the server did not start: $(head -3 "$tmp/idem.log" | tr '\n' ' ')"
  fi

  # ----------------------------------------------------------- 9.8 saturation
  # the same server program: one actor, WO_MAILBOX=2, POST /slow (3 s)
  sport=$($FREEPORT)
  ibase=http://127.0.0.1:$sport
  if SERVER_ENV=WO_MAILBOX=2 start "$tmp/idem-server" "$tmp/sat.log" "$tmp/sat-data" "$sport" 1; then
    spids=()
    for i in $(seq 1 15); do
      post /slow "sat-$i" s "$tmp/s$i" "$tmp/s$i.h" >"$tmp/s$i.code" &
      spids+=($!)
    done
    wait "${spids[@]}"
    n200=0 n503=0 other=
    for i in $(seq 1 15); do
      case $(cat "$tmp/s$i.code") in
        200) n200=$((n200 + 1)) ;;
        503) n503=$((n503 + 1)); last503=$i ;;
        *) other="$other $(cat "$tmp/s$i.code")" ;;
      esac
    done
    check sat-only-200-or-503 "$([[ -z $other ]]; echo $?)" "other answers:$other"
    check sat-exactly-cap-plus-1 "$([[ $n200 == 3 && $n503 == 12 ]]; echo $?)" "want 3 x 200 and 12 x 503, got $n200 and $n503"
    n=$(count /satcount)
    check sat-every-success-counted "$([[ $n == "$n200" ]]; echo $?)" "SatMark count '$n', 200s $n200"
    if [[ -n ${last503:-} ]]; then
      ra=$(tr -d '\r' <"$tmp/s$last503.h" | sed -n 's/^[Rr]etry-[Aa]fter: *//p')
      check sat-503-retry-after "$([[ $ra =~ ^[0-9]+$ ]]; echo $?)" "the 503 has retry-after '$ra'"
      check sat-503-body "$(grep -q 'idempotency store saturated' "$tmp/s$last503"; echo $?)" "the 503 body is '$(head -c 100 "$tmp/s$last503")'"
    else
      bad sat-503-retry-after "no 503 to look at"
      bad sat-503-body "no 503 to look at"
    fi
    stop 3000 || true
    ok sat-teardown
  else
    bad sat-exactly-cap-plus-1 "the server did not start: $(head -3 "$tmp/sat.log" | tr '\n' ' ')"
  fi
else
  bad idem-compiles "$msg"
fi

finish
