#!/usr/bin/env bash
# The actor benchmark (`make bench`, `make bench-actors`; not part of `make
# test`): the same workloads, in one run on this machine, in woc (wo/*.wo,
# built with `woc build -O2`), Go (go/main.go: goroutines + channels),
# Erlang (erlang/actors.erl: processes) and Crystal (crystal/main.cr: fibers
# + Channel, built with --release, single-threaded as Crystal is by default).
#
#   pingpong  N round trips main -> actor -> main (woc `call`)       rate
#   oneway    N one-way sends into one receiver                      rate
#   ring      1,000 actors pass a token 1,000 laps round             ms
#   skynet    tree of 10 per node, 1,000,000 leaves (1,111,111 actors)  ms
#   spawn     spawn N idle actors: ns per spawn, and resident bytes
#             per idle actor ((max RSS with N - max RSS with 0) / N)
#   pairs     4 independent ping-pong pairs at once (1,000,000 round trips
#             each), with 1 and with 2 worker threads (WO_SHARDS,
#             GOMAXPROCS, erl +S): the scaling
#
# Every program checks its own totals and exits 1 with a FAIL line when one
# is wrong; it prints "ok OPS USEC", the work done and the microseconds it
# took (timed inside the program, so start-up is not counted). Each figure
# is the median of RUNS runs. woc runs with the default shard count
# (online CPUs) and again with WO_SHARDS=1.
#
# Environment:
#   WOC=PATH              the woc to use (default build/bin/woc)
#   BENCH_QUICK=1         smaller workloads and one run each (~1 minute)
#   BENCH_ACTORS_RUNS=N   runs per figure (default 3; 1 with BENCH_QUICK)
#   BENCH_ONLY="a b"      only these workloads
#   BENCH_OUT=DIR         where actors.txt goes (default build/bench)
#   BENCH_INSTALL=0       do not install golang-go, erlang-base, crystal and
#                         time with scripts/setup-deps.sh
#   BENCH_HOG=N           a busy host: N processes spinning on the CPU for the
#                         whole run (every language under the same hog); 1 or
#                         "cores": one per online CPU
#
# Exit status: 0 when every woc workload ran and checked its totals, 1
# otherwise (the table is still printed, the failures listed). A peer that
# fails (e.g. Crystal's skynet, see docs/perf/actors.md) is reported, not fatal.
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
source "$ROOT/bench/lib/format.sh"  # say, have, bench_results, rec, machine_facts, fmt, ratio, bench_end
HERE=$ROOT/bench/actors
WOC=${WOC:-$ROOT/build/bin/woc}
OUTDIR=${BENCH_OUT:-$ROOT/build/bench}
QUICK=${BENCH_QUICK:-0}
[[ $QUICK == 0 ]] && RUNS=${BENCH_ACTORS_RUNS:-3} || RUNS=${BENCH_ACTORS_RUNS:-1}
WORKLOADS=${BENCH_ONLY:-pingpong oneway ring skynet spawn pairs}

# Each runtime's defaults, whatever the caller's environment says (the
# threads are set per run below; a small WO_MAILBOX would trap `oneway`).
unset WO_SHARDS WO_MAILBOX WO_REDUCTIONS GOMAXPROCS ERL_FLAGS ERL_AFLAGS ERL_ZFLAGS CRYSTAL_WORKERS

# Arguments of each workload (the same in every language).
declare -A ARGS
if [[ $QUICK == 0 ]]; then
  ARGS=([pingpong]="1000000" [oneway]="2000000" [ring]="1000 1000" [skynet]="1000000"
        [spawn]="25000" [pairs]="4 1000000")
else
  ARGS=([pingpong]="100000" [oneway]="200000" [ring]="1000 100" [skynet]="100000"
        [spawn]="10000" [pairs]="4 100000")
fi
# spawn N is 25,000, not more, because Crystal 1.6 maps each fiber stack
# separately and vm.max_map_count (65530 by default) stops it near 32,000
# live fibers (the reason its skynet fails; docs/perf/actors.md).

hr() { say "--------------------------------------------------------------------------------------------------------"; }

