#!/usr/bin/env bash
# A soak (tests/soak/README.md): runs PROGRAM for TURNS turns, reads the two
# `rss warm <statm>` / `rss end <statm>` lines it prints (after its first
# 10,000 turns, and at the end) and fails when the resident set grew by more
# than WO_SOAK_GROWTH_KB (default 20 MiB), when it does not print `ok`, or on
# a sanitizer report. Memory that grows with work done, not with work in
# progress, is what this catches.
#
#   tests/soak/run-soak.sh native|jit WOC PROGRAM TURNS
#
# WO_SOAK_GROWTH_KB=none skips the bound (sanitizer builds: their quarantine
# and shadow memory grow on their own).
set -uo pipefail

if [[ $# -ne 4 ]]; then
  echo "usage: $0 native|jit WOC PROGRAM TURNS" >&2
  exit 2
fi
mode=$1 woc=$2 program=$3 turns=$4
bound_kb=${WO_SOAK_GROWTH_KB:-20480}
name=$(basename "$program" .wo)

tmp=$(mktemp -d "${TMPDIR:-/tmp}/wo-soak.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT

fail() {
  echo "FAIL soak $name [$mode, $turns turns]: $*"
  for f in out err; do
    if [[ -s $tmp/$f ]]; then
      echo "--- $f (first 30 lines) ---"
      head -n 30 "$tmp/$f"
    fi
  done
  exit 1
}

source "$(dirname "${BASH_SOURCE[0]}")/../lib/wo_command.sh"  # wo_command
wo_command "$mode" "$woc" "$program" "$tmp/prog" "$turns" 2>"$tmp/err" || fail "woc build failed"
timeout -k 5 600 "${cmd[@]}" >"$tmp/out" 2>"$tmp/err" </dev/null
status=$?
[[ $status -eq 124 || $status -eq 137 ]] && fail "did not finish within 600 s"
[[ $status -eq 0 ]] || fail "exit status $status"
grep -q 'Sanitizer' "$tmp/err" && fail "a sanitizer report on stderr"
grep -qx "ok $turns turns" "$tmp/out" || fail "no \`ok $turns turns\` line"

# statm's second field: resident pages.
page_kb=$(($(getconf PAGESIZE) / 1024))
warm=$(awk '$1 == "rss" && $2 == "warm" { print $4 }' "$tmp/out")
end=$(awk '$1 == "rss" && $2 == "end" { print $4 }' "$tmp/out")
[[ -n $warm && -n $end ]] || fail "no rss lines"
growth_kb=$(((end - warm) * page_kb))
if [[ $bound_kb != none && $growth_kb -gt $bound_kb ]]; then
  fail "RSS grew by ${growth_kb} KiB after warm-up (bound ${bound_kb} KiB): $((warm * page_kb)) -> $((end * page_kb)) KiB"
fi
echo "soak $name [$mode]: $turns turns, RSS $((warm * page_kb)) KiB after 10,000 -> $((end * page_kb)) KiB at the end" \
  "(growth ${growth_kb} KiB, bound ${bound_kb}$([[ $bound_kb == none ]] || echo ' KiB'))"
exit 0
