#!/usr/bin/env python3
"""The catalog's examples against woc, and the catalog against the compiler's
report sites (tests/explain/README.md).

  catalog-test.py WOC

1. Examples. common/explain.md is split into example programs: within a
   `## WO-X###` entry, a program starts at each `### ` case heading and at a
   ```wo wrong``` block that follows a ```wo right``` one; `file=PATH` blocks
   join the program being written (`noeol`: the file does not end in a line
   feed). Every program's wrong files must make
   `woc check` report the entry's code (a warning's, without any error), and
   its right files (when it has any) must check clean of it, without errors. Entries with a line starting
   `Not checked:` are skipped (they say why).

2. Report sites. Every place in sema/ and frontend/ that reports a code
   (`DiagCode::X###`, the wrappers in WRAPPERS, and the wo.toml checks'
   `fail(d, "WO-X###", ...)`) is found, and the fixed
   text of its message (its string literals of 10 characters or more) must
   appear in a diagnostic of that code (its message, related notes or help)
   that the catalog's wrong examples produce. So each situation a code is reported for has an example in that
   code's entry, and a new report site fails this test until its entry shows
   it. A site whose message has no fixed text is listed, not checked;
   sites no small program can reach are in UNREACHABLE, each with its reason.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
CATALOG = os.path.join(ROOT, "common", "explain.md")
SOURCE_DIRS = ["sema", "frontend"]
SOURCE_EXTS = (".cpp", ".h", ".re", ".yy")
# Functions that report a fixed code with the message they are given.
WRAPPERS = {"plain_error": "E101", "not_implemented": "E403"}
MIN_FRAGMENT = 10
# (code, fixed text) -> why no small program reaches it.
_GIT = "needs a git dependency (a repository, git installed): tests/packages covers it"
UNREACHABLE = {
    ("WO-E106", "the `git` command is not available"): "needs a machine without git",
    ("WO-E106", "git clone of '"): _GIT,
    ("WO-E106", "git fetch of '"): _GIT,
    ("WO-E106", "` not found in '"): _GIT,
    ("WO-E106", "' (give an exact tag or commit SHA)"): _GIT,
    ("WO-E106", "locked commit "): _GIT,
    ("WO-E106", " (wo.lock) not found in '"): _GIT,
    ("WO-E106", "git checkout of "): _GIT,
    ("WO-E106", "cannot move the clone into '"): _GIT,
    ("WO-E106", "cannot read '"): "needs a dependency's wo.toml woc may not read (root reads any file)",
}
# Report sites whose message has no fixed text (it is built elsewhere or
# chosen among several), per (code, file): how many, and which examples show
# every message they can make. Read each one when this count changes.
NO_FIXED_TEXT = {
    ("WO-E001", "frontend/lexer.re"): (1, "the `!`, `$`, other ASCII and non-ASCII messages: E001's example"),
    ("WO-E005", "frontend/lexer.re"): (1, "with and without an open `${` hole: E005's example"),
    ("WO-E101", "frontend/parser.cpp"): (2, "`expected X, got Y` (E101's first example) and plain_error, "
                                            "whose callers are WRAPPERS sites"),
    ("WO-E101", "frontend/parser.yy"): (1, "bison's own error, passed to plain_error: E101's first example"),
    ("WO-E102", "frontend/parser.cpp"): (2, "a retired storage word as a key and as `resident:`: E102's examples"),
    ("WO-E105", "frontend/parser.cpp"): (3, "doctrine_message's words, at a declaration, a member, an "
                                            "expression: E105's examples"),
    ("WO-E201", "sema/check_expr.cpp"): (2, "operator operands and `==` between ?T and another type: E201's "
                                            "operator and comparison examples"),
    ("WO-E205", "sema/check_stmt.cpp"): (1, "a missing method and a different signature: E205's example"),
    ("WO-E303", "sema/ownership.cpp"): (1, "the four same-place messages of one call: E303's examples"),
}


def parse_catalog():
    """{code: {"unchecked": bool, "programs": [{"title", "wrong": {file: text}, "right": {...}}]}}"""
    entries = {}
    code = None
    prog = None
    block = None  # (role, file, lines)
    last_role = None
    with open(CATALOG, encoding="utf-8") as f:
        lines = f.read().split("\n")
    for line in lines:
        if block is not None:
            if line == "```":
                role, path, noeol, body = block
                prog[role][path] = "\n".join(body) + ("" if noeol else "\n")
                block = None
                last_role = role
            else:
                block[3].append(line)
            continue
        m = re.match(r"^## (WO-[EW]\d{3})\s*$", line)
        if m:
            code = m.group(1)
            entries[code] = {"unchecked": False, "programs": []}
            prog = None
            last_role = None
            continue
        if code is None:
            continue
        if line.startswith("Not checked:"):
            entries[code]["unchecked"] = True
            continue
        m = re.match(r"^### (.*)$", line)
        if m:
            prog = {"title": m.group(1).strip(), "wrong": {}, "right": {}}
            entries[code]["programs"].append(prog)
            last_role = None
            continue
        m = re.match(r"^```[a-z]+ (wrong|right)((?: \S+)*)\s*$", line)
        if m:
            role, attrs = m.group(1), m.group(2).split()
            path = next((a[5:] for a in attrs if a.startswith("file=")), "main.wo")
            if prog is None or (role == "wrong" and last_role == "right"):
                title = prog["title"] if prog is not None else ""
                prog = {"title": title, "wrong": {}, "right": {}}
                entries[code]["programs"].append(prog)
            block = (role, path, "noeol" in attrs, [])
    return entries


def write_program(base, files):
    os.makedirs(base)
    for path, text in files.items():
        full = os.path.join(base, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "w", encoding="utf-8") as f:
            f.write(text)


def check(woc, directory):
    """(exit status, [diagnostics]) of `woc check --error-format=json DIR`."""
    r = subprocess.run([woc, "check", "--error-format=json", directory], capture_output=True, text=True)
    diags = []
    for line in r.stderr.splitlines():
        line = line.strip()
        if line.startswith("{"):
            try:
                diags.append(json.loads(line))
            except json.JSONDecodeError:
                pass
            continue
        # wo.toml errors are one `woc: FILE:LINE: error WO-E###: MESSAGE` line (exit 2).
        m = re.match(r"^woc: .*?: (error|warning) (WO-[EW]\d{3}): (.*)$", line)
        if m:
            diags.append({"severity": m.group(1), "code": m.group(2), "message": m.group(3)})
    return r.returncode, diags, r.stderr


def diag_text(d):
    """A diagnostic's message with its related notes' labels and help lines."""
    parts = [d.get("message", "")]
    parts += [r.get("label", "") for r in d.get("related") or []]
    parts += list(d.get("help") or [])
    return "\n".join(parts)


def c_literals(text):
    """The string literals of a C++ snippet, adjacent ones joined, unescaped."""
    out = []
    i = 0
    pending = None
    while i < len(text):
        ch = text[i]
        if ch == '"':
            j = i + 1
            s = []
            while j < len(text) and text[j] != '"':
                if text[j] == "\\" and j + 1 < len(text):
                    nxt = text[j + 1]
                    s.append({"n": "\n", "t": "\t", '"': '"', "\\": "\\", "'": "'"}.get(nxt, nxt))
                    j += 2
                    continue
                s.append(text[j])
                j += 1
            lit = "".join(s)
            pending = lit if pending is None else pending + lit
            i = j + 1
            continue
        if not ch.isspace() and pending is not None:
            out.append(pending)
            pending = None
        i += 1
    if pending is not None:
        out.append(pending)
    return out


def call_args(src, open_paren):
    """The text between `open_paren` and its matching `)` (strings skipped)."""
    depth = 0
    i = open_paren
    in_str = False
    while i < len(src):
        ch = src[i]
        if in_str:
            if ch == "\\":
                i += 2
                continue
            if ch == '"':
                in_str = False
        elif ch == '"':
            in_str = True
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0:
                return src[open_paren + 1 : i]
        i += 1
    return src[open_paren + 1 :]


def enclosing_call(src, pos):
    """The index of the `(` of the call whose argument list holds `pos`."""
    depth = 0
    i = pos
    while i > 0:
        i -= 1
        ch = src[i]
        if ch == ")":
            depth += 1
        elif ch == "(":
            if depth == 0:
                return i
            depth -= 1
    return 0


def report_sites():
    """[(code, "file:line", [fixed texts])] of every report site."""
    sites = []
    for d in SOURCE_DIRS:
        for dirpath, _, names in os.walk(os.path.join(ROOT, d)):
            for name in sorted(names):
                if not name.endswith(SOURCE_EXTS):
                    continue
                path = os.path.join(dirpath, name)
                rel = os.path.relpath(path, ROOT)
                src = open(path, encoding="utf-8").read()
                found = []
                for m in re.finditer(r"DiagCode::([EW]\d{3})", src):
                    # A comparison (`d.code == DiagCode::E105`) reports nothing.
                    before = src[max(0, m.start() - 4) : m.start()]
                    if "==" in before or "!=" in before:
                        continue
                    found.append((m.group(1), m.start(), enclosing_call(src, m.start())))
                # wo.toml errors name their code as a string: fail(d, "WO-E106", ...).
                for m in re.finditer(r'"WO-([EW]\d{3})"', src):
                    found.append((m.group(1), m.start(), enclosing_call(src, m.start())))
                for wrapper, code in WRAPPERS.items():
                    for m in re.finditer(r"\b" + wrapper + r"\(", src):
                        head = src[max(0, m.start() - 40) : m.start()]
                        if re.search(r"(void|Type\*|Checker::|ParseCtx::)\s*$", head):
                            continue  # its definition or declaration
                        found.append((code, m.start(), m.end() - 1))
                for code, at, paren in found:
                    args = call_args(src, paren)
                    fixed = [t for t in c_literals(args) if len(t.strip()) >= MIN_FRAGMENT]
                    line = src.count("\n", 0, at) + 1
                    sites.append(("WO-" + code, "%s:%d" % (rel, line), fixed))
    return sites


def main():
    if len(sys.argv) != 2:
        print("usage: catalog-test.py WOC", file=sys.stderr)
        return 2
    woc = os.path.abspath(sys.argv[1])
    entries = parse_catalog()
    failures = []
    messages = {}  # code -> messages the wrong examples produced
    tmp = tempfile.mkdtemp(prefix="wo-explain-")
    programs = 0
    try:
        for code, entry in sorted(entries.items()):
            if not entry["programs"]:
                failures.append("%s has no example" % code)
                continue
            if entry["unchecked"]:
                continue
            for n, prog in enumerate(entry["programs"], 1):
                what = "%s example %d%s" % (code, n, " (%s)" % prog["title"] if prog["title"] else "")
                if not prog["wrong"]:
                    failures.append("%s has no wrong program" % what)
                    continue
                base = os.path.join(tmp, code, str(n))
                write_program(os.path.join(base, "wrong"), prog["wrong"])
                st, diags, raw = check(woc, os.path.join(base, "wrong"))
                got = [diag_text(d) for d in diags if d.get("code") == code]
                if not got:
                    failures.append("%s: the wrong program does not produce %s:\n%s" % (what, code, raw))
                elif code.startswith("WO-W") and any(d.get("severity") == "error" for d in diags):
                    failures.append("%s: a warning's wrong program must compile (no errors):\n%s" % (what, raw))
                messages.setdefault(code, []).extend(got)
                if prog["right"]:
                    write_program(os.path.join(base, "right"), prog["right"])
                    st, diags, raw = check(woc, os.path.join(base, "right"))
                    bad = [d for d in diags if d.get("code") == code or d.get("severity") == "error"]
                    if st != 0 or bad:
                        failures.append("%s: the right program does not check clean (exit %d):\n%s" % (what, st, raw))
                programs += 1
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    for code, entry in entries.items():
        if not any(p["right"] for p in entry["programs"]):
            failures.append("%s has no right example" % code)

    sites = report_sites()
    without_text = {}
    for code, where, fixed in sites:
        if not fixed and code in entries and not entries[code]["unchecked"]:
            key = (code, where.rsplit(":", 1)[0])
            without_text[key] = without_text.get(key, 0) + 1
    for key in sorted(set(without_text) | set(NO_FIXED_TEXT)):
        want = NO_FIXED_TEXT.get(key, (0, ""))[0]
        if without_text.get(key, 0) != want:
            failures.append("%s in %s: %d report site(s) without fixed text, NO_FIXED_TEXT says %d: read them, "
                            "show each message in an example, then update NO_FIXED_TEXT"
                            % (key[0], key[1], without_text.get(key, 0), want))
    unchecked_sites = []
    covered = 0
    used_exceptions = set()
    for code, where, fixed in sites:
        if code not in entries:
            failures.append("%s reports %s, which has no entry in common/explain.md" % (where, code))
            continue
        if entries[code]["unchecked"]:
            continue
        if not fixed:
            unchecked_sites.append("%s %s" % (code, where))
            continue
        missing = []
        for text in fixed:
            if (code, text) in UNREACHABLE:
                used_exceptions.add((code, text))
                continue
            if not any(text in msg for msg in messages.get(code, [])):
                missing.append(text)
        if missing:
            failures.append("%s: %s is reported for \"%s\", which no wrong example of its entry shows"
                            % (where, code, "\" … \"".join(missing)))
        else:
            covered += 1
    for key in sorted(set(UNREACHABLE) - used_exceptions):
        failures.append("UNREACHABLE lists %s \"%s\", which no report site says any more" % key)

    print("explain catalog: %d example programs checked; %d report sites shown by an example, "
          "%d without fixed text (NO_FIXED_TEXT)" % (programs, covered, len(unchecked_sites)))
    for f in failures:
        print("FAIL: " + f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
