#!/usr/bin/env python3
"""Checks editors/vscode (ctest editors.vscode): the three JSON files parse,
package.json names files that exist, every `include` of the TextMate grammar
resolves, every regex compiles (the patterns keep to the part of Oniguruma
that Python's `re` shares), every reserved word of frontend/tokens.def is
highlighted as a keyword, and a few lines get the scopes a reader expects.

usage: vscode-check.py REPO_ROOT
"""
import json
import os
import re
import sys

root = sys.argv[1]
ext = os.path.join(root, "editors", "vscode")
failures = []


def check(cond, msg):
    if not cond:
        failures.append(msg)


def load(name):
    with open(os.path.join(ext, name), encoding="utf-8") as f:
        return json.load(f)  # raises on invalid JSON: the test fails with the position


pkg = load("package.json")
lang_conf = load("language-configuration.json")
grammar = load("syntaxes/wo.tmLanguage.json")

check(os.path.isfile(os.path.join(ext, pkg["main"])), "package.json main names a missing file")
for g in pkg["contributes"]["grammars"]:
    check(os.path.isfile(os.path.join(ext, g["path"])), "missing grammar " + g["path"])
    check(g["scopeName"] == grammar["scopeName"], "scopeName differs between package.json and the grammar")
for l in pkg["contributes"]["languages"]:
    check(os.path.isfile(os.path.join(ext, l["configuration"])), "missing " + l["configuration"])
    check(".wo" in l["extensions"], "the language claims .wo files")
check("vscode-languageclient" in pkg.get("dependencies", {}), "the client depends on vscode-languageclient")
check(lang_conf["comments"]["lineComment"] == "--", "line comments are `--`")

repo = grammar["repository"]
regexes = []


def walk(node, where):
    if isinstance(node, dict):
        for k, v in node.items():
            if k == "include":
                check(v in ("$self", "$base") or (v.startswith("#") and v[1:] in repo), "%s: unresolved include %s" % (where, v))
            elif k in ("match", "begin", "end"):
                regexes.append((where, v))
            walk(v, where + "." + k)
    elif isinstance(node, list):
        for i, v in enumerate(node):
            walk(v, "%s[%d]" % (where, i))


walk(grammar, "grammar")
compiled = {}
for where, rx in regexes:
    try:
        compiled[where] = re.compile(rx)
    except re.error as e:
        check(False, "%s: regex %r does not compile: %s" % (where, rx, e))

keyword_rx = [re.compile(p["match"]) for k in ("keyword", "type") for p in repo[k]["patterns"]]
with open(os.path.join(root, "frontend", "tokens.def"), encoding="utf-8") as f:
    reserved = re.findall(r'^KEYWORD\(\w+, "([^"]+)"\)', f.read(), re.M)
check(len(reserved) >= 30, "read the reserved words of tokens.def")
for w in reserved:
    check(any(r.fullmatch(w) for r in keyword_rx), "reserved word `%s` is not highlighted" % w)

comment = re.compile(repo["comment"]["match"])
check(comment.search("let x = 1 -- note") is not None, "`-- note` is a comment")
check(comment.search("let count--x = 1") is None, "`count--x` is one identifier, not a comment")
decl = re.compile(repo["declaration"]["patterns"][0]["match"])
m = decl.search("fn max-len(xs: multi Int) -> Int {")
check(m is not None and m.group(2) == "max-len", "a hyphenated function name is one name")
kw = re.compile(repo["keyword"]["patterns"][0]["match"])
check(kw.search("let if-x = 1") is None, "`if-x` is an identifier, not the keyword `if`")

if failures:
    for f in failures:
        print("vscode-check: FAIL: " + f, file=sys.stderr)
    sys.exit(1)
print("vscode-check: ok (%d regexes, %d reserved words)" % (len(regexes), len(reserved)))
