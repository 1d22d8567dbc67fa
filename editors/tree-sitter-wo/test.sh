#!/usr/bin/env bash
# The tests of editors/tree-sitter-wo (ctest editors.tree-sitter):
#  1. builds the tree-sitter tools once (scripts/setup-tree-sitter.sh, cached
#     in OUT/tools), generates the parser from grammar.js into OUT (and
#     checks that the grammar also loads through a symlinked tools path);
#  2. runs the corpus tests of test/corpus/ (hand-written trees);
#  3. parses every .wo program of the repository's corpus, standard library
#     and examples — and the compile-fail programs whose error is not a
#     lexical or syntax one (WO-E0xx/WO-E1xx), i.e. those woc parses —
#     and fails on any ERROR or MISSING node;
#  4. checks that a broken program IS reported (the check can fail).
#
# usage: editors/tree-sitter-wo/test.sh OUT_DIR
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
mkdir -p "${1:?usage: test.sh OUT_DIR}"
out=$(cd "$1" && pwd)
tools=$out/tools

bash "$root/scripts/setup-tree-sitter.sh" "$tools"
cli=$tools/npm/node_modules/tree-sitter-cli
rt=$tools/npm/node_modules/tree-sitter/vendor/tree-sitter

node "$here/tools/grammar-json.js" "$cli" "$here/grammar.js" > "$out/grammar.json"
# The same through a symbolic link to the tools (a build directory reached
# through a link): grammar-json.js must compare canonical paths.
ln -sfn "$tools" "$out/tools-link"
node "$here/tools/grammar-json.js" "$out/tools-link/npm/node_modules/tree-sitter-cli" "$here/grammar.js" \
  | cmp -s - "$out/grammar.json" || { echo "tree-sitter-wo: FAIL: grammar-json.js through a symlink" >&2; exit 1; }
"$tools/bin/ts-generate" "$out/grammar.json" "$out/parser.c"
cc -O1 -w -I"$rt/include" -I"$rt/src" "$here/tools/ts-check.c" "$out/parser.c" "$tools/obj/runtime.o" \
  -o "$out/ts-check"
echo "tree-sitter-wo: parser generated ($(wc -c < "$out/parser.c") bytes of C)"

echo "tree-sitter-wo: corpus tests"
python3 "$here/tools/corpus-test.py" "$out/ts-check" "$here/test/corpus"

programs=()
while IFS= read -r f; do programs+=("$f"); done < <(
  cd "$root"
  find corpus/run stdlib/framework examples -name '*.wo' | sort
  for d in corpus/compile-fail/*/; do
    case $(head -n1 "$d/expected.code") in
      WO-E0*|WO-E1*) ;;  # woc itself does not parse these
      *) find "$d" -name '*.wo' ;;
    esac
  done | sort)
[[ ${#programs[@]} -gt 400 ]] || { echo "tree-sitter-wo: only ${#programs[@]} programs found" >&2; exit 1; }
echo "tree-sitter-wo: parsing ${#programs[@]} programs"
(cd "$root" && "$out/ts-check" check "${programs[@]}")

printf 'fn main() {\n  let x = (1 +\n}\n' > "$out/broken.wo"
if "$out/ts-check" check "$out/broken.wo" > /dev/null; then
  echo "tree-sitter-wo: FAIL: a broken program parsed without an ERROR node" >&2
  exit 1
fi
echo "tree-sitter-wo: ok"
