#!/usr/bin/env bash
# The table store through the language (issue 12 item 1): main.wo built with
# `woc build -O2` against peer.c on SQLite `:memory:`, in the same run, their
# checksums compared. Prints one line per figure:
#   store-lang NAME: woc X/s, sqlite Y/s, ratio R (aim ≥ A/s and ≥ 10x) met|MISSED
# and, for the one-transaction insert and the lookup, the ceiling: ideal.c
# doing the same phase with the least C code (checksums compared as well):
#   store-lang NAME: ceiling (ideal.c: plain C, less work) Z/s = Q sqlite; woc at P% of it
#
#   bench/store-lang/run.sh           WOC (default build/bin/woc), STORE_N
#                                     (rows, default 1,000,000), STORE_LOOKUPS
#                                     (default 1,000,000), STORE_RANGES (default
#                                     200,000: ~0.3 s of woc, long enough to
#                                     time), BENCH_RUNS (default 3: median)
#   bench/store-lang/run.sh --check   tiny sizes, one run, answers only (the
#                                     ctest db.store-lang.smoke): exit 1 if
#                                     the two sides disagree
# Exit status: 0, or 1 when a side failed or the checksums differ (never for
# a missed aim: the lead judges those on a quiet machine).
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
WOC=${WOC:-$root/build/bin/woc}
check=0
if [[ ${1:-} == --check ]]; then
  check=1
  export STORE_N=3000 STORE_LOOKUPS=3000 STORE_RANGES=300
fi
runs=${BENCH_RUNS:-3}
((check)) && runs=1
if [[ ! -f /usr/include/sqlite3.h ]]; then
  echo "bench/store-lang: sqlite3.h is missing; run scripts/setup-deps.sh (libsqlite3-dev)" >&2
  exit 1
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$WOC" build "$root/bench/store-lang/main.wo" -O2 -o "$tmp/wo" 2>"$tmp/wo.err" || { cat "$tmp/wo.err" >&2; exit 1; }
cc -O2 "$root/bench/store-lang/peer.c" -lsqlite3 -o "$tmp/peer"
cc -O2 "$root/bench/store-lang/ideal.c" -o "$tmp/ideal"

# One run of each side per round, interleaved; `<phase> <ops> <µs> <sum>`.
for ((r = 1; r <= runs; r++)); do
  "$tmp/wo" >"$tmp/wo.$r" || { echo "bench/store-lang: main.wo failed" >&2; exit 1; }
  "$tmp/peer" >"$tmp/peer.$r" || { echo "bench/store-lang: peer failed" >&2; exit 1; }
  "$tmp/ideal" >"$tmp/ideal.$r" || { echo "bench/store-lang: ideal failed" >&2; exit 1; }
done

bad=0
# agree SIDE LABEL PHASE...: SIDE's first run gives woc's answers (ops, checksum)
agree() {
  local side=$1 label=$2 phase a b
  shift 2
  for phase in "$@"; do
    a=$(awk -v p=$phase '$1 == p {print $2, $4}' "$tmp/wo.1")
    b=$(awk -v p=$phase '$1 == p {print $2, $4}' "$tmp/$side.1")
    if [[ -z $a || $a != "$b" ]]; then
      echo "store-lang $phase: answers differ: woc '$a', $label '$b' (ops, checksum)" >&2
      bad=1
    fi
  done
}
agree peer sqlite insert_tx insert lookup range
agree ideal ideal.c insert_tx lookup
if ((check)); then
  ((bad)) || echo "store-lang: woc, sqlite and ideal.c agree on every phase (N=$STORE_N)"
  exit "$bad"
fi

# median rate (ops/s) of a phase over the runs of one side
rate() {
  for ((r = 1; r <= runs; r++)); do awk -v p="$2" '$1 == p && $3 > 0 {printf "%.0f\n", $2 * 1e6 / $3}' "$tmp/$1.$r"; done |
    sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'
}
echo "store-lang: load average $(cut -d' ' -f1-3 /proc/loadavg), N=${STORE_N:-1000000}, median of $runs"
line() {  # name phase aim
  local w s i
  w=$(rate wo "$2")
  s=$(rate peer "$2")
  i=$(rate ideal "$2")
  awk -v n="$1" -v w="$w" -v s="$s" -v a="$3" -v i="$i" 'function c(x,  o) { x = sprintf("%.0f", x); o = "";
      while (length(x) > 3) { o = "," substr(x, length(x) - 2) o; x = substr(x, 1, length(x) - 3) } return x o }
    BEGIN { r = s > 0 ? w / s : 0
      printf "store-lang %s: woc %s/s, sqlite %s/s, ratio %.1fx (aim ≥ %s/s and ≥ 10x) %s\n", n, c(w), c(s), r, c(a),
        (w >= a && r >= 10) ? "met" : "MISSED"
      if (i > 0)
        printf "store-lang %s: ceiling (ideal.c: plain C, less work) %s/s = %.1fx sqlite; woc at %.0f%% of it%s\n", n,
          c(i), (s > 0 ? i / s : 0), 100 * w / i, (i < a ? "; the aim is above it" : "") }'
}
line "insert (one transaction)" insert_tx 5000000
line "insert (a statement each)" insert 5000000
line "unique-key lookup" lookup 20000000
line "ordered range (rows)" range 50000000
exit "$bad"
