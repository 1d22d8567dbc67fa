#!/usr/bin/env bash
# The web-app gate (framework.md §9.1-§9.4, legs 1-46; ctest label `web-app`,
# part of `make test`): builds examples/web-app with `woc build`, checks the
# manifest and privacy rules, then drives the storefront over HTTP with curl
# and raw sockets (scripts/web-app-accept.py): the storefront matrix, the
# slice-2 legs, and the serving slice (parallel slow requests, idle and
# slow-loris deadlines, smuggling refusals, a 1k soak with fd and RSS checks,
# pipelining, SIGTERM with a request in flight answered, restart persistence,
# error bodies that parse as JSON whatever the message: decision 0091),
# then the iteration-18 block (framework.md §6.6; decision 0029): an order's
# job survives kill -9 and is drained by the restarted server's next
# connection, a flag flipped over HTTP survives kill -9.
#
#   scripts/web-app-accept.sh [WOC]
#
# Adapted to woc (docs/decisions/0026): there is no VM, so no `[build]
# runtime`; the framework is woc's stdlib (`use framework`), so leg 1 builds
# the app with an extra small git dependency over file:// to keep the
# fetch/lock chain honest, and leg 2 checks stdlib/framework as a library.
#
# WA_TLS=1 runs every HTTP leg over HTTPS (ctest web-app.tls): the server gets
# a certificate made here (WA_TLS_CERT/WA_TLS_KEY), curl and the Python probes
# trust its CA.
# Environment: WA_APP=DIR builds that app instead of examples/web-app (to run
# the gate against a deliberately broken copy); WA_PORT=N uses port N (default:
# a free port, so parallel runs do not collide); WA_BIN=PATH serves that
# executable instead of the one leg 1 built (to aim the HTTP legs at another
# server); WA_KEEP=1 keeps the temporary directory. Prints `ok   NAME` or `FAIL NAME -- DETAIL` per check and
# `web-app-accept: N checks, M failures`; exits 1 on any failure.
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
WOC=${1:-$ROOT/build/bin/woc}
APP_SRC=${WA_APP:-$ROOT/examples/web-app}
PROBE="python3 $ROOT/scripts/web-app-accept.py"
TOKEN=s3cr3t

source "$ROOT/scripts/lib/gate.sh"  # ok, bad, check, gate_finish, gate_preflight, gate_workdir
finish() { gate_finish web-app-accept; }

gate_preflight web-app-accept curl python3 git
# 1,000 connections at once in the soak, on both ends
ulimit -n 8192 2>/dev/null || ulimit -n "$(ulimit -Hn)"

gate_workdir web-app-accept "${WA_KEEP:-0}"
export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1
g() { git -c user.name=t -c user.email=t@example.invalid -c init.defaultBranch=main "$@" >/dev/null 2>&1; }

# ------------------------------------------------------------- 9.1 build
# A tiny library in a git repository tagged v0.1.0, fetched over file://.
lib=$tmp/shopkit
mkdir -p "$lib"
printf 'name = "shopkit"\nkind = "library"\n' >"$lib/wo.toml"
printf 'pub fn motto() -> Text {\n  return "buy mugs"\n}\n' >"$lib/shopkit.wo"
g -C "$lib" init && g -C "$lib" add -A && g -C "$lib" commit -m one && g -C "$lib" tag v0.1.0
libsha=$(git -C "$lib" rev-parse HEAD 2>/dev/null)

app=$tmp/app
cp -r "$APP_SRC" "$app"
rm -rf "$app/target" "$app/.wo-deps" "$app/wo.lock"
printf '\n[deps]\nshopkit = { git = "file://%s", rev = "v0.1.0" }\n' "$lib" >>"$app/wo.toml"
bin=$app/target/web-app
mkdir -p "$app/target"
out=$("$WOC" build "$app" -o "$bin" 2>&1)
st=$?
check deps-chain-build "$([[ $st == 0 && -x $bin ]]; echo $?)" "woc build exit $st, binary $([[ -x $bin ]] && echo present || echo missing): $(head -5 <<<"$out" | tr '\n' ' ')"
check deps-chain-lock "$(grep -q "commit = \"$libsha\"" "$app/wo.lock" 2>/dev/null; echo $?)" \
  "wo.lock missing or without commit $libsha: $(cat "$app/wo.lock" 2>&1 | head -3 | tr '\n' ' ')"

