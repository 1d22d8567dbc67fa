#!/usr/bin/env bash
# Crash acceptance of the table store (issue 4): SIGKILLs a durable writer
# at random moments, restarts, and checks every restart against what the
# writer acknowledged.
#
#   scripts/db-crash-accept.sh WRITER [KILLS]
#
# WRITER is tests/db's db_crash_writer (see its header for the workload:
# single inserts, updates, deletes and multi-record transactions from 1 or 3
# threads, so group commit batches are torn too). KILLS (default 120, or
# DB_CRASH_KILLS) rounds of: start the writer on the same store (which
# replays the log), let it run 20..200 ms, kill -9 it, then run its verify
# mode, which replays the store and checks that every acknowledged row and
# delete and version is there and no transaction is partial. Some rounds use
# a tiny WO_CHECKPOINT_BYTES so checkpoints are killed midway too.
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
start=$(date +%s)
for ((i = 1; i <= kills; i++)); do
  threads=$((i % 2 ? 1 : 3))
  export WO_CHECKPOINT_BYTES=${floors[RANDOM % 3]}
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
  if ! out=$("$writer" verify "$acks" 2>&1); then
    echo "db-crash: round $i (threads $threads, WO_CHECKPOINT_BYTES=$WO_CHECKPOINT_BYTES): violation" >&2
    echo "$out" >&2
    exit 1
  fi
done
echo "db-crash: $kills kills, every restart verified ($(grep -c . "$acks") acknowledgements, $(($(date +%s) - start)) s): ${out##*: }"
