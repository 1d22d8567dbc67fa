#!/usr/bin/env bash
# Runs the fuzz targets built in build-fuzz/ (`make fuzz`; README.md here).
#   bash fuzz/run.sh [frontend] [pipeline] [http] [http_response]   (default: all, one after the other)
# Environment:
#   FUZZ_TIME=600      seconds per target
#   FUZZ_JOBS=1        parallel workers per target (libFuzzer -fork=N); >1 also
#                      keeps going after a crash (-ignore_crashes=1)
#   FUZZ_MAX_LEN=4096  largest input (the seed corpus is under 2.5 KB; longer
#                      inputs mostly find deep-nesting stack limits)
#   FUZZ_DIR=build-fuzz  the build directory
#   FUZZ_ARGS=...      more libFuzzer flags (e.g. -seed=1 -runs=100000)
# Layout under $FUZZ_DIR/fuzz/: seeds/ (rebuilt every run from corpus/,
# examples/ and fuzz/regressions/), work/TARGET/ (the grown corpus, kept
# between runs), artifacts/TARGET/ (crash-*, leak-*, timeout-*, oom-* inputs).
# Exits 1 when any target found something, 0 when all ran clean.
set -uo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
dir=${FUZZ_DIR:-build-fuzz}
[[ $dir = /* ]] || dir=$root/$dir
time_s=${FUZZ_TIME:-600}
jobs=${FUZZ_JOBS:-1}
max_len=${FUZZ_MAX_LEN:-4096}
targets=("$@")
[[ ${#targets[@]} -gt 0 ]] || targets=(frontend pipeline http http_response)

# Seeds: every program of the corpus and the examples, flattened (libFuzzer
# would otherwise also read expected.out files), plus the replayed findings.
seeds=$dir/fuzz/seeds
rm -rf "$seeds" && mkdir -p "$seeds"
while IFS= read -r -d '' f; do
  rel=${f#"$root"/}
  cp "$f" "$seeds/${rel//\//_}"
done < <(find "$root/corpus" "$root/examples" "$root/fuzz/regressions" -type f \
           \( -name '*.wo' -o -path '*/fuzz/regressions/*' \) ! -name README.md -print0)

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

status=0
for t in "${targets[@]}"; do
  bin=$dir/bin/fuzz_$t
  if [[ ! -x $bin ]]; then
    echo "fuzz/run.sh: $bin is missing (make fuzz-build)" >&2
    exit 2
  fi
  work=$dir/fuzz/work/$t
  art=$dir/fuzz/artifacts/$t
  mkdir -p "$work" "$art"
  export WO_FUZZ_MUTANT_DIR=$art
  par=()
  [[ $jobs -gt 1 ]] && par=(-fork="$jobs" -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1)
  echo "== fuzz_$t: ${time_s}s, $jobs job(s), max_len $max_len; findings go to $art"
  before=$(ls "$art" | wc -l)
  # fuzz_http reads HTTP requests, not .wo programs: its own seeds and dictionary.
  tseeds=$seeds dict=$root/fuzz/wo.dict
  [[ $t == http ]] && tseeds=$root/fuzz/http_seeds dict=$root/fuzz/http.dict
  # fuzz_http_response reads what a server sends back (its first byte picks HEAD and the body cap).
  [[ $t == http_response ]] && tseeds=$root/fuzz/http_response_seeds dict=$root/fuzz/http.dict
  # shellcheck disable=SC2086
  "$bin" -dict="$dict" -max_len="$max_len" -timeout=20 -rss_limit_mb=4096 \
    -max_total_time="$time_s" -print_final_stats=1 -artifact_prefix="$art/" "${par[@]}" ${FUZZ_ARGS:-} \
    "$work" "$tseeds"
  rc=$?
  # A mutant file left behind: the process died while the mutator's sema
  # check ran on it (fuzz_pipeline.cpp), or it is just the last one checked
  # before a crash elsewhere. Kept only when it crashes on its own.
  for m in "$art"/mutant-*.wo; do
    [[ -f $m ]] || continue
    sha=$(sha1sum "$m" | cut -c1-40)
    if [[ -e $art/crash-$sha ]] ||
       { mkdir -p "$art/.replay"; WO_FUZZ_MUTANT_DIR=$art/.replay timeout 60 "$bin" -runs=1 "$m" >/dev/null 2>&1; }; then
      rm -f "$m"  # libFuzzer saved it already, or it does not crash
    else
      mv "$m" "$art/crash-in-mutator-$sha"
    fi
  done
  rm -rf "$art/.replay"
  after=$(ls "$art" | wc -l)
  if [[ $rc -ne 0 || $after -ne $before ]]; then
    echo "== fuzz_$t: FOUND something (exit $rc); new files in $art:" >&2
    ls -t "$art" | head -n $((after - before + 1)) >&2
    status=1
  else
    echo "== fuzz_$t: clean"
  fi
done
exit $status