# ---------------------------------------------------------------- tools
if [[ ${BENCH_INSTALL:-1} != 0 ]]; then
  missing=()
  have go || missing+=(golang-go)
  have erl || missing+=(erlang-base)
  have crystal || missing+=(crystal)
  [[ -x /usr/bin/time ]] || missing+=(time)
  if ((${#missing[@]})); then
    say "bench/actors: installing ${missing[*]} (scripts/setup-deps.sh)"
    bash "$ROOT/scripts/setup-deps.sh" "${missing[@]}" >/dev/null 2>&1 ||
      bash "$ROOT/scripts/setup-deps.sh" golang-go erlang-base time >/dev/null 2>&1 || true
  fi
fi
if [[ ! -x $WOC ]]; then
  say "bench/actors: $WOC is not an executable (make build)" >&2
  exit 1
fi
[[ -x /usr/bin/time ]] || { say "bench/actors: /usr/bin/time is required (apt-get install -y time)" >&2; exit 1; }
langs=()
have go && langs+=(go)
have erl && have erlc && langs+=(erl)
have crystal && langs+=(cr)
langs+=(wo)
declare -A NAME=([go]=Go [erl]=Erlang [cr]=Crystal [wo]=woc)

TMP=$(mktemp -d "${TMPDIR:-/tmp}/woactors.XXXXXX")
HOGS=()
stop_hogs() { ((${#HOGS[@]})) && kill "${HOGS[@]}" 2>/dev/null; wait "${HOGS[@]}" 2>/dev/null; HOGS=(); }
trap 'stop_hogs; rm -rf "$TMP"' EXIT
hog_count=${BENCH_HOG:-0}
[[ $hog_count == 1 || $hog_count == cores ]] && hog_count=$(nproc)
[[ $hog_count =~ ^[0-9]+$ ]] || { say "bench/actors: BENCH_HOG must be a number or \"cores\"" >&2; exit 2; }
mkdir -p "$OUTDIR"
bench_results "$OUTDIR/actors.txt"

# ---------------------------------------------------------------- machine
machine_facts
go_version=$(have go && go version | sed 's/^go version //' || echo "not installed")
erl_version=$(have erl && erl -noshell -eval 'io:format("OTP ~s, erts ~s", [erlang:system_info(otp_release), erlang:system_info(version)]), halt().' 2>/dev/null || echo "not installed")
cr_version=$(have crystal && crystal --version 2>/dev/null | sed -n 1p || echo "not installed (apt-get install -y crystal)")
woc_version=$("$WOC" --version 2>/dev/null | sed -n 1p)
hr
say "woc actor benchmark   $(date -u '+%Y-%m-%d %H:%M UTC')   $([[ $QUICK == 0 ]] && echo "full" || echo "QUICK (BENCH_QUICK=1: smaller workloads)"), median of $RUNS run(s)"
say "machine: $ncpu cores, ${cpu:-unknown CPU}, $(uname -sr), $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo) RAM"
say "load average at start: $loadavg"
awk -v l="${loadavg%% *}" 'BEGIN {exit !(l > 0.5)}' &&
  say "WARNING: the machine is busy (load ${loadavg%% *}): every figure is inflated, unevenly"
say "woc: $WOC ${woc_version:+($woc_version)}; default shards = online CPUs = $ncpu"
say "Go: $go_version (GOMAXPROCS = $ncpu)   Erlang: $erl_version ($ncpu schedulers)"
say "Crystal: $cr_version (one thread: built without -Dpreview_mt)"
hr
rec "# woc actor bench; tab-separated: kind, workload, lang, value, unit"
rec machine nproc "$ncpu"
rec machine cpu "${cpu:-unknown}"
rec machine loadavg "$loadavg"
rec tool woc "${woc_version:-unknown}"
rec tool go "$go_version"
rec tool erlang "$erl_version"
rec tool crystal "$cr_version"
have go || say "bench/actors: Go is not installed (apt-get install -y golang-go): no Go column"
have erl && have erlc || say "bench/actors: Erlang is not installed (apt-get install -y erlang-base): no Erlang column"
have crystal || say "bench/actors: Crystal is not installed (apt-get install -y crystal): no Crystal column"

# ---------------------------------------------------------------- build
say "building (woc build -O2, go build, erlc, crystal build --release) ..."
declare -A built
for w in $WORKLOADS; do
  if "$WOC" build "$HERE/wo/$w.wo" -O2 -o "$TMP/wo-$w" >"$TMP/wo-$w.err" 2>&1; then
    built[wo.$w]=1
  else
    failures+=("woc $w: woc build failed: $(grep -m3 -E 'error|rror:' "$TMP/wo-$w.err" | sed "s|^$HERE/||" | tr '\n' ' ')")
    woc_failed=1
  fi
done
for l in "${langs[@]}"; do
  case $l in
    go)
      # One file, no module: GO111MODULE=off, and a cache of its own.
      GOCACHE=$OUTDIR/actors-gocache GO111MODULE=off go build -o "$TMP/go" "$HERE/go/main.go" >"$TMP/go.err" 2>&1 &&
        built[go]=1 || failures+=("Go: go build failed: $(head -3 "$TMP/go.err" | tr '\n' ' ')") ;;
    erl)
      erlc -o "$TMP" "$HERE/erlang/actors.erl" >"$TMP/erl.err" 2>&1 &&
        built[erl]=1 || failures+=("Erlang: erlc failed: $(head -3 "$TMP/erl.err" | tr '\n' ' ')") ;;
    cr)
      crystal build --release --no-debug -o "$TMP/cr" "$HERE/crystal/main.cr" >"$TMP/cr.err" 2>&1 &&
        built[cr]=1 || failures+=("Crystal: crystal build failed: $(head -3 "$TMP/cr.err" | tr '\n' ' ')") ;;
  esac
done

# cmd LANG WORKLOAD THREADS -> the command line (THREADS: "" = the default)
cmd() {
  local l=$1 w=$2 t=$3
  case $l in
    go) echo "env ${t:+GOMAXPROCS=$t} $TMP/go $w" ;;
    # +P: skynet has up to 1,111,111 live processes (the default cap is 262,144).
    erl) echo "erl -noshell +P 4194304 ${t:+"+S $t:$t"} -pa $TMP -run actors main $w" ;;
    cr) echo "$TMP/cr $w" ;;
    wo) echo "env ${t:+WO_SHARDS=$t} $TMP/wo-$w" ;;
  esac
}
is_built() { if [[ $1 == wo ]]; then [[ -n ${built[wo.$2]:-} ]]; else [[ -n ${built[$1]:-} ]]; fi; }

