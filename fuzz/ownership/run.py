#!/usr/bin/env python3
"""Driver of the ownership fuzzer (README.md): generates cases (gen.py), checks
each on its own with `woc check`, runs the accepted ones in batches under
`woc run` and `woc build`, compares every case's stdout with what the model
says a correct woc prints, and sorts what differs into findings.

  run.py --woc build/bin/woc --fixed            the fixed set of `make test` (seed 1, 2000 cases)
  run.py --woc build/bin/woc --time 600 --out build/fuzz-ownership
                                                fuzz for 10 minutes with random seeds, writing each
                                                failure as a corpus fixture under OUT/failures/

Exit status: 0 when nothing failed, 1 when something did, 2 on a usage or
set-up problem.
"""

import argparse
import concurrent.futures as cf
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True   # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen  # noqa: E402
import model as M  # noqa: E402

FIXED_SEED = 1
FIXED_COUNT = 2000
SAN_RE = re.compile(r"ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:|UndefinedBehaviorSanitizer")
LEAK_RE = re.compile(r"ERROR: LeakSanitizer")
OTHER_SAN_RE = re.compile(r"ERROR: AddressSanitizer|runtime error:|UndefinedBehaviorSanitizer")
CODE_RE = re.compile(r"\b(WO-E\d{3})\b")

# outcome categories
PASS_ACCEPTED = "pass-accepted"           # compiled, ran clean, printed what the model says
PASS_REFUSED = "pass-refused"             # refused with an allowed WO-E30x
F_UNSAFE = "unsafe"                       # accepted, then a sanitizer report or a crash
F_LEAK = "leak"                           # accepted, ran right, LeakSanitizer reported a leak
F_WRONG = "wrong-output"                  # accepted, ran, printed something else
F_MODES = "run-vs-build"                  # JIT and native disagree (both plausible)
F_FALSE_REFUSAL = "false-refusal"         # the spec allows it, woc refuses with WO-E30x
F_MISSED = "missed-refusal"               # the spec refuses it, woc accepts
F_CODE = "wrong-code"                     # refused with a WO-E30x the verdict does not list
F_GEN = "generator-bug"                   # refused with a code outside E301-E305: not well typed
F_ICE = "woc-error"                       # woc check/build exited 2 or died
F_TIMEOUT = "timeout"
FAILURES = [F_UNSAFE, F_LEAK, F_WRONG, F_MODES, F_FALSE_REFUSAL, F_MISSED, F_CODE, F_ICE, F_TIMEOUT, F_GEN]


