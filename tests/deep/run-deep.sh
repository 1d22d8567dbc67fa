#!/usr/bin/env bash
# Runs the deep-program cases of gen.sh through one woc mode and checks each:
# the expected output or diagnostic, the exit status, no signal, and an end
# within the time limit. Prints one line per case; exits 1 if any failed.
#
#   run-deep.sh run|build WOC [SCALE]
#
# `run` uses `woc run`; `build` uses `woc build` and runs the executable.
# Cases marked `check` in cases.txt run with `woc check` in either mode.
# WO_DEEP_TIMEOUT (seconds per case, default 120) bounds each step.
set -uo pipefail

mode=$1
woc=$2
scale=${3:-1}
limit=${WO_DEEP_TIMEOUT:-120}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/wo-deep.XXXXXX")
trap 'rm -rf "$work"' EXIT

bash "$here/gen.sh" "$work/cases" "$scale" || exit 2

failed=0
total=0
while read -r name modes expect; do
  dir=$work/cases/$name
  total=$((total + 1))
  start=$(date +%s.%N)
  if [[ $modes == check ]]; then
    timeout "$limit" "$woc" check "$dir" < /dev/null > "$work/out" 2> "$work/err"
    rc=$?
  elif [[ $mode == run ]]; then
    timeout "$limit" "$woc" run "$dir" < /dev/null > "$work/out" 2> "$work/err"
    rc=$?
  else
    timeout "$limit" "$woc" build "$dir" -o "$work/exe" < /dev/null > "$work/out" 2> "$work/err"
    rc=$?
    if [[ $rc == 0 ]]; then
      timeout "$limit" "$work/exe" < /dev/null > "$work/out" 2>> "$work/err"
      rc=$?
    fi
  fi
  secs=$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.2f", e - s }')
  why=""
  if [[ $rc == 124 ]]; then
    why="timed out after ${limit}s"
  elif ((rc >= 128)); then
    why="killed by signal $((rc - 128))"
  elif [[ $expect == code:* ]]; then
    code=${expect#code:}
    if [[ $rc != 1 ]]; then
      why="exit $rc, expected 1 with $code"
    elif ! grep -Eq "main\.wo:[0-9]+:[0-9]+: error $code" "$work/err"; then
      why="no '$code' diagnostic with a file:line:col location"
    fi
  elif [[ $rc != 0 ]]; then
    why="exit $rc"
  elif [[ $expect == out:* ]] && ! printf '%s\n' "${expect#out:}" | cmp -s - "$work/out"; then
    why="stdout '$(head -c 60 "$work/out")', expected '${expect#out:}'"
  fi
  if [[ -n $why ]]; then
    failed=$((failed + 1))
    printf 'FAIL %-22s %7ss  %s\n' "$name" "$secs" "$why"
    head -c 600 "$work/err" | sed 's/^/     | /'
  else
    printf 'ok   %-22s %7ss\n' "$name" "$secs"
  fi
done < "$work/cases/cases.txt"

echo "deep ($mode): $((total - failed))/$total passed"
((failed == 0))
