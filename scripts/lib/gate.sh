# The check bookkeeping shared by the acceptance scripts (web-app-accept.sh,
# porch-accept.sh): `ok NAME`, `bad NAME DETAIL`, `check NAME STATUS DETAIL`
# (ok when STATUS is 0), `gate_finish NAME`, which prints
# `NAME: N checks, M failures` and exits non-zero on any failure, and
# `gate_stop PID MS` (a bounded SIGTERM stop), `gate_preflight`,
# `gate_workdir` and `gate_web_app_bin` (below).
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

# gate_stop PID MS: SIGTERM, then waits up to MS ms for the exit; 0 = it
# exited in time, else it is killed with SIGKILL and 1 is returned.
gate_stop() {
  kill -TERM "$1" 2>/dev/null
  local i
  for ((i = 0; i < $2 / 50; i++)); do
    if ! kill -0 "$1" 2>/dev/null; then
      wait "$1" 2>/dev/null
      return 0
    fi
    sleep 0.05
  done
  kill -KILL "$1" 2>/dev/null
  wait "$1" 2>/dev/null
  return 1
}

# gate_preflight NAME TOOL...: each TOOL on PATH and $WOC executable, else
# one failed `tools` check and the gate ends.
gate_preflight() {
  local name=$1 tool
  shift
  for tool in "$@"; do
    command -v "$tool" >/dev/null || { bad "tools" "$tool is not installed"; gate_finish "$name"; }
  done
  [[ -x $WOC ]] || { bad "tools" "$WOC is not an executable (make build)"; gate_finish "$name"; }
}

# gate_workdir NAME KEEP: a fresh $tmp and the $pids array; at exit every
# pid is killed and $tmp removed (kept, and named, when KEEP is 1).
gate_workdir() {
  tmp=$(mktemp -d "${TMPDIR:-/tmp}/$1.XXXXXX")
  pids=()
  gate_keep=$2
  trap gate_cleanup EXIT
}
gate_cleanup() {
  local p
  for p in "${pids[@]}"; do kill -KILL "$p" 2>/dev/null; done
  [[ $gate_keep == 1 ]] && echo "kept $tmp" || rm -rf "$tmp"
}

# gate_web_app_bin: sets $bin to the web-app to serve: $WA_BIN, or
# examples/web-app built by $WOC into $tmp (a `build` check; the gate ends
# when the build fails). For the smaller web-app gates (TLS, webhooks).
gate_web_app_bin() {
  bin=${WA_BIN:-$tmp/web-app}
  [[ -n ${WA_BIN:-} ]] && return
  local out
  out=$("$WOC" build "$ROOT/examples/web-app" -o "$bin" 2>&1)
  check build "$([[ -x $bin ]]; echo $?)" "woc build: $(head -3 <<<"$out" | tr '\n' ' ')"
  [[ -x $bin ]] || finish
}
