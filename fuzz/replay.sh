#!/usr/bin/env bash
# Replays every input the fuzzers ever crashed on (fuzz/regressions/) through
# a normal build's woc — no clang, no libFuzzer needed; CTest runs it as
# `fuzz.regressions`.
#   fuzz/replay.sh WOC
# regressions/frontend/*: `woc check FILE`; regressions/pipeline/*:
# `woc check --emit-llvm OUT FILE` (sema, codegen, IR verification, -O2).
# Each must end with status 0 (compiles) or 1 (diagnostics): 2 would be an
# internal error such as invalid IR, anything else a crash. A case taking
# over 20 s is a hang. Prints "N passed, N failed".
set -uo pipefail
woc=$1
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0

for stage in frontend pipeline; do
  for f in "$here/regressions/$stage"/*; do
    [[ -f $f && $(basename "$f") != README.md ]] || continue
    args=(check)
    [[ $stage == pipeline ]] && args+=(--emit-llvm "$tmp/out.ll")
    out=$(timeout 20 "$woc" "${args[@]}" "$f" 2>&1)
    status=$?
    if [[ $status -eq 0 || $status -eq 1 ]]; then
      pass=$((pass + 1))
    else
      fail=$((fail + 1))
      echo "FAIL $stage/$(basename "$f"): woc ${args[0]} exited $status (want 0 or 1); output:"
      head -n 20 <<<"$out" | sed 's/^/    /'
    fi
  done
done

echo "$pass passed, $fail failed"
[[ $pass -gt 0 && $fail -eq 0 ]]
