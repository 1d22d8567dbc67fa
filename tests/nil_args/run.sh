#!/usr/bin/env bash
# Hands a nil to every parameter of every builtin (docs/decisions/0012):
# generates the fixtures with wo_nil_arg_programs (from common/builtins.def),
# then checks each with scripts/run-fixture.sh — the run fixtures in both
# modes (a failing one is listed with line numbers), each compile-fail
# program with `woc check`.
#
#   tests/nil_args/run.sh GENERATOR WOC RUNNER
set -uo pipefail
[[ $# -eq 3 ]] || { echo "usage: $0 GENERATOR WOC RUNNER" >&2; exit 2; }
gen=$1 woc=$2 runner=$3
tmp=$(mktemp -d "${TMPDIR:-/tmp}/wo-nil-args.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT

"$gen" "$tmp" || { echo "FAIL: the generator failed"; exit 1; }
failed=0
for dir in "$tmp"/run/*/; do
  for mode in jit native; do
    bash "$runner" "$mode" "$dir" "$woc" || { failed=1; cat -n "$dir/main.wo"; }
  done
done
for dir in "$tmp"/compile-fail/*/; do
  bash "$runner" fail "$dir" "$woc" || failed=1
done
[[ $failed -eq 0 ]] || exit 1
echo "every builtin traps or refuses a nil argument"
