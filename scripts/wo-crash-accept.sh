#!/usr/bin/env bash
# End-to-end crash acceptance: a durable writer written in .wo
# (tests/db/wo_writer, one transaction of two rows per key) is built with
# woc, SIGKILLed at random moments and restarted on the same store; after
# each kill its `verify` mode must show every acknowledged key stored and no
# transaction partially applied. With FS_SHIM (tests/db's libwo_fs_shim.so),
# two rounds in six kill at a chosen point instead of a chosen time: at the
# n-th step of a checkpoint (WO_CHECKPOINT_BYTES=16384 makes one come soon),
# and in the next round at one of the first events of start-up (replay's
# mapping of the log, removing that checkpoint's leftover), as in
# scripts/db-crash-accept.sh.
#
#   scripts/wo-crash-accept.sh WOC [KILLS]      (KILLS default 40)
# Exit status: 0 when every round verifies, 1 on the first violation, 2 usage.
set -uo pipefail

if [[ $# -lt 1 || ! -x $1 ]]; then
  echo "usage: $0 WOC [KILLS]" >&2
  exit 2
fi
woc=$1
kills=${2:-${WO_CRASH_KILLS:-40}}
root=$(cd "$(dirname "$0")/.." && pwd)
dir=$(mktemp -d "${TMPDIR:-/tmp}/wo-crash.XXXXXX")
trap 'rm -rf "$dir"' EXIT

if ! "$woc" build "$root/tests/db/wo_writer" -o "$dir/writer" 2>"$dir/build.err"; then
  echo "wo-crash: the writer does not build:" >&2
  cat "$dir/build.err" >&2
  exit 1
fi
export WO_DATA=$dir/store.wal
unset WO_EPHEMERAL
: >"$dir/acks"
shim=${FS_SHIM:-}
at_ckpt=0 at_boot=0

# A round where the writer kills itself just before the shim's event $1
# (bounded by a timeout, should the event never come). --foreground: without
# it timeout's SIGKILL also goes to its own process group, timeout itself
# dies before reaping the writer, and the verify that follows can find the
# log still locked by a writer not yet gone (the flake of db.crash).
shim_kill() {
  { LD_PRELOAD=$shim WO_SHIM_DIR=$(cd "$dir" && pwd -P) WO_SHIM_KILL=$1 WO_CHECKPOINT_BYTES=16384 \
      ASAN_OPTIONS=${ASAN_OPTIONS:-}:verify_asan_link_order=0 \
      timeout --foreground -s KILL 30 "$dir/writer" write >>"$dir/acks" 2>"$dir/round.err"; } 2>/dev/null
  local status=$?  # 137: killed (bash's own "Killed" notice goes to /dev/null above)
  cat "$dir/round.err" >>"$dir/writer.err"
  if [[ $status -ne 137 ]]; then
    echo "wo-crash: round $i: the writer exited with status $status before the kill at $1:" >&2
    tail -5 "$dir/round.err" >&2
    exit 1
  fi
  grep -q '^fs-shim: kill' "$dir/round.err"
}

for ((i = 1; i <= kills; i++)); do
  if [[ -n $shim ]] && ((i % 6 == 3)); then
    shim_kill "ckpt:$((1 + RANDOM % 8))" && at_ckpt=$((at_ckpt + 1))
  elif [[ -n $shim ]] && ((i % 6 == 4)); then
    shim_kill "any:$((1 + RANDOM % 3))" && at_boot=$((at_boot + 1))
  else
    "$dir/writer" write >>"$dir/acks" 2>>"$dir/writer.err" &
    pid=$!
    sleep "0.$(printf '%03d' $((20 + RANDOM % 150)))"
    kill -KILL "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
  fi
  if ! "$dir/writer" verify >"$dir/stored" 2>"$dir/verify.err"; then
    echo "wo-crash: round $i: verify failed:" >&2
    cat "$dir/verify.err" >&2
    exit 1
  fi
  if grep -q '^partial' "$dir/stored"; then
    echo "wo-crash: round $i: a transaction is partially applied:" >&2
    grep '^partial' "$dir/stored" | head -5 >&2
    exit 1
  fi
  missing=$(comm -23 <(sed -n 's/^ack //p' "$dir/acks" | sort -u) <(sed -n 's/^stored //p' "$dir/stored" | sort -u))
  if [[ -n $missing ]]; then
    echo "wo-crash: round $i: acknowledged but not stored: $(head -c 200 <<<"$missing")" >&2
    exit 1
  fi
done
if [[ -n $shim ]] && ((kills >= 6 && (at_ckpt == 0 || at_boot == 0))); then
  echo "wo-crash: no kill landed in a checkpoint ($at_ckpt) or in start-up ($at_boot)" >&2
  exit 1
fi
echo "wo-crash: $kills kills ($at_ckpt in a checkpoint, $at_boot in start-up), every restart verified ($(grep -c '^ack' "$dir/acks") acknowledged transactions, $(grep -c '^stored' "$dir/stored") stored)"
