#!/usr/bin/env python3
"""Compiles, with clang and -fsyntax-only, every translation unit the fuzz
targets are built from (CTest `fuzz.compile`; fuzz/README.md).

    fuzz/compile-check.py [--add FLAG]... [--cache DIR] COMPILE_COMMANDS.json CLANGXX TARGET...

The fuzz build (`make fuzz`) uses clang-19; the normal build uses GCC, which
accepts code that clang rejects (issue 24 item 6: a std::pair holding the
struct being defined, in frontend/manifest.cpp). So the fuzzers could stop
compiling without any test noticing. The normal build declares the fuzz
targets without building them (fuzz/CMakeLists.txt), which puts their sources
in compile_commands.json; this script takes the entries of TARGET... (the fuzz
targets and every library they compile: CMake works the list out) and runs
each command again with CLANGXX -fsyntax-only, two at a time, plus the options
a clang build adds (--add: WO_CLANG_OPTIONS of CMakeLists.txt). No objects, no
libFuzzer, no sanitizers: only what clang's front end accepts.

With --cache, a unit that passed is not compiled again until its command,
clang or a file it includes (clang's -MD list) changes: the whole check is
~60 s of CPU, mostly codegen's LLVM headers. Delete DIR to check all again.

Exit 0 when every unit compiles (warnings are printed, not fatal), 1 when
one does not, or when a TARGET has no unit at all in COMPILE_COMMANDS.json.
"""
import argparse
import concurrent.futures
import hashlib
import json
import os
import re
import shlex
import subprocess
import sys
import time

# GCC options clang does not know, dropped; the build's own dependency-file
# options, dropped with their argument when they take one.
DROP = {"-c", "-MD", "-MMD", "-Wno-restrict"}
DROP_WITH_ARG = {"-o", "-MF", "-MT", "-MQ"}


def clang_command(clangxx, args, source, extra):
    out = [clangxx]
    if source.endswith(".c"):
        out += ["-x", "c"]  # the same compiler in C mode (llhttp)
    skip = False
    for a in args[1:]:  # args[0]: the build's compiler
        if skip:
            skip = False
        elif a in DROP_WITH_ARG:
            skip = True
        elif a not in DROP:
            out.append(a)
    return out + extra + ["-fsyntax-only", "-Wno-unknown-warning-option"]


def deps_of(depfile, cwd):
    """The prerequisites of a Make-syntax dependency file, as absolute paths."""
    with open(depfile) as f:
        text = f.read().replace("\\\n", " ")
    rest = text.split(": ", 1)[1]
    return [os.path.join(cwd, p.replace("\\ ", " ")) for p in re.split(r"(?<!\\)\s+", rest.strip()) if p]


def passed_before(stamp, depfile, cwd, clang_ns):
    try:
        t = os.stat(stamp).st_mtime_ns
        return clang_ns <= t and all(os.stat(d).st_mtime_ns <= t for d in deps_of(depfile, cwd))
    except (OSError, IndexError):
        return False


def main():
    ap = argparse.ArgumentParser(description="clang -fsyntax-only over the fuzz targets' sources")
    ap.add_argument("--add", action="append", default=[], metavar="FLAG", help="one more clang option")
    ap.add_argument("--cache", metavar="DIR", help="skip the units that passed and did not change since")
    ap.add_argument("compile_commands")
    ap.add_argument("clangxx")
    ap.add_argument("targets", nargs="+")
    a = ap.parse_args()

    units = {t: [] for t in a.targets}
    with open(a.compile_commands) as f:
        entries = json.load(f)
    for e in entries:
        args = e["arguments"] if "arguments" in e else shlex.split(e["command"])
        obj = args[args.index("-o") + 1] if "-o" in args else ""
        m = re.search(r"(?:^|/)CMakeFiles/([^/]+)\.dir/", obj)
        if m and m.group(1) in units:
            units[m.group(1)].append((e["directory"], clang_command(a.clangxx, args, e["file"], a.add), e["file"]))
    empty = [t for t, u in units.items() if not u]
    if empty:
        print(f"fuzz.compile: no translation unit of {', '.join(empty)} in {a.compile_commands}", file=sys.stderr)
        return 1
    todo = [u for t in a.targets for u in units[t]]

    clang_ns = os.stat(a.clangxx).st_mtime_ns
    if a.cache:
        os.makedirs(a.cache, exist_ok=True)

    def run(unit):
        cwd, cmd, source = unit
        if not a.cache:
            p = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            return source, cmd, p.returncode, p.stdout, False
        key = hashlib.sha1(json.dumps([cwd, cmd]).encode()).hexdigest()
        stamp, depfile = os.path.join(a.cache, key + ".ok"), os.path.join(a.cache, key + ".d")
        if passed_before(stamp, depfile, cwd, clang_ns):
            return source, cmd, 0, "", True
        if os.path.exists(stamp):
            os.remove(stamp)
        start = time.time_ns()  # a file changed while clang runs is newer than the stamp
        p = subprocess.run(cmd + ["-MD", "-MF", depfile], cwd=cwd, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True)
        if p.returncode == 0:
            open(stamp, "w").close()
            os.utime(stamp, ns=(start, start))
        return source, cmd, p.returncode, p.stdout, False

    started = time.monotonic()
    failed = warned = cached = 0
    jobs = int(os.environ.get("WO_COMPILE_CHECK_JOBS", "2"))
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        for source, cmd, status, output, was_cached in pool.map(run, todo):
            cached += was_cached
            if status != 0:
                failed += 1
                print(f"FAIL {source}: {os.path.basename(a.clangxx)} rejects it\n  {shlex.join(cmd)}\n{output}")
            elif output.strip():
                warned += 1
                print(f"warnings in {source}:\n{output}")
    if a.cache:  # forget the units that are gone or whose command changed
        keep = {hashlib.sha1(json.dumps([cwd, cmd]).encode()).hexdigest() for cwd, cmd, _ in todo}
        for name in os.listdir(a.cache):
            if name.split(".")[0] not in keep:
                os.remove(os.path.join(a.cache, name))
    print(f"fuzz.compile: {len(todo) - failed} of {len(todo)} units of {len(a.targets)} targets compile with "
          f"{os.path.basename(a.clangxx)} ({len(todo) - cached} compiled, {cached} unchanged since they passed; "
          f"{warned} with warnings), {time.monotonic() - started:.1f} s")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
