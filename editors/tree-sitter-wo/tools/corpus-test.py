#!/usr/bin/env python3
"""Runs the tree-sitter corpus tests of test/corpus/*.txt (the format of
`tree-sitter test`: a `===` header with the name, the source, a `---` line,
the expected S-expression) with ts-check, comparing trees with whitespace
normalised. Prints one line per failure and `N passed, M failed`.

usage: corpus-test.py TS_CHECK CORPUS_DIR
"""
import glob
import os
import re
import subprocess
import sys
import tempfile

ts_check, corpus_dir = sys.argv[1], sys.argv[2]
HEADER = re.compile(r"^={3,}\n(.*?)\n={3,}\n", re.M)
DIVIDER = re.compile(r"^-{3,}\n", re.M)


def cases(path):
    text = open(path, encoding="utf-8").read()
    heads = list(HEADER.finditer(text))
    for i, h in enumerate(heads):
        body = text[h.end(): heads[i + 1].start() if i + 1 < len(heads) else len(text)]
        parts = DIVIDER.split(body, maxsplit=1)
        if len(parts) != 2:
            yield h.group(1), None, None
            continue
        yield h.group(1).strip(), parts[0].strip("\n") + "\n", parts[1]


def norm(s):
    return " ".join(s.replace("(", " ( ").replace(")", " ) ").split())


passed = failed = 0
for path in sorted(glob.glob(os.path.join(corpus_dir, "*.txt"))):
    for name, source, expected in cases(path):
        where = "%s: %s" % (os.path.basename(path), name)
        if source is None:
            print("FAIL %s: no `---` line between source and tree" % where)
            failed += 1
            continue
        with tempfile.NamedTemporaryFile("w", suffix=".wo", delete=False, encoding="utf-8") as f:
            f.write(source)
        try:
            got = subprocess.run([ts_check, "sexp", f.name], capture_output=True, text=True, timeout=60).stdout
        finally:
            os.unlink(f.name)
        if norm(got) == norm(expected):
            passed += 1
        else:
            failed += 1
            print("FAIL %s\n  expected: %s\n  got:      %s" % (where, norm(expected), norm(got)))
print("%d passed, %d failed" % (passed, failed))
sys.exit(1 if failed or not passed else 0)
