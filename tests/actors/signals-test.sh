#!/usr/bin/env bash
# Signals and program end with actors (issue 8 item 8; runtime.md §3.10, §5.4):
#
#   drain (SIGTERM, SIGINT)  drain.wo: once the program prints `ready` and
#       three deliveries, the signal is sent; main observes env.stopping()
#       right after a send, prints `stop observed after N sends`, waits
#       (without parking) until the sinks have recorded all N notes, prints
#       `all N delivered` and returns: exit 0, and every note 0..N-1 was
#       delivered exactly once (in order with one shard).
#   parked-exit              parked-exit.wo: main returns 7 while sleepers are
#       parked in a ten-minute time.sleep: exit 7 well within the bound, no
#       sleeper wakes.
#   stop-in-sleep (SIGTERM, SIGINT)  stop-in-sleep.wo: the signal lands while
#       main is parked in time.sleep: exit 0 within 3 s (the drain's grace
#       bounds the actor parked in a ten-minute sleep), nobody wakes.
#   stop-inflight (SIGTERM)  stop-inflight.wo: the signal lands while an
#       actor sleeps inside its receive: that delivery and the message queued
#       behind it finish (decision 0027), exit 0 within 3 s, main never wakes.
#
# Each runs with WO_SHARDS=1 and WO_SHARDS=2. Synchronisation is by the
# program's stdout (read through a FIFO), never by sleeping; every wait is
# bounded (WO_SIGNAL_TIMEOUT seconds per program, default 30). In every case a
# sanitizer report on stderr (ASan/LSan leak, TSan race) fails the test.
#
#   tests/actors/signals-test.sh jit|native WOC
set -uo pipefail

if [[ $# -ne 2 ]]; then
  echo "usage: $0 jit|native WOC" >&2
  exit 2
fi
mode=$1 woc=$2
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
limit=${WO_SIGNAL_TIMEOUT:-30}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/wo-signals.XXXXXX") || exit 2
pid=
cleanup() {
  [[ -n $pid ]] && kill -KILL "$pid" 2>/dev/null
  rm -rf "$tmp"
}
trap cleanup EXIT
pass=0
failed=0

for prog in drain parked-exit stop-in-sleep stop-inflight; do
  case $mode in
    native)
      if ! "$woc" build "$here/$prog.wo" -o "$tmp/$prog" 2>"$tmp/build.err"; then
        echo "FAIL: woc build $prog.wo:"
        cat "$tmp/build.err"
        exit 1
      fi
      ;;
    jit) ;;
    *) echo "unknown mode: $mode (jit or native)" >&2; exit 2 ;;
  esac
done

# Milliseconds now, into $now (bash's clock: no subshell, no `date`). The
# loop below reads the program's output line by line; forking `date` for
# each line made it read ~55 lines/s on a loaded machine, and a drain that
# printed a few thousand lines outlived the limit (the program had exited).
now_ms() {
  local t=${EPOCHREALTIME/[.,]/}
  now=$((t / 1000))
}

# run SHARDS PROG SIGNAL TRIGGER: starts PROG with its stdout on a FIFO,
# copies the lines to $tmp/out; when a line equals TRIGGER, sends SIGNAL
# (TRIGGER "" = never). Sets $status, $elapsed_ms (from start to exit) and
# $signal_ms (from the signal to exit). Kills the program and fails the case
# when it outlives the limit.
run() {
  local shards=$1 prog=$2 sig=$3 trigger=$4 line left start sig_at=0
  local -a envs=()
  local var
  for var in $(compgen -e); do
    [[ $var == WO_* ]] && envs+=(-u "$var")
  done
  rm -f "$tmp/fifo" "$tmp/out" "$tmp/err"
  : >"$tmp/out"
  mkfifo "$tmp/fifo"
  now_ms
  start=$now
  local -a cmd=("$woc" run "$here/$prog.wo")
  [[ $mode == native ]] && cmd=("$tmp/$prog")
  # `env` execs the program: $pid is the program's (woc's with the JIT).
  # Background jobs of a script start with SIGINT ignored: restore the default.
  env --default-signal=INT,TERM "${envs[@]}" WO_SHARDS="$shards" WO_EPHEMERAL=1 "${cmd[@]}" \
    >"$tmp/fifo" 2>"$tmp/err" </dev/null &
  pid=$!
  exec 3<"$tmp/fifo"
  timed_out=0
  while :; do
    now_ms
    left=$(((start + limit * 1000 - now + 999) / 1000))
    if [[ $left -le 0 ]]; then
      timed_out=1
      break
    fi
    if IFS= read -r -t "$left" line <&3; then
      printf '%s\n' "$line" >>"$tmp/out"
      if [[ -n $trigger && $line == "$trigger" && $sig_at -eq 0 ]]; then
        now_ms
        sig_at=$now
        kill -"$sig" "$pid"
      fi
    elif [[ $? -gt 128 ]]; then
      timed_out=1
      break
    else
      break  # EOF: the program closed its stdout (it exited)
    fi
  done
  exec 3<&-
  if [[ $timed_out -eq 1 ]]; then
    # A hang is a finding: keep every thread's stack for the report (gdb,
    # when installed, itself bounded), then kill.
    if command -v gdb >/dev/null; then
      timeout 30 gdb -batch -p "$pid" -ex 'thread apply all bt 30' >"$tmp/stacks" 2>&1
      grep -E '^(Thread|#)' "$tmp/stacks" | head -n 150 >>"$tmp/err"
    fi
    kill -KILL "$pid" 2>/dev/null
  fi
  wait "$pid"
  status=$?
  pid=
  now_ms
  elapsed_ms=$((now - start))
  signal_ms=0
  [[ $sig_at -gt 0 ]] && signal_ms=$((now - sig_at))
  [[ $timed_out -eq 0 ]]
}

