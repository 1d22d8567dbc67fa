#!/usr/bin/env bash
# The SIGKILL crash test against PostgreSQL (issue 13 item 6): the writer of
# tests/pg/crash_writer (single inserts and two-row transactions, `ack K`
# printed after each returns) is built with woc, run with WO_DATA naming a
# database on a private server (scripts/pg-temp.sh) and SIGKILLed at a random
# moment, round after round on the same database; after each kill its
# `verify` mode must find every acknowledged key and no transaction half
# applied. As scripts/wo-crash-accept.sh does for the embedded store.
#
#   tests/pg/crash-test.sh WOC [ROUNDS]     (ROUNDS default 20)
# Exit 0 every round verified, 1 a violation, 77 no server binaries, 2 usage.
set -uo pipefail
[[ $# -ge 1 && -x $1 ]] || { echo "usage: $0 WOC [ROUNDS]" >&2; exit 2; }
woc=$1
rounds=${2:-20}
root=$(cd "$(dirname "$0")/../.." && pwd)
source "$root/tests/pg/lib.sh"  # pg_start, pg_db, pg_require_backend
dir=$(mktemp -d "${TMPDIR:-/tmp}/wo-pg-crash.XXXXXX") || exit 2
trap 'bash "$PG_TEMP" stop "$dir/pg" >/dev/null 2>&1; rm -rf "$dir"' EXIT
pg_start pg.crash "$dir"
pg_require_backend pg.crash "$woc"
db=$(pg_db crash) || exit 1
if ! "$woc" build "$root/tests/pg/crash_writer" -o "$dir/writer" 2>"$dir/build.err"; then
  echo "pg.crash: the writer does not build:" >&2
  cat "$dir/build.err" >&2
  exit 1
fi
unset WO_EPHEMERAL
export WO_DATA=$db
: >"$dir/acks"
for ((i = 1; i <= rounds; i++)); do
  "$dir/writer" write >>"$dir/acks" 2>>"$dir/writer.err" &
  pid=$!
  # a random moment, after the first acknowledgement of the round (bounded)
  before=$(grep -c '^ack' "$dir/acks")
  for ((w = 0; w < 200 && $(grep -c '^ack' "$dir/acks") == before; w++)); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.05
  done
  sleep "0.$(printf '%03d' $((RANDOM % 300)))"
  kill -KILL "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
  # The server finishes a statement the writer sent before it died (and
  # commits it) before it notices the closed socket: the next writer starts
  # once the dead one's backends are gone, or it could pick a key that such
  # a late commit then takes (bounded: 10 s).
  for ((w = 0; w < 200; w++)); do
    [[ $(psql "$db" -AtXc "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()
      AND pid <> pg_backend_pid() AND backend_type = 'client backend'") == 0 ]] && break
    sleep 0.05
  done
  if [[ $(grep -c '^ack' "$dir/acks") -eq $before ]]; then
    echo "pg.crash: round $i: the writer acknowledged nothing; its stderr:" >&2
    tail -5 "$dir/writer.err" >&2
    exit 1
  fi
  if ! timeout 60 "$dir/writer" verify >"$dir/stored" 2>"$dir/verify.err"; then
    echo "pg.crash: round $i: verify failed:" >&2
    cat "$dir/verify.err" >&2
    exit 1
  fi
  if grep -q '^partial' "$dir/stored"; then
    echo "pg.crash: round $i: a transaction is partially applied: $(grep '^partial' "$dir/stored" | head -3)" >&2
    exit 1
  fi
  missing=$(comm -23 <(sed -n 's/^ack //p' "$dir/acks" | sort -u) <(sed -n 's/^stored //p' "$dir/stored" | sort -u))
  if [[ -n $missing ]]; then
    echo "pg.crash: round $i: acknowledged but not stored: $(head -c 200 <<<"$missing")" >&2
    exit 1
  fi
done
echo "pg.crash: $rounds SIGKILLs, every round verified ($(grep -c '^ack' "$dir/acks") acknowledged writes, $(grep -c '^stored' "$dir/stored") stored)"
