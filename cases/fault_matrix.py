#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Proves that the conformance cases can tell a broken runtime from a good one.

Every cases/<area>/faults.tsv maps case IDs to fault switches of the
fault-injection build `sandboxd-ref-faulty` (one `case-id<TAB>fault` pair a
line; '#' starts a comment). Optional further columns: `seeds=N`, a race
fault that each of N seeded runs must catch with no retry; `request=REGEX`,
a regular expression that the request named by every failure of the case
must match, so a case that blames the wrong request, e.g. a probe it sent in
between, is caught too. Modes:

  clean              run every case against the clean sandboxd-ref in launch
                     mode: all must pass (none may fail, time out, error or
                     be skipped, except cases of optional profiles), and
                     every case must be mapped to at least one fault (or be
                     proven elsewhere, see PROVEN_ELSEWHERE_TAGS), and every
                     mapped ID must exist;
  fault NAME         run the cases mapped to NAME against
                     `sandboxd-ref-faulty --fault NAME`: each must come out
                     fail or timeout;
  variant NAME       cases/variants.tsv names legal variants: switches of
                     the fault build that make the daemon behave differently
                     but still conformantly (`name<TAB>extra daemon args or
                     -<TAB>tags<TAB>IDs allowed to fail or -`, the last
                     column optional). Runs the cases of those tags against
                     `sandboxd-ref-faulty --fault NAME <args>`: every one
                     must pass, except the listed IDs (SHOULD cases the
                     variant gives up on purpose), and a case may skip only
                     if it also skips against the clean daemon.
  variants           every legal variant of variants.tsv, in the sets of
                     compatible ones that variant_sets.tsv names (one
                     daemon per set, all its variants switched on; a set
                     that is refused is run again one variant at a time);
  --confine          (with any mode) the same, with the runtime launched by
                     --confine-runtime: what passes unconfined must pass
                     confined;
  sweep NAME         cases/sweeps.tsv names sweep faults, each breaking one
                     whole capability (every Execute, every Start, all of
                     REST, every file GET), with the IDs allowed to still
                     pass (`fault<TAB>IDs`, several lines per fault add up).
                     Runs the whole suite against `sandboxd-ref-faulty
                     --fault NAME`: a case outside the list that passes
                     could not have checked its clause (a false pass), and a
                     case that errors blames the suite for a broken runtime;
                     either fails the test.