# measure LANG WORKLOAD THREADS ARGS -> "USEC OPS KIB CORES" medians over RUNS
# runs (from /usr/bin/time: KIB the max RSS, CORES the process's CPU time over
# its wall time, i.e. how many cores it really got), or "FAIL" with the
# reason in $TMP/why.
measure() {
  local l=$1 w=$2 t=$3 a=$4 i out rc
  : >"$TMP/m"
  for ((i = 0; i < RUNS; i++)); do
    # shellcheck disable=SC2046
    out=$(timeout 600 /usr/bin/time -f 'maxrss %M %U %S %e' -o "$TMP/rss" $(cmd "$l" "$w" "$t") $a 2>"$TMP/err")
    rc=$?
    if ((rc != 0)) || [[ ! $out =~ ^ok\ ([0-9]+)\ ([0-9]+)$ ]]; then
      { ((rc == 124)) && echo "timed out after 600 s" ||
        echo "exit $rc: $(grep -v -E '^\s*from |^\[0x|Command exited' "$TMP/err" | head -2 | tr '\n' ' ')${out:+ stdout: $out}"; } >"$TMP/why"
      echo FAIL
      return
    fi
    echo "${BASH_REMATCH[2]} ${BASH_REMATCH[1]} $(awk '/^maxrss/ {printf "%s %.2f", $2, ($5 > 0 ? ($3 + $4) / $5 : 0)}' "$TMP/rss")" >>"$TMP/m"
  done
  # each column's own median (ops is the same in every run)
  local c med=()
  for c in 1 2 3 4; do
    med+=("$(cut -d' ' -f$c "$TMP/m" | sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}')")
  done
  echo "${med[*]}"
}

