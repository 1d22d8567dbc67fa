#!/usr/bin/env bash
# `use framework` from any directory (docs/decisions/0024): the build tree's
# compiled-in stdlib/ when WO_STDLIB is unset, WO_STDLIB when set (and only
# it: a wrong WO_STDLIB is an error, not a silent fallback), the installed
# layout <prefix>/share/woc/stdlib next to <prefix>/bin/woc (cmake --install),
# a program's own framework/ folder winning over the stdlib, and WO-E108 for
# framework/internal from an app. Runs outside the repository.
#
#   tests/stdlib/stdlib-lookup-test.sh WOC BUILD_DIR
set -uo pipefail
woc=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")   # the tests run from elsewhere
build=$(cd "$2" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
source "$(dirname "${BASH_SOURCE[0]}")/../lib/expect.sh"
repo_stdlib=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../stdlib" && pwd)

app=$tmp/app
mkdir -p "$app"
cat >"$app/main.wo" <<'WO'
use framework
use framework/http

fn main() {
  let r = ok_text("hello")
  print("${r.status} ${r.body}")
  let a = App { middleware: [], routes: [] }
  print_int(len(a.routes))
}
WO
cd "$tmp" || exit 2
unset WO_STDLIB
expect build-tree-run 0 '^200 hello$' -- "$woc" run "$app"
expect build-tree-file 0 '^200 hello$' -- "$woc" run "$app/main.wo"
expect build-tree-native 0 '' -- "$woc" build "$app" -o "$tmp/app-bin"
expect build-tree-native-runs 0 '^200 hello$' -- "$tmp/app-bin"
expect env-set 0 '^200 hello$' -- env WO_STDLIB="$repo_stdlib" "$woc" run "$app"

# WO_STDLIB pointing at a copy whose ok_text differs: that copy is used.
cp -r "$repo_stdlib" "$tmp/other"
sed -i 's/typed(200, "text\/plain/typed(299, "text\/plain/' "$tmp/other/framework/http/types.wo"
expect env-wins 0 '^299 hello$' -- env WO_STDLIB="$tmp/other" "$woc" run "$app"
expect env-wrong 2 'cannot find the standard library.*WO_STDLIB' -- env WO_STDLIB="$tmp/nowhere" "$woc" run "$app"

# The installed layout: a marker file only the installed copy has.
if cmake --install "$build" --prefix "$tmp/prefix" >/dev/null 2>&1; then
  pass=$((pass + 1))
  cat >"$tmp/prefix/share/woc/stdlib/framework/installed_marker.wo" <<'WO'
pub fn installed_marker() -> Text {
  return "installed copy"
}
WO
  cat >"$tmp/probe.wo" <<'WO'
use framework

fn main() {
  print(framework.installed_marker())
}
WO
  expect installed-run 0 '^installed copy$' -- "$tmp/prefix/bin/woc" run "$tmp/probe.wo"
  expect installed-native 0 '' -- "$tmp/prefix/bin/woc" build "$tmp/probe.wo" -o "$tmp/probe-bin"
  expect installed-native-runs 0 '^installed copy$' -- "$tmp/probe-bin"
  expect build-tree-not-installed 1 'installed_marker' -- "$woc" check "$tmp/probe.wo"
else
  fail=$((fail + 1))
  echo "FAIL cmake --install $build"
fi

# A program's own framework/ folder is its module, not the stdlib.
own=$tmp/own
mkdir -p "$own/framework"
printf 'use framework\n\nfn main() {\n  print(framework.mine())\n}\n' >"$own/main.wo"
printf 'pub fn mine() -> Text {\n  return "own framework"\n}\n' >"$own/framework/f.wo"
expect own-folder-wins 0 '^own framework$' -- "$woc" run "$own"

# A dependency may use the framework too (a `use framework` in a dep without
# a framework/ folder of its own means the stdlib), but not its internal/.
dep=$tmp/depapp
mkdir -p "$dep/vendor/mw"
printf '[deps]\nmw = { path = "vendor/mw" }\n' >"$dep/wo.toml"
printf 'use framework/http\n\npub fn greet() -> Text {\n  let r = ok_text("from the dep")\n  return r.body\n}\n' >"$dep/vendor/mw/mw.wo"
printf 'use mw\n\nfn main() {\n  print(mw.greet())\n}\n' >"$dep/main.wo"
expect dep-uses-framework 0 '^from the dep$' -- "$woc" run "$dep"
printf 'use framework/internal\n\npub fn peek() -> Int {\n  return 1\n}\n' >"$dep/vendor/mw/peek.wo"
expect dep-framework-internal-e108 1 'WO-E108' -- "$woc" check "$dep"

# The framework on its own is a library that checks clean: no errors, no
# warnings.
expect library-check-silent 0 '^$' -- "$woc" check "$repo_stdlib/framework"

# The framework's internal/ is private to it.
priv=$tmp/priv
mkdir -p "$priv"
printf 'use framework/internal\n\nfn main() {\n  print("no")\n}\n' >"$priv/main.wo"
expect internal-e108 1 'WO-E108' -- "$woc" check "$priv"

echo "$pass passed, $fail failed"
[[ $fail -eq 0 ]]
