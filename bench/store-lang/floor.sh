#!/usr/bin/env bash
# The memory floor under bench/store-lang on this machine (floor.c says what
# each line is; docs/perf/store-lang.md "Through the language, round 5" turns them into
# the lookup's and the insert's floor). Each part runs in its own process,
# 5 s after the last one freed its memory, so that the guest has handed freed
# 2 MiB blocks back to the host (virtio-balloon free page reporting, ~2 s)
# and a part's "fresh" touch is fresh to the host as well.
#   bench/store-lang/floor.sh           FLOOR_RUNS (default 3: median), FLOOR_MB (default 256)
#   bench/store-lang/floor.sh --check   8 MiB, one run, no pauses: every line
#                                       present with a figure above 0 (ctest
#                                       bench.store-lang.floor), else exit 1
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cc -O2 -Wall -Wextra -Werror "$root/bench/store-lang/floor.c" -o "$tmp/floor"
if [[ ${1:-} == --check ]]; then
  FLOOR_MB=8 FLOOR_RUNS=1 "$tmp/floor" >"$tmp/out"
  cat "$tmp/out"
  # 6 touch lines, chases at 1 and 4 MiB and at FLOOR_MB, each on 2 kinds of pages with 2 chain counts
  awk '$NF ~ /^(ms\/MiB|ns\/load)$/ && $(NF-1) > 0 {n++} END {exit !(n == 6 + 12 && NR == n)}' "$tmp/out" || {
    echo "floor: missing or empty figures" >&2
    exit 1
  }
  exit 0
fi
echo "floor: load average $(cut -d' ' -f1-3 /proc/loadavg), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), THP $(cat /sys/kernel/mm/transparent_hugepage/enabled)"
"$tmp/floor" touch-huge
sleep 5
"$tmp/floor" touch-4k
sleep 5
"$tmp/floor" chase