# ---------------------------------------------------------------- run
# F[$w.$v] = the figure of variant v (go, erl, cr, wo, wo1, and for pairs
# go1 go2 erl1 erl2 cr wo1 wo2); "-" = not run, "FAIL" = failed.
declare -A F CORES
figure() { # WORKLOAD USEC OPS -> the workload's figure
  case $1 in
    pingpong | oneway | pairs) awk -v u="$2" -v o="$3" 'BEGIN {printf "%.0f", o * 1e6 / u}' ;;
    ring | skynet) awk -v u="$2" 'BEGIN {printf "%.1f", u / 1000}' ;;
    spawn) awk -v u="$2" -v o="$3" 'BEGIN {printf "%.0f", u * 1000 / o}' ;;
  esac
}
run_variant() { # VARIANT LANG WORKLOAD THREADS
  local v=$1 l=$2 w=$3 t=$4 r usec ops kib cores
  F[$w.$v]=-
  is_built "$l" "$w" || return
  printf '  %-9s %-8s ... ' "$w" "$v"
  r=$(measure "$l" "$w" "$t" "${ARGS[$w]}")
  if [[ $r == FAIL ]]; then
    F[$w.$v]=FAIL
    grep -q 'Cannot allocate new fiber stack' "$TMP/why" &&
      echo "[Crystal 1.6 maps every fiber stack on its own: vm.max_map_count = $(cat /proc/sys/vm/max_map_count) allows about half as many live fibers]" >>"$TMP/why"
    failures+=("${NAME[$l]} $w${t:+ ($t thread(s))}: $(tr '\n' ' ' <"$TMP/why")")
    [[ $l == wo ]] && woc_failed=1
    say "FAIL"
    rec run "$w" "$v" FAIL "$(cat "$TMP/why")"
    return
  fi
  read -r usec ops kib cores <<<"$r"
  CORES[$w.$v]=$cores
  F[$w.$v]=$(figure "$w" "$usec" "$ops")
  rec run "$w" "$v" "$usec" "us for $ops ops, max RSS $kib KiB, $cores cores busy"
  if [[ $w == spawn ]]; then
    # the same program with 0 actors: its max RSS is the baseline
    local base
    base=$(measure "$l" "$w" "$t" 0)
    [[ $base == FAIL ]] || base=$(cut -d' ' -f3 <<<"$base")
    if [[ $base == FAIL ]]; then
      F[spawn-mem.$v]=FAIL
    else
      F[spawn-mem.$v]=$(awk -v k="$kib" -v b="${base##* }" -v n="$ops" 'BEGIN {printf "%.0f", (k - b) * 1024 / n}')
    fi
    rec run spawn-mem "$v" "${F[spawn-mem.$v]}" "bytes per idle actor (max RSS $kib KiB with $ops, ${base##* } KiB with 0)"
  fi
  say "${F[$w.$v]}"
}

if ((hog_count > 0)); then
  for ((i = 0; i < hog_count; i++)); do
    (exec nice -n 0 sh -c 'while :; do :; done') &
    HOGS+=($!)
  done
  say "CPU hog: $hog_count processes spinning for the whole run (every language under it)"
  rec machine hog "$hog_count"
fi
say "running (each figure: median of $RUNS) ..."
for w in $WORKLOADS; do
  if [[ $w == pairs ]]; then
    for l in "${langs[@]}"; do
      case $l in
        cr) run_variant cr cr pairs "" ;;
        *) run_variant "${l}1" "$l" pairs 1; run_variant "${l}2" "$l" pairs 2 ;;
      esac
    done
    continue
  fi
  for l in "${langs[@]}"; do run_variant "$l" "$l" "$w" ""; done
  run_variant wo1 wo "$w" 1
done
stop_hogs
hr

# ---------------------------------------------------------------- table
# speed WORKLOAD WOC PEER -> how many times better woc is (>1: woc better):
# rates for ping-pong and one-way, times for the rest
speed() { case $1 in pingpong | oneway) ratio "$2" "$3" 1 ;; *) ratio "$2" "$3" 0 ;; esac; }

declare -A LABEL=([pingpong]="ping-pong (call)" [oneway]="one-way send" [ring]="ring 1000x1000"
  [skynet]="skynet (1.1M actors)" [spawn]="spawn" [spawn-mem]="memory per idle actor")
declare -A UNIT=([pingpong]="round trips/s" [oneway]="messages/s" [ring]="ms" [skynet]="ms"
  [spawn]="ns per spawn" [spawn-mem]="bytes")
[[ $QUICK != 0 ]] && LABEL[ring]="ring 1000x100" LABEL[skynet]="skynet (111k actors)"
declare -A AIM=([pingpong]="woc >= 2x Go, >= 5x Erlang" [spawn]="<= 1,000 ns" [spawn-mem]="<= 1,024 bytes")

