#!/usr/bin/env bash
# Runs one corpus fixture and checks it (the layout is corpus/README.md).
#
#   scripts/run-fixture.sh MODE FIXTURE_DIR WOC
#
# MODE   jit     woc run FIXTURE_DIR -- ARGS
#        native  woc build FIXTURE_DIR -o TMP/prog, then TMP/prog ARGS
#        fail    woc check FIXTURE_DIR must exit 1 and name expected.code
#
# Run fixtures: stdout must equal expected.out byte for byte; the exit status
# must equal expected.exit (default 0, or 1 when expected.trap exists); with
# expected.trap, stderr must hold a line starting `trap <code> in `; with
# expected.stderr, the first stderr line must equal its first line; with
# expected.trace, the stderr lines after the first must equal it, `$DIR` in it
# standing for the fixture directory's absolute path (an uncaught trap's extra
# lines, docs/decisions/0035; empty: there must be none). `args`
# holds one program argument per line, `env` one KEY=VALUE per line. `runs`
# holds a number N: the program runs N times in the same working directory
# (a durable store set by `env` is reopened, i.e. restarted, by each run);
# stdout is all runs' output in order, and every run but the last must exit 0.
# The program runs in a fresh empty working directory with no WO_* variables
# inherited but WO_EPHEMERAL=1 and WO_SHARDS=1 (runtime.md §1.8; an `env` file
# setting WO_DATA or WO_EPHEMERAL replaces the first, one setting WO_SHARDS
# the second). WO_FIXTURE_DATA, when set, is the store instead: the program
# runs with WO_DATA=$WO_FIXTURE_DATA (a PostgreSQL URI, tests/pg) and the
# `env` file's own WO_DATA/WO_EPHEMERAL lines are dropped (the same database
# serves every run of a `runs` fixture), and so are its WO_CHECKPOINT_* lines:
# settings of the embedded log, which a PostgreSQL store refuses.
# WO_FIXTURE_OPT, when set (-O0 .. -O3), is passed to `woc run`/`woc build`
# (tests/codegen's -O0 sweep). WO_FIXTURE_TIMEOUT (seconds, default 60) bounds each step:
# the build, and each run. tests/runner/runner-test.sh checks all of this.
# Exit status: 0 pass, 1 fail, 2 usage. Temporary files are always removed.
set -uo pipefail

