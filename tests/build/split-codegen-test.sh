#!/usr/bin/env bash
# `woc build` of a large program generates machine code on several threads
# (tools/woc/native_build.cpp, docs/decisions/0063), and at -O2 optimises it
# there too (tools/woc/parallel_optimise.cpp, docs/decisions/0067): the
# generated 1,000-line program (bench/gen) is split into WOC_CODEGEN_THREADS=2
# objects, each optimised (no out-of-line copy of the always-inlined release
# is left), prints what its C twin prints, and a trap in it is reported with
# the right function and lines; WOC_CODEGEN_THREADS=1 makes one object,
# optimised as one module; a small program is never split.
#
#   tests/build/split-codegen-test.sh WOC
set -uo pipefail
woc=$1
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
source "$root/tests/lib/expect.sh"

bash "$root/bench/gen/generate.sh" "$tmp/gen" >/dev/null
# The linker command each build ran, through a C++ driver that logs it.
printf '#!/bin/sh\necho "$@" >>"%s"\nexec c++ "$@"\n' "$tmp/links" >"$tmp/cxx"
chmod +x "$tmp/cxx"
objects() { tail -1 "$tmp/links" | tr ' ' '\n' | grep -c '\.o$'; }
# count NAME WANT: the last link had WANT object files of the program.
count() {
  local n
  n=$(objects)
  if [[ $n == "$2" ]]; then pass=$((pass + 1)); else
    fail=$((fail + 1))
    echo "FAIL $1: $n object files linked, expected $2"
  fi
}

gcc -O2 -o "$tmp/c" "$tmp/gen/main.c" || { echo "gcc failed"; exit 1; }
want=$("$tmp/c")
# optimised NAME WANT_ROWS: the last build's --time-report had WANT_ROWS rows
# for the optimiser on partitions, and left no `wo.release` in the executable.
optimised() {
  local rows released
  rows=$(grep -c 'optimise + machine code (partitions in parallel)' "$tmp/report")
  released=$(nm "$tmp/wo$threads" | grep -c ' wo\.release$')
  if [[ $rows == "$2" && $released == 0 ]]; then pass=$((pass + 1)); else
    fail=$((fail + 1))
    echo "FAIL $1: $rows parallel optimiser rows (expected $2), $released wo.release left"
  fi
}
for threads in 2 1; do
  if WOC_CXX="$tmp/cxx" WOC_CODEGEN_THREADS=$threads "$woc" build "$tmp/gen/main.wo" -O2 -o "$tmp/wo$threads" \
    --time-report 2>"$tmp/report"; then
    count "gen, $threads thread(s)" "$threads"
    # A sanitizer build's woc optimises in one piece (decision 0067): no row.
    rows_wanted=$((threads > 1 ? 1 : 0))
    [[ -n ${WO_SANITIZED:-} ]] && rows_wanted=0
    optimised "gen optimised, $threads thread(s)" "$rows_wanted"
    expect "gen prints what C prints ($threads thread(s))" 0 "^$want\$" -- "$tmp/wo$threads"
  else
    fail=$((fail + 1))
    echo "FAIL woc build of the generated program ($threads thread(s))"
  fi
done

# A trap in a split build: a function before main divides by zero.
awk '/^fn main\(\) \{/ {
       print "fn boom(x: Int) -> Int {"; print "  return 10 / x"; print "}"; print ""
       print; print "  print_int(boom(f0(1, 2) - f0(1, 2)))"; next }
     {print}' "$tmp/gen/main.wo" >"$tmp/trap.wo"
line=$(grep -n 'return 10 / x' "$tmp/trap.wo" | cut -d: -f1)
if WOC_CXX="$tmp/cxx" WOC_CODEGEN_THREADS=2 "$woc" build "$tmp/trap.wo" -O2 -o "$tmp/trap"; then
  count "trap program, 2 threads" 2
  expect "trap in a split build" 1 "^trap 1 in boom at line $line: division by zero" -- "$tmp/trap"
  expect "its call chain" 1 "^    main at .*trap\.wo:$((line + 4))\$" -- "$tmp/trap"
else
  fail=$((fail + 1))
  echo "FAIL woc build of the trap program"
fi

printf 'fn main() {\n  print("hello, world")\n}\n' >"$tmp/hello.wo"
if WOC_CXX="$tmp/cxx" WOC_CODEGEN_THREADS=4 "$woc" build "$tmp/hello.wo" -O2 -o "$tmp/hello"; then
  count "hello is one object" 1
else
  fail=$((fail + 1))
  echo "FAIL woc build hello"
fi

echo "split-codegen: $pass passed, $fail failed"
((fail == 0))
