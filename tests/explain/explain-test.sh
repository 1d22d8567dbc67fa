#!/usr/bin/env bash
# The diagnostics catalog (common/explain.md) stays honest:
#  * every code of common/diagnostics.def has an entry, shown by `woc explain`;
#  * each entry's wrong examples produce its code under `woc check`, and its
#    right examples check without that code and without errors (entries
#    marked `Not checked:` say why they are skipped), and every place in
#    sema/ and frontend/ that reports a code is shown by one of that code's
#    wrong examples (catalog-test.py);
#  * docs/language/diagnostics.md is what scripts/gen-diagnostics-doc.sh
#    makes of the catalog;
#  * unknown codes exit 2; `woc explain` alone lists every code.
set -u
WOC=$(realpath "$1")
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
fail=0
bad() { echo "FAIL: $*"; fail=1; }

codes=$(sed -n 's/^DIAG([A-Z0-9]*, "\(WO-[EW][0-9]*\)".*/\1/p' "$ROOT/common/diagnostics.def")
[ -n "$codes" ] || bad "no codes read from diagnostics.def"
for c in $codes; do
  grep -qx "## $c" "$ROOT/common/explain.md" || { bad "$c has no entry in common/explain.md"; continue; }
  out=$("$WOC" explain "$c"); st=$?
  [ $st -eq 0 ] && echo "$out" | head -1 | grep -q "^$c" || bad "woc explain $c: exit $st"
done

# Every example program against woc check, and every report site of sema/
# and frontend/ against the examples (catalog-test.py says how).
python3 "$ROOT/tests/explain/catalog-test.py" "$WOC" || bad "catalog-test.py"

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