fw=${WO_STDLIB:-$ROOT/stdlib}/framework
out=$("$WOC" check "$fw" 2>&1)
st=$?
check library-check-silent "$([[ $st == 0 && -z $out ]]; echo $?)" "woc check $fw: exit $st, output: $(head -5 <<<"$out" | tr '\n' ' ')"

priv=$tmp/priv
cp -r "$APP_SRC" "$priv"
rm -rf "$priv/target" "$priv/.wo-deps"
printf 'use framework/internal\n' >"$priv/zz-internal.wo"
out=$("$WOC" check "$priv" 2>&1)
st=$?
check dep-boundary-internal "$([[ $st == 1 ]] && grep -q 'WO-E108' <<<"$out"; echo $?)" \
  "want exit 1 with WO-E108, got exit $st: $(head -3 <<<"$out" | tr '\n' ' ')"

junk=$tmp/junk
cp -r "$APP_SRC" "$junk"
rm -rf "$junk/target" "$junk/.wo-deps"
{ echo 'kind = "junk"'; cat "$APP_SRC/wo.toml"; } >"$junk/wo.toml"
out=$("$WOC" check "$junk" 2>&1)
st=$?
check manifest-kind-junk "$([[ $st == 2 ]] && grep -q 'WO-E109' <<<"$out"; echo $?)" \
  "want exit 2 with WO-E109, got exit $st: $(head -3 <<<"$out" | tr '\n' ' ')"

[[ -n ${WA_BIN:-} ]] && bin=$WA_BIN
if [[ ! -x $bin ]]; then
  bad serving "no binary to serve (leg deps-chain-build failed): the HTTP legs did not run"
  finish
fi

# ------------------------------------------------------------- arguments
# usage: web-app <port>, WA_TOKEN required; anything else is exit 2 and a
# usage message on stderr (not the runtime's own exit 2 for a bad WO_DATA).
args_leg() { # NAME ENV... -- ARGS...
  local name=$1 envs=() e
  shift
  while [[ $1 != -- ]]; do envs+=("$1"); shift; done
  shift
  e=$(env -i PATH="$PATH" WO_DATA="$tmp/argdata" "${envs[@]}" timeout 5 "$bin" "$@" 2>&1 >/dev/null)
  local st=$?
  check "$name" "$([[ $st == 2 ]] && grep -qi usage <<<"$e"; echo $?)" "want exit 2 and a usage message on stderr, got exit $st, stderr '$e'"
}
mkdir -p "$tmp/argdata"
args_leg args-missing-port WA_TOKEN=$TOKEN --
args_leg args-port-not-a-number WA_TOKEN=$TOKEN -- eighty
args_leg args-missing-token -- 8080

# ------------------------------------------------------------- the server
scheme=http
tls_env=()
curl_tls=()
if [[ ${WA_TLS:-0} == 1 ]]; then
  source "$ROOT/scripts/lib/test-pki.sh"
  make_test_pki "$tmp/pki" IP:127.0.0.1 || { bad tls-certificates "$(tail -2 "$tmp/pki/openssl.log")"; finish; }
  scheme=https
  tls_env=(WA_TLS_CERT="$tmp/pki/cert.pem" WA_TLS_KEY="$tmp/pki/key.pem")
  curl_tls=(--cacert "$tmp/pki/ca.pem")
  export WA_TLS_CA=$tmp/pki/ca.pem  # the Python probes (web-app-accept.py)
