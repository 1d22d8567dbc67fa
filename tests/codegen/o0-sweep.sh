#!/usr/bin/env bash
# -O0 emits its own forms of two reads (codegen/function.cpp): the thread
# pointer as a call of the module's wo.o0.thread_pointer and the STACK
# check's frame address as an alloca's, which FastISel selects, instead of
# intrinsics or inline assembly that send each read to SelectionDAG; and
# every invoke ends a block of its own (codegen/optimize.cpp, decision 0071).
# This runs the fixtures those reads matter to — the
# STACK traps, preemption in loops, actors on several shards, fibers parked
# and resumed, traps caught — at -O0 in both modes, through the fixture
# runner (WO_FIXTURE_OPT), so a wrong thread pointer or frame address shows.
#
#   tests/codegen/o0-sweep.sh WOC
set -uo pipefail
[[ $# -eq 1 ]] || { echo "usage: $0 WOC" >&2; exit 2; }
woc=$1
root=$(cd "$(dirname "$0")/../.." && pwd)
fixtures=(trap-stack-recursion trap-stack-tail-call trap-stack-mutual-tail
          actor-shards-store actor-shards-deaths actor-call-cycle-shards actor-timer-dead-target
          actor-lang-preempt-loop actor-preempt-loop-kinds db-held-replies try-block-handler map-list-catch-traps)
fail=0 ran=0
for f in "${fixtures[@]}"; do
  dir=$root/corpus/run/$f
  [[ -d $dir ]] || { echo "o0-sweep: no fixture $f" >&2; fail=1; continue; }
  for mode in jit native; do
    WO_FIXTURE_OPT=-O0 bash "$root/scripts/run-fixture.sh" "$mode" "$dir" "$woc" || fail=1
    ran=$((ran + 1))
  done
done
# The forms themselves, in the -O0 IR of the generated 1,000-line program
# (bench/gen): one inline asm (in wo.o0.thread_pointer) and no invoke
# after another instruction of its block (debug records and phis aside).
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bash "$root/bench/gen/generate.sh" "$tmp/gen" >/dev/null
if "$woc" build -O0 "$tmp/gen/main.wo" --emit-llvm "$tmp/o0.ll" -o "$tmp/o0"; then
  asms=$(grep -c 'call ptr asm' "$tmp/o0.ll")
  late=$(awk '/^[A-Za-z0-9._$"-]+:/ || /^define / { seen = 0; next }
              /^  +#dbg_/ || /^  +call void @llvm\.dbg\./ || /= phi / { next }
              /^  +(%[^ ]+ = )?invoke / { if (seen) bad++; seen = 1; next }
              /^  +[%a-z]/ { seen = 1 }
              END { print bad + 0 }' "$tmp/o0.ll")
  if [[ $asms != 1 || $late != 0 ]]; then
    echo "o0-sweep: -O0 IR has $asms inline asm calls (want 1) and $late invokes after other instructions (want 0)"
    fail=1
  fi
else
  echo "o0-sweep: woc build -O0 of the generated program failed"
  fail=1
fi
[[ $fail -eq 0 ]] && echo "o0-sweep: $ran runs at -O0 pass, and the -O0 IR has FastISel's forms"
exit $fail
