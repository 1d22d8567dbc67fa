#!/usr/bin/env bash
# The diagnostics catalog (common/explain.md) stays honest:
#  * every code of common/diagnostics.def has an entry, shown by `woc explain`;
#  * each entry's wrong example produces its code under `woc check`, and its
#    right example checks without that code and without errors (entries
#    marked `Not checked:` say why they are skipped);
#  * docs/language/diagnostics.md is what scripts/gen-diagnostics-doc.sh
#    makes of the catalog;
#  * unknown codes exit 2; `woc explain` alone lists every code.
set -u
WOC=$(realpath "$1")
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }

# Split the catalog into $T/<code>/{wrong,right}/<file> (+ $T/<code>/unchecked).
awk -v out="$T" '
  /^## WO-[EW][0-9][0-9][0-9]/ { code = $2; system("mkdir -p " out "/" code); next }
  /^Not checked:/ && code != "" { print "x" > (out "/" code "/unchecked"); next }
  /^```[a-z]+ (wrong|right)/ && code != "" {
    role = $2; file = "main.wo"
    if ($3 ~ /^file=/) file = substr($3, 6)
    path = out "/" code "/" role "/" file
    dir = path; sub(/\/[^\/]*$/, "", dir); system("mkdir -p " dir)
    printf "" > path
    inblock = 1; next
  }
  /^```$/ && inblock { inblock = 0; close(path); next }
  inblock { print >> path }
' "$ROOT/common/explain.md"

codes=$(sed -n 's/^DIAG([A-Z0-9]*, "\(WO-[EW][0-9]*\)".*/\1/p' "$ROOT/common/diagnostics.def")
[ -n "$codes" ] || bad "no codes read from diagnostics.def"
checked=0
for c in $codes; do
  if [ ! -d "$T/$c" ]; then bad "$c has no entry in common/explain.md"; continue; fi
  out=$("$WOC" explain "$c"); st=$?
  [ $st -eq 0 ] && echo "$out" | head -1 | grep -q "^$c" || bad "woc explain $c: exit $st"
  [ -d "$T/$c/wrong" ] && [ -d "$T/$c/right" ] || bad "$c lacks a wrong or a right example"
  [ -f "$T/$c/unchecked" ] && continue
  got=$("$WOC" check "$T/$c/wrong" 2>&1)
  echo "$got" | grep -q "$c" || bad "$c: the wrong example does not produce $c: $got"
  got=$("$WOC" check "$T/$c/right" 2>&1); st=$?
  { [ $st -eq 0 ] && ! echo "$got" | grep -q "$c"; } || bad "$c: the right example does not check clean (exit $st): $got"
  checked=$((checked + 1))
done
echo "explain: $checked codes checked against woc check"

# Entries for codes that do not exist.
for c in $(grep -o '^## WO-[EW][0-9]*' "$ROOT/common/explain.md" | cut -c4-); do
  echo "$codes" | grep -qx "$c" || bad "common/explain.md has an entry for unknown code $c"
done

# The generated reference is current.
bash "$ROOT/scripts/gen-diagnostics-doc.sh" --check || bad "docs/language/diagnostics.md is stale (run scripts/gen-diagnostics-doc.sh)"

# Lookup forms, unknown codes, the list.
[ "$("$WOC" explain e201 | head -1)" = "$("$WOC" explain WO-E201 | head -1)" ] || bad "e201 is not WO-E201"
[ "$("$WOC" explain 201 | head -1)" = "$("$WOC" explain WO-E201 | head -1)" ] || bad "201 is not WO-E201"
err=$("$WOC" explain WO-E999 2>&1); st=$?
[ $st -eq 2 ] && echo "$err" | grep -q "unknown diagnostic code" || bad "unknown code: exit $st, $err"
"$WOC" explain nonsense >/dev/null 2>&1; [ $? -eq 2 ] || bad "a malformed code should exit 2"
list=$("$WOC" explain) || bad "woc explain alone failed"
[ "$(echo "$list" | grep -c '^WO-')" -eq "$(echo "$codes" | wc -w)" ] || bad "woc explain does not list every code"
"$WOC" explain --help | grep -q "Usage: woc explain" || bad "explain --help"

[ $fail -eq 0 ] && echo "explain: ok"
exit $fail
