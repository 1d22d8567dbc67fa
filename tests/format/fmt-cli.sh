#!/usr/bin/env bash
# woc fmt's command line: --check exit codes and the names it prints,
# rewriting in place, stdin, a syntax error, directories, usage errors.
set -u
WOC=$1
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }

mkdir -p "$T/tree/sub" "$T/tree/.hidden"
printf 'fn main() {\n  print("ok")\n}\n' > "$T/tree/good.wo"
printf 'fn main(){\nprint( "x" )\n}\n' > "$T/tree/sub/messy.wo"
printf 'fn main(){\nprint( "x" )\n}\n' > "$T/tree/.hidden/skip.wo"

# --check: exit 1, names exactly the file that differs, changes nothing.
out=$("$WOC" fmt --check "$T/tree"); st=$?
[ $st -eq 1 ] || bad "--check on a messy tree: exit $st, want 1"
[ "$out" = "$T/tree/sub/messy.wo" ] || bad "--check printed [$out]"
grep -q 'print( "x" )' "$T/tree/sub/messy.wo" || bad "--check rewrote the file"

# Formatting rewrites in place; then --check is clean (exit 0, silent).
"$WOC" fmt "$T/tree" || bad "fmt on the tree failed"
[ "$(cat "$T/tree/sub/messy.wo")" = "$(printf 'fn main() {\n  print("x")\n}')" ] || bad "messy.wo not formatted"
grep -q 'print( "x" )' "$T/tree/.hidden/skip.wo" || bad "a dot-directory was formatted"
out=$("$WOC" fmt --check "$T/tree" "$T/tree/good.wo"); st=$?
[ $st -eq 0 ] && [ -z "$out" ] || bad "--check after fmt: exit $st, output [$out]"

# stdin to stdout; --check on stdin.
out=$(printf 'fn main(){print("a")}\n' | "$WOC" fmt -) || bad "fmt - failed"
[ "$out" = 'fn main() { print("a") }' ] || bad "fmt - printed [$out]"
printf 'fn main(){print("a")}\n' | "$WOC" fmt --check - >/dev/null; st=$?
[ $st -eq 1 ] || bad "fmt --check - on messy input: exit $st"

# A syntax error: exit 1 with the diagnostic, the file untouched.
printf 'fn main() {\n  let = 1\n}\n' > "$T/broken.wo"
err=$("$WOC" fmt "$T/broken.wo" 2>&1); st=$?
[ $st -eq 1 ] || bad "syntax error: exit $st, want 1"
echo "$err" | grep -q "broken.wo:2:.*WO-E101" || bad "syntax error diagnostic missing: $err"

# Usage: no path, a missing path, flags of other verbs.
"$WOC" fmt 2>/dev/null; [ $? -eq 2 ] || bad "fmt without PATH should exit 2"
"$WOC" fmt "$T/nope.wo" 2>/dev/null; [ $? -eq 2 ] || bad "fmt of a missing file should exit 2"
"$WOC" check --check "$T/tree/good.wo" 2>/dev/null; [ $? -eq 2 ] || bad "--check on check should exit 2"
"$WOC" fmt --help | grep -q -- "--check" || bad "fmt --help does not describe --check"

[ $fail -eq 0 ] && echo "fmt.cli: ok"
exit $fail
