#!/usr/bin/env bash
# The Debian package (docs/decisions/0093; ctest install.deb): `cpack -G DEB`
# into a temporary directory, then its contents (dpkg-deb -c: woc, the
# runtime archive, the stdlib, the editor files under /usr), its control
# fields (name, version, the link-time Depends), and its woc extracted with
# dpkg-deb -x (not installed system-wide) running a program with the
# framework. Skipped (status 77) without dpkg-deb.
#
#   tests/install/deb-test.sh BUILD_DIR
set -uo pipefail
build=$(cd "$1" && pwd)
command -v dpkg-deb >/dev/null || { echo "SKIP: no dpkg-deb"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
source "$(dirname "${BASH_SOURCE[0]}")/../lib/expect.sh"  # ok, bad, pass, fail

if ! out=$(cd "$build" && cpack -G DEB -B "$tmp/pkg" 2>&1); then
  echo "FAIL cpack -G DEB: $(tail -20 <<<"$out")"
  exit 1
fi
deb=$(ls "$tmp"/pkg/woc_*.deb 2>/dev/null | head -1)
if [[ -n $deb ]]; then ok "cpack $(basename "$deb")"; else bad cpack "no woc_*.deb in $(ls "$tmp/pkg")"; echo "$pass passed, $fail failed"; exit 1; fi

list=$(dpkg-deb -c "$deb" | awk '{print $NF}')
for f in ./usr/bin/woc ./usr/lib/woc/libwo_runtime.a ./usr/share/woc/stdlib/framework/README.md \
         ./usr/share/woc/stdlib/framework/http/ ./usr/share/woc/editors/vscode/package.json; do
  if grep -qxF -- "$f" <<<"$list"; then ok "lists $f"; else bad "lists $f" "not in dpkg-deb -c"; fi
done
field() { dpkg-deb -f "$deb" "$1"; }
if [[ $(field Package) == woc ]]; then ok package-name; else bad package-name "$(field Package)"; fi
want_version=$(sed -n 's/^#define WOC_VERSION "\(.*\)"$/\1/p' "$build/tools/woc/woc_config.h")
if [[ -n $want_version && $(field Version) == "$want_version" ]]; then ok version; else bad version "$(field Version), want $want_version"; fi
if [[ -n $(field Maintainer) ]]; then ok maintainer; else bad maintainer "empty"; fi
deps=$(field Depends)
for d in libc6-dev libgcc-12-dev libstdc++-12-dev libboost-context-dev libsimdjson-dev 'libc6 '; do
  if grep -qF -- "$d" <<<"$deps"; then ok "depends ${d% }"; else bad "depends ${d% }" "Depends: $deps"; fi
done

# Its woc, extracted anywhere, finds its own stdlib and runtime.
dpkg-deb -x "$deb" "$tmp/root"
if readelf -S "$tmp/root/usr/bin/woc" | grep -q '\.symtab'; then bad stripped "usr/bin/woc has a .symtab"; else ok stripped; fi
mkdir -p "$tmp/hello"
printf 'use framework/http\n\nfn main() {\n  let r = ok_text("from the package")\n  print("${r.status} ${r.body}")\n}\n' >"$tmp/hello/main.wo"
out=$(cd "$tmp" && env -u WO_STDLIB "$tmp/root/usr/bin/woc" run hello 2>&1)
if [[ $out == "200 from the package" ]]; then ok extracted-run; else bad extracted-run "$out"; fi
out=$(cd "$tmp" && env -u WO_STDLIB "$tmp/root/usr/bin/woc" build hello -o hello-bin 2>&1 && ./hello-bin 2>&1)
if [[ $out == "200 from the package" ]]; then ok extracted-build; else bad extracted-build "$out"; fi

echo "deb-test: $pass passed, $fail failed"
[[ $fail -eq 0 ]]
