#!/usr/bin/env bash
# Loop back-edge preemption survives the optimiser (issue 8, runtime.md §3.3,
# codegen/actors.cpp): an empty counting loop at -O2 and -O3 still decrements
# the fiber's budget and can call wo_yield INSIDE the loop, i.e. LLVM neither
# folded the loop away nor hoisted the check out of it. Checked on the IR
# `woc check --emit-llvm` writes: the block that stores the decremented
# budget must lie on a cycle of the CFG and branch to a block calling
# wo_yield. Also for `do … while` and `for x in xs`.
#
#   tests/codegen/preempt-ir.sh WOC
set -uo pipefail
[[ $# -eq 1 ]] || { echo "usage: $0 WOC" >&2; exit 2; }
woc=$1
tmp=$(mktemp -d "${TMPDIR:-/tmp}/wo-preempt.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
fail=0

# Prints "ok" when some block storing %budget.left* is on a cycle and has a
# successor that calls wo_yield; otherwise a reason.
check_ir() {
  awk '
    /^define / { infn = 1; cur = "entry"; next }
    infn && /^}/ { infn = 0; next }
    !infn { next }
    /^[A-Za-z0-9_.$-]+:/ { cur = $1; sub(/:.*/, "", cur); next }
    /store i64 %budget\.left/ { dec[cur] = 1 }
    /(call|invoke) void @wo_yield\(/ { yields[cur] = 1 }
    /(^|[ \t])br / || /invoke / || /switch / {
      line = $0
      while (match(line, /label %[A-Za-z0-9_.$-]+/)) {
        t = substr(line, RSTART + 7, RLENGTH - 7)
        succ[cur] = succ[cur] " " t
        line = substr(line, RSTART + RLENGTH)
      }
    }
    END {
      found = 0
      for (d in dec) {
        # Does some successor of d reach d again? (breadth first)
        delete seen; n = split(succ[d], q, " "); head = 1; on_cycle = 0
        for (k = 1; k <= n; k++) seen[q[k]] = 1
        while (head <= n && !on_cycle) {
          b = q[head++]
          if (b == d) { on_cycle = 1; break }
          m = split(succ[b], s2, " ")
          for (k = 1; k <= m; k++) if (!(s2[k] in seen)) { seen[s2[k]] = 1; q[++n] = s2[k] }
        }
        calls = 0; m = split(succ[d], s3, " ")
        for (k = 1; k <= m; k++) if (s3[k] in yields) calls = 1
        if (on_cycle && calls) found = 1
      }
      if (found) print "ok"
      else if (length(dec) == 0) print "no budget decrement in the IR"
      else print "the budget decrement is not inside a loop with a wo_yield call"
    }' "$1"
}

probe() {  # name, opt level, program text
  local name=$1 opt=$2
  printf '%s\n' "$3" > "$tmp/$name.wo"
  if ! "$woc" check "$opt" --emit-llvm "$tmp/$name.ll" "$tmp/$name.wo" > "$tmp/$name.err" 2>&1; then
    echo "FAIL $name $opt: woc check failed"; cat "$tmp/$name.err"; fail=1; return
  fi
  local verdict
  verdict=$(check_ir "$tmp/$name.ll")
  if [[ $verdict != ok ]]; then
    echo "FAIL $name $opt: $verdict"; fail=1
  else
    echo "ok   $name $opt"
  fi
}

while_loop='fn main() {
  let i = 0
  while i < 100000 {
    i += 1
  }
  print_int(i)
}'
do_loop='fn main() {
  let i = 0
  do {
    i += 1
  } while i < 100000
  print_int(i)
}'
for_loop='fn main() {
  let xs = [1, 2, 3]
  let n = 0
  for x in xs {
    n += 1
  }
  print_int(n)
}'
continue_loop='fn main() {
  let i = 0
  while i < 100000 {
    i += 1
    continue
  }
  print_int(i)
}'
for opt in -O2 -O3; do
  probe while "$opt" "$while_loop"
  probe do-while "$opt" "$do_loop"
  probe for-in "$opt" "$for_loop"
  probe continue "$opt" "$continue_loop"
done

# The check itself can fail: IR without the budget is refused.
printf 'define i64 @f() {\nentry:\n  br label %%l\nl:\n  br label %%l\n}\n' > "$tmp/none.ll"
if [[ $(check_ir "$tmp/none.ll") == ok ]]; then echo "FAIL the checker accepts a loop without a budget"; fail=1; fi
# ... and so is a budget check hoisted out of the loop.
printf 'define i64 @f() {\nentry:\n  %%budget.left = add i64 0, -1\n  store i64 %%budget.left, ptr null\n  br i1 true, label %%y, label %%l\ny:\n  call void @wo_yield()\n  br label %%l\nl:\n  br label %%l\n}\n' > "$tmp/hoisted.ll"
if [[ $(check_ir "$tmp/hoisted.ll") == ok ]]; then echo "FAIL the checker accepts a hoisted budget check"; fail=1; fi
[[ $fail -eq 0 ]] || exit 1
echo "every loop back-edge keeps its budget check"
