#!/usr/bin/env bash
# The framework's HTTP client (decision 0087; ctest client.{jit,native}):
# starts tests/client/servers.py plain and over TLS, and Python's own
# http.server plain and over TLS (a CA and certificate
# made here with the openssl tool), runs tests/client/main.wo against them in
# MODE (jit: woc run; native: woc build, then the executable) and compares
# its lines with expected.out. Exit 0 when they match, 1 otherwise.
#
#   tests/client/run.sh MODE [WOC]
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
mode=${1:?usage: run.sh jit|native [WOC]}
WOC=${2:-$root/build/bin/woc}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/wo-client.XXXXXX")
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done; rm -rf "$tmp"' EXIT
source "$root/scripts/lib/test-pki.sh"
make_test_pki "$tmp" IP:127.0.0.1 || { echo "client: openssl made no certificates: $(tail -2 "$tmp/openssl.log")"; exit 1; }
# Python's own http.server too, plain and wrapped in TLS, serving one file.
mkdir -p "$tmp/www" && printf 'served by http.server\n' >"$tmp/www/file.txt"
cat >"$tmp/stdlib_server.py" <<'PY'
import http.server, functools, os, ssl, sys
handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=sys.argv[2])
handler.keywords["directory"] = sys.argv[2]
http.server.SimpleHTTPRequestHandler.log_message = lambda *a: None
s = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
if len(sys.argv) > 3:
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(sys.argv[3], sys.argv[4])
    s.socket = ctx.wrap_socket(s.socket, server_side=True)
with open(sys.argv[1] + ".tmp", "w") as f:
    f.write(str(s.server_address[1]))
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
s.serve_forever()
PY
python3 "$tmp/stdlib_server.py" "$tmp/std_port" "$tmp/www" & pids+=($!)
python3 "$tmp/stdlib_server.py" "$tmp/std_tls_port" "$tmp/www" "$tmp/cert.pem" "$tmp/key.pem" & pids+=($!)
python3 "$here/servers.py" "$tmp/port" & pids+=($!)
python3 "$here/servers.py" "$tmp/tls_port" --tls "$tmp/cert.pem" "$tmp/key.pem" & pids+=($!)
for ((i = 0; i < 100; i++)); do
  [[ -s $tmp/port && -s $tmp/tls_port && -s $tmp/std_port && -s $tmp/std_tls_port ]] && break
  sleep 0.05
done
[[ -s $tmp/port && -s $tmp/tls_port && -s $tmp/std_port && -s $tmp/std_tls_port ]] ||
  { echo "client: the test servers did not start"; exit 1; }
export PORT=$(cat "$tmp/port") TLS_PORT=$(cat "$tmp/tls_port") CA=$tmp/ca.pem
export STD_PORT=$(cat "$tmp/std_port") STD_TLS_PORT=$(cat "$tmp/std_tls_port")
if [[ $mode == native ]]; then
  "$WOC" build "$here/main.wo" -o "$tmp/client" || exit 1
  timeout 120 "$tmp/client" >"$tmp/out" 2>"$tmp/err"
else
  timeout 120 "$WOC" run "$here/main.wo" >"$tmp/out" 2>"$tmp/err"
fi
st=$?
if ! diff -u "$here/expected.out" "$tmp/out"; then
  echo "client [$mode]: output differs from expected.out (exit $st; stderr: $(head -5 "$tmp/err" | tr '\n' ' '))"
  exit 1
fi
((st == 0)) || { echo "client [$mode]: exit $st: $(head -5 "$tmp/err" | tr '\n' ' ')"; exit 1; }
echo "client [$mode]: $(wc -l <"$tmp/out") cases as expected"
