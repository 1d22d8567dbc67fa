#!/usr/bin/env bash
# Actors moving between shards under load (tests/stress/README.md, decision
# 0083): runs migrate.wo on two shards with the default placement and
# WO_SCHED_STATS=1, and fails unless it prints "ok" (every note taken in
# order, once, and seen by the calls after it), actors were handed to an
# idle shard, and no sanitizer spoke. Then the default shard count: pinned
# to one CPU (taskset) with WO_SHARDS unset, the program runs on one shard.
#
#   tests/stress/run-migrate.sh native|jit WOC
#
# WO_STRESS_SIZE=full (default: 20 rounds of 6 producers x 8 workers x 200
# notes, 192,000 notes) or small (sanitizer builds: 10 x 4 x 6 x 50).
set -uo pipefail

if [[ $# -ne 2 ]]; then
  echo "usage: $0 native|jit WOC" >&2
  exit 2
fi
mode=$1 woc=$2
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
case ${WO_STRESS_SIZE:-full} in
  full) params=(20 6 8 200) ;;
  small) params=(10 4 6 100) ;;
  *) echo "WO_STRESS_SIZE must be full or small" >&2; exit 2 ;;
esac
read -r rounds producers workers notes <<<"${params[*]}"
total=$((rounds * producers * (workers + 1) * notes))  # the shared workers and each producer's own

tmp=$(mktemp -d "${TMPDIR:-/tmp}/wo-migrate.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT

fail() {
  echo "FAIL stress.migrate [$mode]: $*"
  for f in out err; do
    [[ -s $tmp/$f ]] && { echo "--- $f (first 30 lines) ---"; head -n 30 "$tmp/$f"; }
  done
  exit 1
}

source "$here/../lib/wo_command.sh"  # wo_command
wo_command "$mode" "$woc" "$here/migrate.wo" "$tmp/migrate" "${params[@]}" 2>"$tmp/err" || fail "woc build failed"

unset WO_PLACEMENT
WO_SHARDS=2 WO_SCHED_STATS=1 timeout -k 5 300 "${cmd[@]}" >"$tmp/out" 2>"$tmp/err" </dev/null
status=$?
[[ $status -eq 0 ]] || fail "exit status $status, expected 0"
printf 'notes %s out of order 0\nok\n' "$total" | cmp -s - "$tmp/out" || fail "output differs from 'notes $total out of order 0' / 'ok'"
grep -q 'Sanitizer' "$tmp/err" && fail "a sanitizer report on stderr"
stats=$(grep '^wo: sched:' "$tmp/err") || fail "no 'wo: sched:' line (WO_SCHED_STATS=1)"
handed=$(sed -n 's/.*, \([0-9]*\) actors handed to idle shards.*/\1/p' <<<"$stats")
followed=$(sed -n 's/.* \([0-9]*\) moved after their mail.*/\1/p' <<<"$stats")
[[ $stats == *"2 shards (follow)"* ]] || fail "expected 2 shards with the follow placement: $stats"
[[ ${handed:-0} -gt 0 ]] || fail "no actor was handed to an idle shard: the test did not move anything ($stats)"

# The default shard count follows the affinity mask (decision 0083).
if command -v taskset >/dev/null; then
  env -u WO_SHARDS WO_SCHED_STATS=1 taskset -c 0 timeout -k 5 300 "${cmd[@]}" >"$tmp/out" 2>"$tmp/err" </dev/null ||
    fail "pinned to one CPU: exit status $?"
  grep -q '^wo: sched: 1 shards' "$tmp/err" || fail "pinned to one CPU (taskset -c 0), WO_SHARDS unset: expected 1 shard: $(grep '^wo: sched' "$tmp/err")"
fi

echo "stress.migrate [$mode]: $total notes in order; $handed actors handed to an idle shard, $followed moved after their mail; one shard under taskset -c 0"
exit 0