class Runner:
    def __init__(self, woc, jobs, batch, workdir, nice, timeout, verbose, jit_opt):
        self.woc = os.path.abspath(woc)
        self.jit_opt = [jit_opt] if jit_opt else []
        self.jobs = jobs
        self.batch = batch
        self.workdir = workdir
        self.nice = nice
        self.timeout = timeout
        self.verbose = verbose
        self.env = {k: v for k, v in os.environ.items() if not k.startswith("WO_")}
        self.env.update(WO_EPHEMERAL="1", WO_SHARDS="1")
        self.pool = cf.ThreadPoolExecutor(max_workers=jobs)
        self.counter = 0
        self.programs = 0   # woc invocations on programs (checks, runs, builds)

    def _dir(self, tag):
        self.counter += 1
        d = os.path.join(self.workdir, f"{tag}-{self.counter}")
        os.makedirs(d, exist_ok=True)
        return d

    def cmd(self, argv, cwd, timeout=None, env=None):
        if self.nice:
            argv = ["nice", "-n", str(self.nice)] + argv
        e = self.env
        if env:
            e = dict(self.env)
            e.update(env)
        try:
            p = subprocess.run(argv, cwd=cwd, env=e, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               timeout=timeout or self.timeout)
            return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")
        except subprocess.TimeoutExpired as e:
            return "timeout", (e.stdout or b"").decode("utf-8", "replace"), (e.stderr or b"").decode("utf-8", "replace")

    # -- one program
    def check(self, case):
        d = self._dir(case.name)
        src = os.path.join(d, "main.wo")
        with open(src, "w") as f:
            f.write(case.program())
        st, out, err = self.cmd([self.woc, "check", src], d)
        self.programs += 1
        shutil.rmtree(d, ignore_errors=True)
        return st, err

    def check_batch(self, cases):
        """[(status, stderr)] per case from one `woc check` of them all: the
        diagnostics are split by line; when the cases without any are not
        accepted together, each is checked alone."""
        if len(cases) == 1:
            return [self.check(cases[0])]
        d = self._dir("check")
        src = os.path.join(d, "main.wo")
        ranges = []
        with open(src, "w") as f:
            f.write(batch_program(cases, ranges))
        st, out, err = self.cmd([self.woc, "check", src], d)
        self.programs += 1
        if st == 0:
            shutil.rmtree(d, ignore_errors=True)
            return [(0, "")] * len(cases)
        if st != 1:
            shutil.rmtree(d, ignore_errors=True)
            return [self.check(c) for c in cases]
        per = {c.name: [] for c in cases}
        cur = None
        loc = re.compile(r"^" + re.escape(src) + r":(\d+):\d+: ")
        for line in err.splitlines():
            m = loc.match(line)
            if m:
                ln = int(m.group(1))
                cur = None
                for a, b, c in ranges:
                    if a <= ln <= b:
                        cur = c.name
                if cur is None:   # an error outside every case: trust nothing
                    shutil.rmtree(d, ignore_errors=True)
                    return [self.check(c) for c in cases]
            if cur is not None:
                per[cur].append(line)
        clean = [c for c in cases if not per[c.name]]
        if clean:
            ranges2 = []
            with open(src, "w") as f:
                f.write(batch_program(clean, ranges2))
            st2, _, _ = self.cmd([self.woc, "check", src], d)
            self.programs += 1
            if st2 != 0:
                shutil.rmtree(d, ignore_errors=True)
                alone = {c.name: self.check(c) for c in clean}
                return [alone[c.name] if c.name in alone else (1, "\n".join(per[c.name])) for c in cases]
        shutil.rmtree(d, ignore_errors=True)
        return [(1, "\n".join(per[c.name])) if per[c.name] else (0, "") for c in cases]

    def run_modes(self, source):
        """stdout/stderr/status of the program under `woc run` and its `woc build` binary."""
        d = self._dir("prog")
        src = os.path.join(d, "main.wo")
        with open(src, "w") as f:
            f.write(source)
        work = os.path.join(d, "work")
        os.makedirs(work)
        res = {}
        self.programs += 3
        res["jit"] = self.cmd([self.woc, "run"] + self.jit_opt + [src], work)
        bst, bout, berr = self.cmd([self.woc, "build", src, "-o", os.path.join(d, "prog.bin")], d)
        if bst != 0:
            res["native"] = ("build-failed", bout, f"woc build exited {bst}\n{berr}")
        else:
            shutil.rmtree(work)
            os.makedirs(work)
            res["native"] = self.cmd([os.path.join(d, "prog.bin")], work)
        shutil.rmtree(d, ignore_errors=True)
        return res


def split_sections(stdout):
    """{case name: its lines (header included)}, and the order they appeared in."""
    secs = {}
    order = []
    cur = None
    for line in stdout.splitlines(keepends=True):
        if line.startswith("== k") and line.strip()[3:].split()[0:1]:
            cur = line.strip()[3:]
            order.append(cur)
            secs[cur] = line
        elif cur is not None:
            secs[cur] += line
    return secs, order


