#!/usr/bin/env bash
# The woc benchmark suite (`make bench`; not part of `make test`).
#
#  1. Compute kernels in bench/kernels/NAME/: main.wo (woc build -O2), a
#     reference in C or C++ — main.c (gcc -O2) or, where there is one,
#     main.cpp (g++ -O2) — and main.cr (crystal build --release). All three
#     must print the same stdout; then each executable is timed, and, in
#     separate runs, its peak memory (maximum resident set size, from
#     /usr/bin/time -f %M) is measured.
#  2. `woc run` of bench/hello/main.wo: wall time of the whole woc process.
#  3. `woc build -O2` (and -O0) of a generated ~1,000-line program
#     (bench/gen/), with gcc -O2 (-O0) on its C twin for reference, and the
#     `--time-report` of one -O2 build. Issue 12 item 6's lines: run-hello,
#     build-O2-1000, build-O0-1000 (aims 25 ms, 0.5 s, 0.15 s wall).
#  Issue 12 item 4's lines (section 3b): fib against clang -O2 (aim 1.2x),
#  alloc and wordcount against C++ (aim 1.0x), and startup-hello: a woc-built
#  hello world's start against clang's (no aim: it is part of fib's time).
#
# Everything is compiled first, then timed: nothing is built while a timing
# runs. Timing uses hyperfine when installed (median wall time of the runs,
# one warm-up run first), else a loop of runs timed with bash's `time`
# (median). CPU time (user + sys) is reported too: on this 2-core machine it
# is the figure that survives other work running at the same time. Peak
# memory is the median of PEAK_RUNS runs (not the timed ones).
#
# Environment:
#   WOC=PATH          the woc to use (default: build/bin/woc, built with `make
#                     build` if missing; a WOC given here is never built)
#   BENCH_RUNS=N      timed runs per kernel and language (default 5, at least 5)
#   BENCH_OUT=DIR     where latest.txt goes (default build/bench)
#   BENCH_INSTALL=0   do not try to apt-get install crystal, hyperfine, time
#                     (/usr/bin/time) and nlohmann-json3-dev (for json/main.cpp)
#   BENCH_ONLY="a b"  only these kernels
#   BENCH_TIMER=bash  time with the bash `time` loop even if hyperfine is installed
#
# Exit status: 0 when every kernel built with woc and printed what its C or
# C++ reference prints; 1 otherwise (the tables are still printed, with the
# failures marked).
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
WOC_GIVEN=${WOC:-}
WOC=${WOC:-$ROOT/build/bin/woc}
RUNS=${BENCH_RUNS:-5}
((RUNS < 5)) && RUNS=5
HELLO_RUNS=10
GEN_RUNS=3
OUTDIR=${BENCH_OUT:-$ROOT/build/bench}
PEAK_RUNS=3
KERNELS=${BENCH_ONLY:-fib intloop textbuild alloc wordcount json}

say() { printf '%s\n' "$*"; }
hr() { say "------------------------------------------------------------------------"; }

failed=0
failures=()
fail() {
  say "bench: FAIL: $*" >&2
  failures+=("$*")
  failed=1
}

