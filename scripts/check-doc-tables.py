#!/usr/bin/env python3
"""Checks the hand-written tables of docs/language/reference.md against the code.

    check-doc-tables.py

- The trap table ("## Traps") must list exactly the TRAP(name, number, ...)
  entries of common/traps.def, with the same numbers and names.
- The environment-variable table must name every `WO_*` variable the runtime
  reads with getenv or the store's env_int (runtime/src/**).

Exit status 0 when both agree, 1 with the differences otherwise.
"""

import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REF = os.path.join(ROOT, "docs", "language", "reference.md")


def section(text, title):
    m = re.search(r"^## " + re.escape(title) + r"\n(.*?)(?=^## |\Z)", text, re.S | re.M)
    return m.group(1) if m else ""


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
        return 1
    print(f"reference.md: {len(traps)} traps and {len(read)} runtime variables agree with the code")
    return 0


if __name__ == "__main__":
    sys.exit(main())
