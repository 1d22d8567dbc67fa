#!/usr/bin/env bash
# Connection churn, the long version (issue 25 item 4; `make bench-soak`,
# also run by `make bench`): tests/soak/conn-soak.sh with 200,000 short
# connections (BENCH_SOAK_CONNS) against a framework server in three shapes,
# each checked for a flat VmRSS after the first 10,000 connections (within
# 5 MB) and its fds back at their start:
#   actors  framework.md §3.2: one actor per connection, spawned by the
#           app's accept loop (needs the runtime to collect unreachable
#           actors)
#   pool    the same, the workers reused through a pool actor (what
#           examples/web-app did while actors lived forever)
#   serve   App.serve, concurrent (decision 0082)
# and the connection rates and the server's CPU per connection side by side
# (the client, tests/soak/conn_soak.py, is Python on the same machine: the
# rate is mostly the client's; the CPU per connection compares the shapes). The 10-minute web-app soak is bench/soak/web-app-soak.sh
# (`make soak-web-app`).
#
# Environment: WOC=PATH (default build/bin/woc), BENCH_SOAK_CONNS=N,
# BENCH_OUT=DIR (soak.txt goes there; default build/bench).
# Exit status: 0 when every shape stayed flat, 1 otherwise.
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
source "$ROOT/bench/lib/format.sh"  # say, rec, bench_results, machine_facts, bench_end
WOC=${WOC:-$ROOT/build/bin/woc}
N=${BENCH_SOAK_CONNS:-200000}
OUTDIR=${BENCH_OUT:-$ROOT/build/bench}
mkdir -p "$OUTDIR"
bench_results "$OUTDIR/soak.txt"
hr() { say "----------------------------------------------------------------------------------------------"; }
machine_facts
hr
say "connection soak: $N connections per shape, 4 client threads; $ncpu CPUs, load $loadavg"
hr
for mode in actors pool serve; do
  out=$(bash "$ROOT/tests/soak/conn-soak.sh" "$WOC" "$mode" "$N" 2>&1)
  st=$?
  say "$out" | sed "s/^/[$mode] /"
  rate=$(sed -n 's/^connections: .*(\([0-9]*\)\/s)$/\1/p' <<<"$out")
  growth=$(sed -n 's/^VmRSS kB: .*: \([-+][0-9]*\) kB over.*/\1/p' <<<"$out")
  cpu_us=$(sed -n 's/^server CPU: .*, \([0-9.]*\) us per connection$/\1/p' <<<"$out")
  rec soak "$mode" "conns=$N" "rate=${rate:--}" "server_cpu_us_per_conn=${cpu_us:--}" "rss_growth_kb=${growth:--}" \
    "$([[ $st == 0 ]] && echo ok || echo bad)"
  if [[ $st != 0 ]]; then
    failures+=("$mode: $(tail -1 <<<"$out")")
    woc_failed=1
  fi
done
bench_end
