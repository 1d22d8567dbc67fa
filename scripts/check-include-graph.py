#!/usr/bin/env python3
"""Checks the include graph of the runtime's sources (issue 29 item 2).

    check-include-graph.py [SRC_DIR]   (default: runtime/src of this tree)

Reads every `#include "..."` of SRC_DIR's .h and .cpp files and resolves it
as the compiler does: first next to the including file, then through the
build's -I directories (the repository root, runtime/include). Includes
that land outside SRC_DIR (common/, the public headers, libraries) are not
the runtime's own edges and are skipped. Then it fails on:

  (a) an include cycle. A file pair X.h + X.cpp is one node (the header is
      the .cpp's interface), so a.cpp including b.h while b.cpp includes
      a.h is a cycle too: neither is the lower layer. The cycles listed in
      KNOWN_CYCLES (each with its reason) are let through, exactly as listed.
  (b) an include of another folder's `*_internal.h`: such a header is its
      folder's private business.
  (c) a folder-level rule of FORBIDDEN below (e.g. the core includes no
      other folder), unless EXCEPTIONS names that very include with a
      reason.

One line per violation, `file:line: ...`, and exit status 1; on success
one line saying what was checked, and exit status 0. Point it at another
tree's runtime/src (an old commit checked out elsewhere) to check that one.
"""

import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Folder rules: (from, to) -> why `from`'s files must not include `to`'s.
# Folders are relative to runtime/src ("core", "db", ...); "*" as `to` is
# every other folder. Add a rule here, with its reason, to keep a layering
# true from now on.
FORBIDDEN = {
    ("core", "*"): "core/ is the bottom layer (runtime/src/core/README.md): every other folder "
                   "builds on it, so it includes none of them",
    # The two store back ends are siblings behind store/'s interface; only
    # wo_db/ (the functions of wo_db.h) knows both (decision 0094).
    ("db", "pg"): "issue 29 item 1: the embedded engine and the PostgreSQL store never include each other",
    ("pg", "db"): "issue 29 item 1: the embedded engine and the PostgreSQL store never include each other",
    ("db", "wo_db"): "wo_db/ picks and composes the back ends: they do not reach up into it",
    ("pg", "wo_db"): "wo_db/ picks and composes the back ends: they do not reach up into it",
    ("store", "db"): "store/ is what every back end shares: it knows none of them",
    ("store", "pg"): "store/ is what every back end shares: it knows none of them",
    ("store", "wo_db"): "store/ is what every back end shares: it knows none of them",
    ("store", "sched"): "store/ is data and order, no waiting: it needs no scheduler",
}

# Cycles that exist and cannot be broken yet (none today): the set of nodes (files
# without .h/.cpp, relative to runtime/src) of one cycle -> why it stays for
# now. Only that exact cycle is let through; an entry that no longer matches
# any cycle is reported too, so this list can only shrink.
KNOWN_CYCLES = {
}

# Includes that break a FORBIDDEN rule on purpose: ("file", "included file")
# -> why. Both paths relative to runtime/src. None today: keep it that way.
EXCEPTIONS = {
}

# The -I directories of the runtime's build (CMakeLists.txt), after the
# including file's own directory.
INCLUDE_DIRS = [ROOT, os.path.join(ROOT, "runtime", "include")]

INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"')


def folder_of(rel):
    """The folder a file belongs to: its directory under SRC_DIR ("." at the top)."""
    return os.path.dirname(rel) or "."


def node_of(rel):
    """X.h and X.cpp are one node: the path without its extension."""
    return os.path.splitext(rel)[0]


def resolve(src, rel, inc):
    """The included file's path relative to src, or None when it is not under src."""
    here = os.path.dirname(os.path.join(src, rel))
    for base in [here] + INCLUDE_DIRS:
        path = os.path.normpath(os.path.join(base, inc))
        if os.path.isfile(path):
            # A tree checked out elsewhere: its `runtime/src/...` includes
            # found through this repository's root name its own src.
            if inc.startswith("runtime/src/") and base == ROOT:
                path = os.path.normpath(os.path.join(src, inc[len("runtime/src/"):]))
            path = os.path.relpath(path, src)
            return None if path.startswith("..") else path
    return None


