#!/usr/bin/env bash
# wo.toml packages end to end (docs/decisions/0022-packages.md): a git
# dependency fetched over file:// at an exact rev into .wo-deps/, pinned in
# wo.lock (the lock wins over a moved tag; --update-deps re-resolves), an exact
# SHA rev, library check mode, WO-E106/E107/E108/E109, and manifests woc cannot
# read refused with file:line. Needs `git`; no network.
#
#   tests/packages/packages-test.sh WOC
set -uo pipefail
woc=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
source "$(dirname "${BASH_SOURCE[0]}")/../lib/expect.sh"
export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1
g() { git -c user.name=t -c user.email=t@example.invalid -c init.defaultBranch=main "$@" >/dev/null 2>&1; }

# check NAME COMMAND...: COMMAND must succeed.
check() {
  local name=$1
  shift
  if "$@"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL $name"; fi
}

# ---- the library: a git repository tagged v0.1.0 ----
lib=$tmp/porch
mkdir -p "$lib/internal"
cat >"$lib/wo.toml" <<'TOML'
name = "porch"
kind = "library"
TOML
cat >"$lib/porch.wo" <<'WO'
use internal

pub fn version() -> Text {
  return "porch ${internal.tag()}"
}

fn main() {
  print("porch's own main must not run")
}
WO
printf 'pub fn tag() -> Text {\n  return "one"\n}\n' >"$lib/internal/tag.wo"
g -C "$lib" init && g -C "$lib" add -A && g -C "$lib" commit -m one && g -C "$lib" tag v0.1.0
sha1=$(git -C "$lib" rev-parse HEAD)

expect library-check-silent 0 '^$' -- "$woc" check "$lib"
mkdir -p "$tmp/nomain"
printf 'pub fn f() -> Int {\n  return 1\n}\n' >"$tmp/nomain/f.wo"
expect program-needs-main 1 'WO-E403' -- "$woc" check "$tmp/nomain"
printf 'kind = "library"\n' >"$tmp/nomain/wo.toml"
expect library-needs-no-main 0 '^$' -- "$woc" check "$tmp/nomain"
expect library-run-refused 2 '^woc: .*library' -- "$woc" run "$lib"

# ---- the app ----
app=$tmp/app
mkdir -p "$app"
cat >"$app/wo.toml" <<TOML
name = "app"   # a comment
[deps]
porch = { git = "file://$lib", rev = "v0.1.0" }
TOML
printf 'use porch\n\nfn main() {\n  print(porch.version())\n}\n' >"$app/main.wo"

expect fetch-and-run 0 '^porch one$' -- "$woc" run "$app"
expect dep-main-ignored 0 '^porch one$' -- bash -c "'$woc' run '$app' | wc -l | grep -qx 1 && echo 'porch one'"
check lock-written test -f "$app/wo.lock"
check lock-has-sha grep -qE "^porch = \{ git = \"file://$lib\", rev = \"v0.1.0\", commit = \"$sha1\" \}$" "$app/wo.lock"
check deps-dir-at-sha test "$(git -C "$app/.wo-deps/porch" rev-parse HEAD 2>/dev/null)" = "$sha1"
expect native-build 0 '' -- "$woc" build "$app" -o "$tmp/app-bin"
expect native-run 0 '^porch one$' -- "$tmp/app-bin"

# Move the tag: the lock wins.
printf 'pub fn tag() -> Text {\n  return "two"\n}\n' >"$lib/internal/tag.wo"
g -C "$lib" commit -am two && g -C "$lib" tag -f v0.1.0
sha2=$(git -C "$lib" rev-parse HEAD)
check tag-moved test "$sha1" != "$sha2"
expect lock-wins 0 '^porch one$' -- "$woc" run "$app"
check lock-unchanged grep -q "commit = \"$sha1\"" "$app/wo.lock"
rm -rf "$app/.wo-deps"
expect refetch-locked 0 '^porch one$' -- "$woc" run "$app"
expect update-deps 0 '^porch two$' -- "$woc" run --update-deps "$app"
check lock-updated grep -q "commit = \"$sha2\"" "$app/wo.lock"
expect after-update 0 '^porch two$' -- "$woc" run "$app"