fi
port=${WA_PORT:-$($PROBE freeport)}
data=$tmp/data
log=$tmp/web-app.log
mkdir -p "$data"
server=
# start_server PORT LOG: starts the app, waits (bounded) for `listening`
start_server() {
  env WA_TOKEN=$TOKEN WA_IDLE_MS=600 WO_DATA="$data" "${tls_env[@]}" "$bin" "$1" >"$2" 2>&1 &
  server=$!
  pids+=("$server")
  local i
  for ((i = 0; i < 200; i++)); do
    grep -q listening "$2" 2>/dev/null && return 0
    kill -0 "$server" 2>/dev/null || return 1
    sleep 0.05
  done
  return 1
}
if ! start_server "$port" "$log"; then
  bad server-starts "no 'listening' within 10 s on port $port; log: $(head -5 "$log" | tr '\n' ' ')"
  finish
fi
ok server-starts
base=$scheme://127.0.0.1:$port

# req METHOD PATH [CURL ARGS...]: sets $code, $body, $hdrs (with auth and
# host: $HOST, normally a)
HOST=a
req() {
  local m=$1 p=$2
  shift 2
  req_raw "$m" "$p" -H "authorization: Bearer $TOKEN" "$@"
}
# After 3 requests in a row without any answer the server is taken as wedged:
# the remaining requests and probes fail at once instead of each waiting out
# its timeout (a wedged server must fail the gate well inside ctest's limit).
silent=0
req_raw() {
  local m=$1 p=$2
  shift 2
  if ((silent >= 3)); then
    code=000 body="(skipped: the server stopped answering)" hdrs=
    return
  fi
  code=$(curl -s "${curl_tls[@]}" -X "$m" --max-time 3 -o "$tmp/body" -D "$tmp/hdrs" -w '%{http_code}' \
    -H "host: $HOST" "$@" "$base$p" 2>/dev/null)
  body=$(cat "$tmp/body" 2>/dev/null)
  hdrs=$(tr -d '\r' <"$tmp/hdrs" 2>/dev/null)
  [[ $code == 000 ]] && silent=$((silent + 1)) || silent=0
}
# want NAME STATUS [BODY-SUBSTRING]
want() {
  local name=$1 st=$2 sub=${3:-}
  if [[ $code == "$st" && ( -z $sub || $body == *"$sub"* ) ]]; then
    ok "$name"
  else
    bad "$name" "want $st${sub:+ with '$sub'}, got $code '${body:0:160}'"
  fi
}
JSON=(-H 'content-type: application/json')

# ------------------------------------------------------------- 9.2 storefront
req_raw GET /products; want no-token-401 401
req_raw GET /products -H 'authorization: Bearer wrong!' -H 'connection: close'; want wrong-token-401 401
req GET /products; if [[ $code == 200 && $body == "[]" ]]; then ok empty-list; else bad empty-list "want 200 '[]', got $code '$body'"; fi
req POST /products "${JSON[@]}" --data '{"name":"mug","price":9.99,"stock":5}'; want create-json-201 201 '"price":9.99'
req POST /products "${JSON[@]}" --data '{"name":"mug","price":1.5,"stock":1}'; want duplicate-409 409
req POST /products "${JSON[@]}" --data '{"name":"plate","price":12,"stock":3}'; want int-price-201 201 '"price":12.0'
req POST /products "${JSON[@]}" --data '{oops'; want malformed-json-400 400
req POST /products -H 'content-type: application/x-www-form-urlencoded; charset=UTF-8' \
  --data 'name=form+kettle&price=12.50&stock=2'; want form-create-201 201 '"name":"form kettle"'
req POST /products -H 'content-type: application/x-www-form-urlencoded' \
  --data 'name=bad+price&price=cheap&stock=2'; want form-bad-price-400 400
