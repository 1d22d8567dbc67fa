#!/usr/bin/env bash
# A private PostgreSQL server in a directory of its own, for tests and
# benchmarks (issue 13): nothing outside DIR is touched, nothing listens on
# TCP, and `stop` leaves no process behind.
#
#   scripts/pg-temp.sh start DIR   initdb DIR/data (first time), start the
#                                  server on a Unix socket in DIR/sock and
#                                  print its libpq URI on stdout
#   scripts/pg-temp.sh stop DIR    fast shutdown (waits up to 30 s)
#   scripts/pg-temp.sh url DIR     print the URI of a started server
#
# Exit status 77 when the server binaries are not installed (Debian's
# postgresql-15; ctest reads 77 as "skipped"), 1 on any other failure with
# the server's log on stderr. PostgreSQL refuses to run as root: as root the
# server runs as the `postgres` user the Debian package creates, and DIR is
# handed to it. Authentication is `trust` on the private socket only.
set -euo pipefail

usage() { echo "usage: $0 start|stop|url DIR" >&2; exit 2; }
[[ $# -eq 2 ]] || usage
cmd=$1
dir=$(mkdir -p "$2" && cd "$2" && pwd)

bindir=""
for d in "$(pg_config --bindir 2>/dev/null || true)" /usr/lib/postgresql/15/bin /usr/lib/postgresql/*/bin; do
  if [[ -n $d && -x $d/initdb && -x $d/pg_ctl && -x $d/postgres ]]; then
    bindir=$d
    break
  fi
done
if [[ -z $bindir ]]; then
  echo "pg-temp: no PostgreSQL server binaries (initdb, pg_ctl, postgres); install Debian's postgresql-15" >&2
  exit 77
fi

as_owner=()
if [[ $(id -u) -eq 0 ]]; then
  id postgres >/dev/null 2>&1 || { echo "pg-temp: running as root and there is no 'postgres' user to run the server" >&2; exit 1; }
  as_owner=(runuser -u postgres --)
fi

# One port number per directory (it only names the socket file), from its path.
port=$((20000 + $(printf '%s' "$dir" | cksum | cut -d' ' -f1) % 20000))
uri="postgresql://wo@/postgres?host=$dir/sock&port=$port"

case $cmd in
  start)
    mkdir -p "$dir/sock"
    if [[ ${#as_owner[@]} -gt 0 ]]; then
      chown -R postgres "$dir"
      "${as_owner[@]}" test -w "$dir" ||
        { echo "pg-temp: the postgres user cannot reach $dir (a parent directory is not searchable)" >&2; exit 1; }
    fi
    if [[ ! -f $dir/data/PG_VERSION ]]; then
      if ! "${as_owner[@]}" "$bindir/initdb" -D "$dir/data" -U wo -A trust -E UTF8 --locale=C.UTF-8 \
        >"$dir/initdb.log" 2>&1; then
        cat "$dir/initdb.log" >&2
        exit 1
      fi
    fi
    if ! "${as_owner[@]}" "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 30 start \
      -o "-c listen_addresses='' -c unix_socket_directories='$dir/sock' -p $port" >/dev/null; then
      echo "pg-temp: the server did not start; its log:" >&2
      tail -20 "$dir/server.log" >&2 || true
      exit 1
    fi
    echo "$uri"
    ;;
  stop)
    [[ -f $dir/data/postmaster.pid ]] || exit 0
    "${as_owner[@]}" "$bindir/pg_ctl" -D "$dir/data" -m fast -w -t 30 stop >/dev/null
    ;;
  url) echo "$uri" ;;
  *) usage ;;
esac
