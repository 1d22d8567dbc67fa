#!/usr/bin/env bash
# A scripted gdb session against `woc build -g` (and `woc run -g` through
# gdb's JIT interface): break on a .wo line, print an Int, a Float, a Bool and
# a Text local, `bt` with .wo names and file:line, `next` to the next line.
# The expected lines below are written by hand from main.wo (its line
# numbers: 6 = `let r = f * k + 1.0` in scale, 7 = `print(label)`, 15 = the
# call in main; 26 = `return left` in Account.withdraw, called on line 18).
# A method's `self` prints as its class's fields. Skips (77) only when gdb is
# not installed.
#
#   tests/debug/gdb-test.sh WOC
set -uo pipefail
[[ $# -eq 1 ]] || { echo "usage: $0 WOC" >&2; exit 2; }
woc=$1
here=$(cd "$(dirname "$0")" && pwd)
command -v gdb >/dev/null || { echo "SKIP: gdb is not installed (scripts/setup-deps.sh)"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/wo-gdb-test.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
failed=0
bad() { echo "FAIL: $*"; failed=1; }

# expect FILE WHAT PATTERN: an extended regex that some line of FILE must match.
expect() {
  grep -qE -- "$3" "$1" || bad "$2: no line matching /$3/ in:
$(head -n 60 "$1")"
}

# gdb with no init files, bounded; the program's stdout goes to the same file.
run_gdb() {
  local out=$1 script=$2
  shift 2
  timeout -k 5 120 gdb -nx -batch -x "$script" "$@" >"$out" 2>&1 </dev/null
}

# 1. -O0 -g: every local is there.
"$woc" build -g -O0 "$here/main.wo" -o "$tmp/prog0" || { echo "FAIL: woc build -g -O0"; exit 1; }
cat >"$tmp/full.gdb" <<'GDB'
break main.wo:6
run
print n
print f
print big
print *label
print label->bytes
info locals
bt
next
break main.wo:26
continue
print *self
print left
bt 2
GDB
run_gdb "$tmp/full.out" "$tmp/full.gdb" "$tmp/prog0"
o=$tmp/full.out
expect "$o" "break on a .wo line" '^Breakpoint 1 at 0x[0-9a-f]+: file main\.wo, line 6\.'
expect "$o" "stopped there" '^Breakpoint 1, scale \(n=42, f=0\.75\) at .*main\.wo:6$'
expect "$o" "the Int parameter" '^\$1 = 42$'
expect "$o" "the Float parameter" '^\$2 = 0\.75$'
expect "$o" "a Bool local" '^\$3 = true$'
expect "$o" "a Text local: length and characters" '^\$4 = \{h = \{rc = -?[0-9]+, destroy = 0x[0-9a-f]+\}, len = 5, bytes = 0x[0-9a-f]+ "hello"\}$'
expect "$o" "a Text's characters" '^\$5 = 0x[0-9a-f]+ "hello"$'
expect "$o" "info locals: the Float local" '^k = 2\.5$'
expect "$o" "info locals: the Bool local" '^big = true$'
expect "$o" "bt: the .wo function" '^#0  scale \(n=42, f=0\.75\) at .*main\.wo:6$'
expect "$o" "bt: its .wo caller" '^#1  0x[0-9a-f]+ in main \(\) at .*main\.wo:15$'
expect "$o" "next: the next line" '^7	  print\(label\)$'
expect "$o" "a method, named Class.method" '^Breakpoint 2, Account\.withdraw \(self=0x[0-9a-f]+, amount=2\) at .*main\.wo:26$'
expect "$o" "self: the object's fields" '^\$6 = \{balance = 5\}$'
expect "$o" "a local of the method" '^\$7 = 3$'
expect "$o" "bt from a method" '^#1  0x[0-9a-f]+ in main \(\) at .*main\.wo:18$'

# 1b. `step` into a call stops on the callee's first statement with its
# parameters in place (prologue_end), `finish` returns the Float.
printf 'break main.wo:15\nrun\nstep\nfinish\n' >"$tmp/step.gdb"
run_gdb "$tmp/step.out" "$tmp/step.gdb" "$tmp/prog0"
expect "$tmp/step.out" "step into scale" '^scale \(n=42, f=0\.75\) at .*main\.wo:3$'
expect "$tmp/step.out" "finish" '^Value returned is \$1 = 2\.875$'

# 2. -O2 -g: optimised code keeps its line tables and function names.
"$woc" build -g -O2 "$here/main.wo" -o "$tmp/prog2" || { echo "FAIL: woc build -g -O2"; exit 1; }
printf 'break main.wo:7\nrun\nbt\n' >"$tmp/opt.gdb"
run_gdb "$tmp/opt.out" "$tmp/opt.gdb" "$tmp/prog2"
expect "$tmp/opt.out" "-O2: break on a .wo line" '^Breakpoint 1, scale \(.*\) at .*main\.wo:7$'
expect "$tmp/opt.out" "-O2: bt names the caller" '^#1  .*main \(\) at .*main\.wo:15$'

# 3. woc run -g: the JIT'd code is registered with gdb (a pending breakpoint resolves).
printf 'set breakpoint pending on\nbreak main.wo:6\nrun\nprint n\nprint *label\nbt 2\n' >"$tmp/jit.gdb"
run_gdb "$tmp/jit.out" "$tmp/jit.gdb" --args "$woc" run -g -O0 "$here/main.wo"
o=$tmp/jit.out
expect "$o" "run -g: stopped in JIT'd code" 'hit Breakpoint 1, scale \(n=42, f=0\.75\) at .*main\.wo:6$'
expect "$o" "run -g: the Int parameter" '^\$1 = 42$'
expect "$o" "run -g: a Text local" '^\$2 = \{.*len = 5, bytes = 0x[0-9a-f]+ .*"hello"\}$'
expect "$o" "run -g: bt" '^#1  0x[0-9a-f]+ in main \(\) at .*main\.wo:15$'

[[ $failed -eq 0 ]] || exit 1
echo "gdb breaks, prints Int/Float/Bool/Text, backtraces and steps through woc -g code (build and run)"
