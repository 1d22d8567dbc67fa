#!/usr/bin/env bash
# The installed layout (docs/decisions/0093; ctest install.prefix): `cmake
# --install` into a temporary prefix, then only that prefix's woc — PATH
# without the build tree, WO_STDLIB unset, another cwd and, where user
# namespaces allow it (unshare -rm), the source tree and the build directory
# hidden under an empty tmpfs — `woc run`s a program that uses the framework
# (JIT) and `woc build`s examples/web-app, which then serves GET/POST
# /products. Last, the files install_manifest.txt lists are removed and the
# prefix must hold no file (what `make uninstall` does).
#
#   tests/install/install-test.sh BUILD_DIR
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
build=$(cd "$1" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
source "$root/tests/lib/expect.sh"  # ok, bad, pass, fail

prefix=$tmp/prefix
if ! out=$(cmake --install "$build" --prefix "$prefix" --strip 2>&1); then  # as `make install`
  echo "FAIL cmake --install: $out"
  exit 1
fi
ok cmake-install
for f in bin/woc lib/woc/libwo_runtime.a share/woc/stdlib/framework/README.md share/woc/stdlib/framework/http \
         share/woc/editors/vscode/package.json share/woc/editors/tree-sitter-wo/grammar.js; do
  if [[ -e $prefix/$f ]]; then ok "installed $f"; else bad "installed $f" "missing"; fi
done
# stripped (no .symtab), and still the woc that runs, builds and reports traps below
if readelf -S "$prefix/bin/woc" | grep -q '\.symtab'; then bad stripped "bin/woc has a .symtab"; else ok stripped; fi
manifest=$build/install_manifest.txt
outside=$(grep -v "^$prefix/" "$manifest")
if [[ -z $outside ]]; then ok manifest-in-prefix; else bad manifest-in-prefix "$(head -3 <<<"$outside")"; fi

# What the installed woc gets: an app and a program, copied out of the tree.
work=$tmp/work
mkdir -p "$work/home" "$work/hello"
cp -r "$root/examples/web-app" "$work/app"
rm -rf "$work/app/target" "$work/app/.wo-deps"
cat >"$work/hello/main.wo" <<'WO'
use framework/http

fn main() {
  let r = ok_text("hello from the installed woc")
  print("${r.status} ${r.body}")
}
WO
cp "$here/installed-woc.sh" "$root/tests/lib/expect.sh" "$root/tests/lib/listen.sh" "$work/"

# Hide the source tree and the build directory when we can (the tmpfs is
# mounted in a private mount namespace: nothing outside sees it).
hide=("$root")
[[ $build == "$root"/* ]] || hide+=("$build")
inner=(env -i PATH="$prefix/bin:/usr/bin:/bin" HOME="$work/home" LANG=C.UTF-8 bash "$work/installed-woc.sh"
       "$prefix" "$work" "$root" "$build")
if unshare -rm true 2>/dev/null; then
  mounts=""
  for d in "${hide[@]}"; do mounts+="mount -t tmpfs wo-hidden '$d' && "; done
  unshare -rm bash -c "$mounts cd '$work/home' && exec \"\$@\"" bash "${inner[@]}" hidden
else
  echo "note: no user namespaces here (unshare -rm): the source tree stays reachable"
  (cd "$work/home" && "${inner[@]}" visible)
fi
st=$?
if [[ $st == 0 ]]; then ok installed-woc; else bad installed-woc "the checks above with the installed woc failed (status $st)"; fi

# Uninstall: every file the manifest lists, then no file may be left.
xargs -d '\n' rm -f <"$manifest"
left=$(find "$prefix" ! -type d)
if [[ -z $left ]]; then ok uninstall-empty; else bad uninstall-empty "left: $(head -5 <<<"$left" | tr '\n' ' ')"; fi
find "$prefix" -depth -type d -empty -delete
if [[ ! -e $prefix ]]; then ok uninstall-dirs; else bad uninstall-dirs "$(find "$prefix" | head -5 | tr '\n' ' ')"; fi

echo "install-test: $pass passed, $fail failed"
[[ $fail -eq 0 ]]