def batch_program(cases, ranges=None):
    """One program running every case in turn; `prog START STOP` runs only the
    cases START <= i < STOP (so a crash does not cost a rebuild). ranges (when
    given) gets each case's first and last line."""
    lines = ["-- ownership fuzzer batch: " + " ".join(c.name for c in cases)]
    for c in cases:
        first = len(lines) + 1
        for d in c.pruned_decls():
            lines += d.emit_lines(0)
            lines.append("")
        if ranges is not None:
            ranges.append((first, len(lines), c))
    lines += ["fn arg_or(args: multi Text, i: Int, dflt: Int) -> Int {",
              "  if len(args) <= i {",
              "    return dflt",
              "  }",
              "  let v = parse_int(args[i])",
              "  if v == nil {",
              "    return dflt",
              "  }",
              "  return v",
              "}",
              "",
              "fn main(args: multi Text) {",
              "  let start = arg_or(args, 0, 0)",
              f"  let stop = arg_or(args, 1, {len(cases)})"]
    for i, c in enumerate(cases):
        lines.append(f"  if start <= {i} and {i} < stop {{")
        for st in c.wrapper():
            lines += st.emit_lines(4)
        lines.append("  }")
    lines.append("}")
    return "\n".join(lines) + "\n"


class BatchRun:
    """A batch program, its native binary, and runs of a range of its cases."""

    def __init__(self, runner, cases):
        self.r = runner
        self.cases = cases
        self.d = runner._dir("batch")
        self.src = os.path.join(self.d, "main.wo")
        with open(self.src, "w") as f:
            f.write(batch_program(cases))
        self.bin = os.path.join(self.d, "prog.bin")
        st, out, err = runner.cmd([runner.woc, "build", self.src, "-o", self.bin], self.d)
        runner.programs += 1
        self.build_err = None if st == 0 else (st, err)

    def run(self, mode, start, stop, leaks=True):
        work = os.path.join(self.d, f"work-{mode}-{start}-{stop}")
        os.makedirs(work)
        args = [str(start), str(stop)]
        if mode == "jit":
            argv = [self.r.woc, "run"] + self.r.jit_opt + [self.src, "--"] + args
        else:
            argv = [self.bin] + args
        env = None if leaks else {"ASAN_OPTIONS": "detect_leaks=0:" + os.environ.get("ASAN_OPTIONS", "")}
        res = self.r.cmd(argv, work, env=env)
        self.r.programs += 1
        shutil.rmtree(work, ignore_errors=True)
        return res

    def close(self):
        shutil.rmtree(self.d, ignore_errors=True)


class Finding:
    def __init__(self, case, category, detail, mode=None, actual=None):
        self.case = case
        self.category = category
        self.detail = detail
        self.mode = mode
        self.actual = actual

    def klass(self):
        s = self.case.shape
        if s.get("family"):
            return (self.category, "family:" + s["family"], s.get("shape") or s.get("how") or s.get("construct", ""), "")
        return (self.category, s["construct"], gen.PART_KIND[s["part"].split("/")[0]], s["destroyer"].split(":")[0])


def judge_check(case, st, err):
    """The outcome of `woc check` alone: (category or None when it must run, codes)."""
    if st == "timeout":
        return F_TIMEOUT, []
    codes = CODE_RE.findall(err)
    if st == 0:
        if case.verdict == gen.REFUSE:
            return F_MISSED, []
        return None, []
    if st != 1:
        return F_ICE, codes
    errs = sorted(set(codes))
    if not errs or any(c not in gen.E30X for c in errs):
        return F_GEN, errs
    if case.verdict == gen.ACCEPT:
        return F_FALSE_REFUSAL, errs
    if not (set(errs) & case.codes):
        return F_CODE, errs
    return PASS_REFUSED, errs