# An exact SHA as rev.
app2=$tmp/app2
mkdir -p "$app2"
cp "$app/main.wo" "$app2/"
printf '[deps]\nporch = { git = "file://%s", rev = "%s" }\n' "$lib" "$sha1" >"$app2/wo.toml"
expect sha-rev 0 '^porch one$' -- "$woc" run "$app2"
check sha-rev-lock grep -q "commit = \"$sha1\"" "$app2/wo.lock"

# A locked commit that is gone upstream: WO-E106 (the lock is not silently re-resolved).
cp "$app2/wo.lock" "$tmp/lock.saved"
sed -i "s/commit = \"$sha1\"/commit = \"$(printf '1%.0s' {1..40})\"/" "$app2/wo.lock"
rm -rf "$app2/.wo-deps"
expect locked-commit-missing 2 "^woc: $app2/wo.toml:2: error WO-E106: .*locked commit 1{40}" -- "$woc" check "$app2"
check no-partial-clone bash -c "! ls -A '$app2/.wo-deps' | grep -q ."
cp "$tmp/lock.saved" "$app2/wo.lock"
# Changing rev in wo.toml re-resolves (the lock entry no longer matches).
printf '[deps]\nporch = { git = "file://%s", rev = "%s" }\n' "$lib" "$sha2" >"$app2/wo.toml"
expect rev-changed 0 '^porch two$' -- "$woc" run "$app2"
check rev-changed-lock grep -q "commit = \"$sha2\"" "$app2/wo.lock"

# The dependency boundary.
printf 'use porch/internal\n\nfn main() {\n  print(internal.tag())\n}\n' >"$app2/main.wo"
expect e108 1 'main.wo:1:1: error WO-E108' -- "$woc" check "$app2"

# Fetch failures: WO-E106, exit 2, at the dependency's line.
bad=$tmp/bad
mkdir -p "$bad"
printf 'fn main() {\n}\n' >"$bad/main.wo"
printf '\n[deps]\nporch = { git = "file://%s", rev = "v9.9.9" }\n' "$lib" >"$bad/wo.toml"
expect unknown-rev 2 "^woc: $bad/wo.toml:3: error WO-E106: .*v9\.9\.9" -- "$woc" check "$bad"
printf '[deps]\nweb = { git = "file:///does/not/exist", rev = "v1" }\n' >"$bad/wo.toml"
expect unreachable 2 "^woc: $bad/wo.toml:2: error WO-E106" -- "$woc" check "$bad"
check no-lock-on-failure test ! -e "$bad/wo.lock"
mkdir -p "$tmp/trans"
printf 'pub fn f() -> Int {\n  return 1\n}\n' >"$tmp/trans/t.wo"
printf '[deps]\nother = { path = "../x" }\n' >"$tmp/trans/wo.toml"
printf '[deps]\ntrans = { path = "../trans" }\n' >"$bad/wo.toml"
expect transitive 2 "^woc: $bad/wo.toml:2: error WO-E106: .*flat" -- "$woc" check "$bad"
mkdir -p "$tmp/empty"
printf '[deps]\nnothing = { path = "../empty" }\n' >"$bad/wo.toml"
expect not-a-project 2 'error WO-E106: .*no \.wo files' -- "$woc" check "$bad"
printf '[deps]\nnothing = { path = "../missing" }\n' >"$bad/wo.toml"
expect missing-path 2 'error WO-E106: .*not a directory' -- "$woc" check "$bad"