"""
import argparse
import glob
import json
import os
import re
import subprocess
import sys
import tempfile
import time

# Tags whose cases are proven by other tests (the transport profile is
# proven through a buffering proxy configuration, not a daemon fault).
PROVEN_ELSEWHERE_TAGS = {"transport"}

LAUNCH = ("{daemon} {faults}--listen-host 127.0.0.1 --grpc-port {{grpc_port}} "
          "--rest-port {{rest_port}} --root-dir {{root}}")


def load_matrix(cases_dir, seeds=None, requests=None):
    matrix = {}  # fault -> [case ids]
    for path in sorted(glob.glob(os.path.join(cases_dir, "**", "faults.tsv"), recursive=True)):
        with open(path, encoding="utf-8") as f:
            for n, line in enumerate(f, 1):
                line = line.split("#", 1)[0].strip()
                if not line:
                    continue
                parts = [p.strip() for p in line.split("\t")]
                if len(parts) == 1:
                    parts = line.split()
                if len(parts) < 2 or not parts[0] or not parts[1]:
                    sys.exit(f"{path}:{n}: want 'case-id<TAB>fault[<TAB>seeds=N][<TAB>request=REGEX]', "
                             f"got {line!r}")
                matrix.setdefault(parts[1], []).append(parts[0])
                for opt in parts[2:]:
                    key, _, val = opt.partition("=")
                    if key == "seeds":
                        try:
                            k = int(val)
                        except ValueError:
                            sys.exit(f"{path}:{n}: seeds=N wants a number, got {opt!r}")
                        if seeds is not None:
                            seeds[parts[1]] = max(seeds.get(parts[1], 1), k)
                    elif key == "request":
                        try:
                            rx = re.compile(val)
                        except re.error as e:
                            sys.exit(f"{path}:{n}: bad request regex {val!r}: {e}")
                        if requests is not None:
                            requests[(parts[1], parts[0])] = rx
                    else:
                        sys.exit(f"{path}:{n}: unknown option {opt!r} (seeds=N or request=REGEX)")
    return matrix


def failure_requests(doc):
    """id -> [request of each failure] in a results document."""
    out = {}
    for c in doc.get("cases", []):
        out[c["id"]] = [f.get("request") or "" for f in c.get("failures", [])]
    return out


def load_variants(cases_dir):
    variants = {}  # name -> (extra args, tags, ids allowed to fail)
    path = os.path.join(cases_dir, "variants.tsv")
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.split("#", 1)[0].rstrip("\n")
            if not line.strip():
                continue
            cols = [c.strip() for c in line.split("\t")]
            if len(cols) not in (3, 4) or not cols[0] or not cols[2]:
                sys.exit(f"{path}:{n}: want 'variant<TAB>args or -<TAB>tags[<TAB>ids or -]', "
                         f"got {line!r}")
            args = "" if cols[1] == "-" else cols[1]
            may_fail = set() if len(cols) == 3 or cols[3] == "-" else set(cols[3].split(","))
            variants[cols[0]] = (args, cols[2], may_fail)
    return variants


def load_sweeps(cases_dir):
    sweeps = {}  # fault -> ids allowed to pass
    path = os.path.join(cases_dir, "sweeps.tsv")
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            cols = line.split("\t")
            if len(cols) != 2 or not cols[0].startswith("sweep-") or not cols[1].strip():
                sys.exit(f"{path}:{n}: want 'sweep-NAME<TAB>IDs', got {line!r}")
            ids = {i.strip() for i in cols[1].split(",") if i.strip() and i.strip() != "-"}
            sweeps.setdefault(cols[0].strip(), set()).update(ids)
    return sweeps


def case_results(doc):
    """(id, outcome, tags) of every case in a results document."""
    for c in doc.get("cases", []):
        tags = c.get("tags", [])
        if isinstance(tags, str):
            tags = [t for t in tags.split(",") if t]
        yield c["id"], c.get("outcome"), set(tags)


# Suite options every run of this invocation gets (--confine: the runtime
# in a private mount namespace, host read-only).
COMMON_ARGS = []


def run_suite(suite, launch, extra, workdir, seed=1):
    out = os.path.join(workdir, "results.json")
    cmd = ([suite, "--launch", launch, "--json", out, "--jobs", "2", "--seed", str(seed)] +
           COMMON_ARGS + extra)
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                          timeout=900)
    if not os.path.exists(out):
        print(proc.stdout)
        sys.exit(f"suite wrote no results (exit {proc.returncode})")
    with open(out, encoding="utf-8") as f:
        return proc, json.load(f)


def require_served(proc, doc, what):
    """Stops when the runtime never served the run: a variant run in which
    every case skipped because the runtime did not start (a confined runtime
    whose binary lies under the host's /tmp, say) would accept vacuously."""
    stopped = doc.get("stopped") or {}
    if proc.returncode in (3, 4) or stopped.get("why") == "unreachable":
        print(proc.stdout)
        sys.exit(f"{what}: the runtime never served the run (exit {proc.returncode}"
                 f"{': ' + stopped.get('detail', '').splitlines()[0] if stopped.get('detail') else ''})"
                 f"; a run that checked nothing accepts nothing")


def focus_of(ids):
    return "^(" + "|".join(ids) + ")( |$)"


def run_alone(a, launch, ids, tmp, what):
    """Outcome by ID of the cases `ids` run once more on their own (seed 2):
    a case that could not decide in time beside other work gets this one
    second chance; a wrong answer is never retried by the callers."""
    proc, doc = run_suite(a.suite, launch, ["--focus", focus_of(ids)], tmp, seed=2)
    require_served(proc, doc, what)
    return {i: o for i, o, _ in case_results(doc)}


def check_variants(a, names, args, tags, may_fail, tmp, quiet=False):
    """Runs the cases of `tags` against the fault build with the variants
    `names` switched on: every case must pass, except the IDs of may_fail,
    and a case may skip only if it skips on the clean daemon too. Returns
    (accepted, number of cases run)."""
    # A variant with daemon arguments is those arguments to the clean
    # behaviour, not a switch of the fault table (FAULTS.md).
    variants = load_variants(a.cases_dir)
    switches = ",".join(n for n in names if not variants[n][0])
    label = ",".join(names)
    faults = (f"--fault {switches} " if switches else "") + (f"{args} " if args else "")
    launch = LAUNCH.format(daemon=a.faulty, faults=faults)
    proc, doc = run_suite(a.suite, launch, ["--tags", tags], tmp)
    require_served(proc, doc, f"variants {label}")
    results = [r for r in case_results(doc) if r[1] not in (None, "not-run")]
    if not any(o == "pass" for _, o, _ in results):
        print(proc.stdout)
        print(f"variants {label}: no case of {tags} passed; a run that checked nothing "
              f"accepts nothing")
        return False, len(results)
    if not results:
        print(proc.stdout)
        print(f"no case ran for tags {tags}")
        return False, 0
    bad = [(i, o) for i, o, _ in results
           if o != "pass" and not (i in may_fail and o == "fail") and o != "skip"]
    skipped = [i for i, o, _ in results if o == "skip"]
    if skipped:
        # A skip is honest only if the clean daemon skips the case too.
        focus = "^(" + "|".join(skipped) + ")( |$)"
        cproc, cdoc = run_suite(a.suite, LAUNCH.format(daemon=a.daemon, faults=""),
                                ["--focus", focus], tmp)
        require_served(cproc, cdoc, "the clean daemon")
        clean = {i: o for i, o, _ in case_results(cdoc)}
        differ = [i for i in skipped if clean.get(i) != "skip"]
        if differ:
            # A case that could not decide in time on a loaded machine skips
            # too: the variants get one run of those cases alone, and only a
            # case that skips again refuses them.
            again = run_alone(a, launch, differ, tmp, f"variants {label}")
            for i in differ:
                if again.get(i) == "skip":
                    bad.append((i, "skip (passes on the clean daemon)"))
                elif again.get(i) not in ("pass",) and not (i in may_fail and again.get(i) == "fail"):
                    bad.append((i, f"skip, then {again.get(i)} alone"))
                else:
                    print(f"{label}: {i}: skipped beside the others, {again.get(i)} alone")
    unknown = sorted(may_fail - {i for i, _, _ in results})
    for i, o, _ in results:
        if i in may_fail:
            print(f"{label}: {i}: {o} (allowed to fail)")
    if bad or unknown:
        if not quiet:
            print(proc.stdout)
        for i, o in bad:
            print(f"LEGAL VARIANT {label} REFUSED by {i}: {o}")
        for i in unknown:
            print(f"variants.tsv allows {i} to fail, but it did not run")
        return False, len(results)
    return True, len(results)


def load_variant_sets(cases_dir, variants):
    """variant_sets.tsv: `set<TAB>variant,variant,...`; every variant of
    variants.tsv in exactly one set."""
    sets = {}
    path = os.path.join(cases_dir, "variant_sets.tsv")
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            cols = line.split("\t")
            if len(cols) != 2 or not cols[1].strip():
                sys.exit(f"{path}:{n}: want 'set<TAB>variant,variant,...', got {line!r}")
            sets[cols[0].strip()] = [v.strip() for v in cols[1].split(",") if v.strip()]
    listed = [v for vs in sets.values() for v in vs]
    unknown = sorted(set(listed) - set(variants))
    twice = sorted({v for v in listed if listed.count(v) > 1})
    missing = sorted(set(variants) - set(listed))
    if unknown or twice or missing:
        sys.exit(f"{path}: not in variants.tsv: {unknown}; in two sets: {twice}; "
                 f"in no set: {missing}")
    return sets


def check_variant_sets(a, tmp):
    """Every legal variant at once, a set of compatible ones per daemon
    (variant_sets.tsv): the union of their tags, their allowed failures and
    their arguments. A set that is refused is run again one variant at a
    time, so the verdict is each variant's own: a variant is refused only
    if it is refused alone."""
    variants = load_variants(a.cases_dir)
    sets = load_variant_sets(a.cases_dir, variants)
    if a.fault:  # one set only (a ctest each, so sets run in parallel)
        if a.fault not in sets:
            sys.exit(f"variant set {a.fault!r} is not in variant_sets.tsv")
        sets = {a.fault: sets[a.fault]}
    refused = []
    for name, members in sets.items():
        t0 = time.time()
        args = " ".join(variants[v][0] for v in members if variants[v][0])
        tags = ",".join(sorted({t for v in members for t in variants[v][1].split(",")}))
        may_fail = set().union(*(variants[v][2] for v in members))
        ok, n = check_variants(a, members, args, tags, may_fail, tmp, quiet=True)
        print(f"set {name} ({len(members)} variants, {n} cases of {tags}): "
              f"{'accepted' if ok else 'refused'} in {time.time() - t0:.0f} s", flush=True)
        if ok:
            continue
        for v in members:
            vargs, vtags, vmay = variants[v]
            vok, vn = check_variants(a, [v], vargs, vtags, vmay, tmp)
            print(f"  variant {v} alone: {'accepted' if vok else 'REFUSED'} ({vn} cases)",
                  flush=True)
            if not vok:
                refused.append(v)
    if refused:
        sys.exit(f"legal variants refused: {', '.join(refused)}")
    n = sum(len(m) for m in sets.values())
    print(f"all {n} legal variants of {', '.join(sets)} accepted "
          f"({'confined' if a.confine else 'unconfined'})")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--suite", required=True)
    ap.add_argument("--daemon", required=True)
    ap.add_argument("--faulty", required=True)
    ap.add_argument("--cases-dir", required=True)
    ap.add_argument("mode", choices=["clean", "fault", "variant", "variants", "sweep"])
    ap.add_argument("fault", nargs="?")
    ap.add_argument("--tags", help="clean mode: run only the cases of these tags (the "
                    "catalog-wide checks are left to the whole clean run)")
    ap.add_argument("--confine", action="store_true",
                    help="run the runtime with --confine-runtime (needs root; exits 77 without)")
    a = ap.parse_args()
    if a.confine:
        if os.geteuid() != 0:
            print("skipped: --confine-runtime needs root")
            sys.exit(77)
        COMMON_ARGS.append("--confine-runtime")
    seeds = {}  # fault -> runs that must each catch it (race faults)
    requests = {}  # (fault, case id) -> regex every failure's request must match
    matrix = load_matrix(a.cases_dir, seeds, requests)

    with tempfile.TemporaryDirectory(prefix="sbx-faults-") as tmp:
        if a.mode == "clean":
            extra = ["--tags", a.tags] if a.tags else []
            proc, doc = run_suite(a.suite, LAUNCH.format(daemon=a.daemon, faults=""), extra, tmp)
            require_served(proc, doc, "the clean daemon")
            results = list(case_results(doc))
            if a.tags:
                results = [r for r in results if r[1] not in (None, "not-run")]
                if not results:
                    sys.exit(f"no case of tags {a.tags} ran")
            bad = [(i, o) for i, o, tags in results
                   if o != "pass" and not (tags & PROVEN_ELSEWHERE_TAGS and o == "skip")]
            skipped = [i for i, o in bad if o == "skip"]
            if skipped:
                # A case that could not decide in time beside other tests
                # skips: it gets one run alone, and only a second skip
                # counts (a wrong answer fails at once, never retried).
                again = run_alone(a, LAUNCH.format(daemon=a.daemon, faults=""), skipped, tmp,
                                  "the clean daemon")
                for i in skipped:
                    print(f"clean daemon: {i}: skipped beside the others, {again.get(i)} alone")
                bad = [(i, o) for i, o in bad if o != "skip" or again.get(i) != "pass"]
            mapped = {i for ids in matrix.values() for i in ids}
            catalog = {i: tags for i, _, tags in results}
            unknown = [] if a.tags else sorted(mapped - set(catalog))
            unproven = [] if a.tags else sorted(i for i, tags in catalog.items()
                                                if i not in mapped and not tags & PROVEN_ELSEWHERE_TAGS)
            if bad or unknown or unproven or proc.returncode != 0:
                print(proc.stdout)
                for i, o in bad:
                    print(f"NOT PASSING on the clean daemon: {i}: {o}")
                for i in unknown:
                    print(f"faults.tsv names a case that does not exist: {i}")
                for i in unproven:
                    print(f"case not shown to fail against any fault: {i}")
                sys.exit(1)
            if a.tags:
                print(f"clean daemon: {len(results)} cases of {a.tags}, all pass")
            else:
                print(f"clean daemon: {len(results)} cases, all pass; "
                      f"every case mapped to a fault ({len(matrix)} faults)")
        elif a.mode == "fault":
            ids = sorted(set(matrix.get(a.fault, [])))
            if not ids:
                sys.exit(f"no case is mapped to fault {a.fault!r}")
            launch = LAUNCH.format(daemon=a.faulty, faults=f"--fault {a.fault} ")
            if seeds.get(a.fault, 1) > 1:
                # A narrow race fault (a real bug's window): every seeded
                # run must catch it, no retries.
                focus = "^(" + "|".join(ids) + ")( |$)"
                missed = []
                for seed in range(1, seeds[a.fault] + 1):
                    proc, doc = run_suite(a.suite, launch, ["--focus", focus], tmp, seed=seed)
                    got = {i: o for i, o, _ in case_results(doc)}
                    for i in ids:
                        note = next((c.get("notes") for c in doc.get("cases", [])
                                     if c["id"] == i), "")
                        print(f"{a.fault}: seed {seed}: {i}: {got.get(i, 'not run')} {note}")
                    missed += [(seed, i) for i in ids if got.get(i) not in ("fail", "timeout")]
                if missed:
                    print(proc.stdout)
                    sys.exit(f"fault {a.fault} went unnoticed on " +
                             ", ".join(f"seed {s}: {i}" for s, i in missed))
                return
            got = {}
            named = {}  # case id -> requests its failures named
            # Race cases catch their fault with high probability, not
            # certainty, on a loaded machine: a case that missed it is given
            # two more runs (a clean pass, by contrast, is never retried).
            pending = ids
            for attempt in range(3):
                focus = "^(" + "|".join(pending) + ")( |$)"
                proc, doc = run_suite(a.suite, launch, ["--focus", focus], tmp, seed=attempt + 1)
                got.update({i: o for i, o, _ in case_results(doc)
                            if o not in (None, "not-run")})
                for i, reqs in failure_requests(doc).items():
                    named.setdefault(i, []).extend(reqs)
                pending = [i for i in ids if got.get(i) not in ("fail", "timeout")]
                if not pending:
                    break
                print(f"attempt {attempt + 1}: not caught by {', '.join(pending)}; retrying")
            for i in ids:
                print(f"{a.fault}: {i}: {got.get(i, 'not run')}")
            if pending:
                print(proc.stdout)
                sys.exit(f"fault {a.fault} went unnoticed by: {', '.join(pending)}")
            misnamed = []
            for i in ids:
                want = requests.get((a.fault, i))
                wrong = sorted({r for r in named.get(i, []) if not want.search(r)}) if want else []
                if want and (wrong or not named.get(i)):
                    misnamed.append(i)
                    print(f"{a.fault}: {i}: failures name requests that do not match "
                          f"{want.pattern!r}: {wrong or '(no failure kept)'}")
            if misnamed:
                sys.exit(f"fault {a.fault}: failures of {', '.join(misnamed)} do not name the "
                         f"request that produced them")
        elif a.mode == "variant":
            variants = load_variants(a.cases_dir)
            if a.fault not in variants:
                sys.exit(f"variant {a.fault!r} is not in variants.tsv")
            args, tags, may_fail = variants[a.fault]
            ok, n = check_variants(a, [a.fault], args, tags, may_fail, tmp)
            if not ok:
                sys.exit(1)
            print(f"variant {a.fault}: {n} cases of {tags} accept it")
        elif a.mode == "variants":
            check_variant_sets(a, tmp)
        elif a.mode == "sweep":
            sweeps = load_sweeps(a.cases_dir)
            if a.fault not in sweeps:
                sys.exit(f"sweep {a.fault!r} is not in sweeps.tsv")
            allowed = sweeps[a.fault]
            launch = LAUNCH.format(daemon=a.faulty, faults=f"--fault {a.fault} ")
            proc, doc = run_suite(a.suite, launch, [], tmp)
            require_served(proc, doc, f"sweep {a.fault}")
            results = [r for r in case_results(doc) if r[1] not in (None, "not-run")]
            if not results:
                print(proc.stdout)
                sys.exit(f"no case ran against {a.fault}")
            outcome = {i: o for i, o, _ in results}
            errored = sorted(i for i, o in outcome.items() if o == "error")
            if errored:
                # An error may come from a loaded machine (a private instance
                # slow to start): those cases get one more run on their own.
                print(f"errors: {', '.join(errored)}; running them again")
                again = run_alone(a, launch, errored, tmp, f"sweep {a.fault}")
                outcome.update({i: o for i, o in again.items() if o not in (None, "not-run")})
            false_pass = sorted(i for i, o in outcome.items() if o == "pass" and i not in allowed)
            errors = sorted(i for i, o in outcome.items() if o == "error")
            unknown = sorted(allowed - {i for i, _, _ in case_results(doc)})
            counts = {}
            for o in outcome.values():
                counts[o] = counts.get(o, 0) + 1
            print(f"sweep {a.fault}: {len(results)} cases: " +
                  ", ".join(f"{n} {o}" for o, n in sorted(counts.items())))
            not_passing = sorted(i for i in allowed if outcome.get(i) not in (None, "pass"))
            if not_passing:
                print("allowed to pass, came out otherwise: " +
                      ", ".join(f"{i} ({outcome[i]})" for i in not_passing))
            if false_pass or errors or unknown:
                print(proc.stdout)
                for i in false_pass:
                    print(f"PASSED AGAINST {a.fault} (not in sweeps.tsv): {i}: the case could "
                          f"not check its clause without the broken capability, or belongs in "
                          f"the list")
                for i in errors:
                    print(f"ERROR AGAINST {a.fault}: {i}: a broken runtime should make it fail "
                          f"(naming the prerequisite clause) or skip, not blame the suite")
                for i in unknown:
                    print(f"sweeps.tsv allows {i} to pass, but there is no such case")
                sys.exit(1)


if __name__ == "__main__":
    main()