def judge_runs(case, res):
    """Compare one case's runs (res: mode -> (status, stdout, stderr)) with the model."""
    exp = case.expected()
    got = {}
    problems = []
    for mode in ("jit", "native"):
        st, out, err = res[mode]
        secs, _ = split_sections(out)
        sec = secs.get(case.name)
        got[mode] = sec
        if st == "timeout":
            problems.append((F_TIMEOUT, mode, f"{mode}: timed out"))
            continue
        if OTHER_SAN_RE.search(err):
            problems.append((F_UNSAFE, mode, f"{mode}: sanitizer report:\n" + tail(err, 30)))
            continue
        if LEAK_RE.search(err):
            problems.append((F_LEAK, mode, f"{mode}: leak report:\n" + tail(err, 30)))
            continue
        if st == "build-failed":
            problems.append((F_ICE, mode, err[:2000]))
            continue
        if st != 0:
            problems.append((F_UNSAFE, mode, f"{mode}: exit status {st}" + (" (signal)" if isinstance(st, int) and st < 0 else "")
                             + "\n" + tail(err, 20)))
            continue
        if sec not in exp:
            problems.append((F_WRONG, mode, f"{mode}: stdout differs from the model"))
    if not problems and got["jit"] != got["native"]:
        problems.append((F_MODES, "both", "JIT and native print different (each one the model allows)"))
    return problems, got


def tail(s, n):
    lines = s.splitlines()
    return "\n".join(lines[:n] + (["..."] if len(lines) > n else []))


