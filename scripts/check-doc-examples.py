#!/usr/bin/env python3
"""Checks every code block of the user documentation against woc.

    check-doc-examples.py --woc build/bin/woc [FILE.md | DIR]...

The default is docs/language/ (its top-level pages, except diagnostics.md:
it is generated from the `woc explain` catalog, whose examples the ctest
`explain` checks). docs/language/README.md, "About the examples", is the
user-facing account. No block escapes without saying so:

- Every fenced block (``` or ~~~, at any indentation: a block inside a
  list item counts) names its language. `wo` blocks are checked; `sh`,
  `toml` and `text` blocks are not, and a `text` block (or `sh`, `toml`)
  whose lines read like .wo declarations is refused: fence it ```wo.
  A fence without a language, or with another one, is an error.
- A ```wo block's info string says what it is:

    ```wo                  a whole program: `woc check` must succeed without
                           warnings, then it is run (below)
    ```wo decls            declarations without `main`: checked with an empty
                           `fn main() {}` appended; never run
    ```wo fails WO-E302    `woc check` must exit 1 with an `error WO-E302`
                           diagnostic; never run
    ```wo warns WO-W202    `woc check` must exit 0 with a `warning WO-W202`
                           diagnostic, then it is run
    ```wo file=PATH project=NAME
                           one file of a multi-file program; all blocks of a
                           document with the same NAME form one directory,
                           checked and run once. When some PATH ends in
                           `_test.wo`, `woc test` must pass in it too.
    norun                  (with a whole program) check only: for a program
                           that serves or waits forever
    pending                the block documents a feature being built: it is
                           judged as without the word and must FAIL; once it
                           passes the checker fails until `pending` is
                           removed, so a landed feature is never left marked.

A whole program (not `decls`, not `fails`, not `norun`) is always run with
`woc run` (WO_EPHEMERAL=1, WO_SHARDS=1). It may end in comment lines

    -- output:
    -- first line of stdout
    -- exit: 1                 (optional; default 0)
    -- stderr: trap 1 in ...   (optional; the first stderr line starts so)

and its stdout must then be exactly those lines; without them it must print
nothing and exit 0. An `-- output:` tail on a block that is not run (or on a
project file other than main.wo), a misspelt one (`--output:`, `-- Output`),
or an unknown word in an info string is an error, never ignored. Exit
status: 0 when every block passed, 1 otherwise.
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile

OPEN = re.compile(r"^( *)(`{3,}|~{3,})\s*(.*)$")
CODE = re.compile(r"^WO-[EW]\d{3}$")
OTHER_LANGUAGES = {"sh", "toml", "text"}
# Lines that are .wo source, not a signature, a grammar or a shell command.
WO_LIKE = re.compile(r"^\s*(fn \w+\(|class \w+ *\{|interface \w+ *\{|typedef \w+ *=|type \w+ *=|"
                     r"let \w+ *=|(use|using) [a-z_][\w/]*\s*$|@table\b)")
OUTPUT = "-- output:"
OUTPUT_LIKE = re.compile(r"^\s*--\s*output\b", re.IGNORECASE)
# Pages of a directory that this script leaves to another test, and why.
COVERED_ELSEWHERE = {
    "diagnostics.md": "generated from common/explain.md; its examples are checked by ctest `explain`",
}
TIMEOUT = 60


class Block:
    def __init__(self, doc, line, lang, words, text):
        self.doc, self.line, self.lang, self.text = doc, line, lang, text
        self.mode = "check"       # check | decls | fails | warns
        self.code = None
        self.file = None
        self.project = None
        self.norun = False
        self.pending = False
        self.errors = []
        it = iter(words)
        for w in it:
            if w == "decls":
                self.mode = "decls"
            elif w in ("fails", "warns"):
                self.mode = w
                self.code = next(it, "")
                if not CODE.match(self.code) or self.code[3] != ("E" if w == "fails" else "W"):
                    self.errors.append(f"`{w}` needs a code like {'WO-E302' if w == 'fails' else 'WO-W202'}, "
                                       f"got `{self.code}`")
            elif w.startswith("file="):
                self.file = w[5:]
            elif w.startswith("project="):
                self.project = w[8:]
            elif w == "norun":
                self.norun = True
            elif w == "pending":
                self.pending = True
            else:
                self.errors.append(f"unknown word `{w}` in the info string")
        if (self.file is None) != (self.project is None):
            self.errors.append("`file=` and `project=` go together")
        if self.norun and self.mode in ("decls", "fails"):
            self.errors.append(f"`norun` with `{self.mode}`: such a block is never run anyway")
        if OUTPUT in self.text.split("\n"):
            if self.mode in ("decls", "fails"):
                self.errors.append(f"an `{OUTPUT}` tail on a `{self.mode}` block, which is never run")
            elif self.norun:
                self.errors.append(f"an `{OUTPUT}` tail on a `norun` block")
            elif self.file is not None and self.file != "main.wo":
                self.errors.append(f"an `{OUTPUT}` tail belongs in the project's main.wo, not {self.file}")
        for n, l in enumerate(self.text.split("\n"), 1):
            if OUTPUT_LIKE.match(l) and l != OUTPUT:
                self.errors.append(f"line {n} of the block, {l!r}, is not `{OUTPUT}` (so nothing would be "
                                   "compared): write it exactly so")

    def where(self):
        return f"{self.doc}:{self.line}"


def read_blocks(path):
    """Every fenced block of a Markdown file, with the fence's indentation
    removed from its lines; (blocks, errors of fences that are not `wo`)."""
    blocks, errors, cur = [], [], None
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    for n, line in enumerate(lines, 1):
        if cur is None:
            m = OPEN.match(line)
            if not m:
                continue
            indent, fence, info = len(m.group(1)), m.group(2), m.group(3).strip()
            if fence[0] == "`" and "`" in info:
                continue  # an inline code span at the start of a line, not a fence
            words = info.split()
            cur = {"line": n, "indent": indent, "fence": fence, "words": words, "body": []}
        else:
            s = line.strip()
            if s and set(s) == {cur["fence"][0]} and len(s) >= len(cur["fence"]) and \
                    len(line) - len(line.lstrip(" ")) <= cur["indent"] + 3:
                finish(path, cur, blocks, errors)
                cur = None
            else:
                pad = min(cur["indent"], len(line) - len(line.lstrip(" ")))
                cur["body"].append(line[pad:])
    if cur is not None:
        errors.append(f"{path}:{cur['line']}: the block is never closed")
    return blocks, errors


def finish(path, cur, blocks, errors):
    where = f"{path}:{cur['line']}"
    words, text = cur["words"], "\n".join(cur["body"]) + "\n"
    if not words:
        errors.append(f"{where}: a fence without a language: write ```wo (checked) or one of "
                      f"{', '.join(sorted(OTHER_LANGUAGES))} (not .wo, not checked)")
        return
    lang = words[0]
    if lang == "wo":
        blocks.append(Block(path, cur["line"], lang, words[1:], text))
        return
    if lang not in OTHER_LANGUAGES:
        errors.append(f"{where}: unknown language `{lang}` (wo, {', '.join(sorted(OTHER_LANGUAGES))}; "
                      "teach OTHER_LANGUAGES in scripts/check-doc-examples.py if it is not .wo)")
        return
    if len(words) > 1:
        errors.append(f"{where}: words after `{lang}` mean nothing here: {' '.join(words[1:])}")
    for k, l in enumerate(cur["body"], 1):
        if WO_LIKE.match(l):
            errors.append(f"{where}: line {k} of this `{lang}` block reads like .wo source ({l.strip()!r}): "
                          "fence it ```wo so it is checked (```wo decls, fails, norun ... as it needs)")
            break


def expectations(text):
    """The `-- output:` tail of a program: (stdout, exit, stderr prefix);
    without one, the program must print nothing and exit 0."""
    lines = text.rstrip("\n").split("\n")
    if OUTPUT not in lines:
        return ("", 0, None)
    i = lines.index(OUTPUT)
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
            raise ValueError(f"non-comment line after `{OUTPUT}`: {line!r}")
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


def judge(woc_path, where, mode, code, run, target, cwd, source):
    """Returns a list of failure texts for one program (file or directory)."""
    r = woc(woc_path, "check", target, cwd)
    if r is None:
        return [f"{where}: woc check timed out"]
    rc, _, err = r
    if mode == "fails":
        if rc != 1 or not re.search(rf"\berror {code}:", err):
            return [f"{where}: expected `woc check` to fail with error {code}, got exit {rc}:\n{err}"]
        return []
    if rc != 0:
        return [f"{where}: `woc check` failed (exit {rc}):\n{err}"]
    if mode == "warns" and not re.search(rf"\bwarning {code}:", err):
        return [f"{where}: expected warning {code}, got:\n{err}"]
    if mode != "warns" and re.search(r"WO-W\d{3}", err):
        return [f"{where}: an example should compile without warnings (or say `warns`):\n{err}"]
    if not run:
        return []
    try:
        want = expectations(source)
    except ValueError as e:
        return [f"{where}: {e}"]
    r = woc(woc_path, "run", target, cwd)
    if r is None:
        return [f"{where}: woc run timed out (a program that never ends is `norun`)"]
    rc, out, err = r
    fails = []
    if out != want[0]:
        fails.append(f"{where}: stdout differs\n--- expected\n{want[0]}--- got\n{out}")
    if rc != want[1]:
        fails.append(f"{where}: exit status {rc}, expected {want[1]}\n{err}")
    if want[2] is not None and not err.startswith(want[2]):
        fails.append(f"{where}: stderr does not start with {want[2]!r}:\n{err}")
    return fails


class Tally:
    def __init__(self):
        self.failures, self.checked, self.ran, self.tests_run = [], 0, 0, 0
        self.pending = []

    def verdict(self, where, pending, fails):
        """Records a program's failures; a `pending` one must fail."""
        self.checked += 1
        if not pending:
            self.failures += fails
        elif not fails:
            self.failures.append(f"{where}: marked `pending` but passes now: remove `pending`")
        else:
            first = fails[0].removeprefix(f"{where}: ").split("\n")
            self.pending.append(f"{where}: {first[0]} {' '.join(l.strip() for l in first[1:3])}".strip())


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--woc", required=True, help="the woc executable to check with")
    ap.add_argument("paths", nargs="*", help="Markdown files or directories (default: docs/language)")
    a = ap.parse_args()
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    paths = a.paths or [os.path.join(root, "docs", "language")]
    docs, notes = [], []
    for p in paths:
        if os.path.isdir(p):
            # Top level only: docs/language/prose/ holds sources merged into
            # the generated pages, which are checked in their final place.
            for f in sorted(os.listdir(p)):
                if not f.endswith(".md"):
                    continue
                if f in COVERED_ELSEWHERE:
                    notes.append(f"{f}: not checked here: {COVERED_ELSEWHERE[f]}")
                    continue
                docs.append(os.path.join(p, f))
        else:
            docs.append(p)
    woc_path = os.path.abspath(a.woc)
    t = Tally()
    test_verb = has_test_verb(woc_path)
    with tempfile.TemporaryDirectory(prefix="wo-doc-examples-") as tmp:
        for k, doc in enumerate(docs):
            blocks, errors = read_blocks(doc)
            t.failures += errors
            projects, broken = {}, set()
            for i, b in enumerate(blocks):
                if b.errors:
                    t.failures += [f"{b.where()}: {e}" for e in b.errors]
                    if b.project is not None:
                        broken.add(b.project)  # not judged without one of its files
                    continue
                if b.project is not None:
                    projects.setdefault(b.project, []).append(b)
                    continue
                d = os.path.join(tmp, f"{k}-{os.path.basename(doc)}-{i}")
                os.makedirs(d)
                text = b.text + ("\nfn main() {}\n" if b.mode == "decls" else "")
                with open(os.path.join(d, "main.wo"), "w", encoding="utf-8") as f:
                    f.write(text)
                mode = "check" if b.mode == "decls" else b.mode
                run = b.mode in ("check", "warns") and not b.norun
                t.verdict(b.where(), b.pending, judge(woc_path, b.where(), mode, b.code, run, "main.wo", d, b.text))
                t.ran += run
            for name, bs in projects.items():
                if name in broken:
                    continue
                where = f"{bs[0].where()} (project {name})"
                d = os.path.join(tmp, f"{k}-{os.path.basename(doc)}-project-{name}")
                src = ""
                tests = [b for b in bs if b.file.endswith("_test.wo")]
                files = [b.file for b in bs]
                if len(set(files)) != len(files):
                    t.failures.append(f"{where}: two blocks are the same file")
                    continue
                for b in bs:
                    p = os.path.join(d, b.file)
                    os.makedirs(os.path.dirname(p), exist_ok=True)
                    with open(p, "w", encoding="utf-8") as f:
                        f.write(b.text)
                    if b.file == "main.wo":
                        src = b.text
                modes = {b.mode for b in bs if b.mode != "check"}
                if len(modes) > 1:
                    t.failures.append(f"{where}: blocks disagree ({modes})")
                    continue
                mode = modes.pop() if modes else "check"
                code = next((b.code for b in bs if b.code), None)
                pending = any(b.pending for b in bs)
                run = mode in ("check", "warns") and not any(b.norun for b in bs)
                fails = judge(woc_path, where, mode, code, run, ".", d, src)
                t.ran += run
                if tests:
                    if not test_verb:
                        fails.append(f"{where}: this woc has no `test` verb, so its *_test.wo files "
                                     "cannot be run")
                    else:
                        fails += run_tests(woc_path, where, d)
                        t.tests_run += 1
                t.verdict(where, pending, fails)
    for f in t.failures:
        print(f"FAIL {f}", file=sys.stderr)
    for p in t.pending:
        print(f"PENDING {p}")
    for n in notes:
        print(f"NOTE {n}")
    print(f"{t.checked} examples checked, {t.ran} of them run, {t.tests_run} `woc test` runs, "
          f"{len(t.pending)} pending; {len(t.failures)} failure(s)")
    return 1 if t.failures else 0


if __name__ == "__main__":
    sys.exit(main())
