#!/usr/bin/env bash
# scripts/pg-temp.sh: a private server starts, answers on its socket, takes a
# second database, and stops without leaving a process. Exit 77 (skipped)
# when the PostgreSQL server binaries are not installed.
set -u
HERE=$(cd "$(dirname "$0")/../.." && pwd)
PG=$HERE/scripts/pg-temp.sh
T=$(mktemp -d)
chmod 755 "$T"  # the server may run as another user (postgres) when we are root
trap 'bash "$PG" stop "$T/pg" >/dev/null 2>&1; rm -rf "$T"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }

url=$(bash "$PG" start "$T/pg"); st=$?
[[ $st -eq 77 ]] && { echo "pg.harness: skipped (no PostgreSQL server binaries)"; exit 77; }
[[ $st -eq 0 ]] || { echo "FAIL: start exited $st"; exit 1; }
[[ $url == postgresql://wo@/postgres\?host=$T/pg/sock\&port=* ]] || bad "URI: $url"
[[ $(psql "$url" -Atc 'select 40 + 2') == 42 ]] || bad "select on the private socket"
psql "$url" -qc 'create database fixture_1' || bad "create database"
[[ $(psql "${url/\/postgres\?/\/fixture_1?}" -Atc 'select current_database()') == fixture_1 ]] || bad "the second database"
[[ $(bash "$PG" url "$T/pg") == "$url" ]] || bad "url prints the same URI"
ss -lnt 2>/dev/null | grep -q ":${url##*port=} " && bad "the server listens on TCP"
bash "$PG" stop "$T/pg" || bad "stop exited $?"
pgrep -f "$T/pg/data" >/dev/null && bad "a server process is left after stop"
[[ $fail -eq 0 ]] && echo "pg.harness: ok"
exit $fail