class Session:
    def __init__(self, runner, out_dir, write_fixtures):
        self.r = runner
        self.out_dir = out_dir
        self.write_fixtures = write_fixtures
        self.counts = {}
        self.findings = []
        self.by_class = {}
        self.cases_done = 0
        self.accepted = 0
        self.refused = 0
        self.t0 = time.time()
        self.cpu0 = self.cpu()
        self.check_only = False

    @staticmethod
    def cpu():
        t = os.times()
        return t.user + t.system + t.children_user + t.children_system

    def count(self, cat, case):
        self.counts.setdefault(cat, {}).setdefault(case.verdict, 0)
        self.counts[cat][case.verdict] += 1

    def add(self, f):
        self.findings.append(f)
        self.count(f.category, f.case)
        k = f.klass()
        first = k not in self.by_class
        self.by_class.setdefault(k, []).append(f)
        if self.write_fixtures:
            write_fixture(self.out_dir, f, first)
        if self.r.verbose:
            print(f"FAIL {f.category} {f.case.name} seed={f.case.seed} index={f.case.index} {f.case.describe()}"
                  + (f" [{f.mode}]" if f.mode else ""), flush=True)

    # -- a chunk of cases
    def run_cases(self, cases):
        groups = [cases[i:i + self.r.batch] for i in range(0, len(cases), self.r.batch)]
        checks = [x for g in self.r.pool.map(self.r.check_batch, groups) for x in g]
        to_run = []
        for case, (st, err) in zip(cases, checks):
            cat, codes = judge_check(case, st, err)
            case.check_codes = codes
            case.check_err = err
            if cat is None:
                to_run.append(case)
            elif cat == PASS_REFUSED:
                self.count(cat, case)
                self.refused += 1
            else:
                self.add(Finding(case, cat, f"woc check exited {st}: {' '.join(codes)}\n" + tail(err, 30)))
        self.accepted += len(to_run)
        if self.check_only:
            for case in to_run:
                if case.verdict == gen.REFUSE:
                    pass
                self.count(PASS_ACCEPTED, case)
            self.cases_done += len(cases)
            return
        batches = [to_run[i:i + self.r.batch] for i in range(0, len(to_run), self.r.batch)]
        results = list(self.r.pool.map(self.run_batch, batches))
        for res in results:
            for case, probs, got in res:
                if not probs:
                    self.count(PASS_ACCEPTED, case)
                    continue
                cats = sorted(set(p[0] for p in probs), key=FAILURES.index)
                detail = "\n".join(p[2] for p in probs)
                modes = ",".join(sorted(set(p[1] for p in probs)))
                self.add(Finding(case, cats[0], detail, modes, got))
        self.cases_done += len(cases)

    def run_batch(self, batch):
        """[(case, problems, outputs)]: one program and one native binary for the
        batch; after a crash the rest of the batch runs again from the next case
        (`prog START STOP`); a case whose output is wrong, or that crashed without
        a sanitizer report, is confirmed alone; a leak is found case by case."""
        if len(batch) == 1:
            c = batch[0]
            res = self.r.run_modes(c.program())
            probs, got = judge_runs(c, res)
            return [(c, probs, got)]
        b = BatchRun(self.r, batch)
        try:
            return self._run_batch(b, batch)
        finally:
            b.close()

    def _run_batch(self, b, batch):
        n = len(batch)
        index = {c.name: i for i, c in enumerate(batch)}
        got = {c.name: {} for c in batch}       # mode -> section
        crash = {c.name: {} for c in batch}     # mode -> (status, stderr)
        alone = set()                           # cases to run alone
        leaked = False
        for mode in ("jit", "native"):
            if mode == "native" and b.build_err:
                for c in batch:
                    crash[c.name][mode] = ("build-failed", f"woc build exited {b.build_err[0]}\n{b.build_err[1]}")
                continue
            start = 0
            while start < n:
                st, out, err = b.run(mode, start, n)
                secs, order = split_sections(out)
                for j in range(start, n):
                    got[batch[j].name][mode] = secs.get(batch[j].name)
                if st == 0 and not SAN_RE.search(err):
                    break
                printed = [nm for nm in order if nm in index]
                if st != "timeout" and LEAK_RE.search(err) and not OTHER_SAN_RE.search(err) \
                        and all(secs.get(batch[j].name) is not None for j in range(start, n)):
                    leaked = True   # reported at exit: found case by case below
                    break
                if not printed:
                    # nothing ran (the batch did not compile, or died at once): each alone
                    alone.update(c.name for c in batch[start:])
                    break
                k = index[printed[-1]]
                crash[batch[k].name][mode] = (st, err)
                start = k + 1
        if leaked and not b.build_err:
            for j, c in enumerate(batch):
                st, out, err = b.run("native", j, j + 1)
                if LEAK_RE.search(err):
                    crash[c.name]["native"] = (st, err)
        out = []
        for c in batch:
            if c.name in alone:
                res = self.r.run_modes(c.program())
                probs, g = judge_runs(c, res)
                out.append((c, probs, g))
                continue
            probs = []
            confirm = False
            for mode in ("jit", "native"):
                if mode in crash[c.name]:
                    st, err = crash[c.name][mode]
                    if st == "timeout":
                        probs.append((F_TIMEOUT, mode, f"{mode}: timed out"))
                    elif st == "build-failed":
                        probs.append((F_ICE, mode, err[:2000]))
                    elif OTHER_SAN_RE.search(err):
                        probs.append((F_UNSAFE, mode, f"{mode}: sanitizer report:\n" + tail(err, 30)))
                    elif LEAK_RE.search(err):
                        probs.append((F_LEAK, mode, f"{mode}: leak report:\n" + tail(err, 30)))
                    else:
                        confirm = True
                elif got[c.name].get(mode) not in c.expected():
                    confirm = True
            if not probs and not confirm and got[c.name].get("jit") != got[c.name].get("native"):
                confirm = True
            if confirm and not probs:
                res = self.r.run_modes(c.program())
                probs, g = judge_runs(c, res)
                if not probs:
                    probs = [(F_WRONG, "batch", "wrong only inside its batch (an earlier case's damage?)")]
                out.append((c, probs, g))
                continue
            out.append((c, probs, got[c.name]))
        return out

    # -- report
    def summary(self):
        wall = time.time() - self.t0
        cpu = self.cpu() - self.cpu0
        lines = []
        lines.append(f"{self.cases_done} cases ({self.accepted} accepted and run, {self.refused} refused as allowed, "
                     f"{len(self.findings)} failing) in {wall:.1f} s wall, {cpu:.1f} s CPU: "
                     f"{self.cases_done / max(cpu, 1e-9) * 60:.0f} programs per CPU-minute "
                     f"({self.r.programs} woc invocations)")
        lines.append("outcomes (by verdict accept/either/refuse):")
        for cat in [PASS_ACCEPTED, PASS_REFUSED] + FAILURES:
            if cat in self.counts:
                v = self.counts[cat]
                lines.append(f"  {cat:16} {sum(v.values()):6}   " +
                             " ".join(f"{k}={v[k]}" for k in (gen.ACCEPT, gen.EITHER, gen.REFUSE) if k in v))
        if self.by_class:
            lines.append(f"failure classes ({len(self.by_class)}): category construct part-kind destroyer-form: count, first case")
            for k in sorted(self.by_class, key=lambda k: (FAILURES.index(k[0]), k)):
                fs = self.by_class[k]
                c = fs[0].case
                lines.append(f"  {k[0]:15} {k[1]:15} {k[2]:12} {k[3]:10} {len(fs):4}  seed {c.seed} index {c.index}")
        return "\n".join(lines)