if [[ $# -ne 3 ]]; then
  echo "usage: $0 jit|native|fail FIXTURE_DIR WOC" >&2
  exit 2
fi
mode=$1
dir=$(cd "$2" 2>/dev/null && pwd) || { echo "no such fixture: $2" >&2; exit 2; }
woc=$3
if [[ $woc == */* ]]; then
  woc=$(cd "$(dirname "$woc")" && pwd)/$(basename "$woc")  # the program runs elsewhere
fi
name=$(basename "$dir")
limit=${WO_FIXTURE_TIMEOUT:-60}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/wo-fixture.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/work"

fail() {
  echo "FAIL [$mode] $name: $*"
  if [[ -s $tmp/err ]]; then
    echo "--- stderr (first 40 lines) ---"
    head -n 40 "$tmp/err"
  fi
  exit 1
}

# Runs "$@" with the fixture's environment, in the work directory, bounded by
# the time limit; stdout to $tmp/out, stderr to $tmp/err; sets $status.
run_bounded() {
  local -a envs=()
  local var line
  for var in $(compgen -e); do
    [[ $var == WO_* ]] && envs+=(-u "$var")
  done
  # The conformance rule of runtime.md §1.8: fixtures run RAM-only on one
  # shard, unless their `env` file sets WO_DATA or WO_EPHEMERAL itself.
  envs+=(WO_SHARDS=1)
  if [[ -n ${WO_FIXTURE_DATA:-} ]]; then
    envs+=("WO_DATA=$WO_FIXTURE_DATA")
  elif ! grep -qE '^(WO_DATA|WO_EPHEMERAL)=' "$dir/env" 2>/dev/null; then
    envs+=(WO_EPHEMERAL=1)
  fi
  if [[ -f $dir/env ]]; then
    while IFS= read -r line || [[ -n $line ]]; do
      [[ -z $line || $line == \#* ]] && continue
      [[ -n ${WO_FIXTURE_DATA:-} && $line =~ ^(WO_DATA|WO_EPHEMERAL|WO_CHECKPOINT_BYTES|WO_CHECKPOINT_RATIO)= ]] && continue
      envs+=("$line")
    done <"$dir/env"
  fi
  (cd "$tmp/work" && env "${envs[@]}" timeout -k 5 "$limit" "$@") \
    >"$tmp/out" 2>"$tmp/err" </dev/null
  status=$?
  if [[ $status -eq 124 || $status -eq 137 ]]; then
    fail "timed out after ${limit}s: $*"
  fi
}

trimmed() { tr -d '[:space:]' <"$1"; }

if [[ $mode == fail ]]; then
  [[ -f $dir/expected.code ]] || { echo "FAIL [$mode] $name: no expected.code"; exit 1; }
  code=$(trimmed "$dir/expected.code")
  run_bounded "$woc" check "$dir"
  [[ $status -eq 1 ]] || fail "woc check exited $status, expected 1 (with $code)"
  grep -qwF -- "$code" "$tmp/err" || fail "stderr does not name $code"
  exit 0
fi

[[ -f $dir/expected.out ]] || { echo "FAIL [$mode] $name: no expected.out"; exit 1; }
opt=()
[[ -n ${WO_FIXTURE_OPT:-} ]] && opt=("$WO_FIXTURE_OPT")
args=()
if [[ -f $dir/args ]]; then
  mapfile -t args <"$dir/args"
fi

case $mode in
  jit)
    run_program() { run_bounded "$woc" run "${opt[@]}" "$dir" -- "${args[@]}"; }
    ;;
  native)
    run_bounded "$woc" build "${opt[@]}" "$dir" -o "$tmp/prog"
    [[ $status -eq 0 ]] || fail "woc build exited $status"
    run_program() { run_bounded "$tmp/prog" "${args[@]}"; }
    ;;
  *)
    echo "unknown mode: $mode (jit, native or fail)" >&2
    exit 2
    ;;
esac
runs=1
[[ -f $dir/runs ]] && runs=$(trimmed "$dir/runs")
: >"$tmp/all"
for ((run = 1; run <= runs; run++)); do
  run_program
  cat "$tmp/out" >>"$tmp/all"
  if [[ $run -lt $runs && $status -ne 0 ]]; then
    mv "$tmp/all" "$tmp/out"
    fail "run $run of $runs exited $status"
  fi
done
mv "$tmp/all" "$tmp/out"

want_exit=0
[[ -f $dir/expected.trap ]] && want_exit=1
[[ -f $dir/expected.exit ]] && want_exit=$(trimmed "$dir/expected.exit")

problems=()
if ! cmp -s "$dir/expected.out" "$tmp/out"; then
  problems+=("stdout differs from expected.out:
$(diff -u --label expected.out --label actual "$dir/expected.out" "$tmp/out" | head -n 60)")
fi
if [[ $status != "$want_exit" ]]; then
  problems+=("exit status $status, expected $want_exit")
fi
if [[ -f $dir/expected.trap ]]; then
  trap_code=$(trimmed "$dir/expected.trap")
  grep -q "^trap $trap_code in " "$tmp/err" || problems+=("stderr has no line starting 'trap $trap_code in '")
fi
if [[ -f $dir/expected.stderr ]]; then
  want_line=$(head -n 1 "$dir/expected.stderr")
  got_line=$(head -n 1 "$tmp/err")
  [[ $want_line == "$got_line" ]] || problems+=("first stderr line:
  expected: $want_line
  actual:   $got_line")
fi

if [[ -f $dir/expected.trace ]]; then
  want_trace=$(<"$dir/expected.trace")
  want_trace=${want_trace//'$DIR'/$dir}
  got_trace=$(tail -n +2 "$tmp/err")
  [[ $want_trace == "$got_trace" ]] || problems+=("stderr after the first line differs from expected.trace:
$(diff -u --label expected.trace --label actual <(printf '%s\n' "$want_trace") <(printf '%s\n' "$got_trace") | head -n 40)")
fi

if [[ ${#problems[@]} -gt 0 ]]; then
  fail "$(printf '%s\n' "${problems[@]}")"
fi
exit 0
