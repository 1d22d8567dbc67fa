#!/usr/bin/env bash
# WO_DATA never destroys what the store did not write (issue 7 item 6), end to
# end: tests/db/wo_notes (one durable table; each run adds a row and prints the
# count) run under `woc run` and as a `woc build` executable, with WO_DATA at
#   - a text file, and a directory whose shard-0.wal is a text file: exit 2,
#     one `wo: ...` line naming the file, the file byte for byte unchanged;
#   - a file with a newer format's header: the same;
#   - a log written by the earlier, headerless format (tests/db/assets/
#     legacy-notes.wal): opens with its two rows, gains the header;
#   - that log with a user's file at <log>.compact: exit 2, both unchanged;
#   - a symbolic link, with a checkpoint after every write: the link stays a
#     link and the file it names holds the rows.
#
#   scripts/wo-data-safety.sh WOC
# Exit status: 0 when every check holds, 1 on the first that does not, 2 usage.
set -uo pipefail

if [[ $# -ne 1 || ! -x $1 ]]; then
  echo "usage: $0 WOC" >&2
  exit 2
fi
woc=$1
root=$(cd "$(dirname "$0")/.." && pwd)
prog=$root/tests/db/wo_notes
tmp=$(mktemp -d "${TMPDIR:-/tmp}/wo-data-safety.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

mode=build
fail() {
  echo "wo-data-safety [$mode]: $*" >&2
  [[ -s $tmp/err ]] && sed 's/^/  stderr: /' "$tmp/err" >&2
  exit 1
}

"$woc" build "$prog" -o "$tmp/notes" 2>"$tmp/err" || fail "the program does not build"

# run DATA [VAR=VALUE...]: the program with WO_DATA=DATA; sets $status, $tmp/out, $tmp/err.
run() {
  local data=$1
  shift
  local -a cmd=("$tmp/notes")
  [[ $mode == jit ]] && cmd=("$woc" run "$prog")
  env -u WO_EPHEMERAL WO_DATA="$data" "$@" "${cmd[@]}" >"$tmp/out" 2>"$tmp/err" </dev/null
  status=$?
}

# refused DATA FILE WORDS: exit 2, no output, one stderr line naming FILE with WORDS, FILE unchanged.
refused() {
  local data=$1 file=$2 words=$3 before
  before=$(cksum <"$file")
  run "$data"
  [[ $status -eq 2 ]] || fail "WO_DATA=$data: exit $status, expected 2"
  [[ ! -s $tmp/out ]] || fail "WO_DATA=$data: the program ran: $(head -c 200 "$tmp/out")"
  [[ $(wc -l <"$tmp/err") -eq 1 ]] || fail "WO_DATA=$data: expected one stderr line"
  grep -qF "wo: $file $words" "$tmp/err" || fail "WO_DATA=$data: stderr does not say 'wo: $file $words'"
  [[ $(cksum <"$file") == "$before" ]] || fail "WO_DATA=$data: $file was changed"
}

# prints N: exit 0 and stdout N.
prints() {
  [[ $status -eq 0 ]] || fail "exit $status, expected 0"
  [[ $(cat "$tmp/out") == "$1" ]] || fail "printed '$(cat "$tmp/out")', expected '$1'"
}

header() { head -c 8 "$1" | od -An -tx1 | tr -d ' \n'; }
magic=89574f44420d0a1a

for mode in jit native; do
  d=$tmp/$mode
  mkdir -p "$d/dir"
  printf 'my notes\nline two\n' >"$d/notes.txt"
  refused "$d/notes.txt" "$d/notes.txt" "is not a wo store"
  printf 'not a log either\n' >"$d/dir/shard-0.wal"
  refused "$d/dir" "$d/dir/shard-0.wal" "is not a wo store"

  printf '\x89WODB\r\n\x1a\x05\x00\x00\x00\x00\x00\x00\x00written by a later woc' >"$d/future.wal"
  refused "$d/future.wal" "$d/future.wal" "was written by a newer version of the store (file format 5"

  cp "$root/tests/db/assets/legacy-notes.wal" "$d/legacy.wal"
  printf 'a file of the user that happens to have this name\n' >"$d/legacy.wal.compact"
  refused "$d/legacy.wal" "$d/legacy.wal.compact" "is in the way"
  cmp -s "$root/tests/db/assets/legacy-notes.wal" "$d/legacy.wal" || fail "the log changed while it was refused"
  rm "$d/legacy.wal.compact"
  run "$d/legacy.wal"
  prints 3
  grep -qF "wo: $d/legacy.wal upgraded to store file format 4" "$tmp/err" || fail "no upgrade notice"
  [[ $(header "$d/legacy.wal") == "$magic" ]] || fail "the upgraded log does not start with the header"
  run "$d/legacy.wal"
  prints 4
  [[ ! -s $tmp/err ]] || fail "a second upgrade notice"

  # A PostgreSQL URI naming no reachable server is refused (the PostgreSQL store, runtime/src/pg/),
  # creates nothing, and its password is not printed.
  pushd "$d" >/dev/null
  run 'postgresql://wo:s3cret@localhost/shop'
  popd >/dev/null
  [[ $status -eq 2 && ! -s $tmp/out ]] || fail "a PostgreSQL URI: exit $status, expected 2 and no output"
  grep -q "names a PostgreSQL database" "$tmp/err" || fail "a PostgreSQL URI: $(head -c 200 "$tmp/err")"
  grep -q s3cret "$tmp/err" && fail "a PostgreSQL URI: the password was printed"
  [[ ! -e $d/postgresql: ]] || fail "a PostgreSQL URI: a directory 'postgresql:' was created"

  ln -s "$d/real.wal" "$d/link.wal"
  run "$d/link.wal"
  [[ $status -eq 2 && ! -e $d/real.wal ]] || fail "a dangling link: exit $status, or its target was created"
  : >"$d/real.wal"
  run "$d/link.wal" WO_CHECKPOINT_BYTES=1
  prints 1
  run "$d/link.wal" WO_CHECKPOINT_BYTES=1
  prints 2
  [[ -L $d/link.wal ]] || fail "a checkpoint replaced the symbolic link"
  [[ $(header "$d/real.wal") == "$magic" ]] || fail "the file behind the link is not the store"
done
echo "wo-data-safety: foreign, newer, earlier-format, in-the-way and linked files, jit and native: ok"
