# The check bookkeeping shared by the acceptance scripts (web-app-accept.sh,
# porch-accept.sh): `ok NAME`, `bad NAME DETAIL`, `check NAME STATUS DETAIL`
# (ok when STATUS is 0), and `gate_finish NAME`, which prints
# `NAME: N checks, M failures` and exits non-zero on any failure.
checks=0
failures=0
ok() { checks=$((checks + 1)); printf 'ok   %s\n' "$1"; }
bad() { checks=$((checks + 1)); failures=$((failures + 1)); printf 'FAIL %s -- %s\n' "$1" "$2"; }
check() { if [[ $2 == 0 ]]; then ok "$1"; else bad "$1" "$3"; fi; }
gate_finish() {
  echo "$1: $checks checks, $failures failures"
  ((failures == 0))
  exit
}
