#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Bounded runs of `sandboxd-conformance explore` that prove what it is for.

Modes:
  clean            several seeds against the clean sandboxd-ref: no finding;
  variants         every set of legal variants (cases/variant_sets.tsv) on
                   sandboxd-ref-faulty: no finding;
  against-variants the clean daemon against each variant set (--against-
                   launch): no finding (answers that differ where the
                   contract is open are counted, never failed);
  power            a fixed sample of faults, each found within its bound and
                   shrunk to a confirmed reproduction of at most 10 operations;
  against-fault    the clean daemon against one fault: found, and the
                   faulty side (B) named;
  all-faults       every fault of the F, S, C, P and M clauses (fault_table.def),
                   each run for --bound seconds, next to the time the cases
                   mapped to it (faults.tsv) take to catch it, run alone:
                   prints the table of what explore finds (not a test: the
                   documented longer run, long_runs.sh);
  long             --seconds per target (clean, each variant set, the clean
                   daemon against each set), --parallel targets at a time:
                   prints the table of operations and findings (long_runs.sh).
Every run is launched by explore itself on loopback ports over a private
root; nothing runs against the host."""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(os.path.dirname(HERE))
LAUNCH = ("{daemon} {faults}--listen-host 127.0.0.1 --grpc-port {{grpc_port}} "
          "--rest-port {{rest_port}} --root-dir {{root}}")

# The power sample: faults of the F, S, C, P and M clauses that a sequence of
# operations can show (a wrong answer, a wrong stored state, a wrong event).
POWER_SAMPLE = [
    ("put-umask", "F3"), ("put-no-parents", "F2"), ("delete-nonempty-ok", "F10"),
    ("error-wrong-code", "F13"), ("list-unsorted", "F8"), ("nul-truncate", "S8"),
    ("put-leave-temp", "F6"), ("stdin-unknown-ok", "P12"), ("signal-exit-zero", "P13"),
    ("metadata-no-markers", "M4"),
]


RACE_SAMPLE = [("put-in-place", "C1")]


def launch(daemon, faults="", args=""):
    f = (f"--fault {faults} " if faults else "") + (f"{args} " if args else "")
    return LAUNCH.format(daemon=daemon, faults=f)


def explore(a, extra, tmp, name):
    out = os.path.join(tmp, name + ".json")
    cmd = [a.suite, "explore", "--quiet", "--json", out] + extra
    t0 = time.time()
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                          timeout=max(a.bound * 4, a.seconds * 2) + 120)
    took = time.time() - t0
    doc = None
    if os.path.exists(out):
        with open(out, encoding="utf-8") as f:
            doc = json.load(f)
    return proc, doc, took


# A value given to the launched runtime's environment: it must appear in no
# report (the suite's rule for what a user gives it).
SECRET = "sbx-explore-secret-0d5b1f"


def report_args(tmp, name):
    base = os.path.join(tmp, name)
    return ["--junit", base + ".junit.xml", "--html", base + ".html", "--bundle",
            base + ".bundle"], base


def check_reports(a, base, doc):
    """The JUnit, HTML and bundle of a run: valid, holding what the JSON
    holds, without the secret. Returns a list of problems."""
    bad = []
    files = [base + ".junit.xml", base + ".html"]
    for root, _, names in os.walk(base + ".bundle"):
        files += [os.path.join(root, n) for n in names]
    want = {"explore.json", "junit.xml", "report.html", "report.txt", "README.txt"}
    have = set(os.listdir(base + ".bundle")) if os.path.isdir(base + ".bundle") else set()
    if want - have:
        bad.append(f"bundle lacks {sorted(want - have)}")
    for path in files:
        with open(path, encoding="utf-8", errors="replace") as f:
            if SECRET in f.read():
                bad.append(f"the launch environment's value is in {path}")
    if a.xmllint:
        for j in (base + ".junit.xml", os.path.join(base + ".bundle", "junit.xml")):
            p = subprocess.run([a.xmllint, "--noout", "--schema", a.junit_xsd, j],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            if p.returncode:
                bad.append(f"{j} does not validate: {p.stdout[-300:]}")
        for flags in (["--html"], []):
            p = subprocess.run([a.xmllint, "--noout"] + flags + [base + ".html"],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            if p.returncode or p.stdout:
                bad.append(f"HTML {' '.join(flags) or 'as XML'}: {p.stdout[:300]}")
    with open(base + ".html", encoding="utf-8") as f:
        page = f.read()
    with open(base + ".junit.xml", encoding="utf-8") as f:
        junit = f.read()
    if doc["seed"] not in page or doc["seed"] not in junit:
        bad.append("the seed is missing")
    for kind in doc["coverage"]:
        if f">{kind}<" not in page or f'name="{kind}"' not in junit:
            bad.append(f"coverage of {kind} is missing")
    if junit.count("<failure ") != len(doc["findings"]):
        bad.append("JUnit: not one failure per finding")
    for x in doc["findings"]:
        if f"clause {x['clause']}" not in page:
            bad.append(f"HTML: finding of {x['clause']} is missing")
        for op in x.get("minimal", []):
            esc = op.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            if esc not in page:
                bad.append(f"HTML: reproduction step {op!r} is missing")
    for b in bad:
        print("REPORTS:", b, flush=True)
    return bad


def load_variants():
    variants = {}
    with open(os.path.join(SRC, "cases/variants.tsv"), encoding="utf-8") as f:
        for line in f:
            line = line.split("#", 1)[0].rstrip("\n")
            if not line.strip():
                continue
            cols = line.split("\t")
            variants[cols[0]] = cols[1] if cols[1] != "-" else ""
    sets = {}
    with open(os.path.join(SRC, "cases/variant_sets.tsv"), encoding="utf-8") as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if line:
                name, members = line.split("\t")
                sets[name] = members.split(",")
    return variants, sets


def variant_launch(a, members, variants):
    # A variant with daemon arguments is those arguments, not a switch.
    switches = ",".join(v for v in members if not variants[v])
    args = " ".join(variants[v] for v in members if variants[v])
    return launch(a.faulty, switches, args)


def no_finding(label, proc, doc):
    if proc.returncode == 0 and doc and not doc["findings"]:
        print(f"{label}: no finding ({doc['operations']} operations, "
              f"{doc['operations_per_second']:.0f}/s, {doc['open_disagreements']} open "
              f"differences)", flush=True)
        return True
    print(proc.stdout)
    print(f"FALSE ALARM or failure: {label} (exit {proc.returncode})", flush=True)
    return False


def mode_clean(a, tmp):
    ok = True
    for i, seed in enumerate(a.seeds.split(",")):
        # The first run also writes every report format, the runtime given
        # a secret in its environment.
        reports, base = report_args(tmp, "clean-" + seed) if i == 0 else ([], None)
        proc, doc, _ = explore(a, ["--launch-bundled", a.daemon, "--seed", seed,
                                   "--launch-env", "SBX_EXPLORE_TOKEN=" + SECRET,
                                   "--duration", f"{a.seconds}s"] + reports, tmp, "clean-" + seed)
        ok &= no_finding(f"clean daemon, seed {seed}", proc, doc)
        if base and doc:
            ok &= not check_reports(a, base, doc)
    for seed in a.jobs_seeds.split(",") if a.jobs_seeds else []:
        proc, doc, _ = explore(a, ["--launch-bundled", a.daemon, "--seed", seed, "--jobs",
                                   str(a.jobs), "--duration", f"{a.seconds}s"], tmp, "jobs-" + seed)
        ok &= no_finding(f"clean daemon, seed {seed}, {a.jobs} concurrent jobs", proc, doc)
    return ok


def mode_variants(a, tmp, against):
    variants, sets = load_variants()
    ok = True
    for name, members in sets.items():
        cmd = variant_launch(a, members, variants)
        target = (["--launch-bundled", a.daemon, "--against-launch", cmd] if against
                  else ["--launch", cmd, "--jobs", str(a.jobs)])
        proc, doc, _ = explore(a, target + ["--seed", a.seeds.split(",")[0],
                                            "--duration", f"{a.seconds}s"], tmp, "v-" + name)
        ok &= no_finding(f"{'clean against ' if against else ''}variant set {name}", proc, doc)
        if against and a.jobs > 1:
            # The same concurrent jobs against both: each side judged on its
            # own, so interleavings never make a disagreement.
            proc, doc, _ = explore(a, target + ["--jobs", str(a.jobs), "--seed",
                                                a.seeds.split(",")[0], "--duration",
                                                f"{a.seconds / 2:g}s"], tmp, "vj-" + name)
            ok &= no_finding(f"clean against variant set {name}, {a.jobs} concurrent jobs",
                             proc, doc)
    return ok


def judge_power(fault, want, proc, doc, took, bound):
    if proc.returncode != 1 or not doc or not doc["findings"]:
        return False, f"{fault}: NOT FOUND within {bound} s (exit {proc.returncode})"
    f = doc["findings"][0]
    minimal = f.get("minimal_length", f["sequence_length"])
    line = (f"{fault}: {f['clause']} after {doc['operations']} operations "
            f"({doc['seconds']:.1f} s), shrunk {f['sequence_length']} -> {minimal} in "
            f"{f.get('shrink_seconds', 0):.1f} s ({f.get('shrink_runs', 0)} runs)"
            f"{'' if f.get('confirmed') else ', NOT confirmed'}")
    good = (doc["seconds"] <= bound and minimal <= 10 and f.get("confirmed")
            and (want is None or f["clause"] == want))
    return good, line + ("" if good else "  <- FAILS the proof")


def mode_power(a, tmp):
    ok = True
    t0 = time.time()
    for fault, want in POWER_SAMPLE:
        proc, doc, took = explore(a, ["--launch", launch(a.faulty, fault), "--seed", "7",
                                      "--duration", f"{a.bound}s", "--shrink-time", "45"],
                                  tmp, "p-" + fault)
        good, line = judge_power(fault, want, proc, doc, took, a.bound)
        print(line, flush=True)
        if not good:
            print(proc.stdout)
        ok &= good
    # A race: writes in place tear concurrent reads. Found by concurrent
    # jobs' register check; a timing-dependent history is not shrunk.
    for fault, want in RACE_SAMPLE:
        save = os.path.join(tmp, "race-" + fault)
        proc, doc, _ = explore(a, ["--launch", launch(a.faulty, fault), "--seed", "3",
                                   "--jobs", "3", "--duration", f"{a.bound}s",
                                   "--shrink-time", "6", "--save", save], tmp, "r-" + fault)
        f = doc["findings"][0] if doc and doc["findings"] else None
        good = bool(proc.returncode == 1 and f and f["clause"] == want and
                    doc["seconds"] <= a.bound and f.get("concurrent_jobs") and f.get("confirmed"))
        print(f"{fault}: {f['clause'] if f else 'NOT FOUND'} with 3 concurrent jobs after "
              f"{doc['operations'] if doc else '-'} operations "
              f"({doc['seconds'] if doc else 0:.1f} s), shrunk to "
              f"{f.get('concurrent_jobs') if f else '-'} jobs and "
              f"{f.get('concurrent_operations') if f else '-'} operations in "
              f"{f.get('shrink_seconds', 0) if f else 0:.1f} s"
              f"{'' if good else '  <- FAILS the proof'}", flush=True)
        if not good:
            print(proc.stdout)
        ok &= good
        if good:
            # Its concurrent replay file shows the race again.
            replay = os.path.join(save, f"explore-3-{want}.replay.json")
            rproc, rdoc, _ = explore(a, ["--launch", launch(a.faulty, fault), "--replay", replay,
                                         "--no-shrink"], tmp, "rr-" + fault)
            again = bool(rproc.returncode == 1 and rdoc and rdoc["findings"] and
                         rdoc["findings"][0]["clause"] == want)
            print(f"{fault}: the concurrent replay file "
                  f"{'reproduces' if again else 'does NOT reproduce'} {want}", flush=True)
            ok &= again
    print(f"power sample: {len(POWER_SAMPLE) + len(RACE_SAMPLE)} faults in "
          f"{time.time() - t0:.0f} s")
    return ok


def against_race(a, tmp):
    """Concurrent jobs in differential mode: the race of one side is found by
    its register check and named on that side."""
    proc, doc, _ = explore(a, ["--launch-bundled", a.daemon, "--against-launch",
                               launch(a.faulty, a.race_fault), "--seed", "3", "--jobs", "3",
                               "--duration", f"{a.bound}s", "--no-shrink"], tmp, "ar")
    f = doc["findings"][0] if doc and doc["findings"] else None
    good = bool(proc.returncode == 1 and f and f["clause"] == "C1" and
                f["deviating_side"] == "B" and f.get("concurrent_jobs"))
    print(f"{a.race_fault} with 3 concurrent jobs against the clean daemon: "
          f"{f['clause'] + ', deviating side ' + f['deviating_side'] if f else 'NOT FOUND'}"
          f"{'' if good else '  <- FAILS the proof'}", flush=True)
    if not good:
        print(proc.stdout)
    return good


def mode_against_fault(a, tmp):
    reports, base = report_args(tmp, "af")
    proc, doc, _ = explore(a, ["--launch-bundled", a.daemon, "--against-launch",
                               launch(a.faulty, a.fault), "--seed", "7",
                               "--launch-env", "SBX_EXPLORE_TOKEN=" + SECRET,
                               "--duration", f"{a.bound}s", "--shrink-time", "45"] + reports,
                           tmp, "af")
    f = doc["findings"][0] if doc and doc["findings"] else None
    if proc.returncode == 1 and f and f["deviating_side"] == "B" and f.get("confirmed"):
        print(f"{a.fault}: found ({f['clause']}), deviating side B (the faulty daemon); "
              f"other side answered: {f['observed_other']}")
        # The bundle's replay file reproduces the finding on the faulty side.
        replay = os.path.join(base + ".bundle", "findings", f"1-{f['clause']}.replay.json")
        rproc, rdoc, _ = explore(a, ["--launch", launch(a.faulty, a.fault), "--replay", replay,
                                     "--no-shrink"], tmp, "af-replay")
        replayed = (rproc.returncode == 1 and rdoc and rdoc["findings"] and
                    rdoc["findings"][0]["clause"] == f["clause"])
        print(f"the bundle's replay file {'reproduces' if replayed else 'does NOT reproduce'} "
              f"{f['clause']} on the faulty daemon")
        good = not check_reports(a, base, doc) and bool(replayed)
        if a.race_fault:
            good &= against_race(a, tmp)
        return good
    print(proc.stdout)
    print(f"against {a.fault}: not found or the wrong side named")
    return False


def load_catching_cases():
    """fault -> the case IDs that catch it (cases/*/faults.tsv)."""
    matrix = {}
    for root, _, files in os.walk(os.path.join(SRC, "cases")):
        if "faults.tsv" not in files:
            continue
        with open(os.path.join(root, "faults.tsv"), encoding="utf-8") as f:
            for line in f:
                cols = line.split("#", 1)[0].split()
                if len(cols) >= 2:
                    matrix.setdefault(cols[1], []).append(cols[0])
    return matrix


def cases_time(a, fault, ids, tmp):
    """Runs the cases that catch fault alone against it: (caught, wall
    seconds of the run, seconds of the quickest catching case)."""
    if not ids:
        return False, 0.0, None
    out = os.path.join(tmp, "cases-" + fault + ".json")
    cmd = [a.suite, "--launch", launch(a.faulty, fault), "--json", out, "--jobs", "2",
           "--seed", "1", "--quiet", "--focus", "^(" + "|".join(sorted(set(ids))) + ")( |$)"]
    t0 = time.time()
    try:
        subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=600)
    except subprocess.TimeoutExpired:
        return False, time.time() - t0, None
    wall = time.time() - t0
    if not os.path.exists(out):
        return False, wall, None
    with open(out, encoding="utf-8") as f:
        doc = json.load(f)
    caught = [c.get("duration_seconds", 0.0) for c in doc.get("cases", [])
              if c.get("outcome") in ("fail", "timeout")]
    return bool(caught), wall, min(caught) if caught else None


def why_not_found(doc, proc):
    if proc.returncode not in (0, 1):
        return f"explore exit {proc.returncode}"
    return "no operation explore generates shows it"


def mode_all_faults(a, tmp):
    faults = []
    pat = re.compile(r'SBX_FAULT\(\w+, "([^"]+)", (\w+), "([^"]*)"')
    with open(os.path.join(SRC, "reference-daemon/faults/fault_table.def"), encoding="utf-8") as f:
        for m in pat.finditer(f.read()):
            name, section, clauses = m.groups()
            if section in ("VARIANT", "HOST", "SWEEP") or name.startswith("variant-"):
                continue
            if any(c.strip()[:1] in a.clauses for c in clauses.split(",")):
                faults.append((name, clauses))
    if a.only:
        faults = [f for f in faults if f[0] in a.only.split(",")]
    k, n = (int(x) for x in a.shard.split("/"))
    faults = faults[k - 1::n]
    catching = load_catching_cases()
    print("| fault | clauses | found | clause cited | time to find s | operations | "
          "minimal | shrink s | cases' time s (run) |")
    print("|---|---|---|---|---|---|---|---|---|", flush=True)
    found = 0
    for name, clauses in faults:
        args = ["--launch", launch(a.faulty, name), "--seed", "7", "--duration", f"{a.bound}s",
                "--shrink-time", f"{a.shrink_time:g}"]
        proc, doc, took = explore(a, args, tmp, "all-" + name)
        if proc.returncode == 0 and "C" in clauses:
            # A race of the C clauses shows between connections: the same
            # bound again with concurrent jobs (their register check).
            proc, doc, took = explore(a, args + ["--jobs", "3"], tmp, "all-j-" + name)
        caught, wall, quickest = cases_time(a, name, catching.get(name, []), tmp)
        ctime = (f"{quickest:.1f} ({wall:.0f})" if caught else f"not caught ({wall:.0f})")
        if proc.returncode == 1 and doc and doc["findings"]:
            f = doc["findings"][0]
            found += 1
            print(f"| {name} | {clauses} | yes | {f['clause']} | {doc['seconds']:.1f} | "
                  f"{doc['operations']} | {f.get('minimal_length', '-')} | "
                  f"{f.get('shrink_seconds', 0):.1f} | {ctime} |", flush=True)
        else:
            ops = doc["operations"] if doc else "-"
            print(f"| {name} | {clauses} | no: {why_not_found(doc, proc)} | - | - | {ops} | - | "
                  f"- | {ctime} |", flush=True)
    print(f"\n{found} of {len(faults)} faults found")
    return True


def long_target(a, tmp, label, target):
    proc, doc, took = explore(a, target + ["--seed", a.seeds.split(",")[0],
                                           "--duration", f"{a.seconds:g}s"], tmp,
                              "long-" + re.sub(r"\W", "_", label))
    if not doc:
        return f"| {label} | - | - | - | - | explore exit {proc.returncode} |"
    return (f"| {label} | {doc['jobs']} | {doc['operations']} | {doc['seconds']:.0f} | "
            f"{doc['operations_per_second']:.1f} | {len(doc['findings'])} | "
            f"{doc['open_disagreements']} |")


def mode_long(a, tmp):
    from concurrent.futures import ThreadPoolExecutor
    variants, sets = load_variants()
    jobs = ["--jobs", str(a.jobs)] if a.jobs > 1 else []
    targets = [("clean", ["--launch-bundled", a.daemon] + jobs)]
    for name, members in sets.items():
        targets.append((f"variant set {name}",
                        ["--launch", variant_launch(a, members, variants)] + jobs))
    for name, members in sets.items():
        targets.append((f"clean against {name}",
                        ["--launch-bundled", a.daemon, "--against-launch",
                         variant_launch(a, members, variants)] + jobs))
    if a.only:
        targets = [t for t in targets if t[0] in a.only.split(",")]
    print("| target | jobs | operations | seconds | operations/s | findings | "
          "open differences |")
    print("|---|---|---|---|---|---|---|", flush=True)
    ok = True
    with ThreadPoolExecutor(max_workers=a.parallel) as pool:
        for line in pool.map(lambda t: long_target(a, tmp, *t), targets):
            print(line, flush=True)
            ok &= line.split("|")[6].strip() == "0"
    return ok


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", choices=["clean", "variants", "against-variants", "power",
                                     "against-fault", "all-faults", "long"])
    ap.add_argument("--suite", required=True)
    ap.add_argument("--daemon", required=True)
    ap.add_argument("--faulty", required=True)
    ap.add_argument("--seeds", default="1,2,3")
    ap.add_argument("--seconds", type=float, default=8)
    ap.add_argument("--jobs-seeds", default="")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--bound", type=float, default=60)
    ap.add_argument("--fault", default="put-umask")
    ap.add_argument("--race-fault", default="", help="against-fault: also this race, --jobs 3")
    ap.add_argument("--clauses", default="FSCPM")
    ap.add_argument("--xmllint", default="", help="validate JUnit and HTML with it")
    ap.add_argument("--junit-xsd", default=os.path.join(SRC, "suite/tests/junit.xsd"))
    ap.add_argument("--only", default="", help="all-faults: these faults; long: these targets "
                    "(comma-separated)")
    ap.add_argument("--shrink-time", type=float, default=60)
    ap.add_argument("--shard", default="1/1", help="all-faults: the K-th of every N faults")
    ap.add_argument("--parallel", type=int, default=2, help="long: targets at a time")
    a = ap.parse_args()
    if a.xmllint.endswith("NOTFOUND"):
        a.xmllint = ""
    with tempfile.TemporaryDirectory(prefix="sbx-explore-e2e-") as tmp:
        if a.mode == "clean":
            ok = mode_clean(a, tmp)
        elif a.mode == "variants":
            ok = mode_variants(a, tmp, against=False)
        elif a.mode == "against-variants":
            ok = mode_variants(a, tmp, against=True)
        elif a.mode == "power":
            ok = mode_power(a, tmp)
        elif a.mode == "against-fault":
            ok = mode_against_fault(a, tmp)
        elif a.mode == "long":
            ok = mode_long(a, tmp)
        else:
            ok = mode_all_faults(a, tmp)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
