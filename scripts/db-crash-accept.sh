#!/usr/bin/env bash
# Crash acceptance of the table store (issue 4): SIGKILLs a durable writer
# at random moments, restarts, and checks every restart against what the
# writer acknowledged.
#
#   scripts/db-crash-accept.sh WRITER [KILLS]
#
# WRITER is tests/db's db_crash_writer (see its header for the workload:
# single inserts, updates, deletes and multi-record transactions from 1 or 3
# threads, or from 8 actors on 2 shards whose fibers park while their
# commits wait (decision 0034), so group commit batches are torn too, or
# from 8 writer actors whose replies are held until their commits are
# durable while 8 client actors print each reply (decision 0045)). KILLS (default 120, or
# DB_CRASH_KILLS) rounds of: start the writer on the same store (which
# replays the log), let it run 20..200 ms, kill -9 it, then run its verify
# mode, which replays the store and checks that every acknowledged row and
# delete and version is there and no transaction is partial. Some rounds use
# a tiny WO_CHECKPOINT_BYTES so checkpoints are killed midway too.
# With FS_SHIM (tests/db's libwo_fs_shim.so, see tests/db/fs_shim.c), two
# rounds in six kill at a chosen point instead of a chosen time: at the n-th
# step of a checkpoint (create, write, fsync, rename, directory fsync of
# `.compact`), and in the next round at one of the first events of start-up
# (the replay's mapping of the log, removing that checkpoint's leftover, the
# torn-tail cut), so start-up after each of those crashes is crashed too.
# Exit status: 0 when every round verifies, 1 on the first violation, 2 usage.
set -uo pipefail

if [[ $# -lt 1 || ! -x $1 ]]; then
  echo "usage: $0 WRITER [KILLS]" >&2
  exit 2
fi
writer=$1
kills=${2:-${DB_CRASH_KILLS:-120}}

dir=$(mktemp -d "${TMPDIR:-/tmp}/wo-db-crash.XXXXXX")
trap 'rm -rf "$dir"' EXIT
acks=$dir/acks.txt
: >"$acks"
export WO_DATA=$dir/
unset WO_EPHEMERAL

floors=(16384 262144 4194304)
shim=${FS_SHIM:-}
at_ckpt=0 at_boot=0  # rounds killed at a checkpoint step, at a start-up step

# A round killed at a random moment.
timed_kill() {
  "$writer" write "$i" "$RANDOM" "$threads" >>"$acks" 2>>"$dir/writer.err" &
  pid=$!
  sleep "0.$(printf '%03d' $((20 + RANDOM % 180)))"
  if ! kill -0 "$pid" 2>/dev/null; then
    wait "$pid"
    echo "db-crash: round $i: the writer exited on its own (status $?) before the kill:" >&2
    tail -5 "$dir/writer.err" >&2
    exit 1
  fi
  kill -KILL "$pid"
  wait "$pid" 2>/dev/null
}

# A round where the writer kills itself just before the shim's event $1
# (bounded by a timeout, should the event never come). --foreground: without
# it timeout's SIGKILL also goes to its own process group, timeout itself
# dies before reaping the writer, and the verify that follows can find the
# log still locked by a writer not yet gone (the flake of db.crash).
shim_kill() {
  { LD_PRELOAD=$shim WO_SHIM_DIR=$(cd "$dir" && pwd -P) WO_SHIM_KILL=$1 \
      ASAN_OPTIONS=${ASAN_OPTIONS:-}:verify_asan_link_order=0 \
      timeout --foreground -s KILL 30 "$writer" write "$i" "$RANDOM" "$threads" >>"$acks" 2>"$dir/round.err"; } 2>/dev/null
  local status=$?  # 137: killed (bash's own "Killed" notice goes to /dev/null above)
  cat "$dir/round.err" >>"$dir/writer.err"
  if [[ $status -ne 137 ]]; then
    echo "db-crash: round $i: the writer exited with status $status before the kill at $1:" >&2
    tail -5 "$dir/round.err" >&2
    exit 1
  fi
  grep -q '^fs-shim: kill' "$dir/round.err"
}

start=$(date +%s)
for ((i = 1; i <= kills; i++)); do
  case $((i % 4)) in 1) threads=1 ;; 2) threads=3 ;; 3) threads=f8 ;; *) threads=r8 ;; esac
  export WO_SHARDS=2
  export WO_CHECKPOINT_BYTES=${floors[RANDOM % 3]}
  unset WO_CHECKPOINT_RATIO
  if [[ -n $shim ]] && ((i % 6 == 3)); then
    # Ratio 1: a checkpoint as soon as the log grew at all, so one comes
    # within the bound even after the 8-writer rounds have grown the store
    # (at ratio 3 one writer alone often needed more than 30 s).
    export WO_CHECKPOINT_BYTES=16384 WO_CHECKPOINT_RATIO=1
    shim_kill "ckpt:$((1 + RANDOM % 8))" && at_ckpt=$((at_ckpt + 1))
  elif [[ -n $shim ]] && ((i % 6 == 4)); then
    shim_kill "any:$((1 + RANDOM % 3))" && at_boot=$((at_boot + 1))
  else
    timed_kill
  fi
  if ! out=$("$writer" verify "$acks" 2>&1); then
    echo "db-crash: round $i (threads $threads, WO_CHECKPOINT_BYTES=$WO_CHECKPOINT_BYTES): violation" >&2
    echo "$out" >&2
    exit 1
  fi
done
if [[ -n $shim ]] && ((kills >= 6 && (at_ckpt == 0 || at_boot == 0))); then
  echo "db-crash: no kill landed in a checkpoint ($at_ckpt) or in start-up ($at_boot)" >&2
  exit 1
fi
echo "db-crash: $kills kills ($at_ckpt in a checkpoint, $at_boot in start-up), every restart verified" \
  "($(grep -c . "$acks") acknowledgements, $(($(date +%s) - start)) s): ${out##*: }"
