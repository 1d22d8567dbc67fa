#!/usr/bin/env bash
# Webhooks from the outbox (issue 27 item 5; decision 0087; ctest
# `web-app-webhook`, label web-app): examples/web-app with WA_WEBHOOK aimed at
# a receiver (Python, not woc) that answers 500 to the first two deliveries of
# each order and 200 after, counting deliveries by Idempotency-Key. An order
# is placed; its confirm job's first delivery fails; the server is killed
# with SIGKILL; the restarted server fails the second and lands the third
# (after WA_RETRY_MS's backoff: 1 s, then 2 s); later connections deliver nothing more. The
# receiver must count exactly three attempts and one accepted delivery for
# the order's key, and wf_jobs must end empty.
#
#   scripts/web-app-webhook-accept.sh [WOC]
#
# WA_BIN=PATH serves that executable instead of building one; WA_KEEP=1 keeps
# the temporary directory. Prints `ok NAME` / `FAIL NAME -- DETAIL` per check
# and `web-app-webhook-accept: N checks, M failures`; exits 1 on any failure.
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
WOC=${1:-$ROOT/build/bin/woc}
TOKEN=s3cr3t
source "$ROOT/scripts/lib/gate.sh"
finish() { gate_finish web-app-webhook-accept; }
gate_preflight web-app-webhook-accept curl python3
gate_workdir web-app-webhook-accept "${WA_KEEP:-0}"

gate_web_app_bin

e=$(env -i PATH="$PATH" WO_DATA="$tmp/argdata" WA_TOKEN=$TOKEN WA_WEBHOOK=ftp://x timeout 5 "$bin" 8080 2>&1 >/dev/null)
st=$?
check usage-bad-webhook "$([[ $st == 2 ]] && grep -q 'WA_WEBHOOK must be' <<<"$e"; echo $?)" "want exit 2, got $st: $e"

# The receiver: 500 to a key's first two deliveries, 200 after; /stats says
# "<key> <attempts> <accepted>" per key.
cat >"$tmp/receiver.py" <<'EOF'
import http.server, os, sys, threading
seen = {}
lock = threading.Lock()
class H(http.server.BaseHTTPRequestHandler):
    def log_message(self, *a): pass
    def do_POST(self):
        n = int(self.headers.get("content-length", "0"))
        self.rfile.read(n)
        key = self.headers.get("idempotency-key", "-")
        with lock:
            s = seen.setdefault(key, [0, 0])
            s[0] += 1
            ok = s[0] > 2
            if ok:
                s[1] += 1
        self.send_response(200 if ok else 500)
        self.send_header("content-length", "0")
        self.end_headers()
    def do_GET(self):
        with lock:
            body = "".join("%s %d %d\n" % (k, v[0], v[1]) for k, v in sorted(seen.items())).encode()
        self.send_response(200)
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
s = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
with open(sys.argv[1] + ".tmp", "w") as f:
    f.write(str(s.server_address[1]))
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
s.serve_forever()
EOF
python3 "$tmp/receiver.py" "$tmp/rport" &
pids+=($!)
for ((i = 0; i < 100; i++)); do [[ -s $tmp/rport ]] && break; sleep 0.05; done
rport=$(cat "$tmp/rport" 2>/dev/null)
check receiver-starts "$([[ -n $rport ]]; echo $?)" "no receiver port"
stats() { curl -s --max-time 5 "http://127.0.0.1:$rport/stats"; }

data=$tmp/data
mkdir -p "$data"
server=
port=
start() {  # LOG: a server on a fresh port, waited for (bounded)
  port=$(python3 "$ROOT/scripts/web-app-accept.py" freeport)
  WA_TOKEN=$TOKEN WO_DATA=$data WA_WEBHOOK="http://127.0.0.1:$rport/hook" WA_RETRY_MS=1000 "$bin" "$port" >"$1" 2>&1 &
  server=$!
  pids+=("$server")
  for ((i = 0; i < 200; i++)); do
    grep -q listening "$1" 2>/dev/null && return 0
    kill -0 "$server" 2>/dev/null || return 1
    sleep 0.05
  done
  return 1
}
req() {  # METHOD PATH [BODY]: a new connection each time (every new connection drains due jobs first)
  curl -s --max-time 10 -o "$tmp/body" -w '%{http_code}' -X "$1" -H "authorization: Bearer $TOKEN" -H 'host: a' \
    -H 'content-type: application/json' ${3:+--data "$3"} "http://127.0.0.1:$port$2"
}

start "$tmp/log1" || { bad server-starts "$(head -3 "$tmp/log1" | tr '\n' ' ')"; finish; }
ok server-starts
code=$(req POST /products '{"name":"mug","price":9.5,"stock":10}')
check product-created "$([[ $code == 201 ]]; echo $?)" "POST /products: $code $(cat "$tmp/body")"
code=$(req POST /orders '{"product":"mug","qty":2}')
check order-created "$([[ $code == 201 ]]; echo $?)" "POST /orders: $code $(cat "$tmp/body")"
req GET /jobs >/dev/null  # a new connection: the job's first delivery (500)
check first-delivery-failed "$(stats | grep -q '^order-[0-9]* 1 0$'; echo $?)" "receiver: $(stats | tr '\n' ' ')"
check job-kept "$(req GET /jobs >/dev/null; grep -q '"pending":1' "$tmp/body"; echo $?)" "GET /jobs: $(cat "$tmp/body")"
kill -KILL "$server"
wait "$server" 2>/dev/null

start "$tmp/log2" || { bad restart "$(head -3 "$tmp/log2" | tr '\n' ' ')"; finish; }
ok restart-after-kill
sleep 1.1  # past the first retry's 1 s
req GET /jobs >/dev/null  # the second delivery (500): the next waits 2 s
check second-delivery-failed "$(stats | grep -q '^order-[0-9]* 2 0$'; echo $?)" "receiver: $(stats | tr '\n' ' ')"
req GET /jobs >/dev/null  # well within those 2 s: too early for the third
check backoff-respected "$(stats | grep -q '^order-[0-9]* 2 0$'; echo $?)" "receiver: $(stats | tr '\n' ' ')"
sleep 2.1
req GET /jobs >/dev/null  # the third delivery: 200
check third-delivery-accepted "$(stats | grep -q '^order-[0-9]* 3 1$'; echo $?)" "receiver: $(stats | tr '\n' ' ')"
check confirmed-logged "$(grep -q 'order confirmed: 2 x mug' "$tmp/log2"; echo $?)" "log: $(tail -3 "$tmp/log2" | tr '\n' ' ')"
for ((i = 0; i < 3; i++)); do req GET /jobs >/dev/null; sleep 0.2; done
check never-again "$(stats | grep -q '^order-[0-9]* 3 1$' && [[ $(stats | wc -l) == 1 ]]; echo $?)" "receiver: $(stats | tr '\n' ' ')"
check outbox-empty "$(grep -q '"pending":0' "$tmp/body"; echo $?)" "GET /jobs: $(cat "$tmp/body")"
gate_stop "$server" 3000
check sigterm-stops "$?" "the server did not exit within 3 s of SIGTERM"
finish
