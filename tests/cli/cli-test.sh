#!/usr/bin/env bash
# The woc command line: help on every verb, exit statuses (0 ok, 1 compile
# error, 2 usage or I/O error, the program's own under run), one-line `woc:`
# messages, -D flags, --emit-llvm, and program arguments after `--`.
#
#   tests/cli/cli-test.sh WOC
set -uo pipefail
woc=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
source "$(dirname "${BASH_SOURCE[0]}")/../lib/expect.sh"

cat >"$tmp/ok.wo" <<'WO'
fn main(args: multi Text) -> Int {
#if loud
  print("loud")
#end
  print("args ${len(args)}")
  return 7
}
WO
printf 'fn main() {\n  print(1)\n}\n' >"$tmp/bad.wo"

expect help-top 0 'Usage: woc <command>' -- "$woc" --help
for verb in run build check; do
  expect "help-$verb" 0 "Usage: woc $verb" -- "$woc" "$verb" --help
done
expect version 0 '^woc [0-9]+\.[0-9]+\.[0-9]+$' -- "$woc" --version
expect no-command 2 '^woc: ' -- "$woc"
expect unknown-command 2 "^woc: unknown command" -- "$woc" frob "$tmp/ok.wo"
expect missing-path 2 '^woc: missing program path' -- "$woc" run
expect unreadable 2 "^woc: cannot read" -- "$woc" check "$tmp/nope.wo"
expect build-needs-o 2 '^woc: build needs -o' -- "$woc" build "$tmp/ok.wo"
expect debug-help-run 0 '^  -g  ' -- "$woc" run --help
expect debug-help-build 0 '^  -g  ' -- "$woc" build --help
expect debug-check-refused 2 '^woc: -g is only accepted by `woc run` and `woc build`' -- "$woc" check -g "$tmp/ok.wo"
# Not silently dropped by the tool verbs either (they return before the check above).
expect debug-fmt-refused 2 '^woc: -g is only accepted by `woc run` and `woc build`' -- "$woc" fmt -g "$tmp/ok.wo"
expect debug-test-refused 2 '^woc: -g is only accepted by `woc run` and `woc build`' -- "$woc" test -g "$tmp"
expect debug-explain-refused 2 '^woc: -g is only accepted by `woc run` and `woc build`' -- "$woc" explain -g WO-E403
expect debug-run 7 '^args 0$' -- "$woc" run -g "$tmp/ok.wo"
expect unknown-option 2 '^woc: ' -- "$woc" check --frobnicate "$tmp/ok.wo"
expect compile-error 1 'error WO-E209' -- "$woc" check "$tmp/bad.wo"
expect caret 1 '^        \^$' -- "$woc" check "$tmp/bad.wo"
expect check-ok 0 '' -- "$woc" check "$tmp/ok.wo"
# How diagnostics are shown (docs/decisions/0040; the full texts: tests/diag).
expect help-color 0 '--color=WHEN' -- "$woc" check --help
expect color-bad-value 2 '^woc: --color: unknown value `blue`' -- "$woc" check --color=blue "$tmp/bad.wo"
expect color-missing 2 '^woc: --color needs never, always or auto' -- "$woc" check "$tmp/bad.wo" --color
expect error-format-bad 2 '^woc: --error-format: unknown value `xml`' -- "$woc" check --error-format=xml "$tmp/bad.wo"
expect error-format-json 1 '^\{"file":".*","line":2,"col":9,"severity":"error","code":"WO-E209",' -- "$woc" check --error-format json "$tmp/bad.wo"
expect count-line 1 '^1 error$' -- "$woc" check "$tmp/bad.wo"
mkdir -p "$tmp/nowo"
expect no-wo-files 2 "^woc: '.*nowo' holds no .wo files" -- "$woc" run "$tmp/nowo"
mkdir -p "$tmp/onlytests" && printf 'fn test_a() {\n}\n' >"$tmp/onlytests/a_test.wo"
expect only-test-files 2 "^woc: '.*onlytests' holds only test files \(\*_test.wo\): run them with \`woc test" -- "$woc" build "$tmp/onlytests" -o "$tmp/x"
expect run-status 7 '^args 2$' -- "$woc" run "$tmp/ok.wo" -- a b
expect define-flag 7 '^loud$' -- "$woc" run -D loud "$tmp/ok.wo"
expect define-flag-joined 7 '^loud$' -- "$woc" run -Dloud "$tmp/ok.wo"
expect emit-llvm 0 '' -- "$woc" check --emit-llvm "$tmp/ok.ll" "$tmp/ok.wo"
if grep -qE 'define .*@wo_main_entry' "$tmp/ok.ll" 2>/dev/null; then pass=$((pass + 1)); else
  fail=$((fail + 1)); echo "FAIL emit-llvm: $tmp/ok.ll has no wo_main_entry"; fi
expect build 0 '' -- "$woc" build -O3 "$tmp/ok.wo" -o "$tmp/ok"
expect built-program 7 '^args 1$' -- "$tmp/ok" x
expect build-error-no-output 1 'WO-E209' -- "$woc" build "$tmp/bad.wo" -o "$tmp/bad"
if [[ -e $tmp/bad ]]; then fail=$((fail + 1)); echo "FAIL: a failed build left $tmp/bad"; else pass=$((pass + 1)); fi

echo "$pass passed, $fail failed"
[[ $fail -eq 0 ]]