report() {
  local name=$1
  shift
  if [[ $# -eq 0 ]]; then
    pass=$((pass + 1))
    return
  fi
  failed=$((failed + 1))
  echo "FAIL [$mode] $name:"
  printf '  %s\n' "$@"
  echo "  --- stdout (first 20 lines) ---"
  head -n 20 "$tmp/out" | sed 's/^/  /'
  echo "  --- stderr (after a timeout: then every thread's stack) ---"
  head -n 170 "$tmp/err" | sed 's/^/  /'
}

sanitizer_clean() { ! grep -q 'Sanitizer' "$tmp/err"; }

for shards in 1 2; do
  # (a) and (c): the drain guarantee after SIGTERM and after SIGINT.
  for sig in TERM INT; do
    name="drain SIG$sig WO_SHARDS=$shards"
    problems=()
    run "$shards" drain "$sig" "delivered 2" || problems+=("no exit within ${limit}s")
    [[ $status -eq 0 ]] || problems+=("exit status $status, expected 0")
    sent=$(sed -n 's/^stop observed after \([0-9]*\) sends$/\1/p' "$tmp/out")
    if [[ -z $sent ]]; then
      problems+=("no 'stop observed after N sends' line")
    else
      grep -qx "all $sent delivered" "$tmp/out" || problems+=("no 'all $sent delivered' line")
      # Every note sent before the stop was observed was delivered, once.
      seq 0 $((sent - 1)) | sed 's/^/delivered /' >"$tmp/want"
      grep '^delivered ' "$tmp/out" >"$tmp/got"
      [[ $shards -eq 1 ]] || sort -t' ' -k2,2n -o "$tmp/got" "$tmp/got"
      cmp -s "$tmp/want" "$tmp/got" ||
        problems+=("deliveries are not exactly 0..$((sent - 1))$([[ $shards -eq 1 ]] && echo ' in order'):
$(diff "$tmp/want" "$tmp/got" | head -n 10)")
    fi
    sanitizer_clean || problems+=("a sanitizer report on stderr")
    report "$name" "${problems[@]}"
  done

  # (b): main returns while actors are parked in a long time.sleep.
  name="parked-exit WO_SHARDS=$shards"
  problems=()
  run "$shards" parked-exit "" "" || problems+=("no exit within ${limit}s (sleepers not unwound?)")
  [[ $status -eq 7 ]] || problems+=("exit status $status, expected main's 7")
  grep -qx 'all asleep' "$tmp/out" || problems+=("no 'all asleep' line")
  grep -q '^woke' "$tmp/out" && problems+=("a parked sleeper woke up instead of being unwound")
  sanitizer_clean || problems+=("a sanitizer report on stderr")
  report "$name" "${problems[@]}"

  # A stop landing while main itself is parked in time.sleep (§5.4).
  for sig in TERM INT; do
    name="stop-in-sleep SIG$sig WO_SHARDS=$shards"
    problems=()
    run "$shards" stop-in-sleep "$sig" "ready" || problems+=("no exit within ${limit}s")
    [[ $status -eq 0 ]] || problems+=("exit status $status, expected 0")
    grep -q 'woke' "$tmp/out" && problems+=("a parked fiber woke up instead of being unwound")
    [[ $signal_ms -lt 3000 ]] || problems+=("exit took $signal_ms ms after the signal (bound 3000)")
    sanitizer_clean || problems+=("a sanitizer report on stderr")
    report "$name" "${problems[@]}"
  done

  # A stop landing while an actor is mid-delivery: the delivery completes.
  name="stop-inflight WO_SHARDS=$shards"
  problems=()
  run "$shards" stop-inflight TERM "napping 1" || problems+=("no exit within ${limit}s")
  [[ $status -eq 0 ]] || problems+=("exit status $status, expected 0")
  grep -qx 'finished 1' "$tmp/out" || problems+=("the delivery in progress at the stop did not finish")
  grep -qx 'finished 2' "$tmp/out" || problems+=("the message queued before the stop was not delivered")
  grep -q 'main woke' "$tmp/out" && problems+=("main woke instead of being unwound")
  [[ $signal_ms -lt 3000 ]] || problems+=("exit took $signal_ms ms after the signal (bound 3000)")
  sanitizer_clean || problems+=("a sanitizer report on stderr")
  report "$name" "${problems[@]}"
done

echo "signals [$mode]: $pass passed, $failed failed"
[[ $failed -eq 0 ]]
