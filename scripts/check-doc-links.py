#!/usr/bin/env python3
"""Checks the relative links of the user documentation.

    check-doc-links.py [FILE.md]...   (default: docs/*.md, docs/language/*.md,
                                       docs/perf/*.md, docs/decisions/*.md)

Every `[text](target)` outside code blocks must name an existing file, and a
`#anchor` must match a heading of the target page (GitHub's rule: lower
case, punctuation dropped, spaces as hyphens). Web links are not followed.
Exit status 0 when all resolve, 1 otherwise.
"""

import glob
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def anchors(path):
    out, in_code = set(), False
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("```"):
                in_code = not in_code
            elif not in_code and (m := re.match(r"^#+ (.*)", line)):
                title = re.sub(r"[^\w\- ]", "", m.group(1).strip().lower())
                out.add(title.replace(" ", "-"))
    return out


def main():
    docs = sys.argv[1:] or sorted(
        p for sub in ("", "language", "perf", "decisions")
        for p in glob.glob(os.path.join(ROOT, "docs", sub, "*.md")))
    bad = []
    for doc in docs:
        with open(doc, encoding="utf-8") as f:
            text = re.sub(r"```.*?```", "", f.read(), flags=re.S)
        for m in re.finditer(r"\]\(([^)\s]+)\)", text):
            target = m.group(1)
            if re.match(r"^[a-z]+:", target):
                continue
            name, _, anchor = target.partition("#")
            path = os.path.normpath(os.path.join(os.path.dirname(doc), name)) if name else doc
            if not os.path.exists(path):
                bad.append(f"{os.path.relpath(doc, ROOT)}: no such file: {target}")
            elif anchor and path.endswith(".md") and anchor not in anchors(path):
                bad.append(f"{os.path.relpath(doc, ROOT)}: no heading for #{anchor} in {name or 'this page'}")
    for b in bad:
        print(f"FAIL {b}", file=sys.stderr)
    print(f"{len(docs)} pages, {len(bad)} broken link(s)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
