#!/usr/bin/env bash
# The actor stress test (tests/stress/README.md): runs actors.wo, compares the
# totals it prints with the ones computed here, and bounds its wall time and
# peak RSS. Any sanitizer report on stderr fails it too.
#
#   tests/stress/run-stress.sh native|jit WOC PEAK_RSS
#
# WO_STRESS_SIZE=full (default: 100,051 actors, 10,000,000 messages) or small
# (10,011 actors, 100,000 messages: sanitizer builds); WO_STRESS_SECONDS bounds
# the run (default 60 full, 300 small); WO_STRESS_RSS_KB overrides the RSS
# bound (`none`: not checked, for sanitizer builds, whose shadow memory and
# quarantine dwarf the program's). The program runs on WO_SHARDS shards when
# set, else on all CPUs.
set -uo pipefail

if [[ $# -ne 3 ]]; then
  echo "usage: $0 native|jit WOC PEAK_RSS" >&2
  exit 2
fi
mode=$1 woc=$2 peak_rss=$3
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
size=${WO_STRESS_SIZE:-full}
case $size in
  full) params=(500 100 100 50 1000 50) limit=${WO_STRESS_SECONDS:-60} ;;
  small) params=(50 100 10 10 500 5) limit=${WO_STRESS_SECONDS:-300} ;;
  *) echo "WO_STRESS_SIZE must be full or small" >&2; exit 2 ;;
esac
read -r rings ring_size laps hubs leaves waves <<<"${params[*]}"
actors=$((1 + rings * ring_size + hubs * (leaves + 1)))
per_hub=$((waves * leaves))

# Peak RSS bound (docs/decisions/0021): a fixed base for the process (the
# runtime, stdio, the shards' stacks and fiber pools; with the JIT, woc and
# libLLVM too) plus 1 KiB per actor, the issue's aim for an idle actor.
# Measured at full size: 40 MiB native, 108 MiB with the JIT, against bounds
# of 130 and 226 MiB. A leak of one message per delivery (10,000,000 x >= 32
# bytes) or a fiber stack kept per actor (100,051 x >= 8 KiB) exceeds them.
case $mode in
  native) base_kb=32768 ;;
  jit) base_kb=131072 ;;
  *) echo "unknown mode: $mode (native or jit)" >&2; exit 2 ;;
esac
rss_bound=${WO_STRESS_RSS_KB:-$((base_kb + actors))}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/wo-stress.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT

fail() {
  echo "FAIL stress [$mode, $size]: $*"
  if [[ -s $tmp/err ]]; then
    echo "--- stderr (first 40 lines) ---"
    head -n 40 "$tmp/err"
  fi
  exit 1
}

source "$here/../lib/wo_command.sh"  # wo_command
wo_command "$mode" "$woc" "$here/actors.wo" "$tmp/actors" "${params[@]}" 2>"$tmp/err" || fail "woc build failed"

# Both placements (decision 0083): the default, where actors start on their
# spawner's shard and move to feed an idle one, and "spread" (round-robin),
# where most of the messages cross shards.
for placement in follow spread; do
  export WO_PLACEMENT=$placement
  start=$(date +%s%N)
  timeout -k 5 "$limit" "$peak_rss" "$tmp/rss" "${cmd[@]}" >"$tmp/out" 2>"$tmp/err" </dev/null
  status=$?
  elapsed_ms=$((($(date +%s%N) - start) / 1000000))
  [[ $status -eq 124 || $status -eq 137 ]] && fail "did not finish within ${limit}s (WO_PLACEMENT=$placement)"

  cat >"$tmp/want" <<EOF
actors $actors
ring hops $((rings * ring_size * laps))
fan messages $((hubs * 2 * per_hub))
fan sum $((hubs * per_hub * per_hub))
messages $((rings * ring_size * laps + hubs * 2 * per_hub))
ok
EOF

  problems=()
  [[ $status -eq 0 ]] || problems+=("exit status $status, expected 0")
  cmp -s "$tmp/want" "$tmp/out" ||
    problems+=("output differs:
  $(diff -u --label expected --label actual "$tmp/want" "$tmp/out" | head -n 30)")
  grep -q 'Sanitizer' "$tmp/err" && problems+=("a sanitizer report on stderr")
  rss=$(cat "$tmp/rss" 2>/dev/null || echo 0)
  [[ $rss_bound == none || $rss -le $rss_bound ]] || problems+=("peak RSS ${rss} KiB above the bound ${rss_bound} KiB")
  [[ ${#problems[@]} -eq 0 ]] || fail "WO_PLACEMENT=$placement: $(printf '%s\n' "${problems[@]}")"

  echo "stress [$mode, $size]: $actors actors, $((rings * ring_size * laps + hubs * 2 * per_hub)) messages," \
    "${elapsed_ms} ms, peak RSS ${rss} KiB (bound: ${rss_bound}$([[ $rss_bound == none ]] || echo ' KiB')), WO_SHARDS=${WO_SHARDS:-all CPUs}, WO_PLACEMENT=$placement"
done
exit 0