printf -- '--BXB\r\nContent-Disposition: form-data; name="name"\r\n\r\nmp teapot\r\n--BXB\r\nContent-Disposition: form-data; name="price"\r\n\r\n20.5\r\n--BXB\r\nContent-Disposition: form-data; name="stock"\r\n\r\n4\r\n--BXB--\r\n' >"$tmp/mp"
req POST /products -H 'content-type: multipart/form-data; boundary=BXB' --data-binary "@$tmp/mp"; want multipart-create-201 201 '"name":"mp teapot"'
printf -- '--BXB\r\nContent-Disposition: form-data; name="name"\r\n\r\nmp broken\r\n--BXB\r\nContent-Disposition: form-data; name="price"\r\n\r\n1.5\r\n--BXB\r\nContent-Disposition: form-data; name="stock"\r\n\r\n4\r\n' >"$tmp/mp-open"
req POST /products -H 'content-type: multipart/form-data; boundary=BXB' --data-binary "@$tmp/mp-open"; want multipart-unclosed-400 400
req GET /products; want list-has-9.99 200 '"price":9.99'
req GET /products; want list-has-12.5 200 '"price":12.5'
req GET /products/mug; want get-one-200 200 '"stock":5'
req GET /products/none; want get-unknown-404 404
req POST /orders "${JSON[@]}" --data '{"product":"mug","qty":2}'; want order-201 201
req DELETE /products/mug; want delete-referenced-409 409 reference
req GET /products/mug; want delete-server-survives 200 '"name":"mug"'
req PUT /products
if [[ $code == 405 ]] && grep -qiE '^allow: GET, POST$' <<<"$hdrs"; then ok put-405-allow; else
  bad put-405-allow "want 405 with 'Allow: GET, POST', got $code, allow: '$(grep -i '^allow:' <<<"$hdrs")'"; fi
r=$($PROBE head "$port"); check head-like-get "$([[ $r == ok* ]]; echo $?)" "${r#bad }"

