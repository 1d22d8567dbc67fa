#!/usr/bin/env bash
# woc test on tests/wotest/sample (passing and failing tests, a module, two
# tests inserting the same unique key), --filter, -j, exit statuses; and
# run/build/check leaving *_test.wo files out. Expected results written by
# hand from the sample's sources.
set -u
WOC=$(realpath "$1")
HERE=$(cd "$(dirname "$0")" && pwd)
SAMPLE=$HERE/sample
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }

# The whole sample: 6 pass, 4 fail, exit 1.
out=$("$WOC" test "$SAMPLE" -j 4); st=$?
[ $st -eq 1 ] || bad "woc test sample: exit $st, want 1"
[ "$(echo "$out" | tail -1)" = "6 passed, 4 failed" ] || bad "summary: $(echo "$out" | tail -1)"
for t in test_add test_text_eq test_register_first test_register_second shapes.test_area shapes.test_area_float; do
  echo "$out" | grep -q "^ok   $t (" || bad "$t did not pass"
done
for t in test_add_wrong test_assert_message test_text_wrong test_divide_by_zero; do
  echo "$out" | grep -q "^FAIL $t (.*math_test.wo:" || bad "$t did not fail with its location"
done
echo "$out" | grep -q "trap 8 in test_add_wrong at line 12: assert_eq failed: 4 != 5" || bad "assert_eq Int message"
echo "$out" | grep -q "trap 8 in test_assert_message at line 16: assertion failed: helper is big" || bad "assert message"
echo "$out" | grep -q 'assert_eq failed: "ab" != "ba"' || bad "assert_eq Text message"
echo "$out" | grep -q "trap 1 in test_divide_by_zero at line 29: division by zero" || bad "a trap fails a test"
echo "$out" | grep -q "check_nothing" && bad "a function not named test_* ran"

# --filter (a regex searched in the name), -j 1.
out=$("$WOC" test "$SAMPLE" --filter 'register_(first|second)' -j 1); st=$?
[ $st -eq 0 ] && [ "$(echo "$out" | tail -1)" = "2 passed, 0 failed" ] || bad "filter register: exit $st, $out"
out=$("$WOC" test "$SAMPLE" --filter='^shapes\.'); st=$?
[ $st -eq 0 ] && [ "$(echo "$out" | tail -1)" = "2 passed, 0 failed" ] || bad "filter shapes: exit $st, $out"
out=$("$WOC" test "$SAMPLE" --filter wrong); st=$?
[ $st -eq 1 ] && [ "$(echo "$out" | tail -1)" = "0 passed, 2 failed" ] || bad "filter wrong: exit $st, $out"
out=$("$WOC" test "$SAMPLE" --filter no-such-test); st=$?
[ $st -eq 0 ] && [ "$(echo "$out" | tail -1)" = "0 passed, 0 failed" ] || bad "filter nothing: exit $st, $out"

# PATH defaults to the current directory.
out=$(cd "$SAMPLE/shapes" && "$WOC" test); st=$?
[ $st -eq 0 ] && [ "$(echo "$out" | tail -1)" = "2 passed, 0 failed" ] || bad "woc test in shapes/: exit $st, $out"

# Usage errors: exit 2.
"$WOC" test "$SAMPLE" --filter '(' >/dev/null 2>&1; [ $? -eq 2 ] || bad "bad regex should exit 2"
"$WOC" test "$SAMPLE" -j 0 >/dev/null 2>&1; [ $? -eq 2 ] || bad "-j 0 should exit 2"
"$WOC" run "$SAMPLE" --filter x >/dev/null 2>&1; [ $? -eq 2 ] || bad "--filter on run should exit 2"
"$WOC" test --help | grep -q -- "--filter REGEX" || bad "test --help"

# run, build and check leave *_test.wo out (here one that does not compile).
mkdir -p "$T/prog"
printf 'fn main() {\n  print("prog")\n}\n' > "$T/prog/main.wo"
printf 'fn test_broken() {\n  assert_eq(1, "one")\n}\n' > "$T/prog/broken_test.wo"
[ "$("$WOC" run "$T/prog")" = "prog" ] || bad "run read a _test.wo file"
"$WOC" check "$T/prog" || bad "check read a _test.wo file"
"$WOC" build "$T/prog" -o "$T/prog.bin" && [ "$("$T/prog.bin")" = "prog" ] || bad "build read a _test.wo file"
[ "$("$WOC" run "$SAMPLE")" = "main ran: 5" ] || bad "run of the sample"
"$WOC" test "$T/prog" >/dev/null 2>&1; [ $? -eq 1 ] || bad "a test file with a type error: woc test should exit 1"

