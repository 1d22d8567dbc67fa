#!/usr/bin/env bash
# The copy tool of issue 13 item 8 (runtime/src/wo_db/copy.cpp): a program's
# embedded store, written by tests/pg/copy_program (`write`: gaps in the ids,
# a deleted last row, refs, nullable, container and bytes fields), is copied
# into a fresh PostgreSQL database by the same program started with
# WO_COPY_TO=<URI>; then `read` through WO_DATA=<URI> must print exactly
# copy_program/expected.out (the same rows, ids and next ids, written by
# hand), as `read` on the embedded store does. A second copy into the now
# non-empty database is refused (exit 2, a message, nothing written).
#
#   tests/pg/copy-test.sh WOC
# Exit 0 passed, 1 failed, 77 skipped (no server binaries or no PostgreSQL
# store in this woc), 2 usage.
set -uo pipefail
[[ $# -eq 1 && -x $1 ]] || { echo "usage: $0 WOC" >&2; exit 2; }
woc=$1
root=$(cd "$(dirname "$0")/../.." && pwd)
source "$root/tests/pg/lib.sh"  # pg_start, pg_db, pg_require_backend
dir=$(mktemp -d "${TMPDIR:-/tmp}/wo-pg-copy.XXXXXX") || exit 2
trap 'bash "$PG_TEMP" stop "$dir/pg" >/dev/null 2>&1; rm -rf "$dir"' EXIT
pg_start pg.copy "$dir"
pg_require_backend pg.copy "$woc"
db=$(pg_db copied) || exit 1
fail=0
bad() { echo "pg.copy: FAIL: $*"; fail=1; }
unset WO_EPHEMERAL WO_COPY_TO
"$woc" build "$root/tests/pg/copy_program" -o "$dir/prog" || { echo "pg.copy: the program does not build"; exit 1; }
want=$root/tests/pg/copy_program/expected.out

mkdir "$dir/store"
WO_DATA=$dir/store/ "$dir/prog" write || bad "write exited $?"
cp -r "$dir/store" "$dir/store2"   # `read` inserts: a second copy of the store for the embedded read
WO_DATA=$dir/store/ WO_COPY_TO=$db "$dir/prog" >"$dir/copy.out" 2>"$dir/copy.err"
st=$?
[[ $st -eq 0 ]] || bad "the copy exited $st: $(cat "$dir/copy.err")"
grep -qx 'copy-store: 6 rows of 2 tables copied' "$dir/copy.out" || bad "the copy's report: $(cat "$dir/copy.out")"
grep -q "$dir/pg/sock" "$dir/copy.out" "$dir/copy.err" && bad "the copy printed the URI"

WO_DATA=$dir/store2/ "$dir/prog" >"$dir/embedded.out" 2>"$dir/embedded.err" || bad "read on the embedded store exited $?"
diff -u --label expected.out --label embedded "$want" "$dir/embedded.out" || bad "read on the embedded store"
WO_DATA=$db "$dir/prog" >"$dir/pg.out" 2>"$dir/pg.err" || bad "read on PostgreSQL exited $?: $(head -3 "$dir/pg.err")"
diff -u --label expected.out --label postgresql "$want" "$dir/pg.out" || bad "read on the copy in PostgreSQL"

WO_DATA=$dir/store/ WO_COPY_TO=$db "$dir/prog" >"$dir/again.out" 2>"$dir/again.err"
st=$?
[[ $st -eq 2 ]] && grep -q 'already has rows' "$dir/again.err" ||
  bad "a copy into a non-empty database: exit $st, stderr: $(cat "$dir/again.err")"
[[ $(psql "$db" -AtXc 'SELECT count(*) FROM teams') == 4 ]] || bad "the refused copy changed the teams table"
[[ $fail -eq 0 ]] && echo "pg.copy: the embedded store's rows, ids and next ids read back the same from PostgreSQL"
exit $fail
