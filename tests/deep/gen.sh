#!/usr/bin/env bash
# Generates deep and long .wo programs (woc issue 7 item 8; see README.md here).
#
#   gen.sh OUT [SCALE]
#
# Writes OUT/NAME/main.wo for every case and OUT/cases.txt, one line per case:
#   NAME MODES EXPECT
# MODES: `all` (woc run and woc build), `scaled` (the same, for a case whose
# size follows SCALE: run-deep.sh also checks that its time grows linearly) or
# `check` (woc check only: the largest accepted programs, where compiling is
# what is being tested).
# EXPECT: `out:TEXT` (exit 0, stdout is TEXT and a newline), `ok` (exit 0) or
# `code:WO-E###` (exit 1, that code with a file:line:col location).
# SCALE (default 1) multiplies the chain lengths, to see how time grows.
#
# The limits come from frontend/nesting.h, so the cases follow them: nested
# constructs are generated just under kMaxNesting (must work) and past it
# (must be refused); chains at 20,000 (must work), just under kMaxChain
# (must compile) and just past it (refused).
set -euo pipefail

out=$1
scale=${2:-1}
here=$(cd "$(dirname "$0")" && pwd)
header=$here/../../frontend/nesting.h
limit=$(sed -n 's/.*kMaxNesting = \([0-9]*\);.*/\1/p' "$header")
chain_limit=$(sed -n 's/.*kMaxChain = \([0-9]*\);.*/\1/p' "$header")
[[ -n $limit && -n $chain_limit ]] || { echo "gen.sh: limits not found in $header" >&2; exit 2; }

n20k=$(awk -v s="$scale" 'BEGIN { printf "%d", 20000 * s }')
n5k=$(awk -v s="$scale" 'BEGIN { printf "%d", 5000 * s }')
n50k=50000
under=$((limit - 10))
over=20000
((over > limit)) || over=$((limit + 1))

mkdir -p "$out"
: > "$out/cases.txt"

# rep N TEXT: TEXT N times. join N SEP TEXT: N copies of TEXT separated by SEP.
# numbered N FORMAT: FORMAT (with %d) for 0..N-1, concatenated.
rep() { awk -v n="$1" -v s="$2" 'BEGIN { for (i = 0; i < n; i++) printf "%s", s }'; }
join() { awk -v n="$1" -v sep="$2" -v s="$3" 'BEGIN { for (i = 0; i < n; i++) printf "%s%s", (i ? sep : ""), s }'; }
numbered() { awk -v n="$1" -v f="$2" 'BEGIN { for (i = 0; i < n; i++) printf f, i, i }'; }

# case NAME MODES EXPECT: the program comes on stdin.
case_() {
  mkdir -p "$out/$1"
  cat > "$out/$1/main.wo"
  echo "$1 $2 $3" >> "$out/cases.txt"
}

# ---------------------------------------------------------------- flat chains: must work
{ echo "fn main() {"; echo "  let x = 1"; echo "  print_int($(join "$n20k" " + " x))"; echo "}"; } |
  case_ add-chain scaled "out:$n20k"
{ echo "fn main() {"; echo "  let x = 1"; echo "  print_int($n20k$(rep $((n20k - 1)) " - x"))"; echo "}"; } |
  case_ sub-chain scaled "out:1"
{ echo "fn main() {"; echo "  let x = 2"; echo "  print_int($(join "$n20k" " + " "x * x"))"; echo "}"; } |
  case_ mixed-chain scaled "out:$((4 * n20k))"
{ echo "fn main() {"; echo "  let s = $(join "$n20k" " .. " '"ab"')"; echo "  print_int(len(s))"; echo "}"; } |
  case_ concat-chain scaled "out:$((2 * n20k))"
# An interpolation is a `..` chain too: 5,000 holes and 5,000 literal pieces.
{ echo "fn main() {"; echo "  let x = 7"; echo "  let s = \"$(rep "$n5k" '${x}-')\""; echo "  print_int(len(s))"; echo "}"; } |
  case_ interp-chain scaled "out:$((2 * n5k))"
{ echo "fn main() {"; echo "  let x = $((n20k - 1))"; echo "  if $(numbered "$n20k" 'x == %d or ' | sed 's/ or $//') {"
  echo '    print("yes")'; echo "  }"; echo "}"; } |
  case_ or-chain scaled "out:yes"
{ echo "fn main() {"; echo "  let t = true"; echo "  print_int($(join "$n20k" " and " t))"; echo "}"; } |
  case_ and-chain scaled "out:1"
{ echo "fn main() {"; echo "  let t = true"; echo "  print_int($(join "$n20k" " == " t))"; echo "}"; } |
  case_ cmp-chain scaled "out:1"
{ echo "fn main() {"; echo "  let x = $((n20k - 1))"; echo "  if x == -1 {"; echo "    print_int(-1)"
  echo -n "  }"; numbered "$n20k" ' else if x == %d {\n    print_int(%d)\n  }'; echo " else {"
  echo "    print_int(-2)"; echo "  }"; echo "}"; } |
  case_ else-if-chain scaled "out:$((n20k - 1))"
{ echo "fn main() {"; echo "  let s = 0"; rep "$n20k" '  s = s + 1\n'; echo "  print_int(s)"; echo "}"; } |
  case_ many-stmts scaled "out:$n20k"
