#!/usr/bin/env bash
# Libraries against our hand-written code (issue 12 item 5): builds
# wo_libs_bench (bench/libs/libs_bench.cpp, a target of tests/CMakeLists.txt)
# and runs it: json.decode vs simdjson On-Demand, base64 vs OpenSSL, the WAL
# CRC vs hardware CRC-32C; median of 5, thread CPU time, one line each.
#
#   bench/libs/run.sh     BUILD_DIR (default build)
#
# The lines also go to BUILD_DIR/bench/libs.txt.
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD_DIR:-$root/build}
[[ $build = /* ]] || build=$root/$build
mkdir -p "$build/bench"
log=$build/bench/libs-build.log
if ! { [[ -f $build/CMakeCache.txt ]] || cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release; } >"$log" 2>&1 ||
   ! cmake --build "$build" --target wo_libs_bench -j"$(nproc)" >>"$log" 2>&1; then
  cat "$log" >&2
  exit 1
fi
echo "libraries where they win (issue 12 item 5); load average: $(cut -d' ' -f1-3 /proc/loadavg)"
"$build/bin/wo_libs_bench" | tee "$build/bench/libs.txt"