rows=()
for w in $WORKLOADS; do
  [[ $w == pairs ]] && continue
  rows+=("$w")
  [[ $w == spawn ]] && rows+=(spawn-mem)
done
if ((${#rows[@]})); then
  say "Figures (woc: default shards = $ncpu; 'woc 1sh': WO_SHARDS=1). 'vs X': how many times better woc is than X"
  say "(higher rate, shorter time, fewer bytes); computed from the default-shards column."
  printf '%-22s %-14s %12s %12s %12s %12s %12s %8s %8s %8s  %s\n' workload unit Go Erlang Crystal woc "woc 1sh" "vs Go" "vs Erl" "vs Cr" aim
  for r in "${rows[@]}"; do
    printf '%-22s %-14s %12s %12s %12s %12s %12s %8s %8s %8s  %s\n' "${LABEL[$r]}" "${UNIT[$r]}" \
      "$(fmt "${F[$r.go]:--}")" "$(fmt "${F[$r.erl]:--}")" "$(fmt "${F[$r.cr]:--}")" \
      "$(fmt "${F[$r.wo]:--}")" "$(fmt "${F[$r.wo1]:--}")" \
      "$(speed "$r" "${F[$r.wo]:--}" "${F[$r.go]:--}")" "$(speed "$r" "${F[$r.wo]:--}" "${F[$r.erl]:--}")" \
      "$(speed "$r" "${F[$r.wo]:--}" "${F[$r.cr]:--}")" "${AIM[$r]:-}"
    for v in go erl cr wo wo1; do rec figure "$r" "$v" "${F[$r.$v]:--}" "${UNIT[$r]}"; done
  done
fi
if [[ " $WORKLOADS " == *" pairs "* ]]; then
  say ""
  say "Scaling: ${ARGS[pairs]% *} independent ping-pong pairs at once, round trips/s, with 1 and 2 worker threads"
  say "(cores busy: the process's CPU time over its wall time; on a busy machine a 2-thread run gets less than 2."
  say " per CPU: the same ratio of round trips per CPU-second, i.e. what the threads did with the time they got)"
  printf '%-10s %14s %14s %8s %12s %8s  %s\n' "" "1 thread" "2 threads" "2 / 1" "cores busy" "per CPU" aim
  for l in "${langs[@]}"; do
    if [[ $l == cr ]]; then
      printf '%-10s %14s %14s %8s %12s %8s  %s\n' Crystal "$(fmt "${F[pairs.cr]:--}")" "(one thread)" - "${CORES[pairs.cr]:--}" - ""
      rec figure pairs cr "${F[pairs.cr]:--}" "round trips/s"
      continue
    fi
    s=$(awk -v a="${F[pairs.${l}1]:--}" -v b="${F[pairs.${l}2]:--}" 'BEGIN {
      if (a !~ /^[0-9.]+$/ || b !~ /^[0-9.]+$/ || a + 0 == 0) print "-"; else printf "%.2fx", b / a }')
    pc=$(awk -v a="${F[pairs.${l}1]:--}" -v b="${F[pairs.${l}2]:--}" -v ca="${CORES[pairs.${l}1]:--}" -v cb="${CORES[pairs.${l}2]:--}" 'BEGIN {
      if (a !~ /^[0-9.]+$/ || b !~ /^[0-9.]+$/ || ca !~ /^[0-9.]+$/ || cb !~ /^[0-9.]+$/ || a * cb == 0) print "-";
      else printf "%.2fx", (b / cb) / (a / ca) }')
    printf '%-10s %14s %14s %8s %12s %8s  %s\n' "${NAME[$l]}" "$(fmt "${F[pairs.${l}1]:--}")" "$(fmt "${F[pairs.${l}2]:--}")" "$s" \
      "${CORES[pairs.${l}1]:--} / ${CORES[pairs.${l}2]:--}" "$pc" \
      "$([[ $l == wo ]] && echo "WO_SHARDS=1 -> 2: >= 1.60x")"
    rec figure pairs "${l}1" "${F[pairs.${l}1]:--}" "round trips/s"
    rec figure pairs "${l}2" "${F[pairs.${l}2]:--}" "round trips/s"
    rec figure pairs "$l-scaling" "$s"
    rec figure pairs "$l-scaling-per-cpu" "$pc"
  done
fi
bench_end