# WO-E107: a dependency named like a top-level directory, or a stdlib namespace.
printf '[deps]\ntrans = { path = "../trans" }\n' >"$bad/wo.toml"
mkdir -p "$bad/trans"
printf 'pub fn g() -> Int {\n  return 2\n}\n' >"$bad/trans/g.wo"
expect e107-dir 2 "^woc: $bad/wo.toml:2: error WO-E107" -- "$woc" check "$bad"
rm -rf "$bad/trans"
mkdir -p "$bad/trans" "$tmp/plain"  # a folder without .wo files is no module: no clash
printf 'pub fn p() -> Int {\n  return 4\n}\n' >"$tmp/plain/p.wo"
printf '[deps]\ntrans = { path = "../plain" }\n' >"$bad/wo.toml"
expect no-clash-without-wo 0 '^$' -- "$woc" check "$bad"
rm -rf "$bad/trans"
mkdir -p "$bad/own"
printf 'pub fn h() -> Int {\n  return 3\n}\n' >"$bad/own/h.wo"
printf '[deps]\nown = { path = "own" }\n' >"$bad/wo.toml"
expect path-dep-own-folder 0 '^$' -- "$woc" check "$bad"
rm -rf "$bad/own"
printf '[deps]\ntime = { path = "../trans" }\n' >"$bad/wo.toml"
expect e107-stdlib 2 'error WO-E107' -- "$woc" check "$bad"

# WO-E109 and manifests woc cannot read: exit 2, file:line, never ignored.
manifest() { printf "$1" >"$bad/wo.toml"; }
manifest 'name = "b"\nkind = "junk"\n'
expect e109 2 "^woc: $bad/wo.toml:2: error WO-E109: unknown kind .junk." -- "$woc" check "$bad"
manifest 'name = "b"\n\nedition = "2024"\n'
expect unknown-key 2 "^woc: $bad/wo.toml:3: unknown key .edition." -- "$woc" check "$bad"
manifest '[build]\nruntime = "x"\n'
expect unknown-section 2 "^woc: $bad/wo.toml:1: unknown section \[build\]" -- "$woc" check "$bad"
manifest '[package]\n'
expect unknown-empty-section 2 "^woc: $bad/wo.toml:1: unknown section" -- "$woc" check "$bad"
manifest 'name = "b\n'
expect unterminated 2 "^woc: $bad/wo.toml:1: unterminated string" -- "$woc" check "$bad"
manifest 'name = b\n'
expect bare-value 2 "^woc: $bad/wo.toml:1: " -- "$woc" check "$bad"
manifest 'name "b"\n'
expect no-equals 2 "^woc: $bad/wo.toml:1: expected .=." -- "$woc" check "$bad"
manifest 'kind = 3\n'
expect kind-not-string 2 "^woc: $bad/wo.toml:1: .kind. must be a string" -- "$woc" check "$bad"
manifest 'name = "a"\nname = "b"\n'
expect duplicate-key 2 "^woc: $bad/wo.toml:2: key .name. appears twice" -- "$woc" check "$bad"
manifest '[deps]\nporch = { git = "file:///x" }\n'
expect git-needs-rev 2 "^woc: $bad/wo.toml:2: .*needs an exact .rev." -- "$woc" check "$bad"
manifest '[deps]\nporch = { git = "file:///x", rev = "v1", branch = "main" }\n'
expect dep-unknown-key 2 "^woc: $bad/wo.toml:2: unknown key .branch." -- "$woc" check "$bad"
manifest '[deps]\nporch = { path = "../trans",\n'
expect multiline-inline 2 "^woc: $bad/wo.toml:2: " -- "$woc" check "$bad"
manifest '[deps]\nporch = "v1"\n'
expect dep-not-table 2 "^woc: $bad/wo.toml:2: dependency .porch. must be an inline table" -- "$woc" check "$bad"
manifest 'kind = "program"\n'
expect explicit-program 0 '^$' -- "$woc" check "$bad"
# A broken wo.lock is refused too.
printf 'garbage\n' >"$app/wo.lock"
expect bad-lock 2 "^woc: $app/wo.lock:1: " -- "$woc" check "$app"

echo "$pass passed, $fail failed"
[[ $fail -eq 0 ]]
