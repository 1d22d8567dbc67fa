#!/usr/bin/env bash
# The half of tests/install/install-test.sh that runs with the installed woc
# alone (a clean environment, possibly with the source and build trees hidden).
#
#   installed-woc.sh PREFIX WORK SOURCE_ROOT BUILD_DIR hidden|visible
# tests/lib's expect.sh and listen.sh are copied into WORK beside it.
set -uo pipefail
prefix=$1 work=$2 root=$3 build=$4 mode=$5
source "$work/expect.sh"  # ok, bad, pass, fail
source "$work/listen.sh"  # start_listening

w=$(command -v woc)
if [[ $w == "$prefix/bin/woc" ]]; then ok woc-on-path; else bad woc-on-path "command -v woc: '$w'"; fi
if [[ -z ${WO_STDLIB:-} ]]; then ok no-wo-stdlib; else bad no-wo-stdlib "WO_STDLIB=$WO_STDLIB"; fi
if [[ $mode == hidden ]]; then
  if [[ ! -e $root/stdlib && ! -e $build/bin/woc ]]; then ok trees-hidden; else bad trees-hidden "$root/stdlib or $build/bin/woc still visible"; fi
fi

out=$(woc run "$work/hello" 2>&1)
if [[ $? == 0 && $out == "200 hello from the installed woc" ]]; then ok jit-run; else bad jit-run "$out"; fi

app=$work/app
out=$(woc build "$app" -o "$app/web-app" 2>&1)
if [[ $? == 0 && -x $app/web-app ]]; then ok web-app-build; else bad web-app-build "$(head -5 <<<"$out" | tr '\n' ' ')"; fi

log=$work/web-app.log
if start_listening 47810 47860 "$log" "$work/web-app.err" env WA_TOKEN=s3cr3t WO_EPHEMERAL=1 "$app/web-app" "{port}"; then
  ok web-app-listening
else
  bad web-app-listening "$(head -5 "$log" "$work/web-app.err" | tr '\n' ' ')"
fi
base=http://127.0.0.1:$port
# The app answers host `a` (421 for any other: examples/web-app/main.wo).
auth=(-H "host: a" -H "authorization: Bearer s3cr3t")
code=$(curl -s --max-time 5 -o "$work/body" -w '%{http_code}' -H "host: a" "$base/products")
if [[ $code == 401 ]]; then ok get-without-token-401; else bad get-without-token-401 "got $code"; fi
code=$(curl -s --max-time 5 -o "$work/body" -w '%{http_code}' "${auth[@]}" "$base/products")
if [[ $code == 200 && $(cat "$work/body") == "[]" ]]; then ok get-products-empty; else bad get-products-empty "$code $(cat "$work/body")"; fi
code=$(curl -s --max-time 5 -o "$work/body" -w '%{http_code}' "${auth[@]}" -H 'content-type: application/json' \
  --data '{"name":"mug","price":9.99,"stock":5}' "$base/products")
if [[ $code == 201 ]]; then ok post-product-201; else bad post-product-201 "$code $(cat "$work/body")"; fi
code=$(curl -s --max-time 5 -o "$work/body" -w '%{http_code}' "${auth[@]}" "$base/products")
if [[ $code == 200 ]] && grep -q '"name":"mug"' "$work/body"; then ok get-products-mug; else bad get-products-mug "$code $(cat "$work/body")"; fi
kill -TERM "$server" 2>/dev/null
for ((i = 0; i < 100; i++)); do kill -0 "$server" 2>/dev/null || break; sleep 0.05; done
kill -KILL "$server" 2>/dev/null
wait "$server" 2>/dev/null

echo "installed-woc ($mode): $pass passed, $fail failed"
[[ $fail -eq 0 ]]
