#!/usr/bin/env bash
# `make test-pg` (issue 13 item 6): every corpus run fixture that uses
# `@table` or `transaction`, in both modes, against ONE private PostgreSQL
# server (scripts/pg-temp.sh) with a fresh database per fixture and mode.
# The checking is scripts/run-fixture.sh's, unchanged: the same expected.out,
# exit status and trap lines as on the embedded store; only the store differs
# (WO_FIXTURE_DATA=<the database's URI> replaces WO_EPHEMERAL=1 and any
# WO_DATA of the fixture's env file). tests/pg/excluded-fixtures.txt lists the
# fixtures that test the embedded store's own files, each with its reason.
#
#   tests/pg/run-fixtures.sh WOC [FIXTURE_NAME...]
#
# PG_JOBS (default 2) fixture runs at a time. Exit 0 all passed, 1 a failure,
# 77 skipped (no PostgreSQL server binaries), 2 usage. The server is stopped
# and its directory removed on every exit.
set -uo pipefail
[[ $# -ge 1 && -x $1 ]] || { echo "usage: $0 WOC [FIXTURE_NAME...]" >&2; exit 2; }
woc=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
shift
root=$(cd "$(dirname "$0")/../.." && pwd)
jobs=${PG_JOBS:-2}
excluded=$root/tests/pg/excluded-fixtures.txt

# The fixtures: named ones, or every run fixture whose .wo files use a table
# or a transaction, minus the exclusion list (whose entries must still exist).
declare -A skip=()
while read -r name reason; do
  [[ -z $name || $name == \#* ]] && continue
  [[ -n $reason ]] || { echo "test-pg: $excluded: $name has no reason" >&2; exit 1; }
  skip[$name]=1
done <"$excluded"
mapfile -t all < <(grep -lE '@table|transaction' "$root"/corpus/run/*/*.wo | xargs -n1 dirname | xargs -n1 basename | sort -u)
for name in "${!skip[@]}"; do
  printf '%s\n' "${all[@]}" | grep -qx -- "$name" ||
    { echo "test-pg: $excluded names $name, which is not a table fixture" >&2; exit 1; }
done
if [[ $# -gt 0 ]]; then
  fixtures=("$@")
else
  fixtures=()
  for name in "${all[@]}"; do
    [[ -n ${skip[$name]:-} ]] || fixtures+=("$name")
  done
fi

source "$root/tests/pg/lib.sh"  # pg_start, pg_require_backend
tmp=$(mktemp -d "${TMPDIR:-/tmp}/wo-test-pg.XXXXXX") || exit 2
trap 'bash "$PG_TEMP" stop "$tmp/pg" >/dev/null 2>&1; rm -rf "$tmp"' EXIT
pg_start test-pg "$tmp"
pg_require_backend test-pg "$woc"
url=$pg_url

# One job: a fresh database (its name unique within this server: the
# fixture's index and the mode), the fixture against it, then the database
# dropped. Its report goes to $tmp/log/INDEX.MODE.
mkdir "$tmp/log"
one() {
  local i=$1 mode=$2 name=${fixtures[$1]}
  local db="fx${i}_$mode" log="$tmp/log/$i.$mode"
  if ! psql "$url" -qXc "CREATE DATABASE $db" >"$log" 2>&1; then
    echo "FAIL [$mode] $name: CREATE DATABASE $db failed" >>"$log"
    return 1
  fi
  local status=0
  WO_FIXTURE_DATA=${url/\/postgres\?/\/$db?} bash "$root/scripts/run-fixture.sh" "$mode" \
    "$root/corpus/run/$name" "$woc" >>"$log" 2>&1 || status=1
  psql "$url" -qXc "DROP DATABASE $db WITH (FORCE)" >>"$log" 2>&1 || true
  [[ $status -eq 0 ]] && echo "ok [$mode] $name" >>"$log"
  return $status
}

start=$SECONDS
running=0
for i in "${!fixtures[@]}"; do
  [[ -d $root/corpus/run/${fixtures[$i]} ]] || { echo "test-pg: no fixture ${fixtures[$i]}"; exit 2; }
  for mode in jit native; do
    one "$i" "$mode" &
    running=$((running + 1))
    if ((running >= jobs)); then
      wait -n
      running=$((running - 1))
    fi
  done
done
wait
passed=0 failed=0
for i in "${!fixtures[@]}"; do
  for mode in jit native; do
    log=$tmp/log/$i.$mode
    if grep -q '^ok ' "$log" 2>/dev/null; then
      passed=$((passed + 1))
    else
      failed=$((failed + 1))
      cat "$log" 2>/dev/null || echo "FAIL [$mode] ${fixtures[$i]}: no report"
    fi
  done
done
echo "test-pg: $passed passed, $failed failed (${#fixtures[@]} fixtures x 2 modes, ${#skip[@]} excluded: ${!skip[*]}) in $((SECONDS - start)) s against PostgreSQL $(psql "$url" -AtXc 'show server_version')"
[[ $failed -eq 0 ]]
