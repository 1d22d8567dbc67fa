# Shared by the shell tests (tests/cli, tests/packages, tests/install):
# `source` it, then count checks with `expect`, or with `ok NAME` / `bad NAME
# WHY` for a check the caller made itself; the caller prints its summary from
# $pass/$fail.
pass=0
fail=0

ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1 -- $2"; }

# expect NAME WANT_STATUS GREP_PATTERN -- COMMAND...: runs COMMAND, checks its
# status and that its combined output matches the extended regex.
expect() {
  local name=$1 want=$2 pattern=$3
  shift 4
  local out status
  out=$("$@" 2>&1)
  status=$?
  if [[ $status -eq $want ]] && grep -qE -- "$pattern" <<<"$out"; then
    pass=$((pass + 1))
  else
    fail=$((fail + 1))
    echo "FAIL $name: status $status (want $want, /$pattern/); output:"
    sed 's/^/    /' <<<"$out"
  fi
}
