#!/usr/bin/env bash
# What a woc-built executable loads at start-up, and the trap when a library
# the runtime loads on first use is missing (docs/decisions/0063; README.md).
#
#   tests/startup/startup-test.sh WOC SHIM
set -uo pipefail
woc=$1
shim=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
source "$(dirname "${BASH_SOURCE[0]}")/../lib/expect.sh"

needed() { readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' '; }
# no_lib NAME EXE PATTERN: EXE's NEEDED list has no library matching PATTERN.
no_lib() {
  local libs
  libs=$(needed "$2")
  if grep -qE -- "$3" <<<"$libs"; then
    fail=$((fail + 1))
    echo "FAIL $1: $2 needs $libs"
  else
    pass=$((pass + 1))
  fi
}

printf 'fn main() {\n  print("hello, world")\n}\n' >"$tmp/hello.wo"
# sha256("abc") is FIPS 180-2's first vector; "hi" in base64 is aGk=.
cat >"$tmp/digest.wo" <<'WO'
fn main() {
  let d = sha256(bytes_of_text("abc"))
  print_int(bytes_len(d))
  print(base64_encode(bytes_of_text("hi")))
  print(base64_encode(d))
}
WO
digest_out=$'32\naGk=\nungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0='
cat >"$tmp/json.wo" <<'WO'
use json

fn main() {
  let xs = json.decode("[3, 4, 5]") as multi Int
  if xs != nil {
    print_int(xs[0] + xs[1] + xs[2])
  }
}
WO

# Start-up: the hello world and the digest program load no C++ runtime,
# no Boost and no libcrypto (the runtime dlopens it on first use).
for p in hello digest; do
  if "$woc" build "$tmp/$p.wo" -o "$tmp/$p" >"$tmp/$p.err" 2>&1; then
    no_lib "$p: nothing heavy loaded at start" "$tmp/$p" 'libcrypto|libstdc\+\+|libgcc_s|libboost|libsimdjson'
  else
    fail=$((fail + 1))
    echo "FAIL $p: woc build failed: $(head -5 "$tmp/$p.err")"
  fi
done
expect "hello runs" 0 '^hello, world$' -- "$tmp/hello"

# The digests and base64 work in both modes; with libcrypto unloadable they
# trap IO (9) naming the library, the builtin and the reason, not a crash.
for mode in native jit; do
  if [[ $mode == native ]]; then run=("$tmp/digest"); else run=("$woc" run "$tmp/digest.wo"); fi
  out=$("${run[@]}" 2>&1)
  if [[ $out == "$digest_out" ]]; then pass=$((pass + 1)); else
    fail=$((fail + 1))
    echo "FAIL digest ($mode) printed:"
    sed 's/^/    /' <<<"$out"
  fi
  expect "digest without libcrypto ($mode)" 1 \
    '^trap 9 in .*: cannot load libcrypto\.so\.[0-9]+ \(OpenSSL.s libcrypto\), which sha256 needs: .*test shim' \
    -- env LD_PRELOAD="$shim" "${run[@]}"
done

# json.decode links simdjson, which brings the shared libstdc++: the program
# then uses that one (no static copy beside it), and decodes as before.
if "$woc" build "$tmp/json.wo" -o "$tmp/json" >"$tmp/json.err" 2>&1; then
  libs=$(needed "$tmp/json")
  if [[ $libs == *libsimdjson* && $libs == *libstdc++* ]]; then pass=$((pass + 1)); else
    fail=$((fail + 1))
    echo "FAIL json: expected libsimdjson and libstdc++ among NEEDED: $libs"
  fi
  if nm "$tmp/json" | grep -qE ' [TW] _Znwm$'; then
    fail=$((fail + 1))
    echo "FAIL json: a static libstdc++ is linked beside the shared one"
  else
    pass=$((pass + 1))
  fi
  expect "json decodes (native)" 0 '^12$' -- "$tmp/json"
else
  fail=$((fail + 1))
  echo "FAIL json: woc build failed: $(head -5 "$tmp/json.err")"
fi
expect "json decodes (jit)" 0 '^12$' -- "$woc" run "$tmp/json.wo"

echo "startup: $pass passed, $fail failed"
((fail == 0))
