#!/usr/bin/env bash
# Builds and runs the table store benchmark (store_bench.cpp): woc's engine
# through its C ABI against SQLite (WAL, synchronous=FULL), same schema, same
# run, plus the raw fdatasync rate of the disk under BENCH_DB_DIR.
#
#   bench/db/run.sh            BUILD_DIR (default build), BENCH_DB_DIR
#                              (default BUILD_DIR/bench/db/data; must not be
#                              tmpfs), BENCH_DB_SECONDS (default 3)
#
# Prints the machine, then the figures and ratios; the figures also go to
# BUILD_DIR/bench/db/latest.txt.
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD_DIR:-$root/build}
[[ $build = /* ]] || build=$root/$build
out=$build/bench/db
data=${BENCH_DB_DIR:-$out/data}

if [[ ! -f /usr/include/sqlite3.h ]]; then
  echo "bench/db: sqlite3.h is missing; run scripts/setup-deps.sh (libsqlite3-dev)" >&2
  exit 1
fi
mkdir -p "$out"
if ! { [[ -f $build/CMakeCache.txt ]] || cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release; } >"$out/build.log" 2>&1 ||
   ! cmake --build "$build" --target wo_runtime -j"$(nproc)" >>"$out/build.log" 2>&1; then
  cat "$out/build.log" >&2
  exit 1
fi
c++ -std=c++20 -O2 -DNDEBUG -I"$root/runtime/include" "$root/bench/db/store_bench.cpp" \
  "$build/bin/libwo_runtime.a" "$(c++ -print-file-name=libbacktrace.a)" -lsqlite3 -lboost_context -lcrypto -pthread \
  -o "$out/store_bench"  # libbacktrace: the runtime's trap backtraces (runtime/CMakeLists.txt)

rm -rf "$data"
mkdir -p "$data"
fs=$(findmnt -n -o FSTYPE --target "$data" 2>/dev/null || stat -f -c %T "$data")
if [[ $fs == tmpfs ]]; then
  echo "bench/db: $data is on tmpfs, where fsync is free; set BENCH_DB_DIR to a real disk" >&2
  exit 1
fi
echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores," \
  "$(awk '/MemTotal/ {printf "%.0f GiB", $2 / 1048576}' /proc/meminfo), Linux $(uname -r)," \
  "$fs at $(df --output=source "$data" | tail -1)"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
"$out/store_bench" "$data" "${BENCH_DB_SECONDS:-3}" | tee "$out/latest.txt"
rm -rf "$data"
