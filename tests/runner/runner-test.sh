#!/usr/bin/env bash
# Checks scripts/run-fixture.sh itself, in both modes: a fixture's `env` file
# reaches the program (and overrides the runner's WO_SHARDS=1, as the
# multi-shard actor fixtures need), WO_* variables of the caller do not leak
# in, WO_FIXTURE_DATA replaces the store the env file names (tests/pg), a fixture that never ends is stopped by WO_FIXTURE_TIMEOUT and reported
# as a failure, and a wrong expected.out or expected.trace fails.
#
#   tests/runner/runner-test.sh WOC RUNNER
set -uo pipefail
[[ $# -eq 2 ]] || { echo "usage: $0 WOC RUNNER" >&2; exit 2; }
woc=$1 runner=$2
tmp=$(mktemp -d "${TMPDIR:-/tmp}/wo-runner-test.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
failed=0
bad() { echo "FAIL: $*"; failed=1; }

# Prints the three variables the runner is responsible for.
show_env='use env

fn show(name: Text) {
  let v = env.get(name)
  if v != nil { print("${name}=${v}") } else { print("${name} unset") }
}

fn main() {
  show("WO_SHARDS")
  show("WO_EPHEMERAL")
  show("WO_MAILBOX")
}
'
mkdir -p "$tmp/default" "$tmp/pinned" "$tmp/wrong" "$tmp/forever" "$tmp/trace"
# An uncaught trap whose expected extra lines name the wrong line.
printf 'fn main() {\n  let xs = [1]\n  print_int(xs[3])\n}\n' >"$tmp/trace/main.wo"
: >"$tmp/trace/expected.out"
printf '6\n' >"$tmp/trace/expected.trap"
printf '  at $DIR/main.wo:2:13\n  index 3, length 1\n' >"$tmp/trace/expected.trace"
printf '%s' "$show_env" >"$tmp/default/main.wo"
printf 'WO_SHARDS=1\nWO_EPHEMERAL=1\nWO_MAILBOX unset\n' >"$tmp/default/expected.out"
printf '%s' "$show_env" >"$tmp/pinned/main.wo"
printf 'WO_SHARDS=4\nWO_MAILBOX=8\n' >"$tmp/pinned/env"
printf 'WO_SHARDS=4\nWO_EPHEMERAL=1\nWO_MAILBOX=8\n' >"$tmp/pinned/expected.out"
printf '%s' "$show_env" >"$tmp/wrong/main.wo"
printf 'WO_SHARDS=2\nWO_EPHEMERAL=1\nWO_MAILBOX unset\n' >"$tmp/wrong/expected.out"
# WO_FIXTURE_DATA (tests/pg's store) replaces the env file's WO_DATA and
# the runner's WO_EPHEMERAL=1; the env file's other lines stay.
mkdir -p "$tmp/store" "$tmp/data"
printf '%s' "${show_env/show(\"WO_MAILBOX\")/show(\"WO_MAILBOX\")
  show(\"WO_DATA\")}" >"$tmp/store/main.wo"
printf 'WO_DATA=elsewhere.wal\nWO_MAILBOX=5\n' >"$tmp/store/env"
printf 'WO_SHARDS=1\nWO_EPHEMERAL unset\nWO_MAILBOX=5\nWO_DATA=%s/data/\n' "$tmp" >"$tmp/store/expected.out"
printf 'fn main() {\n  let i = 0\n  while true {\n    i += 1\n  }\n}\n' >"$tmp/forever/main.wo"
: >"$tmp/forever/expected.out"

for mode in jit native; do
  WO_MAILBOX=3 WO_SHARDS=9 bash "$runner" "$mode" "$tmp/default" "$woc" || bad "$mode: the runner's defaults"
  WO_MAILBOX=3 bash "$runner" "$mode" "$tmp/pinned" "$woc" || bad "$mode: the fixture's env file"
  WO_FIXTURE_DATA=$tmp/data/ bash "$runner" "$mode" "$tmp/store" "$woc" || bad "$mode: WO_FIXTURE_DATA"
  if bash "$runner" "$mode" "$tmp/wrong" "$woc" >"$tmp/out" 2>&1; then
    bad "$mode: a wrong expected.out passed"
  fi
  if bash "$runner" "$mode" "$tmp/trace" "$woc" >"$tmp/out" 2>&1; then
    bad "$mode: a wrong expected.trace passed"
  fi
  grep -q 'differs from expected.trace' "$tmp/out" || bad "$mode: no expected.trace report: $(head -n 3 "$tmp/out")"
  start=$SECONDS
  WO_FIXTURE_TIMEOUT=3 bash "$runner" "$mode" "$tmp/forever" "$woc" >"$tmp/out" 2>&1
  status=$?
  [[ $status -eq 1 ]] || bad "$mode: a fixture that never ends gave runner status $status, not 1"
  grep -q 'timed out' "$tmp/out" || bad "$mode: no 'timed out' report: $(head -n 3 "$tmp/out")"
  (( SECONDS - start < 30 )) || bad "$mode: the time limit of 3 s took $((SECONDS - start)) s"
done
[[ $failed -eq 0 ]] || exit 1
echo "the fixture runner honours env files and its time limit in both modes"