# ---------------------------------------------------------------- tools
# try_install COMMAND PACKAGE; try_install /ABSOLUTE/FILE PACKAGE
have() { if [[ $1 == /* ]]; then [[ -e $1 ]]; else command -v "$1" >/dev/null; fi; }
try_install() {
  have "$1" && return 0
  if [[ ${BENCH_INSTALL:-1} == 0 || $(id -u) -ne 0 ]] || ! command -v apt-get >/dev/null; then
    return 1
  fi
  say "bench: $1 is missing; installing Debian package $2"
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y -q "$2" >/dev/null 2>&1 ||
    { apt-get update -q >/dev/null 2>&1 && apt-get install -y -q "$2" >/dev/null 2>&1; }
  have "$1"
}

if [[ ! -x $WOC ]]; then
  if [[ -n ${WOC_GIVEN:-} ]]; then
    say "bench: WOC=$WOC is not an executable" >&2
    exit 1
  fi
  say "bench: $WOC missing; running make build"
  make -C "$ROOT" build || { say "bench: make build failed" >&2; exit 1; }
fi
have_hyperfine=0
[[ ${BENCH_TIMER:-} == bash ]] || { try_install hyperfine hyperfine && have_hyperfine=1; }
have_crystal=0
try_install crystal crystal && have_crystal=1
command -v gcc >/dev/null || { say "bench: gcc is required" >&2; exit 1; }
command -v g++ >/dev/null || { say "bench: g++ is required" >&2; exit 1; }
have_time=0
try_install /usr/bin/time time && have_time=1
# json/main.cpp needs nlohmann-json (header only)
try_install /usr/include/nlohmann/json.hpp nlohmann-json3-dev ||
  say "bench: no /usr/include/nlohmann/json.hpp (apt-get install -y nlohmann-json3-dev): the C++ json kernel will not build"

TMP=$(mktemp -d "${TMPDIR:-/tmp}/wobench.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
mkdir -p "$OUTDIR"
RESULTS=$OUTDIR/latest.txt
: >"$RESULTS.tmp"
rec() { printf '%s\n' "$(IFS=$'\t'; echo "$*")" >>"$RESULTS.tmp"; }

# ---------------------------------------------------------------- machine
cpu=$(awk -F': *' '/^model name/ {print $2; exit}' /proc/cpuinfo 2>/dev/null)
mhz=$(awk -F': *' '/^cpu MHz/ {printf "%.0f", $2; exit}' /proc/cpuinfo 2>/dev/null)
kernel=$(uname -sr)
woc_version=$("$WOC" --version 2>/dev/null | sed -n 1p)
gcc_version=$(gcc --version | sed -n 1p)
gxx_version=$(g++ --version | sed -n 1p)
crystal_version="not installed"
((have_crystal)) && crystal_version=$(crystal --version 2>/dev/null | sed -n 1p)
hyperfine_version=$( ((have_hyperfine)) && hyperfine --version || echo "no hyperfine: bash time loop")
loadavg=$(cut -d' ' -f1-3 /proc/loadavg)

hr
say "woc benchmarks   $(date -u '+%Y-%m-%d %H:%M UTC')"
say "machine: $(nproc) cores, ${cpu:-unknown CPU}${mhz:+ (${mhz} MHz)}, $kernel, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo) RAM"
say "load average at start: $loadavg"
awk -v l="${loadavg%% *}" 'BEGIN {exit !(l > 0.5)}' &&
  say "WARNING: the machine is busy (load ${loadavg%% *}): wall times will be inflated; compare CPU times"
say "woc: $WOC ${woc_version:+($woc_version)}"
say "gcc: $gcc_version   g++: $gxx_version"
say "crystal: $crystal_version"
say "timing: $hyperfine_version; $RUNS runs per kernel: median wall time, and CPU time"
((have_time)) && say "peak memory: max RSS from /usr/bin/time -f %M, median of $PEAK_RUNS separate runs"
hr
rec "# woc bench results; tab-separated: kind, name, lang/tool, value, unit/extra"
rec machine nproc "$(nproc)"
rec machine cpu "${cpu:-unknown}"
rec machine kernel "$kernel"
rec machine loadavg "$loadavg"
rec tool woc "${woc_version:-unknown}"
rec tool gcc "$gcc_version"
rec tool g++ "$gxx_version"
rec tool crystal "$crystal_version"
rec tool timer "$hyperfine_version"
((have_crystal)) || say "bench: crystal is not installed (apt-get install -y crystal): no Crystal column, woc/C ratios only"
((have_time)) || say "bench: /usr/bin/time is missing (apt-get install -y time): no peak-memory table"

# ---------------------------------------------------------------- timing
# measure RUNS CMD... -> prints "WALL CPU": the median wall time and the CPU
# time (user + system) in ms, after one warm-up run; the command's output is
# discarded. CPU time is the mean over the runs with hyperfine, the median
# without. "NA NA" if the command fails.
measure() {
  local runs=$1
  shift
  if ((have_hyperfine)); then
    local csv=$TMP/hf.csv
    if ! hyperfine --shell=none --style none --warmup 1 --runs "$runs" \
      --export-csv "$csv" "$*" >"$TMP/hf.log" 2>&1; then
      cat "$TMP/hf.log" >&2
      echo "NA NA"
      return
    fi
    # command,mean,stddev,median,user,system,min,max (seconds)
    awk -F, 'NR == 2 {printf "%.1f %.1f", $4 * 1000, ($5 + $6) * 1000}' "$csv"
  else
    # bash's `time` keyword: real, user and sys with millisecond precision.
    "$@" >/dev/null 2>&1
    local i TIMEFORMAT='%3R %3U %3S' log=$TMP/time.log
    : >"$log"
    for ((i = 0; i < runs; i++)); do
      { time "$@" >/dev/null 2>&1; } 2>>"$log" || { echo "NA NA"; return; }
    done
    awk 'function med(v, n,   i, j, t) {
           for (i = 2; i <= n; i++) for (j = i; j > 1 && v[j - 1] > v[j]; j--) {
             t = v[j]; v[j] = v[j - 1]; v[j - 1] = t }
           return (n % 2) ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2 }
         {w[NR] = $1; c[NR] = $2 + $3}
         END {printf "%.1f %.1f", med(w, NR) * 1000, med(c, NR) * 1000}' "$log"
  fi
}

# aim_met VALUE LIMIT -> met when VALUE <= LIMIT, else MISSED (also when
# VALUE is not a number: the measurement failed).
aim_met() { awk -v v="$1" -v a="$2" 'BEGIN { print (v ~ /^[0-9.]+$/ && v + 0 <= a + 0) ? "met" : "MISSED" }'; }
# secs MS -> seconds with two decimals ("NA" stays).
secs() { awk -v v="$1" 'BEGIN { if (v ~ /^[0-9.]+$/) printf "%.2f", v / 1000; else print v }'; }

ratio() { # ratio A B -> A/B with two decimals, or "-"
  awk -v a="$1" -v b="$2" 'BEGIN {
    if (a == "NA" || b == "NA" || a == "" || b == "" || b + 0 == 0) print "-";
    else printf "%.2f", a / b }'
}

# ---------------------------------------------------------------- 1. build the kernels
# The reference version of each kernel is stored under the language key `c`
# whether it is C or C++; ref[$k] says which ("C" or "C++").
declare -A bin status woc_err ref
langs=(c wo)
((have_crystal)) && langs=(c cr wo)
say "building kernels (gcc -O2 or g++ -O2, crystal build --release, woc build -O2) ..."
for k in $KERNELS; do
  src=$ROOT/bench/kernels/$k
  d=$TMP/$k
  mkdir -p "$d"
  if [[ -f $src/main.cpp ]]; then
    ref[$k]=C++
    if g++ -O2 -o "$d/c" "$src/main.cpp" 2>"$d/c.err"; then bin[$k.c]=$d/c; else
      fail "$k: g++ failed: $(head -5 "$d/c.err")"
    fi
  else
    ref[$k]=C
    if gcc -O2 -o "$d/c" "$src/main.c" 2>"$d/c.err"; then bin[$k.c]=$d/c; else
      fail "$k: gcc failed: $(head -5 "$d/c.err")"
    fi
  fi
  rec reference "$k" "${ref[$k]}"
  if ((have_crystal)); then
    if crystal build --release --no-debug -o "$d/cr" "$src/main.cr" >"$d/cr.err" 2>&1; then
      bin[$k.cr]=$d/cr
    else
      fail "$k: crystal build failed: $(head -5 "$d/cr.err")"
    fi
  fi
  if "$WOC" build "$src/main.wo" -O2 -o "$d/wo" >"$d/wo.err" 2>&1; then
    bin[$k.wo]=$d/wo
  else
    woc_err[$k]=$(head -20 "$d/wo.err")
    status[$k]=woc-build-failed
    fail "$k: woc build failed:"$'\n'"${woc_err[$k]}"
  fi
done

# ---------------------------------------------------------------- 2. same output?
for k in $KERNELS; do
  d=$TMP/$k
  for l in "${langs[@]}"; do
    [[ -n ${bin[$k.$l]:-} ]] || continue
    if ! timeout 300 "${bin[$k.$l]}" >"$d/$l.out" 2>"$d/$l.stderr"; then
      fail "$k: the $l executable failed: $(head -5 "$d/$l.stderr")"
      unset "bin[$k.$l]"
      [[ $l == wo ]] && status[$k]=woc-run-failed
    fi
  done
  if [[ -z ${bin[$k.c]:-} ]]; then
    [[ -n ${bin[$k.wo]:-} ]] && status[$k]=no-c-reference
    continue
  fi
  for l in cr wo; do
    [[ -n ${bin[$k.$l]:-} ]] || continue
    if ! cmp -s "$d/c.out" "$d/$l.out"; then
      fail "$k: $l prints something else than ${ref[$k]}:"$'\n'"$(diff "$d/c.out" "$d/$l.out" | head -10)"
      unset "bin[$k.$l]"
      [[ $l == wo ]] && status[$k]=woc-output-differs
    fi
  done
  [[ -n ${bin[$k.wo]:-} ]] && status[$k]=ok
  say "  $k: output $(tr '\n' ' ' <"$d/c.out")— ${status[$k]:-}"
done
hr

# ---------------------------------------------------------------- 3. time the kernels
declare -A ms cpu
for k in $KERNELS; do
  for l in "${langs[@]}"; do
    if [[ -n ${bin[$k.$l]:-} ]]; then
      read -r ms[$k.$l] cpu[$k.$l] < <(measure "$RUNS" "${bin[$k.$l]}")
    else
      ms[$k.$l]=NA
      cpu[$k.$l]=NA
    fi
    rec kernel-wall "$k" "$l" "${ms[$k.$l]}" "ms, median of $RUNS"
    rec kernel-cpu "$k" "$l" "${cpu[$k.$l]}" "ms, user+sys"
  done
done

# peak_mib CMD -> the median over PEAK_RUNS runs of the maximum resident set
# size in MiB (one decimal), from GNU time's %M (KiB); "NA" if a run fails.
peak_mib() {
  local i log=$TMP/peak.log
  : >"$log"
  for ((i = 0; i < PEAK_RUNS; i++)); do
    /usr/bin/time -f %M -o "$TMP/peak.one" "$@" >/dev/null 2>&1 || { echo NA; return; }
    tail -1 "$TMP/peak.one" >>"$log"
  done
  sort -n "$log" | awk '{v[NR] = $1}
    END {m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%.1f", m / 1024}'
}
declare -A mem
for k in $KERNELS; do
  for l in "${langs[@]}"; do
    mem[$k.$l]=NA
    ((have_time)) && [[ -n ${bin[$k.$l]:-} ]] && mem[$k.$l]=$(peak_mib "${bin[$k.$l]}")
    rec kernel-peak-rss "$k" "$l" "${mem[$k.$l]}" "MiB, median of $PEAK_RUNS"
  done
done

# table TITLE ARRAY KIND: one row per kernel, ratios woc/C-or-C++ and
# woc/Crystal. The "ref" column says whether the reference is C or C++.
table() {
  local -n t=$2
  local k rc rcr
  say "$1"
  if ((have_crystal)); then
    printf '  %-10s %4s %10s %10s %10s %8s %12s  %s\n' kernel ref "C/C++ -O2" Crystal woc woc/ref woc/Crystal status
  else
    printf '  %-10s %4s %10s %10s %8s  %s\n' kernel ref "C/C++ -O2" woc woc/ref status
  fi
  for k in $KERNELS; do
    rc=$(ratio "${t[$k.wo]}" "${t[$k.c]}")
    rec "ratio-$3" "$k" "woc/${ref[$k],,}" "$rc"
    if ((have_crystal)); then
      rcr=$(ratio "${t[$k.wo]}" "${t[$k.cr]}")
      rec "ratio-$3" "$k" woc/crystal "$rcr"
      printf '  %-10s %4s %10s %10s %10s %8s %12s  %s\n' "$k" "${ref[$k]}" "${t[$k.c]}" "${t[$k.cr]}" "${t[$k.wo]}" "$rc" "$rcr" "${status[$k]:-}"
    else
      printf '  %-10s %4s %10s %10s %8s  %s\n' "$k" "${ref[$k]}" "${t[$k.c]}" "${t[$k.wo]}" "$rc" "${status[$k]:-}"
    fi
  done
}
table "compute kernels: median wall time, ms ($RUNS runs each)" ms wall
say ""
table "compute kernels: CPU time (user + sys), ms — less sensitive to other load on the machine" cpu cpu
if ((have_time)); then
  say ""
  table "compute kernels: peak memory (max RSS), MiB, median of $PEAK_RUNS separate runs" mem peak-rss
fi
for k in $KERNELS; do rec status "$k" woc "${status[$k]:-unknown}"; done
say ""
say "aim: woc within 1.2x of C (C++ for alloc, wordcount, json)"
hr

# ---------------------------------------------------------------- 3b. compute aims (issue 12 item 4)
# fib against clang -O2 (gcc inlines the recursion into itself, clang does
# what woc's LLVM does), alloc and wordcount against g++ -O2. Each pair is
# timed in AIM_ROUNDS interleaved rounds of RUNS runs (cpu_runs); the line
# gives the median over the rounds of each round's median CPU time (user +
# sys) and wall time.
AIM_ROUNDS=3
med() { printf '%s\n' "$@" | sort -g | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
# cpu_runs N CMD...: "CPU WALL" in ms, each the median over N runs of CMD
# (bench/lib/cpu_runs.py: each run's own user + sys from wait4). hyperfine's
# user and sys are means over its runs, which one run slowed by other work
# on the machine moves; these lines compare medians (docs/decisions/0067).
cpu_runs() {
  local out
  out=$(python3 "$ROOT/bench/lib/cpu_runs.py" "$@") && [[ -n $out ]] || { echo "NA NA"; return; }
  printf '%.2f %.1f\n' "$(med $(cut -d' ' -f1 <<<"$out"))" "$(med $(cut -d' ' -f2 <<<"$out"))"
}
aim_line() { # aim_line NAME PEER_NAME AIM WOC_BIN PEER_BIN
  local name=$1 peer=$2 aim=$3 i w c pw pc cw=() cc=() pcw=() pcc=()
  for ((i = 0; i < AIM_ROUNDS; i++)); do
    read -r c w < <(cpu_runs "$RUNS" "$4")
    read -r pc pw < <(cpu_runs "$RUNS" "$5")
    cw+=("$w") cc+=("$c") pcw+=("$pw") pcc+=("$pc")
  done
  local wc wp cw_ cp r verdict
  cw_=$(med "${cc[@]}") cp=$(med "${pcc[@]}") wc=$(med "${cw[@]}") wp=$(med "${pcw[@]}")
  r=$(ratio "$cw_" "$cp")
  verdict=MISSED
  awk -v r="$r" -v a="$aim" 'BEGIN {exit !(r != "-" && r + 0 <= a + 0)}' && verdict=met
  say "$name: woc $cw_ ms, $peer $cp ms, ratio ${r}x (aim <= ${aim}x) $verdict   [CPU, median of $AIM_ROUNDS rounds of $RUNS runs each; wall $wc vs $wp ms]"
  rec aim-cpu "$name" "woc/$peer" "$r" "aim $aim, $verdict"
}
say "compute aims (issue 12 item 4; load $(cut -d' ' -f1-3 /proc/loadavg)):"
if try_install clang-19 clang-19 && [[ -n ${bin[fib.wo]:-} ]] &&
  clang-19 -O2 -o "$TMP/fib/clang" "$ROOT/bench/kernels/fib/main.c" 2>"$TMP/fib/clang.err" &&
  cmp -s <("$TMP/fib/clang") "$TMP/fib/wo.out"; then
  aim_line fib clang 1.2 "${bin[fib.wo]}" "$TMP/fib/clang"
elif [[ $KERNELS == *fib* ]]; then
  fail "fib: no clang-19 -O2 peer (apt-get install -y clang-19): $(head -3 "$TMP/fib/clang.err" 2>/dev/null)"
fi
for k in alloc wordcount; do
  [[ -n ${bin[$k.wo]:-} && -n ${bin[$k.c]:-} ]] && aim_line "$k" "C++" 1.0 "${bin[$k.wo]}" "${bin[$k.c]}"
done
# Start-up, the part of fib's time that is not fib (docs/decisions/0063): a
# woc-built hello world against clang -O2's, interleaved like the lines
# above. No aim of its own; it was 2.2 ms against 0.4 before libcrypto,
# libstdc++ and Boost left the executable's start.
mkdir -p "$TMP/start"
printf '#include <stdio.h>\nint main(void) {\n  puts("hello, world");\n  return 0;\n}\n' >"$TMP/start/hello.c"
if have clang-19 && clang-19 -O2 -o "$TMP/start/c" "$TMP/start/hello.c" 2>/dev/null &&
  "$WOC" build "$ROOT/bench/hello/main.wo" -O2 -o "$TMP/start/wo" >/dev/null 2>&1; then
  sw=() sc=() pw=() pc=()
  for ((i = 0; i < AIM_ROUNDS; i++)); do
    read -r c w < <(cpu_runs "$HELLO_RUNS" "$TMP/start/wo")
    read -r c2 w2 < <(cpu_runs "$HELLO_RUNS" "$TMP/start/c")
    sw+=("$w") sc+=("$c") pw+=("$w2") pc+=("$c2")
  done
  s_c=$(med "${sc[@]}") p_c=$(med "${pc[@]}")
  say "startup-hello: woc $s_c ms, clang $p_c ms, ratio $(ratio "$s_c" "$p_c")x (no aim: fib's line includes it)   [CPU, median of $AIM_ROUNDS rounds; wall $(med "${sw[@]}") vs $(med "${pw[@]}") ms; libraries loaded: $(readelf -d "$TMP/start/wo" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')]"
  rec startup-cpu hello-native woc/clang "$(ratio "$s_c" "$p_c")" "woc $s_c ms, clang $p_c ms"
fi
hr

# ---------------------------------------------------------------- 4. woc run hello
mkdir -p "$TMP/hello"
cp "$ROOT/bench/hello/main.wo" "$TMP/hello/main.wo"
hello_out=$("$WOC" run "$TMP/hello/main.wo" 2>"$TMP/hello/err")
hello_ms=NA hello_cpu=NA native_ms=NA native_cpu=NA
if [[ $hello_out == "hello, world" ]]; then
  read -r hello_ms hello_cpu < <(measure "$HELLO_RUNS" "$WOC" run "$TMP/hello/main.wo")
  if "$WOC" build "$TMP/hello/main.wo" -o "$TMP/hello/hello" >/dev/null 2>&1; then
    read -r native_ms native_cpu < <(measure "$HELLO_RUNS" "$TMP/hello/hello")
  fi
  say "woc run hello world: ${hello_ms} ms wall, median of $HELLO_RUNS (CPU ${hello_cpu} ms); aim < 100 ms"
  say "  the same program built with woc build: ${native_ms} ms wall (CPU ${native_cpu} ms)"
  # Issue 12 item 6: woc run hello within 25 ms (wall; judged on a quiet machine).
  say "run-hello: woc ${hello_ms} ms (CPU ${hello_cpu} ms), peer: the woc-built executable ${native_ms} ms, ratio $(ratio "$hello_ms" "$native_ms") (aim ≤ 25 ms) $(aim_met "$hello_ms" 25)"
else
  fail "woc run bench/hello/main.wo printed '${hello_out}': $(head -5 "$TMP/hello/err")"
fi
rec startup-wall hello woc-run "$hello_ms" "ms, median of $HELLO_RUNS"
rec startup-cpu hello woc-run "$hello_cpu" "ms, user+sys"
rec startup-wall hello native "$native_ms" "ms, median of $HELLO_RUNS"
rec startup-cpu hello native "$native_cpu" "ms, user+sys"

# ---------------------------------------------------------------- 5. woc build of ~1,000 lines
bash "$ROOT/bench/gen/generate.sh" "$TMP/gen"
gen_lines=$(wc -l <"$TMP/gen/main.wo")
gen_ms=NA gen_cpu=NA gen0_ms=NA gen0_cpu=NA check_ms=NA check_cpu=NA gcc_ms=NA gcc_cpu=NA gcc0_ms=NA gcc0_cpu=NA
if "$WOC" build "$TMP/gen/main.wo" -O2 -o "$TMP/gen/wo" >"$TMP/gen/err" 2>&1 &&
  gcc -O2 -o "$TMP/gen/c" "$TMP/gen/main.c"; then
  if [[ $("$TMP/gen/wo") == $("$TMP/gen/c") ]]; then
    read -r gen_ms gen_cpu < <(measure "$GEN_RUNS" "$WOC" build "$TMP/gen/main.wo" -O2 -o "$TMP/gen/wo")
    read -r gen0_ms gen0_cpu < <(measure "$GEN_RUNS" "$WOC" build "$TMP/gen/main.wo" -O0 -o "$TMP/gen/wo0")
    read -r check_ms check_cpu < <(measure "$GEN_RUNS" "$WOC" check "$TMP/gen/main.wo")
    read -r gcc_ms gcc_cpu < <(measure "$GEN_RUNS" gcc -O2 -o "$TMP/gen/c" "$TMP/gen/main.c")
    read -r gcc0_ms gcc0_cpu < <(measure "$GEN_RUNS" gcc -O0 -o "$TMP/gen/c0" "$TMP/gen/main.c")
    say "woc build -O2 of a generated $gen_lines-line program: ${gen_ms} ms wall, median of $GEN_RUNS (CPU ${gen_cpu} ms)"
    say "  woc build -O0: ${gen0_ms} ms (CPU ${gen0_cpu} ms); woc check: ${check_ms} ms (CPU ${check_cpu} ms)"
    say "  gcc -O2 on the same program in C: ${gcc_ms} ms wall (CPU ${gcc_cpu} ms); gcc -O0: ${gcc0_ms} ms (CPU ${gcc0_cpu} ms)"
    # Issue 12 item 6 (wall; judged on a quiet machine), then where an -O2
    # build's time goes (woc --time-report, one run).
    say "build-O2-1000: woc $(secs "$gen_ms") s (CPU $(secs "$gen_cpu") s), gcc -O2 $(secs "$gcc_ms") s, ratio $(ratio "$gen_ms" "$gcc_ms") (aim ≤ 0.5 s) $(aim_met "$gen_ms" 500)"
    say "build-O0-1000: woc $(secs "$gen0_ms") s (CPU $(secs "$gen0_cpu") s), gcc -O0 $(secs "$gcc0_ms") s, ratio $(ratio "$gen0_ms" "$gcc0_ms") (aim ≤ 0.15 s) $(aim_met "$gen0_ms" 150)"
    "$WOC" build "$TMP/gen/main.wo" -O2 -o "$TMP/gen/wo" --time-report 2>&1 | sed 's/^/  /'
  else
    fail "generated program: woc prints $("$TMP/gen/wo" | head -3), C prints $("$TMP/gen/c")"
  fi
else
  fail "woc build of the generated program failed: $(head -20 "$TMP/gen/err")"
fi
rec compile-wall gen woc-build-O2 "$gen_ms" "ms, median of $GEN_RUNS, $gen_lines lines"
rec compile-cpu gen woc-build-O2 "$gen_cpu" "ms, user+sys"
rec compile-wall gen woc-build-O0 "$gen0_ms" "ms, median of $GEN_RUNS"
rec compile-cpu gen woc-build-O0 "$gen0_cpu" "ms, user+sys"
rec compile-wall gen woc-check "$check_ms" "ms, median of $GEN_RUNS"
rec compile-cpu gen woc-check "$check_cpu" "ms, user+sys"
rec compile-wall gen gcc-O2 "$gcc_ms" "ms, median of $GEN_RUNS"
rec compile-cpu gen gcc-O2 "$gcc_cpu" "ms, user+sys"
rec compile-wall gen gcc-O0 "$gcc0_ms" "ms, median of $GEN_RUNS"
rec compile-cpu gen gcc-O0 "$gcc0_cpu" "ms, user+sys"
rec machine loadavg-end "$(cut -d" " -f1-3 /proc/loadavg)"
hr

mv "$RESULTS.tmp" "$RESULTS"
if ((failed)); then
  say "FAILURES:"
  for f in "${failures[@]}"; do say "  - $f"; done
  hr
fi
say "machine-readable results: $RESULTS"
exit "$failed"