# ------------------------------------------------------------- 9.3 slice 2
C=(-H 'connection: close')
req GET /files/a/b/c "${C[@]}"; want files-wildcard 200 'path=a/b/c'
req GET /files "${C[@]}"; if [[ $code == 200 && $body == "path=" ]]; then ok files-empty-rest; else bad files-empty-rest "want 200 'path=', got $code '$body'"; fi
req GET /api/ping "${C[@]}"; want group-middleware 200 'pong via=api-group'
req GET /etag-probe "${C[@]}"
tag=$(sed -n 's/^[Ee][Tt][Aa][Gg]: *//p' <<<"$hdrs" | head -1)
if [[ $code == 200 && $tag == \"*\" ]]; then ok etag-header; else bad etag-header "want 200 with etag: \"...\", got $code, etag '$tag'"; fi
req GET /etag-probe "${C[@]}" -H "if-none-match: $tag"; want etag-304 304
req GET /nego "${C[@]}" -H 'accept: text/html'; want nego-406 406
req GET /nego "${C[@]}" -H 'accept: application/*'; want nego-200 200 '"ok":true'
req GET /products "${C[@]}"
nosniff=$(grep -n -i '^x-content-type-options: nosniff$' <<<"$hdrs" | head -1 | cut -d: -f1)
frame=$(grep -n -i '^x-frame-options: DENY$' <<<"$hdrs" | head -1 | cut -d: -f1)
check security-headers-order "$([[ -n $nosniff && -n $frame && $nosniff -lt $frame ]]; echo $?)" \
  "want nosniff before x-frame-options: DENY, lines '$nosniff' and '$frame'"
HOST=evil req GET /products "${C[@]}"; want host-allow-421 421
req_raw OPTIONS /products "${C[@]}" -H 'origin: http://x' -H 'access-control-request-method: POST'
acao=$(grep -n -i '^access-control-allow-origin: \*$' <<<"$hdrs" | head -1 | cut -d: -f1)
acam=$(grep -n -i '^access-control-allow-methods:' <<<"$hdrs" | head -1 | cut -d: -f1)
check cors-preflight-204 "$([[ $code == 204 && -n $acao && -n $acam && $acao -lt $acam ]]; echo $?)" \
  "want 204, allow-origin * before allow-methods; got $code, lines '$acao' '$acam'"
req GET /products "${C[@]}" -H 'origin: http://x'
check cors-stamped "$([[ $code == 200 ]] && grep -qi '^access-control-allow-origin: \*$' <<<"$hdrs"; echo $?)" \
  "want 200 with access-control-allow-origin: *, got $code"

# ------------------------------------------------------------- 9.4 serving
probe() { # NAME PROBE: runs the python probe, ok when it says ok
  local r
  if ((silent >= 3)); then
    bad "$1" "skipped: the server stopped answering"
    return
  fi
  r=$($PROBE "$2" "$port" 2>&1)
  check "$1" "$([[ $r == ok* ]]; echo $?)" "${r#bad }"
}
probe parallel-slow slow
probe idle-deadline idle
probe slow-loris-400 loris
probe two-content-length-400 two-cl
probe transfer-encoding-400 chunked
# Error bodies are JSON whatever the message (issue 28 item 4, decision
# 0091): every builder through GET /error-probe/<builder>?msg= with quotes,
# backslashes, control bytes, NUL and UTF-8, parsed back by Python's json;
# then the bodies the framework writes itself (404, 405, 401, 421, and the
# parser's reason for a malformed request).
probe error-bodies-builders error-builders
probe error-bodies-served error-served

fds() { ls "/proc/$server/fd" 2>/dev/null | wc -l; }
fds_before=$(fds)
probe soak-1k soak
# The server closes its side of the last idle connections on its own clock:
# give it (bounded) time to come home.
for ((i = 0; i < 40; i++)); do
  (($(fds) <= fds_before + 8)) && break
  sleep 0.05
done
fds_after=$(fds)
check soak-fds-home "$([[ $fds_after -le $((fds_before + 8)) && $fds_after -gt 0 ]]; echo $?)" \
  "fds before $fds_before, after $fds_after (limit before + 8)"
rss=$(awk '/^VmRSS:/ {print $2}' "/proc/$server/status" 2>/dev/null)
check soak-rss "$([[ -n $rss && $rss -lt 409600 ]]; echo $?)" "VmRSS ${rss:-unknown} kB (limit 409600)"
req GET /products; want soak-healthy 200 '"name":"mug"'
probe pipelined-keep-alive pipeline
# 300 connections one after another after the soak, one actor each
# (bench/soak/ checks that the heap does not grow with them).
probe churn-300 churn

# stop_server MS: SIGTERM, then waits (bounded) for the exit; 0 = it exited
# (else it is killed with SIGKILL)
stop_server() { gate_stop "$server" "$1"; }
# SIGTERM while a /slow request is in flight (issue 9 item 5; decision
# 0027): the server still answers it, then exits within 3 s.
starts=$(grep -c '^slow start$' "$log")
curl -s "${curl_tls[@]}" -m 10 -o "$tmp/inflight.body" -w '%{http_code}' -H 'host: a' -H "authorization: Bearer $TOKEN" \
  "$base/slow" >"$tmp/inflight.code" 2>/dev/null &
inflight=$!
for ((i = 0; i < 200; i++)); do
  [[ $(grep -c '^slow start$' "$log") -gt $starts ]] && break
  sleep 0.025
done
stop_server 3000
check sigterm-stops $? "still running 3 s after SIGTERM"
wait "$inflight"
conns=$(grep -o '^web-app: stopped after [0-9]* connections$' "$log" | tr -dc 0-9)
check stop-counts-connections "$([[ -n $conns && $conns -ge 1300 ]]; echo $?)" \
  "the stop line says ${conns:-nothing} connections (want >= 1300: the soak's 1000 and the churn's 300)"
check sigterm-inflight-answered "$([[ $(cat "$tmp/inflight.code") == 200 ]] && grep -q 'slow done' "$tmp/inflight.body"; echo $?)" \
  "the request in flight at SIGTERM got '$(cat "$tmp/inflight.code")' $(head -c 80 "$tmp/inflight.body")"

port2=$($PROBE freeport)
if start_server "$port2" "$tmp/web-app-2.log"; then
  base=$scheme://127.0.0.1:$port2
  silent=0
  req GET /products; want restart-persistence 200 '"name":"mug"'
  stop_server 3000
else
  bad restart-persistence "the second server did not start: $(head -3 "$tmp/web-app-2.log" | tr '\n' ' ')"
fi

# ============================================================= iteration 18
# Jobs and flags (framework.md §6.6, issue 10; docs/decisions/0028, 0029),
# each server killed with SIGKILL: an order's `confirm` job commits with the
# order, is not run on the connection that enqueued it, survives a kill -9
# and is drained when the restarted server accepts its next connection; a
# flag set over HTTP gates a header on GET /products and survives a kill -9.
# restart_server NAME: a fresh server on a new port and log (same WO_DATA)
restart_server() {
  local p
  p=$($PROBE freeport)
  rlog=$tmp/web-app-$1.log
  if start_server "$p" "$rlog"; then
    base=$scheme://127.0.0.1:$p
    silent=0
    return 0
  fi
  bad "$1-starts" "no 'listening': $(head -3 "$rlog" | tr '\n' ' ')"
  return 1
}
kill9_server() {
  kill -KILL "$server" 2>/dev/null
  wait "$server" 2>/dev/null
}
confirm_line='order confirmed: 7 x mug'
if restart_server jobs-a; then
  req_raw GET /jobs; want jobs-needs-auth 401
  req POST /orders "${JSON[@]}" --data '{"product":"mug","qty":7}'; want jobs-order-201 201 '{"ok":true}'
  kill9_server
  check jobs-not-on-enqueuing-conn "$(! grep -qF "$confirm_line" "$rlog"; echo $?)" \
    "the job ran before the server was killed (drained on the enqueuing connection): $(grep -F "$confirm_line" "$rlog")"
fi
if restart_server jobs-b; then
  req GET /jobs; want jobs-pending-zero 200 '{"pending":0}'
  n=$(grep -cF "$confirm_line" "$rlog")
  check jobs-drained-after-kill "$([[ $n == 1 ]]; echo $?)" \
    "want one '$confirm_line' in the restarted server's log before GET /jobs answered, found $n (log: $(head -c 200 "$rlog" | tr '\n' ' '))"
  req GET /products
  check flag-off-no-header "$([[ $code == 200 ]] && ! grep -qi '^x-store-banner:' <<<"$hdrs"; echo $?)" \
    "want 200 without x-store-banner, got $code, $(grep -i '^x-store-banner' <<<"$hdrs")"
  req POST /flags/banner "${JSON[@]}" --data '{"on":true}'; want flag-set-200 200 '{"name":"banner","on":true}'
  req GET /products
  check flag-header-on "$([[ $code == 200 ]] && grep -qi '^x-store-banner: on$' <<<"$hdrs"; echo $?)" \
    "want 200 with x-store-banner: on, got $code, headers: $(tr '\n' ' ' <<<"$hdrs" | head -c 200)"
  kill9_server
fi
if restart_server flags-c; then
  req GET /products
  check flag-survives-restart "$([[ $code == 200 ]] && grep -qi '^x-store-banner: on$' <<<"$hdrs"; echo $?)" \
    "want x-store-banner: on after kill -9 and restart, got $code, headers: $(tr '\n' ' ' <<<"$hdrs" | head -c 200)"
  req POST /flags/banner "${JSON[@]}" --data '{"on":false}'; want flag-unset-200 200 '"on":false'
  req GET /products
  check flag-off-again "$([[ $code == 200 ]] && ! grep -qi '^x-store-banner:' <<<"$hdrs"; echo $?)" \
    "want no x-store-banner once the flag is off, got $code"
  stop_server 3000
fi
# ========================================================= end iteration 18
finish
