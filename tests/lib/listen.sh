# Shared by the shell tests and benchmarks that start a server: `source` it.
#
# start_listening FIRST LAST OUT ERR COMMAND...: starts COMMAND in the
# background on the first port from FIRST to LAST where it prints
# `listening on 127.0.0.1:<port>` to OUT (its stdout; stderr goes to ERR).
# Every `{port}` among COMMAND's words is replaced by the port tried. Sets
# `port` and `server` (the pid); both are empty when no port worked. A port
# is given up when the process exits or stays silent for 10 s.
start_listening() {
  local first=$1 last=$2 out=$3 err=$4
  shift 4
  local p word
  local -a cmd
  port=
  server=
  for p in $(seq "$first" "$last"); do
    cmd=()
    for word in "$@"; do cmd+=("${word//\{port\}/$p}"); done
    "${cmd[@]}" >"$out" 2>"$err" &
    server=$!
    for _ in $(seq 200); do
      grep -q listening "$out" 2>/dev/null && break
      kill -0 "$server" 2>/dev/null || break
      sleep 0.05
    done
    if grep -q "^listening on 127.0.0.1:$p$" "$out"; then
      port=$p
      return 0
    fi
    kill "$server" 2>/dev/null
    wait "$server" 2>/dev/null
    server=
  done
  return 1
}
