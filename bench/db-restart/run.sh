#!/usr/bin/env bash
# Builds and runs the restart benchmark (restart_bench.cpp): open-until-
# queryable of stores of 10k..1M rows (checkpointed, and left in the log)
# against SQLite opening the same rows, in one run (issue 12 item 2).
#
#   bench/db-restart/run.sh    BUILD_DIR (default build), BENCH_RESTART_DIR
#                              (default BUILD_DIR/bench/db-restart/data),
#                              BENCH_RESTART_SIZES (default "10000 100000 1000000";
#                              add 10000000 when the machine has ~4 GiB to spare)
#
# Prints the `restart-...` lines, a markdown table for docs/perf.md (history: docs/perf/restart.md) and
# tab-separated records; all of it also goes to BUILD_DIR/bench/db-restart/latest.txt.
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD_DIR:-$root/build}
[[ $build = /* ]] || build=$root/$build
out=$build/bench/db-restart
data=${BENCH_RESTART_DIR:-$out/data}

if [[ ! -f /usr/include/sqlite3.h ]]; then
  echo "bench/db-restart: sqlite3.h is missing; run scripts/setup-deps.sh (libsqlite3-dev)" >&2
  exit 1
fi
mkdir -p "$out"
# The same binary as the smoke test's (tests/db/CMakeLists.txt).
if ! { [[ -f $build/CMakeCache.txt ]] || cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release; } >"$out/build.log" 2>&1 ||
   ! cmake --build "$build" --target restart_bench -j"$(nproc)" >>"$out/build.log" 2>&1; then
  cat "$out/build.log" >&2
  exit 1
fi

rm -rf "$data"
mkdir -p "$data"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
# shellcheck disable=SC2086
"$build/bin/restart_bench" "$data" ${BENCH_RESTART_SIZES:-10000 100000 1000000} | tee "$out/latest.txt"
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
rm -rf "$data"
