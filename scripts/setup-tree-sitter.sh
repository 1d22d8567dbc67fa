#!/usr/bin/env bash
# Builds the tree-sitter tools that editors/tree-sitter-wo's tests need, into
# a cache directory (default build/tree-sitter/tools), once:
#   CACHE/bin/ts-generate   grammar JSON -> parser.c (tree-sitter's generator)
#   CACHE/obj/runtime.o     tree-sitter's C runtime, to link parsers with
#   CACHE/npm/...           the npm packages they are built from
#
# Why not the `tree-sitter` binary of a current tree-sitter-cli: its npm
# package downloads that binary from a release host at install time, which
# this project's machines cannot reach (only the npm registry is). The last
# tree-sitter-cli whose generator ships as source in the npm package is
# 0.13.16 (C++), with the C runtime in its dependency tree-sitter 0.13.23:
# both come from the npm registry and are compiled here with the system
# compilers (docs/decisions/0043-tree-sitter-tooling.md).
#
# usage: scripts/setup-tree-sitter.sh [CACHE_DIR]   (setup-deps.sh calls it with build/tree-sitter/tools)
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
cache=${1:-$here/build/tree-sitter/tools}
cli_version=0.13.16
runtime_version=0.13.23
stamp="$cache/.ready-$cli_version-$runtime_version"
if [[ -f $stamp && -x $cache/bin/ts-generate && -f $cache/obj/runtime.o ]]; then
  echo "setup-tree-sitter: ready in $cache"
  exit 0
fi

command -v npm >/dev/null || { echo "setup-tree-sitter: npm is missing (apt-get install npm)" >&2; exit 1; }
mkdir -p "$cache/npm" "$cache/obj" "$cache/bin"
if [[ ! -d $cache/npm/node_modules/tree-sitter-cli/vendor/tree-sitter/src/compiler ]]; then
  echo "setup-tree-sitter: npm install tree-sitter-cli@$cli_version tree-sitter@$runtime_version"
  # --ignore-scripts: their install scripts would build Node addons we do not use.
  npm install --prefix "$cache/npm" --ignore-scripts --no-audit --no-fund --loglevel=error \
    "tree-sitter-cli@$cli_version" "tree-sitter@$runtime_version" >&2
fi

gen=$cache/npm/node_modules/tree-sitter-cli/vendor/tree-sitter
rt=$cache/npm/node_modules/tree-sitter/vendor/tree-sitter
incs=(-I"$gen/include" -I"$gen/src" -I"$gen/externals/utf8proc" -I"$gen/externals/json-parser")

# The generator's sources, as its own project.gyp lists them.
mapfile -t sources < <(python3 - "$gen/project.gyp" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
start = text.index("'sources'")
print("\n".join(re.findall(r"'([^']+\.cc?)'", text[start:text.index("]", start)])))
PY
)
[[ ${#sources[@]} -gt 10 ]] || { echo "setup-tree-sitter: no generator sources in $gen/project.gyp" >&2; exit 1; }
echo "setup-tree-sitter: compiling the generator (${#sources[@]} files, once)"
export gen cache
printf '%s\n' "${sources[@]}" | xargs -P "${JOBS:-2}" -I{} bash -c '
  src={}; obj="$cache/obj/gen_$(echo "$src" | tr / _).o"
  [[ -f $obj ]] && exit 0
  case $src in
    *.c) nice cc -O1 -w -c -I"$gen/include" -I"$gen/src" -I"$gen/externals/utf8proc" -I"$gen/externals/json-parser" "$gen/$src" -o "$obj.tmp" ;;
    *)   nice c++ -std=c++14 -O1 -w -c -I"$gen/include" -I"$gen/src" -I"$gen/externals/utf8proc" -I"$gen/externals/json-parser" "$gen/$src" -o "$obj.tmp" ;;
  esac && mv "$obj.tmp" "$obj"'
nice c++ -std=c++14 -O1 "${incs[@]}" "$here/editors/tree-sitter-wo/tools/ts-generate.cc" "$cache"/obj/gen_*.o \
  -o "$cache/bin/ts-generate"
nice cc -O2 -w -c -I"$rt/include" -I"$rt/src" -I"$rt/externals/utf8proc" "$rt/src/runtime/runtime.c" \
  -o "$cache/obj/runtime.o"
touch "$stamp"
echo "setup-tree-sitter: ready in $cache"
