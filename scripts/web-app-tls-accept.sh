#!/usr/bin/env bash
# The web-app over HTTPS (issue 27 item 3; docs/decisions/0086; ctest
# `web-app-tls`, label web-app): builds examples/web-app, makes a CA and a
# server certificate for 127.0.0.1 with the openssl tool, serves with
# WA_TLS_CERT / WA_TLS_KEY, and checks, with curl and Python's ssl module as
# clients that are not ours:
#   - GET /products over TLS trusting the CA (curl --cacert; Python), TLS 1.2
#     and 1.3 both served, ALPN http/1.1 chosen, keep-alive over one session;
#   - a client that does not trust the CA refuses the server (verification is
#     the client's: the server must present a chain that checks out);
#   - TLS 1.0 and 1.1 refused with a protocol_version alert;
#   - plain HTTP to the TLS port: a plain 400 saying so;
#   - garbage, a half handshake and a silent client cost nothing lasting: the
#     server still answers, and its fd count is back to where it was;
#   - SIGTERM stops it.
#
#   scripts/web-app-tls-accept.sh [WOC]
#
# WA_BIN=PATH serves that executable instead of building one; WA_KEEP=1 keeps
# the temporary directory. Prints `ok NAME` / `FAIL NAME -- DETAIL` per check
# and `web-app-tls-accept: N checks, M failures`; exits 1 on any failure.
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
WOC=${1:-$ROOT/build/bin/woc}
TOKEN=s3cr3t
source "$ROOT/scripts/lib/gate.sh"
finish() { gate_finish web-app-tls-accept; }
gate_preflight web-app-tls-accept curl python3 openssl
gate_workdir web-app-tls-accept "${WA_KEEP:-0}"

gate_web_app_bin

# A CA and a server certificate (SAN: the address the clients use), made here.
pki=$tmp/pki
source "$ROOT/scripts/lib/test-pki.sh"
make_test_pki "$pki" IP:127.0.0.1
check certificates-made "$([[ -s $pki/cert.pem && -s $pki/key.pem ]]; echo $?)" "openssl: $(tail -3 "$pki/openssl.log" | tr '\n' ' ')"

# Usage errors: the pair or nothing, and files that exist.
e=$(env -i PATH="$PATH" WO_DATA="$tmp/argdata" WA_TOKEN=$TOKEN WA_TLS_CERT="$pki/cert.pem" timeout 5 "$bin" 8443 2>&1 >/dev/null)
st=$?
check usage-cert-without-key "$([[ $st == 2 ]] && grep -q 'go together' <<<"$e"; echo $?)" "want exit 2, got $st: $e"
e=$(env -i PATH="$PATH" WO_DATA="$tmp/argdata" WA_TOKEN=$TOKEN WA_TLS_CERT="$tmp/none.pem" WA_TLS_KEY="$pki/key.pem" \
  timeout 5 "$bin" 8443 2>&1 >/dev/null)
st=$?
check usage-missing-file "$([[ $st == 2 ]] && grep -q 'no such file' <<<"$e"; echo $?)" "want exit 2, got $st: $e"

port=$(python3 "$ROOT/scripts/web-app-accept.py" freeport)
mkdir -p "$tmp/data"
log=$tmp/web-app.log
WA_TOKEN=$TOKEN WA_IDLE_MS=800 WO_DATA=$tmp/data WA_TLS_CERT=$pki/cert.pem WA_TLS_KEY=$pki/key.pem \
  "$bin" "$port" >"$log" 2>&1 &
server=$!
pids+=("$server")
for ((i = 0; i < 200; i++)); do
  grep -q listening "$log" 2>/dev/null && break
  kill -0 "$server" 2>/dev/null || break
  sleep 0.05
done
check server-starts "$(grep -q 'listening on 127.0.0.1:[0-9]* (TLS)' "$log"; echo $?)" "log: $(head -3 "$log" | tr '\n' ' ')"
url=https://127.0.0.1:$port
auth=(-H "authorization: Bearer $TOKEN" -H 'host: a')
fds() { ls "/proc/$server/fd" 2>/dev/null | wc -l; }
base_fds=$(fds)

# curl, trusting the CA; the negotiated protocol and ALPN come back in -w.
body=$(curl -s --max-time 5 --cacert "$pki/ca.pem" "${auth[@]}" \
  -w '\n%{http_code} %{http_version}' "$url/products")
