#!/usr/bin/env python3
"""Checks every ```wo block of the user documentation against woc.

    check-doc-examples.py --woc build/bin/woc [FILE.md | DIR]...

The default is docs/language/ (its top-level pages, except diagnostics.md,
which the explain catalog's own test covers). A block's info string says what it is
(docs/language/README.md, "About the examples", is the user-facing account):

    ```wo                  a whole program: `woc check` must succeed, without
                           warnings
    ```wo decls            declarations without `main`: checked with an empty
                           `fn main() {}` appended
    ```wo fails WO-E302    `woc check` must exit 1 and report WO-E302
    ```wo warns WO-W202    `woc check` must exit 0 and report WO-W202
    ```wo file=PATH project=NAME
                           one file of a multi-file program; all blocks of a
                           document with the same NAME form one directory,
                           checked (or run) once. When some PATH ends in
                           `_test.wo`, `woc test` must then pass in it too; a
                           woc without the `test` verb checks the project
                           without its test files and says so.

A program that ends in comment lines

    -- output:
    -- first line of stdout
    -- exit: 1                 (optional; default 0)
    -- stderr: trap 1 in ...   (optional; the first stderr line starts so)

is also run with `woc run` (WO_EPHEMERAL=1, WO_SHARDS=1) and its stdout
compared exactly. An unknown word in an info string is an error, never
ignored. Exit status: 0 when every block passed, 1 otherwise.
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile

FENCE = re.compile(r"^```wo(?:\s+(.*))?$")
CODE = re.compile(r"^WO-[EW]\d{3}$")
TIMEOUT = 60


class Block:
    def __init__(self, doc, line, words, text):
        self.doc, self.line, self.text = doc, line, text
        self.mode = "check"       # check | decls | fails | warns
        self.code = None
        self.file = None
        self.project = None
        self.errors = []
        it = iter(words)
        for w in it:
            if w == "decls":
                self.mode = "decls"
            elif w in ("fails", "warns"):
                self.mode = w
                self.code = next(it, "")
                if not CODE.match(self.code):
                    self.errors.append(f"`{w}` needs a code like WO-E302, got `{self.code}`")
            elif w.startswith("file="):
                self.file = w[5:]
            elif w.startswith("project="):
                self.project = w[8:]
            else:
                self.errors.append(f"unknown word `{w}` in the info string")
        if (self.file is None) != (self.project is None):
            self.errors.append("`file=` and `project=` go together")

    def where(self):
        return f"{self.doc}:{self.line}"


def read_blocks(path):
    blocks, cur = [], None
    with open(path, encoding="utf-8") as f:
        for n, raw in enumerate(f, 1):
            line = raw.rstrip("\n")
            if cur is None:
                m = FENCE.match(line)
                if m:
                    cur = (n, (m.group(1) or "").split(), [])
            elif line.startswith("```"):
                blocks.append(Block(path, cur[0], cur[1], "\n".join(cur[2]) + "\n"))
                cur = None
            else:
                cur[2].append(line)
    if cur is not None:
        blocks.append(Block(path, cur[0], [], ""))
        blocks[-1].errors.append("the block is never closed")
    return blocks


def expectations(text):
    """The `-- output:` tail of a program: (stdout, exit, stderr prefix) or None."""
    lines = text.rstrip("\n").split("\n")
    if "-- output:" not in lines:
        return None
    i = lines.index("-- output:")
    out, status, err = [], 0, None
    for line in lines[i + 1:]:
        if line.startswith("-- exit: "):
            status = int(line[9:])
        elif line.startswith("-- stderr: "):
            err = line[11:]
        elif line == "--":
            out.append("")
        elif line.startswith("-- "):
            out.append(line[3:])
        else:
            raise ValueError(f"non-comment line after `-- output:`: {line!r}")
    return ("".join(o + "\n" for o in out), status, err)


def woc(woc_path, verb, target, cwd):
    env = dict(os.environ, WO_EPHEMERAL="1", WO_SHARDS="1", NO_COLOR="1")
    env.pop("WO_DATA", None)
    try:
        p = subprocess.run([woc_path, verb, target], cwd=cwd, env=env, capture_output=True,
                           timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        return None
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


def has_test_verb(woc_path):
    try:
        p = subprocess.run([woc_path, "test", "--help"], capture_output=True, timeout=TIMEOUT)
    except (OSError, subprocess.TimeoutExpired):
        return False
    # An older woc answers any `--help` with its general usage: look for the verb's own.
    return p.returncode == 0 and b"Usage: woc test" in p.stdout


def run_tests(woc_path, where, d):
    r = woc(woc_path, "test", ".", d)
    if r is None:
        return [f"{where}: woc test timed out"]
    rc, out, err = r
    if rc != 0:
        return [f"{where}: `woc test` failed (exit {rc}):\n{out}{err}"]
    return []


def judge(woc_path, where, mode, code, target, cwd, source):
    """Returns a list of failure texts for one program (file or directory)."""
    r = woc(woc_path, "check", target, cwd)
    if r is None:
        return [f"{where}: woc check timed out"]
    rc, _, err = r
    if mode == "fails":
        if rc != 1 or code not in err:
            return [f"{where}: expected `woc check` to fail with {code}, got exit {rc}:\n{err}"]
        return []
    if rc != 0:
        return [f"{where}: `woc check` failed (exit {rc}):\n{err}"]
    if mode == "warns" and code not in err:
        return [f"{where}: expected warning {code}, got:\n{err}"]
    if mode != "warns" and re.search(r"WO-W\d{3}", err):
        return [f"{where}: an example should compile without warnings (or say `warns`):\n{err}"]
    try:
        want = expectations(source)
    except ValueError as e:
        return [f"{where}: {e}"]
    if want is None:
        return []
    r = woc(woc_path, "run", target, cwd)
    if r is None:
        return [f"{where}: woc run timed out"]
    rc, out, err = r
    fails = []
    if out != want[0]:
        fails.append(f"{where}: stdout differs\n--- expected\n{want[0]}--- got\n{out}")
    if rc != want[1]:
        fails.append(f"{where}: exit status {rc}, expected {want[1]}\n{err}")
    if want[2] is not None and not err.startswith(want[2]):
        fails.append(f"{where}: stderr does not start with {want[2]!r}:\n{err}")
    return fails


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--woc", required=True, help="the woc executable to check with")
    ap.add_argument("paths", nargs="*", help="Markdown files or directories (default: docs/language)")
    a = ap.parse_args()
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    paths = a.paths or [os.path.join(root, "docs", "language")]
    docs = []
    for p in paths:
        if os.path.isdir(p):
            # Top level only: docs/language/prose/ holds sources merged into
            # the generated pages, which are checked in their final place.
            # diagnostics.md is generated from the `woc explain` catalog,
            # whose wrong/right examples are tested with the catalog.
            docs += [os.path.join(p, f) for f in sorted(os.listdir(p))
                     if f.endswith(".md") and f != "diagnostics.md"]
        else:
            docs.append(p)
    woc_path = os.path.abspath(a.woc)
    failures, checked, ran = [], 0, 0
    tests_run, tests_skipped = 0, 0
    test_verb = has_test_verb(woc_path)
    with tempfile.TemporaryDirectory(prefix="wo-doc-examples-") as tmp:
        for doc in docs:
            projects = {}
            for i, b in enumerate(read_blocks(doc)):
                if b.errors:
                    failures += [f"{b.where()}: {e}" for e in b.errors]
                    continue
                if b.project is not None:
                    projects.setdefault(b.project, []).append(b)
                    continue
                d = os.path.join(tmp, f"{os.path.basename(doc)}-{i}")
                os.makedirs(d)
                text = b.text + ("\nfn main() {}\n" if b.mode == "decls" else "")
                with open(os.path.join(d, "main.wo"), "w", encoding="utf-8") as f:
                    f.write(text)
                mode = "check" if b.mode == "decls" else b.mode
                failures += judge(woc_path, b.where(), mode, b.code, "main.wo", d, b.text)
                checked += 1
                ran += expectations_safe(b.text)
            for name, bs in projects.items():
                d = os.path.join(tmp, f"{os.path.basename(doc)}-project-{name}")
                src = ""
                tests = [b for b in bs if b.file.endswith("_test.wo")]
                for b in bs:
                    if b in tests and not test_verb:
                        continue
                    p = os.path.join(d, b.file)
                    os.makedirs(os.path.dirname(p), exist_ok=True)
                    with open(p, "w", encoding="utf-8") as f:
                        f.write(b.text)
                    if b.file == "main.wo":
                        src = b.text
                modes = {b.mode for b in bs if b.mode != "check"}
                if len(modes) > 1:
                    failures.append(f"{bs[0].where()}: project {name}: blocks disagree ({modes})")
                    continue
                mode = modes.pop() if modes else "check"
                code = next((b.code for b in bs if b.code), None)
                where = f"{bs[0].where()} (project {name})"
                failures += judge(woc_path, where, mode, code, ".", d, src)
                checked += 1
                if tests and test_verb:
                    failures += run_tests(woc_path, where, d)
                    tests_run += 1
                elif tests:
                    tests_skipped += 1
                ran += expectations_safe(src)
    for f in failures:
        print(f"FAIL {f}", file=sys.stderr)
    print(f"{checked} examples checked, {ran} of them run, {tests_run} `woc test` runs; "
          f"{len(failures)} failure(s)")
    if tests_skipped:
        print(f"NOTE: this woc has no `test` verb: {tests_skipped} project(s) were checked "
              f"without their *_test.wo files")
    return 1 if failures else 0


def expectations_safe(text):
    try:
        return 1 if expectations(text) else 0
    except ValueError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