# ---------------------------------------------------------------- fixtures


def fixture_name(f):
    """Kebab-case, from the category and the shape."""
    s = f.case.shape
    parts = ["own-fuzz", f.category]
    if s.get("family"):
        parts += [s["family"], s.get("shape") or s.get("how") or s.get("construct", "")]
    else:
        parts += [s["construct"], s["part"].split("/")[0], s["destroyer"].split(":")[0], s["root"]]
    parts += [f"s{f.case.seed}", f"i{f.case.index}"]
    name = "-".join(parts).replace("[", "").replace("]", "")
    return re.sub(r"[^a-z0-9-]+", "-", name.lower()).strip("-")


def write_fixture(out_dir, f, first):
    """A ready-to-add corpus fixture: run/NAME (must compile and print the model's
    output) or compile-fail/NAME (must be refused)."""
    c = f.case
    kind = "compile-fail" if f.category == F_MISSED else "run"
    d = os.path.join(out_dir, "failures", kind, fixture_name(f))
    os.makedirs(d, exist_ok=True)
    head = [f"-- Found by the ownership fuzzer (fuzz/ownership, seed {c.seed} index {c.index}): {f.category}."]
    if kind == "compile-fail":
        head.append(f"-- The spec refuses this ({c.why}); woc accepted it.")
    else:
        head.append(f"-- Shape: {c.describe()}. {c.why}.")
        if c.verdict == gen.EITHER:
            head.append("-- woc may also refuse it with " + " or ".join(sorted(c.codes)) +
                        " (then move it to compile-fail/ with that code).")
        alts = c.expected()
        if len(alts) > 1:
            head.append("-- The model allows other outputs too:")
            for a in alts[1:]:
                head += ["--   | " + line for line in a.splitlines()]
    prog = c.program()
    with open(os.path.join(d, "main.wo"), "w") as fh:
        fh.write("\n".join(head) + "\n" + prog)
    if kind == "compile-fail":
        with open(os.path.join(d, "expected.code"), "w") as fh:
            fh.write(c.primary_code() + "\n")
    else:
        with open(os.path.join(d, "expected.out"), "w") as fh:
            fh.write(c.expected()[0])
    with open(os.path.join(d, "finding.txt"), "w") as fh:
        fh.write(f"category: {f.category}\nmode: {f.mode}\nverdict: {c.verdict} {' '.join(sorted(c.codes))}\n"
                 f"shape: {c.describe()}\nseed: {c.seed}\nindex: {c.index}\n\n{f.detail}\n")
        if f.actual:
            for m, sec in f.actual.items():
                fh.write(f"\n--- {m} printed:\n{sec if sec is not None else '(nothing for this case)'}")
        fh.write("\n--- expected (first of the model's outputs):\n" + c.expected()[0])


