# Shared by the shell tests that run one .wo program in either mode: `source` it.
#
# wo_command native|jit WOC PROGRAM EXE [ARG...]: sets the array `cmd` to the
# command line that runs PROGRAM with ARGs — `native`: builds it first with
# `woc build` into EXE (the compiler's messages on stderr; status 1 when the
# build fails); `jit`: `woc run PROGRAM -- ARG...` (EXE unused).
wo_command() {
  local mode=$1 woc=$2 program=$3 exe=$4
  shift 4
  if [[ $mode == native ]]; then
    "$woc" build "$program" -o "$exe" || return 1
    cmd=("$exe" "$@")
  else
    cmd=("$woc" run "$program" -- "$@")
  fi
}