# The program's main is kept (checked, not run): a `use` only main needs is
# used, as under woc check (no WO-W202), and main's own errors are reported.
mkdir -p "$T/usemain"
printf 'use env\n\nfn double(n: Int) -> Int {\n  return n * 2\n}\n\nfn main() {\n  if env.get("HOME") != nil {\n    print("${double(2)}")\n  }\n}\n' > "$T/usemain/main.wo"
printf 'fn test_double() {\n  assert_eq(double(2), 4)\n}\n' > "$T/usemain/double_test.wo"
err=$("$WOC" check "$T/usemain" 2>&1) && [ -z "$err" ] || bad "usemain: woc check is not clean: $err"
out=$("$WOC" test "$T/usemain" 2>"$T/usemain.err"); st=$?
[ $st -eq 0 ] && [ "$(echo "$out" | tail -1)" = "1 passed, 0 failed" ] || bad "usemain: exit $st, $out"
[ -s "$T/usemain.err" ] && bad "usemain: woc test warned where woc check does not: $(cat "$T/usemain.err")"
printf 'fn double(n: Int) -> Int {\n  return n * 2\n}\n\nfn main() -> Text {\n  return "no"\n}\n' > "$T/usemain/main.wo"
err=$("$WOC" test "$T/usemain" 2>&1); st=$?
[ $st -eq 1 ] && echo "$err" | grep -q "WO-E405" || bad "usemain: main returning Text: exit $st, $err"

# A wo.toml library (no fn main) is tested through the generated entry point.
mkdir -p "$T/lib"
printf 'name = "l"\nkind = "library"\n' > "$T/lib/wo.toml"
printf 'pub fn twice(n: Int) -> Int {\n  return n * 2\n}\n' > "$T/lib/lib.wo"
printf 'fn test_twice() {\n  assert_eq(twice(2), 4)\n}\n' > "$T/lib/lib_test.wo"
out=$("$WOC" test "$T/lib"); st=$?
[ $st -eq 0 ] && [ "$(echo "$out" | tail -1)" = "1 passed, 0 failed" ] || bad "library: exit $st, $out"

# Tests in two modules whose paths end in the same segment (a/util, b/util):
# each runs against its own module, and the one that fails is b's.
mkdir -p "$T/same/a/util" "$T/same/b/util"
printf 'fn main() {\n}\n' > "$T/same/main.wo"
printf 'pub fn which() -> Int {\n  return 1\n}\n' > "$T/same/a/util/u.wo"
printf 'fn test_a() {\n  assert_eq(which(), 1)\n}\n' > "$T/same/a/util/u_test.wo"
printf 'pub fn which() -> Int {\n  return 2\n}\n' > "$T/same/b/util/u.wo"
printf 'fn test_b() {\n  assert_eq(which(), 2)\n}\nfn test_b_wrong() {\n  assert_eq(which(), 1)\n}\n' > "$T/same/b/util/u_test.wo"
out=$("$WOC" test "$T/same"); st=$?
[ $st -eq 1 ] && [ "$(echo "$out" | tail -1)" = "2 passed, 1 failed" ] &&
  echo "$out" | grep -q "^ok   a/util.test_a (" && echo "$out" | grep -q "^ok   b/util.test_b (" &&
  echo "$out" | grep -q "^FAIL b/util.test_b_wrong (" || bad "modules a/util and b/util: exit $st, $out"

# No tests at all: exit 0.
rm "$T/prog/broken_test.wo"
out=$("$WOC" test "$T/prog"); st=$?
[ $st -eq 0 ] && echo "$out" | grep -q "^no tests" && [ "$(echo "$out" | tail -1)" = "0 passed, 0 failed" ] ||
  bad "no tests: exit $st, $out"

[ $fail -eq 0 ] && echo "wotest: ok"
exit $fail
