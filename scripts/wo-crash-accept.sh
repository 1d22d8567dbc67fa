#!/usr/bin/env bash
# End-to-end crash acceptance: a durable writer written in .wo
# (tests/db/wo_writer, one transaction of two rows per key) is built with
# woc, SIGKILLed at random moments and restarted on the same store; after
# each kill its `verify` mode must show every acknowledged key stored and no
# transaction partially applied.
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
for ((i = 1; i <= kills; i++)); do
  "$dir/writer" write >>"$dir/acks" 2>>"$dir/writer.err" &
  pid=$!
  sleep "0.$(printf '%03d' $((20 + RANDOM % 150)))"
  kill -KILL "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
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
echo "wo-crash: $kills kills, every restart verified ($(grep -c '^ack' "$dir/acks") acknowledged transactions, $(grep -c '^stored' "$dir/stored") stored)"
