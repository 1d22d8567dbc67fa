#!/usr/bin/env bash
# woc --time-report (-ftime-report): every verb that compiles lists its phases
# on stderr (the names, not the times, which vary), the program's own output
# and status are unchanged, =passes adds LLVM's per-pass report, and verbs
# that compile nothing refuse the flag.
#
#   tests/cli/time-report-test.sh WOC
set -uo pipefail
woc=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
source "$(dirname "${BASH_SOURCE[0]}")/../lib/expect.sh"

printf 'fn main() -> Int {\n  print("hi")\n  return 7\n}\n' >"$tmp/ok.wo"
mkdir -p "$tmp/proj"
printf 'fn twice(x: Int) -> Int {\n  return x * 2\n}\n' >"$tmp/proj/lib.wo"
printf 'fn test_twice() {\n  assert_eq(twice(2), 4)\n}\n' >"$tmp/proj/lib_test.wo"

# phases NAME STATUS PHASE... -- COMMAND...: COMMAND exits STATUS and its
# stderr holds the report's header, each PHASE as a row with two times, and
# the total.
phases() {
  local name=$1 want=$2
  shift 2
  local list=()
  while [[ $1 != -- ]]; do list+=("$1"); shift; done
  shift
  local err status missing=""
  err=$("$@" 2>&1 >/dev/null)
  status=$?
  for p in "woc: time report" "start-up \(loading woc" "${list[@]}" "total \(since main"; do
    grep -qE "^(  )*$p.* [0-9]+\.[0-9]$|^$p" <<<"$err" || missing+=" [$p]"
  done
  if [[ $status -eq $want && -z $missing ]]; then
    pass=$((pass + 1))
  else
    fail=$((fail + 1))
    echo "FAIL $name: status $status (want $want), missing:$missing; stderr:"
    sed 's/^/    /' <<<"$err"
  fi
}

front=("  load \(read, lex, parse\)" "  sema")
back=("  target setup" "  codegen \(IR emission\)" "  verify" "  optimise \(-O pipeline\)")
phases build 0 "${front[@]}" "${back[@]}" "  machine code \(isel" "  object write" "  link \((external linker|lld in process)\)" \
  -- "$woc" build --time-report "$tmp/ok.wo" -o "$tmp/ok"
WOC_LINKER=lld phases build-external-link 0 "${front[@]}" "${back[@]}" "  machine code \(isel" "  link \(external linker\)" \
  -- "$woc" build --time-report "$tmp/ok.wo" -o "$tmp/ok"
phases build-O0-ftime 0 "${front[@]}" "${back[@]}" "  machine code \(isel" "  link \((external linker|lld in process)\)" \
  -- "$woc" build -O0 -ftime-report "$tmp/ok.wo" -o "$tmp/ok"
phases run 7 "${front[@]}" "${back[@]}" "  JIT setup" "  JIT materialise" "    machine code \(isel" "  run \(the program\)" \
  -- "$woc" run --time-report "$tmp/ok.wo"
phases check 0 "${front[@]}" -- "$woc" check --time-report "$tmp/ok.wo"
phases test 0 "${front[@]}" "  prepare \(test entry point\)" "${back[@]}" "  link \((external linker|lld in process)\)" "  run the tests" \
  -- "$woc" test --time-report "$tmp/proj"

# The program's own output and status are untouched; the report is on stderr.
expect run-stdout 7 '^hi$' -- bash -c '"$0" run --time-report "$1" 2>/dev/null' "$woc" "$tmp/ok.wo"
expect check-no-codegen 0 '' -- bash -c '! "$0" check --time-report "$1" 2>&1 | grep -q "optimise"' "$woc" "$tmp/ok.wo"
expect passes 0 'Pass execution timing report' -- "$woc" build --time-report=passes "$tmp/ok.wo" -o "$tmp/ok"
expect passes-codegen 0 'X86 DAG->DAG Instruction Selection' -- "$woc" build --time-report=passes "$tmp/ok.wo" -o "$tmp/ok"
expect no-report 0 '^$' -- bash -c '"$0" build "$1" -o "$2" 2>&1' "$woc" "$tmp/ok.wo" "$tmp/ok"
expect bad-value 2 '^woc: --time-report: unknown value `all` \(expected phases or passes\)' -- "$woc" build --time-report=all "$tmp/ok.wo" -o "$tmp/ok"
expect refused-fmt 2 '^woc: --time-report is only accepted by `woc run`, `build`, `check` and `test`' -- "$woc" fmt --time-report "$tmp/ok.wo"
expect refused-explain 2 '^woc: --time-report is only accepted' -- "$woc" explain --time-report
for verb in run build check test; do
  expect "help-$verb" 0 '--time-report' -- "$woc" "$verb" --help
done

echo "$pass passed, $fail failed"
[[ $fail -eq 0 ]]
