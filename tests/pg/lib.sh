# Shared by the tests of tests/pg (sourced): the private server and the
# skip rules. The caller stops the server at exit:
#   bash "$PG_TEMP" stop DIR/pg
PG_TEMP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/scripts/pg-temp.sh

# pg_start NAME DIR: starts a private server in DIR/pg and sets pg_url to
# its maintenance database's URI. No server binaries: a SKIPPED line and
# exit 77; another failure: a FAIL line and exit 1.
pg_start() {
  chmod 755 "$2"  # the server may run as another user (postgres) when we are root
  pg_url=$(bash "$PG_TEMP" start "$2/pg")
  local st=$?
  if [[ $st -eq 77 ]]; then
    echo "$1: SKIPPED: no PostgreSQL server binaries (Debian's postgresql-15)"
    exit 77
  fi
  [[ $st -eq 0 ]] || { echo "$1: FAIL: the private PostgreSQL server did not start (status $st)"; exit 1; }
}

# pg_db NAME: creates database NAME on the server of pg_start and prints
# its URI.
pg_db() {
  psql "$pg_url" -qXc "CREATE DATABASE $1" >&2 || return 1
  printf '%s\n' "${pg_url/\/postgres\?/\/$1?}"
}

# pg_require_backend NAME WOC: a SKIPPED line and exit 77 when WOC's runtime
# refuses PostgreSQL URIs (built before the PostgreSQL store existed).
pg_require_backend() {
  local out
  out=$(printf '@table(name: "probe")\nclass Probe {\n  n: Int\n}\n\nfn main() {\n  print_int(count(from p in Probe select p))\n}\n' |
    { d=$(mktemp -d) && cat >"$d/main.wo" && WO_DATA=$pg_url timeout 60 "$2" run "$d" 2>&1; rm -rf "$d"; })
  if grep -q 'has no PostgreSQL store' <<<"$out"; then
    echo "$1: SKIPPED: this woc has no PostgreSQL store yet ($(head -1 <<<"$out"))"
    exit 77
  fi
}