check curl-products "$(head -1 <<<"$body" | grep -q '^\[' && tail -1 <<<"$body" | grep -q '^200 1.1$'; echo $?)" \
  "want 200 over HTTP/1.1 with the product list (a JSON array), got: $(tail -c 200 <<<"$body" | tr '\n' ' ')"
for v in 1.2 1.3; do
  got=$(curl -s --max-time 5 --cacert "$pki/ca.pem" --tlsv$v --tls-max $v "${auth[@]}" -o /dev/null -w '%{http_code}' "$url/products")
  check "curl-tls$v" "$([[ $got == 200 ]]; echo $?)" "TLS $v: want 200, got '$got'"
done
got=$(curl -s --max-time 5 -o /dev/null -w '%{http_code}' "$url/products"; echo " exit $?")
check curl-untrusted-refused "$(grep -q ' exit 60' <<<"$got"; echo $?)" "curl without the CA: want exit 60 (peer certificate), got '$got'"

# Python's ssl: the verified chain, ALPN and two requests on one connection.
py=$(
  timeout 10 python3 - "$port" "$pki/ca.pem" "$TOKEN" <<'EOF' 2>&1
import http.client, ssl, sys
port, ca, token = int(sys.argv[1]), sys.argv[2], sys.argv[3]
ctx = ssl.create_default_context(cafile=ca)
ctx.set_alpn_protocols(["h2", "http/1.1"])
c = http.client.HTTPSConnection("127.0.0.1", port, context=ctx, timeout=5)
out = []
for _ in range(2):
    c.request("GET", "/products", headers={"host": "a", "authorization": "Bearer " + token})
    r = c.getresponse()
    out.append(str(r.status))
    r.read()
print(" ".join(out), c.sock.version(), c.sock.selected_alpn_protocol())
EOF
)
check python-keepalive-alpn "$(grep -qE '^200 200 TLSv1\.[23] http/1\.1$' <<<"$py"; echo $?)" "want '200 200 TLSv1.x http/1.1', got: $py"

# Old protocol versions: the server answers with a protocol_version alert.
# (SECLEVEL=0 lets this client offer them; refusing is the server's part.)
for v in tls1 tls1_1; do
  o=$(timeout 5 openssl s_client -connect "127.0.0.1:$port" -"$v" -cipher 'DEFAULT@SECLEVEL=0' </dev/null 2>&1)
  check "refuses-$v" "$(grep -q 'alert protocol version' <<<"$o"; echo $?)" \
    "want a protocol_version alert, got: $(grep -iE 'alert|error|protocol' <<<"$o" | head -2 | tr '\n' ' ')"
done

# Plain HTTP to the TLS port: a plain 400 that says so.
got=$(curl -s --max-time 5 -w ' %{http_code}' "http://127.0.0.1:$port/products")
check plain-http-400 "$(grep -q 'plain HTTP sent to the HTTPS port' <<<"$got" && grep -q ' 400$' <<<"$got"; echo $?)" \
  "want 400 'plain HTTP sent to the HTTPS port', got '$got'"

# Hostile clients: garbage, a ClientHello cut short, a silent connection.
timeout 5 python3 - "$port" <<'EOF' >/dev/null 2>&1
import socket, sys, time
port = int(sys.argv[1])
g = socket.create_connection(("127.0.0.1", port)); g.sendall(b"\x16\x03\x01\xff\xff" + b"\x00" * 64)
h = socket.create_connection(("127.0.0.1", port)); h.sendall(b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03")
q = socket.create_connection(("127.0.0.1", port))
time.sleep(1.5)  # past WA_IDLE_MS: the server must have dropped the half and the silent one
for s in (g, h, q):
    s.close()
EOF
got=$(curl -s --max-time 5 --cacert "$pki/ca.pem" "${auth[@]}" -o /dev/null -w '%{http_code}' "$url/products")
check serves-after-hostile "$([[ $got == 200 ]]; echo $?)" "want 200 after the hostile clients, got '$got'"
for ((i = 0; i < 40; i++)); do
  (($(fds) <= base_fds)) && break
  sleep 0.05
done
check fds-back-to-baseline "$(($(fds) <= base_fds ? 0 : 1))" "fds: baseline $base_fds, now $(fds) (ls -l /proc/$server/fd)"

gate_stop "$server" 3000
check sigterm-stops "$?" "the server did not exit within 3 s of SIGTERM"
finish
