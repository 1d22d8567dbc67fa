#!/usr/bin/env bash
# Golden tests of rendered diagnostics (docs/decisions/0040): for each
# cases/NAME/, runs `woc check ARGS` in that directory and compares stderr
# byte for byte with expected.stderr, and the exit status with expected.exit
# (default 1). ARGS: the lines of `args` (default: main.wo); `env`: KEY=VALUE
# lines added to the environment (NO_COLOR is removed first, so a developer's
# setting cannot change the result). Every expected.stderr is written by hand.
#
#   tests/diag/run-golden.sh WOC [NAME...]
set -uo pipefail
woc=$1
[[ $woc == */* ]] && woc=$(cd "$(dirname "$woc")" && pwd)/$(basename "$woc")  # the cases run in their own directory
shift
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0
names=("$@")
if [[ ${#names[@]} -eq 0 ]]; then
  for d in "$here"/cases/*/; do names+=("$(basename "$d")"); done
fi
for name in "${names[@]}"; do
  dir=$here/cases/$name
  args=(main.wo)
  [[ -f $dir/args ]] && mapfile -t args <"$dir/args"
  envs=()
  [[ -f $dir/env ]] && mapfile -t envs <"$dir/env"
  want_exit=1
  [[ -f $dir/expected.exit ]] && want_exit=$(<"$dir/expected.exit")
  (cd "$dir" && env -u NO_COLOR "${envs[@]}" timeout 60 "$woc" check "${args[@]}" 2>"$tmp/stderr" >/dev/null)
  status=$?
  if [[ $status -eq $want_exit ]] && cmp -s "$dir/expected.stderr" "$tmp/stderr"; then
    pass=$((pass + 1))
  else
    fail=$((fail + 1))
    echo "FAIL $name: exit $status (want $want_exit); diff expected got:"
    diff "$dir/expected.stderr" "$tmp/stderr" | sed 's/^/    /'
  fi
done
echo "$pass passed, $fail failed"
[[ $fail -eq 0 ]]