def read_includes(src):
    """(file, line, included file) for every include of one of src's files by another."""
    files, edges = [], []
    for dirpath, _, names in os.walk(src):
        for name in sorted(names):
            if not name.endswith((".h", ".cpp")):
                continue
            rel = os.path.relpath(os.path.join(dirpath, name), src)
            files.append(rel)
            with open(os.path.join(src, rel), encoding="utf-8") as f:
                for n, line in enumerate(f, 1):
                    m = INCLUDE.match(line)
                    if m and (target := resolve(src, rel, m.group(1))):
                        edges.append((rel, n, target))
    return sorted(files), edges


def strongly_connected(graph):
    """Tarjan's algorithm, iterative: the node sets of graph's cycles (size > 1)."""
    index, low, on_stack, stack, out, counter = {}, {}, set(), [], [], [0]
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter[0]
        counter[0] += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter[0]
                    counter[0] += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == node:
                        break
                if len(component) > 1:
                    out.append(component)
    return out


def path_back(graph, start, goal, within):
    """A shortest path start -> ... -> goal inside one cycle's nodes (BFS)."""
    came = {start: None}
    queue = [start]
    for node in queue:
        if node == goal:
            break
        for child in sorted(graph[node]):
            if child in within and child not in came:
                came[child] = node
                queue.append(child)
    path, node = [], goal
    while node is not None:
        path.append(node)
        node = came[node]
    return path[::-1]


def rule_broken(src_folder, dst_folder):
    for (frm, to), why in FORBIDDEN.items():
        if frm == src_folder and (to == dst_folder or to == "*"):
            return why
    return None


def main():
    src = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "runtime", "src"))
    if not os.path.isdir(src):
        sys.exit(f"check-include-graph: no directory {src}")
    shown = os.path.relpath(src, ROOT) if src.startswith(ROOT + os.sep) else src
    files, edges = read_includes(src)
    bad = []

    graph = {node_of(f): set() for f in files}
    for rel, _, target in edges:
        if node_of(rel) != node_of(target):
            graph[node_of(rel)].add(node_of(target))
    # (a) every include that is an edge of a cycle, with one cycle through it.
    cycles = strongly_connected(graph)
    known = [c for c in cycles if frozenset(c) in KNOWN_CYCLES]
    for stale in sorted(set(KNOWN_CYCLES) - {frozenset(c) for c in cycles}, key=sorted):
        bad.append(f"{os.path.relpath(__file__, ROOT)}: KNOWN_CYCLES lists {sorted(stale)}, "
                   "which is no longer a cycle: remove the entry")
    for component in cycles:
        if component in known:
            continue
        for rel, n, target in edges:
            a, b = node_of(rel), node_of(target)
            if a != b and a in component and b in component:
                cycle = [a] + path_back(graph, b, a, component)
                bad.append(f"{shown}/{rel}:{n}: include cycle: {' -> '.join(cycle)}")

    for rel, n, target in edges:
        src_folder, dst_folder = folder_of(rel), folder_of(target)
        if src_folder == dst_folder:
            continue
        # (b) another folder's private header.
        if os.path.basename(target).endswith("_internal.h"):
            bad.append(f"{shown}/{rel}:{n}: includes {target}, the private header of {dst_folder}/")
        # (c) the folder rules.
        why = rule_broken(src_folder, dst_folder)
        if why and (rel, target) not in EXCEPTIONS:
            bad.append(f"{shown}/{rel}:{n}: {src_folder}/ includes {target}: {why}")

    for line in bad:
        print(line)
    if bad:
        print(f"check-include-graph: {len(bad)} violation(s) in {shown}", file=sys.stderr)
        return 1
    print(f"check-include-graph: {shown}: {len(files)} files, {len(edges)} includes between them, "
          f"{len(graph)} nodes: no new include cycle ({len(known)} known, KNOWN_CYCLES), "
          f"no foreign *_internal.h, {len(FORBIDDEN)} folder rule(s) hold")
    return 0


if __name__ == "__main__":
    sys.exit(main())
