#!/usr/bin/env bash
# `woc build` links in its own process with lld's ELF driver when woc was
# built with lld's libraries (tools/woc/lld_link.cpp, docs/decisions/0071):
# `--time-report` names that link, and the executable it writes is the one
# `c++ -fuse-ld=lld` writes (WOC_LINKER=lld forces that path): it runs, prints
# the same, and needs the same shared libraries, for a program with the static
# C++ runtime and for one with the shared one (json.decode). A trap's call
# chain in an in-process build still names the function and line.
#
#   tests/build/in-process-link-test.sh WOC HAVE_LLD(0|1)
set -uo pipefail
woc=$1
have_lld=$2
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
source "$root/tests/lib/expect.sh"

printf 'fn main() {\n  print("hi")\n}\n' >"$tmp/hello.wo"
printf 'use json\n\ntypedef Pt = { x: Int, y: Int }\n\nfn main() {\n  let p = json.decode("{\\"x\\": 1, \\"y\\": 2}") as Pt\n  if p == nil { print("nil") } else { print_int(p.x + p.y) }\n}\n' >"$tmp/json.wo"
printf 'fn down(n: Int) -> Int {\n  if n == 3 {\n    let xs = [1]\n    return xs[n]\n  }\n  return down(n + 1)\n}\nfn main() {\n  print("${down(0)}")\n}\n' >"$tmp/trap.wo"

if [[ $have_lld == 1 ]]; then want='link \(lld in process\)'; else want='link \(external linker\)'; fi
expect report 0 "$want" -- "$woc" build --time-report "$tmp/hello.wo" -o "$tmp/hello"
expect report-O0 0 "$want" -- "$woc" build -O0 --time-report "$tmp/hello.wo" -o "$tmp/hello0"
expect forced-external 0 'link \(external linker\)' -- env WOC_LINKER=lld "$woc" build --time-report "$tmp/hello.wo" -o "$tmp/hello-ext"

needed() { readelf -d "$1" | grep NEEDED | sort; }
for prog in hello json; do
  "$woc" build "$tmp/$prog.wo" -o "$tmp/$prog-in" &&
    WOC_LINKER=lld "$woc" build "$tmp/$prog.wo" -o "$tmp/$prog-ext" || { fail=$((fail + 1)); echo "FAIL $prog: build"; continue; }
  expect "$prog-runs" 0 . -- "$tmp/$prog-in"
  if [[ $("$tmp/$prog-in" 2>&1) == "$("$tmp/$prog-ext" 2>&1)" && $(needed "$tmp/$prog-in") == "$(needed "$tmp/$prog-ext")" ]]; then
    pass=$((pass + 1))
  else
    fail=$((fail + 1))
    echo "FAIL $prog: in-process and external links differ:"
    diff <(needed "$tmp/$prog-in"; "$tmp/$prog-in" 2>&1) <(needed "$tmp/$prog-ext"; "$tmp/$prog-ext" 2>&1) | sed 's/^/    /'
  fi
done
# The C++ runtime: static unless the program decodes JSON (decision 0063);
# a sanitizer build's programs always link it shared (its runtime needs it).
# At -O0 too, where every runtime function is declared (hello0, above).
if [[ -z ${WO_SANITIZED:-} ]]; then
  expect static-cxx 1 '^' -- bash -c 'readelf -d "$0" | grep -q "NEEDED.*libstdc++"' "$tmp/hello-in"
  expect static-cxx-O0 1 '^' -- bash -c 'readelf -d "$0" | grep -q "NEEDED.*libstdc++"' "$tmp/hello0"
fi
expect shared-cxx 0 '^' -- bash -c 'readelf -d "$0" | grep -q "NEEDED.*libstdc++"' "$tmp/json-in"

"$woc" build "$tmp/trap.wo" -o "$tmp/trap"
expect trap-chain 1 'down at .*trap\.wo:4' -- "$tmp/trap"

echo "in-process-link: $pass passed, $fail failed"
[[ $fail -eq 0 ]]
