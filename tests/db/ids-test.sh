#!/usr/bin/env bash
# Row ids never come back (runtime.md §1.4, docs/decisions/0080), end to end
# through a .wo program (tests/db/wo_ids) killed with SIGKILL and restarted
# on the same store:
#   - checkpoint: rows 1..5, 3..5 deleted, then updates until a checkpoint
#     comes (WO_CHECKPOINT_BYTES=4096); the fs shim kills the writer right
#     after the checkpoint's rename, before the directory's fsync. The
#     restart must give the next row id 6 (it gave 3 before the fix);
#   - the log alone: the same rows, killed once `deleted` is printed (no
#     checkpoint due); the restart gives 6;
#   - boot in bulk: 70,000 rows and the last 1,000 deleted in one block, the
#     checkpoint, the kill; the restart loads the snapshot's blocks and
#     builds the indexes after open (decision 0070); it gives 70001;
#   - an aborted block: the next insert gets a fresh id (3, not the block's
#     2), the row's handle kept by the caller reads as gone (not as that
#     later row), and after a restart the next id is 4;
#   - with `pg` (CTest pg.ids; exit 77 without the server binaries): the
#     checkpointed store copied into PostgreSQL by WO_COPY_TO gives 6 there
#     too, and the aborted block on the PostgreSQL store behaves the same.
# The kills are placed by the writer's own output or by the shim's event
# count, never by a sleep.
#
#   tests/db/ids-test.sh WOC FS_SHIM [pg]
# Exit 0 passed, 1 failed, 2 usage; with `pg`: 77 skipped without a server.
set -uo pipefail
[[ $# -ge 2 && -x $1 && -f $2 ]] || { echo "usage: $0 WOC FS_SHIM [pg]" >&2; exit 2; }
woc=$1
shim=$2
with_pg=${3:-}
root=$(cd "$(dirname "$0")/../.." && pwd)
dir=$(mktemp -d "${TMPDIR:-/tmp}/wo-ids.XXXXXX") || exit 2
cleanup() {
  [[ -n $with_pg ]] && bash "$root/scripts/pg-temp.sh" stop "$dir/pg" >/dev/null 2>&1
  rm -rf "$dir"
}
trap cleanup EXIT
unset WO_EPHEMERAL WO_COPY_TO WO_CHECKPOINT_BYTES WO_CHECKPOINT_RATIO WO_DATA
name=db.ids.wo
[[ -n $with_pg ]] && name=pg.ids
fail=0
bad() { echo "$name: FAIL: $*"; fail=1; }

if [[ -n $with_pg ]]; then
  source "$root/tests/pg/lib.sh"  # pg_start, pg_db, pg_require_backend
  pg_start "$name" "$dir"
  pg_require_backend "$name" "$woc"
fi

"$woc" build "$root/tests/db/wo_ids" -o "$dir/prog" 2>"$dir/build.err" || {
  echo "$name: the program does not build:"; cat "$dir/build.err"; exit 1
}

# The writer of store $1 (a new directory) with `write $2`, killed by the
# shim just before the second fsync of the directory: the first is the new
# log's, the second the checkpoint's, after its rename. Bounded by a timeout
# should no checkpoint come.
killed_after_checkpoint() {
  local store=$dir/$1
  mkdir "$store"
  { LD_PRELOAD=$shim WO_SHIM_DIR=$(cd "$store" && pwd -P) WO_SHIM_KILL=dirsync:2 WO_CHECKPOINT_BYTES=4096 \
      WO_DATA=$store/store.wal ASAN_OPTIONS=${ASAN_OPTIONS:-}:verify_asan_link_order=0 \
      timeout --foreground -s KILL 120 "$dir/prog" write "$2" >"$dir/$1.out" 2>"$dir/$1.err"; } 2>/dev/null
  local st=$?
  if [[ $st -ne 137 ]] || ! grep -q '^fs-shim: kill.*dirsync' "$dir/$1.err" || ! grep -qx deleted "$dir/$1.out"; then
    bad "$1: the writer was not killed after a checkpoint (status $st): $(head -3 "$dir/$1.err")"
    return 1
  fi
  [[ -e $store/store.wal.compact ]] && bad "$1: the checkpoint was not renamed over the log"
  return 0
}

# The next id on store $1, expected $2 (and $3 rows).
expect_next() {
  local out
  out=$(WO_DATA=$2 "$dir/prog" 2>"$dir/next.err" | tr '\n' ' ')
  [[ $out == "next $3 rows $4 " ]] || bad "$1: the next insert after the restart: '$out' (want next $3, rows $4) $(head -2 "$dir/next.err")"
}

if [[ -z $with_pg ]]; then
  # A checkpoint, then SIGKILL.
  killed_after_checkpoint ckpt 5 && expect_next checkpoint "$dir/ckpt/store.wal" 6 3

  # The log alone: killed once the deletes are acknowledged.
  mkdir "$dir/log"
  coproc W { WO_DATA=$dir/log/store.wal WO_CHECKPOINT_BYTES=1073741824 exec "$dir/prog" write 5 2>"$dir/log.err"; }
  wpid=$W_PID
  line=
  read -r -t 60 -u "${W[0]}" line
  kill -KILL "$wpid" 2>/dev/null
  wait "$wpid" 2>/dev/null
  [[ $line == deleted ]] || bad "log: the writer did not get to its deletes: '$line' $(head -3 "$dir/log.err")"
  expect_next log "$dir/log/store.wal" 6 3

  # Boot in bulk: a checkpoint of 69,000 rows whose ids end at 70,000.
  killed_after_checkpoint bulk 70000 && expect_next bulk "$dir/bulk/store.wal" 70001 69001

  # An aborted block's handle, then a restart.
  mkdir "$dir/abort"
  out=$(WO_DATA=$dir/abort/store.wal "$dir/prog" abort 2>"$dir/abort.err" | tr '\n' ' ')
  [[ $out == "kept 2 later 3 gone " ]] || bad "abort: '$out' (want 'kept 2 later 3 gone') $(head -2 "$dir/abort.err")"
  expect_next abort "$dir/abort/store.wal" 4 3
else
  # The checkpointed store copied into PostgreSQL keeps its next id.
  if killed_after_checkpoint ckpt 5; then
    db=$(pg_db copied) || exit 1
    WO_DATA=$dir/ckpt/store.wal WO_COPY_TO=$db "$dir/prog" >"$dir/copy.out" 2>"$dir/copy.err" ||
      bad "the copy exited $?: $(head -3 "$dir/copy.err")"
    expect_next copy "$db" 6 3
  fi
  # An aborted block on the PostgreSQL store, then a restart.
  db=$(pg_db aborted) || exit 1
  out=$(WO_DATA=$db "$dir/prog" abort 2>"$dir/abort.err" | tr '\n' ' ')
  [[ $out == "kept 2 later 3 gone " ]] || bad "abort: '$out' (want 'kept 2 later 3 gone') $(head -2 "$dir/abort.err")"
  expect_next abort "$db" 4 3

  # Two processes: A's block takes id 2 and waits for the gate row, which a
  # psql session of the test holds locked; B's insert then waits for A's
  # block (its class's id lock); the gate opens, A's block traps and aborts.
  # B must get 3: the rollback set the counter back to 2, but A burns its
  # id again before B can read the counter.
  db=$(pg_db raced) || exit 1
  WO_DATA=$db "$dir/prog" init 2>"$dir/init.err" || bad "race: init exited $?: $(head -2 "$dir/init.err")"
  coproc GATE { psql "$db" -AtXq 2>&1; }
  echo 'BEGIN; SELECT n FROM gates FOR UPDATE;' >&"${GATE[1]}"
  read -r -t 60 -u "${GATE[0]}" held
  mkfifo "$dir/hold.out"
  WO_DATA=$db "$dir/prog" hold >"$dir/hold.out" 2>"$dir/hold.err" &
  apid=$!
  exec {afd}<"$dir/hold.out"
  read -r -t 60 -u "$afd" took
  WO_DATA=$db "$dir/prog" >"$dir/b.out" 2>"$dir/b.err" &
  bpid=$!
  # Until both wait on a lock (A on the gate row, B on the id lock).
  for ((i = 0; i < 600; i++)); do
    waiting=$(psql "$db" -AtXc "SELECT count(*) FROM pg_locks WHERE NOT granted")
    [[ $waiting -ge 2 ]] && break
    sleep 0.05
  done
  echo 'COMMIT;' >&"${GATE[1]}"
  read -r -t 60 -u "$afd" aborted
  exec {afd}<&-
  wait "$apid" 2>/dev/null
  wait "$bpid" 2>/dev/null
  echo '\q' >&"${GATE[1]}"
  [[ $held == 1 && $took == "took 2" && $waiting -ge 2 && $aborted == "aborted 1" ]] ||
    bad "race: gate '$held', A '$took' / '$aborted', $waiting waiting: $(head -2 "$dir/hold.err")"
  [[ $(tr '\n' ' ' <"$dir/b.out") == "next 3 rows 2 " ]] ||
    bad "race: B's insert after A's aborted block: '$(tr '\n' ' ' <"$dir/b.out")' (want next 3, rows 2) $(head -2 "$dir/b.err")"
fi
[[ $fail -eq 0 ]] && echo "$name: every restart gave the next id past every id handed out"
exit $fail
