#!/usr/bin/env bash
# -O0 emits its own forms of two reads (codegen/function.cpp): the thread
# pointer and the STACK check's frame address as x86-64 inline assembly,
# which FastISel selects, instead of intrinsics that send every block using
# them to SelectionDAG. This runs the fixtures those reads matter to — the
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
[[ $fail -eq 0 ]] && echo "o0-sweep: $ran runs at -O0 pass"
exit $fail
