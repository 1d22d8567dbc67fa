#!/usr/bin/env bash
# The framework's HTTP client (decision 0087; ctest client.{jit,native}):
# starts tests/client/servers.py plain and over TLS (a CA and certificate
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
python3 "$here/servers.py" "$tmp/port" & pids+=($!)
python3 "$here/servers.py" "$tmp/tls_port" --tls "$tmp/cert.pem" "$tmp/key.pem" & pids+=($!)
for ((i = 0; i < 100; i++)); do
  [[ -s $tmp/port && -s $tmp/tls_port ]] && break
  sleep 0.05
done
[[ -s $tmp/port && -s $tmp/tls_port ]] || { echo "client: the test servers did not start"; exit 1; }
export PORT=$(cat "$tmp/port") TLS_PORT=$(cat "$tmp/tls_port") CA=$tmp/ca.pem
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
