#!/usr/bin/env python3
"""Generates docs/language/builtins.md from common/builtins.def plus prose.

    gen-builtins-doc.py            rewrite docs/language/builtins.md
    gen-builtins-doc.py --check    exit 1 if the checked-in file is not current

Signatures (parameter and result types, the flags that a user can observe)
come from common/builtins.def, the one table sema, codegen and the JIT read.
Everything a table cannot say comes from docs/language/prose/builtins.md:

    # Group title              a section of the reference, in this order
    text before the first `##` of a group is its introduction
    ## name(p1, p2)            one builtin (`ns.member(...)` for namespaced
                               ones): the parameter names, then its prose

Every builtin of the table needs exactly one `##` entry whose parameter count
fits every overload, and every entry must name a builtin: a builtin added to
builtins.def without prose, or prose left behind for a removed one, fails the
generator (and so the `docs.builtins` test) with the reason.
"""

import argparse
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEF = os.path.join(ROOT, "common", "builtins.def")
PROSE = os.path.join(ROOT, "docs", "language", "prose", "builtins.md")
OUT = os.path.join(ROOT, "docs", "language", "builtins.md")

# The one-character type codes of builtins.def, as a user writes the types.
# `e`, `K`, `V`, `0`, `r`, `m`, `X` depend on the arguments; they are spelled
# with the placeholder names the prose uses (T, K, V, M, R).
TYPES = {
    "v": None, "i": "Int", "n": "Int", "b": "Bool", "f": "Float", "t": "Text",
    "y": "Bytes", "S": "Timestamp", "L": "multi T", "T": "multi Text",
    "M": "map<K, V>", "e": "T", "K": "K", "V": "V", "0": "multi T",
    "A": "Stat", "D": "TimeParts", "P": "Proc", "Q": "RawRequest", "W": "RawResponse",
    "H": "map<Text, Text>", "a": "any value", "X": "T", "R": "actor M",  # M or W: spell_params
    "m": "M", "r": "R",
}
FLAG_NOTES = [
    ("TRAPS", "may trap"),
    ("MUTATES", "changes its first argument in place"),
    ("BORROWED", "the result is borrowed from the first argument"),
    ("NO_TX", "refused inside `transaction { }` (WO-E111)"),
]
LINE = re.compile(r"^(NS_BUILTIN|BUILTIN)\((.*)\)\s*$")
ENTRY = re.compile(r"^## ([a-z_][a-z0-9_]*(?:\.[a-z_][a-z0-9_]*)?)\((.*)\)\s*$")


def fail(msg):
    print(f"gen-builtins-doc: {msg}", file=sys.stderr)
    sys.exit(1)


