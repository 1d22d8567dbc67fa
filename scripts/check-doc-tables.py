#!/usr/bin/env python3
"""Checks the hand-written tables of the docs against the code and the tree.

    check-doc-tables.py [INDEX.md]   (default: docs/README.md)

- The trap table ("## Traps") must list exactly the TRAP(name, number, ...)
  entries of common/traps.def, with the same numbers and names.
- The environment-variable table must name every `WO_*` variable the runtime
  reads with getenv or the store's env_int (runtime/src/**).

- Every table of the index (INDEX.md), docs/perf.md, docs/perf/*.md and
  docs/decisions/README.md is well formed: a table starts with a header row
  and a `| --- |` separator, and every row has the header's number of cells
  (an unescaped `|`, even inside backticks, splits a cell on GitHub; write
  `\|`). A row after a blank line starts a new table, so it needs a header.
- The index's "## Decisions" table lists every docs/decisions/NNNN-*.md
  exactly once, in number order, and names no file that is not there.

Exit status 0 when all agree, 1 with the differences otherwise.
"""

import glob
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REF = os.path.join(ROOT, "docs", "language", "reference.md")


def section(text, title):
    m = re.search(r"^## " + re.escape(title) + r"\n(.*?)(?=^## |\Z)", text, re.S | re.M)
    return m.group(1) if m else ""


def cells(line):
    """The number of cells of a table row, as GitHub splits it."""
    body = line.strip()
    body = body[1:] if body.startswith("|") else body
    body = body[:-1] if body.endswith("|") and not body.endswith("\\|") else body
    return len(re.split(r"(?<!\\)\|", body))


def table_problems(path):
    """Malformed tables of one markdown file, as messages."""
    out, in_code, block = [], False, []
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    rel = os.path.relpath(path, ROOT)

    def check(block):
        if not block:
            return
        (n0, head), rows = block[0], block[1:]
        if re.match(r"^\|[\s:|-]+\|?$", head):
            out.append(f"{rel}:{n0}: a table row after a blank line or text with no header row")
            return
        if not rows or not re.match(r"^\|(\s*:?-+:?\s*\|)+\s*$", rows[0][1]):
            out.append(f"{rel}:{n0}: a table without a `| --- |` separator under its header row")
            return
        want = cells(head)
        if cells(rows[0][1]) != want:
            out.append(f"{rel}:{rows[0][0]}: the separator has {cells(rows[0][1])} cells, the header {want}")
        for n, row in rows[1:]:
            if re.match(r"^\|[\s:|-]+\|?$", row):
                out.append(f"{rel}:{n}: a second separator row inside a table")
            elif cells(row) != want:
                out.append(f"{rel}:{n}: {cells(row)} cells, the header has {want} (escape `|` as `\\|`)")

    for n, line in enumerate(lines, 1):
        if line.startswith("```"):
            in_code = not in_code
            check(block)
            block = []
        elif not in_code and line.startswith("|"):
            block.append((n, line))
        else:
            check(block)
            block = []
    check(block)
    return out


def index_problems(index):
    """The index's decisions table against docs/decisions/."""
    with open(index, encoding="utf-8") as f:
        text = f.read()
    rel = os.path.relpath(index, ROOT)
    folder = os.path.join(ROOT, "docs", "decisions")
    files = sorted(f for f in os.listdir(folder) if re.match(r"^\d{4}-.*\.md$", f))
    table = [line for line in section(text, "Decisions").split("\n") if line.startswith("|")]
    listed = re.findall(r"^\| `decisions/(\d{4}-[^`]*)` \|", "\n".join(table), re.M)
    out = []
    if table and not re.match(r"^\| *file *\| *decision *\|", table[0]):
        out.append(f"{rel}: the decisions table does not start with its header row `| file | decision |`")
    for line in table[2:]:
        if not re.match(r"^\| `decisions/\d{4}-[^`]*\.md` \|", line):
            out.append(f"{rel}: a row of the decisions table names no decision file: {line[:60]}")
    if not listed:
        out.append(f"{rel}: no \"## Decisions\" table of `decisions/NNNN-title.md` rows")
    for f in files:
        if f not in listed:
            out.append(f"{rel}: decision {f} is missing from the decisions table")
    for f in sorted(set(listed)):
        if f not in files:
            out.append(f"{rel}: the decisions table names {f}, which docs/decisions/ does not have")
        if listed.count(f) > 1:
            out.append(f"{rel}: the decisions table lists {f} {listed.count(f)} times")
    if listed != sorted(listed):
        out.append(f"{rel}: the decisions table is not in number order")
    return out


def main():
    with open(REF, encoding="utf-8") as f:
        ref = f.read()
    problems = []

    with open(os.path.join(ROOT, "common", "traps.def"), encoding="utf-8") as f:
        traps = {int(n): name for name, n in re.findall(r"^TRAP\((\w+),\s*(\d+),", f.read(), re.M)}
    rows = {int(n): name for n, name in
            re.findall(r"^\| (\d+) \| (\w+) \|", section(ref, "Traps"), re.M)}
    if rows != traps:
        for n in sorted(set(traps) | set(rows)):
            if traps.get(n) != rows.get(n):
                problems.append(f"trap {n}: traps.def says {traps.get(n)}, reference.md says {rows.get(n)}")

    env_doc = section(ref, "Environment variables")
    read = set()
    for d, _, files in os.walk(os.path.join(ROOT, "runtime", "src")):
        for name in files:
            if name.endswith((".cpp", ".h", ".c")):
                with open(os.path.join(d, name), encoding="utf-8", errors="replace") as f:
                    read |= set(re.findall(r'(?:getenv|env_int)\("(WO_\w+)"', f.read()))
    # The first cell of each table row names the variable(s) it documents.
    first_cells = " ".join(line.split("|")[1] for line in env_doc.split("\n")
                           if line.startswith("| ") and line.count("|") > 2)
    for var in sorted(read):
        if f"`{var}`" not in first_cells:
            problems.append(f"the runtime reads {var}, which reference.md's environment table does not name")

    for p in problems:
        print(f"FAIL {p}", file=sys.stderr)
    if problems:
        print("update docs/language/reference.md", file=sys.stderr)

    index = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "docs", "README.md")
    pages = [index, os.path.join(ROOT, "docs", "perf.md"),
             os.path.join(ROOT, "docs", "decisions", "README.md")]
    pages += sorted(glob.glob(os.path.join(ROOT, "docs", "perf", "*.md")))
    more = index_problems(index)
    for page in pages:
        if os.path.exists(page):
            more += table_problems(page)
    for p in more:
        print(f"FAIL {p}", file=sys.stderr)
    if problems or more:
        return 1
    print(f"reference.md: {len(traps)} traps and {len(read)} runtime variables agree with the code; "
          f"{len(pages)} pages' tables well formed, the decisions index matches docs/decisions/")
    return 0


if __name__ == "__main__":
    sys.exit(main())