# ---------------------------------------------------------------- main


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--woc", required=True)
    ap.add_argument("--fixed", action="store_true", help=f"the fixed set: seed {FIXED_SEED}, {FIXED_COUNT} cases")
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--count", type=int, default=None)
    ap.add_argument("--start", type=int, default=0, help="first case index")
    ap.add_argument("--time", type=float, default=None, help="fuzz for this many seconds (random seeds)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--batch", type=int, default=40, help="accepted cases per program")
    ap.add_argument("--out", default=None, help="write failures as fixtures under OUT/failures/")
    ap.add_argument("--classes-out", default=None,
                    help="also write the first failure of each class as a fixture under this directory")
    ap.add_argument("--nice", type=int, default=0)
    ap.add_argument("--timeout", type=float, default=120)
    ap.add_argument("--jit-opt", default="-O0",
                    help="optimisation flag of `woc run` (default -O0: the native build keeps woc's default -O2, "
                         "so the two runs cover both pipelines; '' for woc's default)")
    ap.add_argument("-v", "--verbose", action="store_true")
    ap.add_argument("--keep", action="store_true", help="keep the work directory")
    ap.add_argument("--check-only", action="store_true",
                    help="only `woc check` (looks for generator bugs and refusals; nothing runs)")
    a = ap.parse_args()
    if not os.access(a.woc, os.X_OK):
        print(f"run.py: no woc at {a.woc}", file=sys.stderr)
        return 2
    workdir = tempfile.mkdtemp(prefix="wo-ownfuzz-")
    runner = Runner(a.woc, a.jobs, a.batch, workdir, a.nice, a.timeout, a.verbose, a.jit_opt)
    if a.out:
        os.makedirs(a.out, exist_ok=True)
    sess = Session(runner, a.out, a.out is not None)
    sess.check_only = a.check_only
    try:
        if a.time is not None:
            deadline = time.time() + a.time
            seed = a.seed if a.seed is not None else random.SystemRandom().randrange(2, 1 << 30)
            chunk = max(a.batch * a.jobs, 40)
            while time.time() < deadline:
                stream = gen.case_stream(seed, a.start)
                cs = [next(stream) for _ in range(chunk)]
                sess.run_cases(cs)
                print(f"seed {seed}: {sess.cases_done} cases, {len(sess.findings)} failing", flush=True)
                seed = random.SystemRandom().randrange(2, 1 << 30)
        else:
            seed = FIXED_SEED if a.seed is None else a.seed
            count = a.count if a.count is not None else FIXED_COUNT
            cs = gen.cases(seed, count, a.start)
            step = max(a.batch * a.jobs * 4, 200)
            for i in range(0, len(cs), step):
                sess.run_cases(cs[i:i + step])
                if a.verbose:
                    print(f"{sess.cases_done}/{len(cs)} cases, {len(sess.findings)} failing", flush=True)
    finally:
        runner.pool.shutdown()
        if not a.keep:
            shutil.rmtree(workdir, ignore_errors=True)
    s = sess.summary()
    print(s)
    if a.classes_out:
        os.makedirs(a.classes_out, exist_ok=True)
        for k, fs in sess.by_class.items():
            write_fixture(a.classes_out, fs[0], True)
    if a.out:
        with open(os.path.join(a.out, "summary.txt"), "w") as fh:
            fh.write(s + "\n")
        with open(os.path.join(a.out, "findings.json"), "w") as fh:
            json.dump([{"category": f.category, "mode": f.mode, "seed": f.case.seed, "index": f.case.index,
                        "shape": f.case.shape, "verdict": f.case.verdict, "codes": sorted(f.case.codes),
                        "detail": f.detail[:4000]} for f in sess.findings], fh, indent=1)
    return 1 if sess.findings else 0


if __name__ == "__main__":
    sys.exit(main())
