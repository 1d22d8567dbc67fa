#!/usr/bin/env bash
# --color=auto on a terminal (docs/decisions/0040): colour when stderr is a
# terminal, none when NO_COLOR is set to a non-empty value, colour again when
# it is empty, and none when stderr is not a terminal. `script` (util-linux)
# gives woc a pseudo-terminal.
#
#   tests/diag/color-tty.sh WOC
set -uo pipefail
woc=$1
command -v script >/dev/null || { echo "SKIP: no script(1)"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf 'fn main() {\n  print(1)\n}\n' >"$tmp/bad.wo"
fail=0
esc=$'\x1b['
# on_tty ENV... : woc check under a pty, its combined output on stdout
on_tty() { env -u NO_COLOR "$@" timeout 60 script -qec "'$woc' check '$tmp/bad.wo'" /dev/null; }
check() {  # NAME WANT(color|plain) OUTPUT
  local has=plain
  [[ $3 == *"$esc"* ]] && has=color
  if [[ $has != "$2" ]]; then
    echo "FAIL $1: want $2, got $has:"
    printf '%s\n' "$3" | cat -v | sed 's/^/    /'
    fail=1
  fi
}
check tty-auto color "$(on_tty)"
check tty-no-color plain "$(on_tty NO_COLOR=1)"
check tty-empty-no-color color "$(on_tty NO_COLOR=)"
check tty-never plain "$(env -u NO_COLOR timeout 60 script -qec "'$woc' check --color=never '$tmp/bad.wo'" /dev/null)"
check pipe-auto plain "$(env -u NO_COLOR "$woc" check "$tmp/bad.wo" 2>&1)"
[[ $fail -eq 0 ]] && echo "colour on a terminal: ok"
exit $fail