def read_def():
    """[(name, result, params, flags)] in table order; name is `ns.member` or bare."""
    out = []
    with open(DEF, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            m = LINE.match(line.strip())
            if not m or line.startswith("#"):
                continue
            args = [a.strip() for a in m.group(2).split(",")]
            if m.group(1) == "NS_BUILTIN":
                if len(args) != 6:
                    fail(f"builtins.def:{n}: expected 6 fields")
                name, args = f"{args[0]}.{args[1]}", args[2:]
            else:
                if len(args) != 5:
                    fail(f"builtins.def:{n}: expected 5 fields")
                name, args = args[0], args[1:]
            result, params = args[1].strip('"'), args[2].strip('"')
            flags = {f.strip() for f in args[3].split("|")} - {"0"}
            out.append((name, result, params, flags))
    return out


def message_letters(params):
    """The placeholder of each `R` parameter's message type, by position: `M`
    for the address a message (`m`) of the call goes to, `W` for any other
    (monitor's watched actor), whose message type need not be `M`."""
    letters = {}
    for i, c in enumerate(params):
        if c == "R":
            j = i + 1
            while j < len(params) and params[j] not in "Rm":
                j += 1
            letters[i] = "M" if j < len(params) and params[j] == "m" else "W"
    return letters


def spell_params(pnames, params):
    letters = message_letters(params)
    return ", ".join(f"{p}: " + (f"actor {letters[i]}" if c == "R" else spell(c))
                     for i, (p, c) in enumerate(zip(pnames, params)))


def spell(code):
    nullable = code.startswith("?")
    t = TYPES.get(code.lstrip("?"), "")
    if t == "":
        fail(f"unknown type code `{code}` in builtins.def (teach TYPES in this script)")
    return ("?" + t) if nullable and t else t


def read_prose():
    """[(group title, intro, [(name, [param names], prose)])]."""
    groups, entry = [], None
    with open(PROSE, encoding="utf-8") as f:
        lines = f.read().split("\n")
    for n, line in enumerate(lines, 1):
        if line.startswith("# "):
            groups.append([line[2:].strip(), [], []])
            entry = None
        elif line.startswith("## "):
            m = ENTRY.match(line)
            if not m or not groups:
                fail(f"{os.path.relpath(PROSE, ROOT)}:{n}: expected `## name(params)` inside a `# group`")
            names = [p.strip() for p in m.group(2).split(",")] if m.group(2).strip() else []
            entry = [m.group(1), names, [], n]
            groups[-1][2].append(entry)
        elif entry is not None:
            entry[2].append(line)
        elif groups:
            groups[-1][1].append(line)
    return groups


def render(table, groups):
    by_name = {}
    for name, result, params, flags in table:
        by_name.setdefault(name, []).append((result, params, flags))
    seen = set()
    out = [
        "<!-- GENERATED by scripts/gen-builtins-doc.py from common/builtins.def and",
        "     docs/language/prose/builtins.md: edit those, then run the script. -->",
        "# Builtins",
        "",
        "Every function the compiler knows without a declaration. Bare builtins",
        "(`len(xs)`) need nothing; members of a reserved namespace (`time.now()`)",
        "need `use time` (or `use env`, `use fs`, …) in the file that calls them.",
        "A free function you declare with the name of a bare builtin hides it.",
        "",
        "Signatures use `T` for the element type of a `multi` argument, `K` and `V`",
        "for the key and value types of a map argument, `M` for the message type",
        "of the actor address a message goes to, and `W` for that of another",
        "address (it may differ from `M`). An `Int` parameter also takes a",
        "Timestamp, an Id or a row (its id). A `?T` result is nil in the case the",
        "text names.",
        "A nil passed for a parameter that is not nullable traps BOUNDS (6)",
        "`null receiver` at the call (`json.encode` writes `null` instead).",
        "",
        "## Contents",
        "",
    ]
    for title, _, entries in groups:
        anchor = re.sub(r"[^a-z0-9 -]", "", title.lower()).replace(" ", "-")
        names = ", ".join(f"`{e[0]}`" for e in entries)
        out.append(f"- [{title}](#{anchor}): {names}")
    out.append("")
    for title, intro, entries in groups:
        out.append(f"## {title}")
        body = "\n".join(intro).strip("\n")
        out += ["", body] if body else []
        out.append("")
        for name, pnames, prose, line in entries:
            if name not in by_name:
                fail(f"{os.path.relpath(PROSE, ROOT)}:{line}: `{name}` is not in common/builtins.def")
            if name in seen:
                fail(f"{os.path.relpath(PROSE, ROOT)}:{line}: `{name}` has a second entry")
            seen.add(name)
            out.append(f"### `{name}`")
            out.append("")
            out.append("```text")
            notes = []
            for result, params, flags in by_name[name]:
                if len(params) != len(pnames):
                    fail(f"{os.path.relpath(PROSE, ROOT)}:{line}: `{name}` takes {len(params)} "
                         f"argument(s) in builtins.def, the entry names {len(pnames)}")
                ps = spell_params(pnames, params)
                r = spell(result)
                out.append(f"{name}({ps})" + (f" -> {r}" if r else ""))
                for flag, note in FLAG_NOTES:
                    if flag in flags and note not in notes:
                        notes.append(note)
            out.append("```")
            out.append("")
            if notes:
                text = "; ".join(notes)
                out.append("*" + text[0].upper() + text[1:] + ".*")
                out.append("")
            text = "\n".join(prose).strip("\n")
            if text:
                out += [text, ""]
    missing = [n for n in by_name if n not in seen]
    if missing:
        fail("no entry in docs/language/prose/builtins.md for: " + ", ".join(missing))
    return "\n".join(out).rstrip("\n") + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--check", action="store_true",
                    help="do not write; exit 1 if docs/language/builtins.md is not current")
    a = ap.parse_args()
    text = render(read_def(), read_prose())
    if a.check:
        try:
            with open(OUT, encoding="utf-8") as f:
                current = f.read()
        except OSError:
            current = None
        if current != text:
            fail("docs/language/builtins.md is out of date with common/builtins.def or "
                 "docs/language/prose/builtins.md: run scripts/gen-builtins-doc.py and commit the result")
        print("docs/language/builtins.md is current")
        return 0
    with open(OUT, "w", encoding="utf-8") as f:
        f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
