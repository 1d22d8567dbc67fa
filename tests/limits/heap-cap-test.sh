#!/usr/bin/env bash
# The VM heap's ceiling, WO_HEAP_MB (runtime.md §5.6, docs/decisions/0081):
#
# - corpus/run/heap-cap-text-runaway (a Text doubled in a loop that stops by
#   itself at 1 GiB) under WO_HEAP_MB=256, compiled and JIT'd: the trap 4 it
#   catches, and a peak RSS under 1 GB (976,562 KiB), measured by PEAK_RSS
#   (tests/stress/peak_rss.cpp). Without the ceiling the Text reaches 1 GiB
#   (the RSS passes 1.5 GB) and the output differs.
# - bad values (not a whole number, 0, past 1048576) stop the program before
#   `main` with exit 2 and a line naming WO_HEAP_MB; the edges 1 and 1048576,
#   and an empty value (the default), run.
#
#   tests/limits/heap-cap-test.sh WOC PEAK_RSS FIXTURE_DIR
#
# WO_HEAP_RSS_KB overrides the RSS bound (`none`: not checked, for sanitizer
# builds, whose shadow memory and quarantine are not the program's).
set -uo pipefail

if [[ $# -ne 3 ]]; then
  echo "usage: $0 WOC PEAK_RSS FIXTURE_DIR" >&2
  exit 2
fi
abs() { [[ $1 == */* ]] && echo "$(cd "$(dirname "$1")" && pwd)/$(basename "$1")" || echo "$1"; }
woc=$(abs "$1") peak_rss=$(abs "$2") fixture=$(cd "$3" && pwd) || exit 2
rss_bound=${WO_HEAP_RSS_KB:-976562}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/wo-heap-cap.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
problems=()

# Runs "$@" with a clean WO_* environment plus the given VAR=VALUE words
# before `--`; stdout, stderr, status and peak RSS in $tmp/{out,err,rss}, $status.
run() {
  local -a envs=(-u WO_HEAP_MB WO_SHARDS=1 WO_EPHEMERAL=1)
  while [[ $1 != -- ]]; do envs+=("$1"); shift; done
  shift
  (cd "$tmp" && env "${envs[@]}" timeout -k 5 120 "$peak_rss" "$tmp/rss" "$@") >"$tmp/out" 2>"$tmp/err" </dev/null
  status=$?
}

"$woc" build "$fixture" -o "$tmp/runaway" 2>"$tmp/err" || { cat "$tmp/err"; echo "FAIL: woc build $fixture"; exit 1; }

for mode in native jit; do
  if [[ $mode == native ]]; then
    run WO_HEAP_MB=256 -- "$tmp/runaway"
  else
    run WO_HEAP_MB=256 -- "$woc" run "$fixture"
  fi
  rss=$(cat "$tmp/rss" 2>/dev/null || echo 0)
  [[ $status -eq 0 ]] || problems+=("[$mode] exit status $status, expected 0: $(head -c 300 "$tmp/err")")
  cmp -s "$fixture/expected.out" "$tmp/out" ||
    problems+=("[$mode] output differs:
$(diff -u --label expected --label actual "$fixture/expected.out" "$tmp/out" | head -n 20)")
  [[ $rss_bound == none || $rss -le $rss_bound ]] ||
    problems+=("[$mode] peak RSS ${rss} KiB above the bound ${rss_bound} KiB")
  echo "[$mode] WO_HEAP_MB=256: peak RSS ${rss} KiB (bound: ${rss_bound}), status $status"
done

# Start-up: the value is checked before `main` runs (it would print).
for bad in abc 0 00 -1 1048577 99999999999999999999 " 64" "64 " 64M 1e3 0x40; do
  run "WO_HEAP_MB=$bad" -- "$tmp/runaway"
  if [[ $status -ne 2 ]]; then
    problems+=("WO_HEAP_MB='$bad': exit status $status, expected 2")
  elif [[ -s $tmp/out ]] || ! grep -q "WO_HEAP_MB must be a whole number of MiB from 1 to 1048576" "$tmp/err"; then
    problems+=("WO_HEAP_MB='$bad': expected no output and the refusal on stderr, got: $(head -c 300 "$tmp/out" "$tmp/err")")
  fi
done
cat >"$tmp/small.wo" <<'WO'
fn main() {
  let words: multi Text = []
  push(words, "small")
  print("ok ${len(words)}")
}
WO
"$woc" build "$tmp/small.wo" -o "$tmp/small" 2>"$tmp/err" || { cat "$tmp/err"; echo "FAIL: woc build small.wo"; exit 1; }
for good in 1 1048576 ""; do
  run "WO_HEAP_MB=$good" -- "$tmp/small"
  [[ $status -eq 0 && $(cat "$tmp/out") == "ok 1" ]] ||
    problems+=("WO_HEAP_MB='$good': status $status, output '$(cat "$tmp/out")', stderr: $(head -c 300 "$tmp/err")")
done

if [[ ${#problems[@]} -gt 0 ]]; then
  printf 'FAIL %s\n' "${problems[@]}"
  exit 1
fi
echo "heap cap: trap 4 caught under WO_HEAP_MB=256 in both modes; bad values refused with exit 2"
