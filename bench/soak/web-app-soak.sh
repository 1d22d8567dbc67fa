#!/usr/bin/env bash
# The web-app soak (issue 25 item 4; `make soak-web-app`, on demand: not part
# of `make test` or `make bench`): examples/web-app, built with woc, under a
# mix for SOAK_SECS seconds (default 600) — keep-alive load, connection
# churn, half-sent requests, silent connections, requests dribbled a byte at
# a time, slow readers, flag flips, orders and their jobs — with its VmRSS
# and open fds sampled every 5 s (bench/soak/web_app_mix.py says what the
# mix is and when it fails).
#
#   bench/soak/web-app-soak.sh
#
# Environment:
#   WOC=PATH             the woc to use (default build/bin/woc)
#   SOAK_SECS=N          how long the load runs (default 600)
#   SOAK_RSS_SLACK_KB=N  the growth allowed after the warm-up (default 10240)
#   WO_SHARDS=N          the server's shards (default: the CPUs)
#   SOAK_APP=DIR         soak that app instead of examples/web-app (another
#                        version of it, to compare)
#   BENCH_OUT=DIR        where web-app-soak.tsv (the samples) and
#                        web-app-soak.log (the server's stderr) go
#                        (default build/bench)
# Exit status: 0 when the mix says ok, 1 otherwise.
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
WOC=${WOC:-$ROOT/build/bin/woc}
SECS=${SOAK_SECS:-600}
OUTDIR=${BENCH_OUT:-$ROOT/build/bench}
[[ -x $WOC ]] || { echo "web-app-soak: $WOC is not an executable (make build)" >&2; exit 1; }
command -v python3 >/dev/null || { echo "web-app-soak: python3 is required" >&2; exit 1; }
ulimit -n 8192 2>/dev/null || true
mkdir -p "$OUTDIR"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/web-app-soak.XXXXXX")
server=
cleanup() {
  [[ -n $server ]] && kill -KILL "$server" 2>/dev/null
  rm -rf "$tmp"
}
trap cleanup EXIT

if ! "$WOC" build "${SOAK_APP:-$ROOT/examples/web-app}" -o "$tmp/web-app" 2>"$tmp/build.err"; then
  cat "$tmp/build.err"
  echo "web-app-soak: the build failed"
  exit 1
fi
mkdir "$tmp/data"
source "$ROOT/tests/lib/listen.sh"  # start_listening
start_listening 47800 47860 "$tmp/out" "$OUTDIR/web-app-soak.log" \
  env WA_TOKEN=s3cr3t WA_IDLE_MS=2000 WO_DATA="$tmp/data" "$tmp/web-app" "{port}"
[[ -n $port ]] || { echo "web-app-soak: the server did not start"; head -5 "$OUTDIR/web-app-soak.log"; exit 1; }

echo "web-app-soak: $SECS s against examples/web-app (pid $server, port $port); samples: $OUTDIR/web-app-soak.tsv"
python3 "$ROOT/bench/soak/web_app_mix.py" "$server" "$port" "$SECS" "$OUTDIR/web-app-soak.tsv"
status=$?
kill -TERM "$server" 2>/dev/null
for _ in $(seq 100); do kill -0 "$server" 2>/dev/null || break; sleep 0.05; done
wait "$server" 2>/dev/null
server=
echo "samples (secs, VmRSS kB, fds, answers, unexpected), every 30 s:"
awk -F'\t' 'NR == 1 || (NR > 1 && ($1 % 30 < 5))' "$OUTDIR/web-app-soak.tsv" | column -t
exit $status