# Generated dispatch: every branch returns (sema asks "does the rest return?" at each level).
{ echo "fn pick(x: Int) -> Int {"; echo "  if x == -1 {"; echo "    return -1"
  echo -n "  }"; numbered "$n20k" ' else if x == %d {\n    return %d\n  }'; echo " else {"
  echo "    return -2"; echo "  }"; echo "}"; echo "fn main() {"; echo "  print_int(pick($((n20k - 1))))"; echo "}"; } |
  case_ else-if-return-chain scaled "out:$((n20k - 1))"
{ echo "fn pick(x: Int) -> Int {"; echo "  switch x {"; numbered "$n20k" '  case %d:\n    return %d\n'
  echo "  default:"; echo "    return -1"; echo "  }"; echo "}"; echo "fn main() {"; echo "  print_int(pick($((n20k - 1))))"; echo "}"; } |
  case_ switch-arms scaled "out:$((n20k - 1))"
{ echo "fn main() {"; echo "  let xs = [$(numbered "$n20k" '%d, ')0]"; echo "  print_int(len(xs))"; echo "}"; } |
  case_ list-items scaled "out:$((n20k + 1))"
# A postfix chain: each call returns a fresh object, live to the end of the statement.
{ echo "class C {"; echo "  v: Int = 0"; echo "  fn inc() -> C {"; echo "    return C { v: self.v + 1 }"; echo "  }"; echo "}"
  echo "fn main() {"; echo "  let c = C {}"; echo "  print_int(c$(rep "$n5k" ".inc()").v)"; echo "}"; } |
  case_ method-chain scaled "out:$n5k"

# ---------------------------------------------------------------- chains at the limit
# Just under kMaxChain AST edges (the gate counts the statement and call above
# the chain too): must compile. Just past it: refused.
{ echo "fn main() {"; echo "  let x = 1"; echo "  print_int($(join $((chain_limit - 10)) " + " x))"; echo "}"; } |
  case_ chain-at-limit check ok
{ echo "fn main() {"; echo "  let x = 1"; echo "  if x == -1 {"; echo "    print_int(-1)"
  echo -n "  }"; numbered $((chain_limit / 2 - 10)) ' else if x == %d {\n    print_int(%d)\n  }'; echo; echo "}"; } |
  case_ else-if-at-limit check ok
{ echo "fn main() {"; echo "  let x = 1"; echo "  print_int($(join $((chain_limit + 1)) " + " x))"; echo "}"; } |
  case_ chain-too-long all code:WO-E113

# ---------------------------------------------------------------- genuinely nested: refused past the limit
# nested NAME N-OVER GENERATOR EXPECT-UNDER: GENERATOR N writes the program.
nested() {
  local name=$1 n_over=$2 gen=$3 expect=$4
  "$gen" "$under" | case_ "$name-under" all "$expect"
  "$gen" "$n_over" | case_ "$name" all code:WO-E113
}
g_not() { echo "fn main() {"; echo "  print_int($(rep "$1" "not ")true)"; echo "}"; }
g_neg() { echo "fn main() {"; echo "  print_int($(rep "$1" "- ")7)"; echo "}"; }
g_call() { echo "fn f(x: Int) -> Int {"; echo "  return x + 1"; echo "}"
  echo "fn main() {"; echo "  print_int($(rep "$1" "f(")0$(rep "$1" ")"))"; echo "}"; }
g_list() { echo "fn main() {"; echo "  let xs = $(rep "$1" "[")1$(rep "$1" "]")"; echo "  print_int(len(xs))"; echo "}"; }
g_right() { echo "fn main() {"; echo "  let x = 1"; echo "  print_int($(rep "$1" "x + (")x$(rep "$1" ")"))"; echo "}"; }
g_if() { echo "fn main() {"; echo "  let t = true"; rep "$1" '  if t {\n'; echo '  print("in")'; rep "$1" '  }\n'; echo "}"; }
g_while() { echo "fn main() {"; echo "  let t = true"; rep "$1" '  while t {\n'; echo '  print("in")'
  rep "$1" '  break\n  }\n'; echo "}"; }
g_switch() { echo "fn main() {"; echo "  let x = 1"; rep "$1" '  switch x {\n  case 1:\n'; echo '  print("in")'
  rep "$1" '  default:\n  }\n'; echo "}"; }
g_ctor() { echo "class N {"; echo "  v: Int = 0"; echo "  next: ?N"; echo "}"
  echo "fn main() {"; echo "  let n = $(rep "$1" "N { next: ")N { v: 7 }$(rep "$1" " }")"; echo "  print_int(n.v)"; echo "}"; }
g_try() { echo "fn main() {"; echo "  let x = 5"; echo "  print_int($(rep "$1" "try (")x$(rep "$1" ") catch (e) 0"))"; echo "}"; }
# A text literal whose hole holds a text literal whose hole ... (nested quotes
# inside a hole need no escaping).
g_hole() { echo "fn main() {"; echo "  let x = 7"; echo "  print($(rep "$1" '"${')x$(rep "$1" '}"'))"; echo "}"; }

nested not-nest "$over" g_not "out:$((1 - under % 2))"
nested neg-nest "$over" g_neg "out:$((under % 2 ? -7 : 7))"
nested call-nest "$over" g_call "out:$under"
# A list of lists is not expressible (decision 0015: WO-E403); under the limit
# that refusal must still come quickly, past it the gate's WO-E113 comes first.
nested list-nest "$over" g_list "code:WO-E403"
nested right-nest "$over" g_right "out:$((under + 1))"
nested if-nest "$n50k" g_if "out:in"
nested while-nest "$over" g_while "out:in"
nested switch-nest "$over" g_switch "out:in"
nested ctor-nest "$over" g_ctor "out:0"
nested try-nest "$over" g_try "out:5"
nested hole-nest "$over" g_hole "out:7"
# Parentheses alone make no AST node: 20,000 of them are fine.
{ echo "fn main() {"; echo "  print_int($(rep "$over" "(")7$(rep "$over" ")"))"; echo "}"; } |
  case_ paren-nest all "out:7"
