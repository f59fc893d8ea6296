#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Tests of `sandboxd-conformance compare`: the matrix against the results
documents it reads (recomputed here independently), folding, the four
outputs, regressions with --base and their exemptions, baseline upkeep, and
every kind of bad input (exit 2 with a message, never a matrix). Results come
from real runs of the runner on its test catalog (fake_cases.c) against the
stand-in runtime (fake_runtime.py), edited copies of them for the bad cases."""
import argparse
import copy
import html.parser
import json
import os
import subprocess
import sys
import tempfile

A = None
FAILURES = []


def check(cond, what):
    print(("  ok   " if cond else "  FAIL ") + what)
    if not cond:
        FAILURES.append(what)
    return cond


def run(args, mode=None, timeout=240):
    env = dict(os.environ)
    env.pop("SBXC_FAKE_MODE", None)
    if mode:
        env["SBXC_FAKE_MODE"] = mode
    p = subprocess.run([A.runner] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       env=env, timeout=timeout)
    return p.returncode, p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace")


def produce(tmp, name, mode, extra=()):
    path = os.path.join(tmp, name)
    launch = (f"/usr/bin/python3 {A.fake_runtime} --grpc-port {{grpc_port}} "
              "--rest-port {rest_port} --root {root}")
    rc, _, err = run(["--launch", launch, "--launch-env", "SANDBOX_FROM_TEST=yes", "--jobs", "4", "--unresponsive-after", "0",
                      "--quiet", "--json", path] + list(extra), mode)
    if not check(os.path.exists(path), f"run {name} wrote its results (exit {rc})"):
        print(err)
        sys.exit(1)
    with open(path, encoding="utf-8") as f:
        return path, json.load(f)


def save(tmp, name, doc):
    path = os.path.join(tmp, name)
    with open(path, "w", encoding="utf-8") as f:
        json.dump(doc, f) if not isinstance(doc, str) else f.write(doc)
    return path


def cases(doc):
    return {c["id"]: c for c in doc["cases"]}


def compare_json(tmp, args, name="cmp.json"):
    out = os.path.join(tmp, name)
    if os.path.exists(out):
        os.unlink(out)
    rc, so, se = run(["compare"] + args + ["--json", out])
    doc = None
    if os.path.exists(out):
        with open(out, encoding="utf-8") as f:
            doc = json.load(f)
    return rc, so, se, doc


class Page(html.parser.HTMLParser):
    """Ids, links and anything that would load from outside the page."""

    def __init__(self):
        super().__init__()
        self.ids, self.links, self.external = [], [], []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if "id" in a:
            self.ids.append(a["id"])
        if tag == "a" and a.get("href", "").startswith("#"):
            self.links.append(a["href"][1:])
        for k in ("src", "href"):
            v = a.get(k) or ""
            if tag != "a" and v:
                self.external.append(v)
        if tag == "link":
            self.external.append(a.get("href", "link"))


def check_page(path, what):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    p = Page()
    p.feed(text)
    check(len(p.ids) == len(set(p.ids)), f"{what}: every id is unique")
    missing = [l for l in p.links if l not in p.ids]
    check(not missing, f"{what}: every in-page link has its target {missing[:5]}")
    check(not p.external and "url(" not in text and "@import" not in text,
          f"{what}: self-contained (no external assets) {p.external[:3]}")
    return text


# ---- scenarios ------------------------------------------------------------

def test_matrix(tmp, good, mixed):
    print("matrix of two runs")
    (gp, gd), (mp, md) = good, mixed
    rc, out, err, doc = compare_json(tmp, [gp, mp])
    check(rc == 0 and doc is not None, f"compare A B exits 0 and writes JSON (got {rc}: {err})")
    gc, mc = cases(gd), cases(md)
    differ = sorted(i for i in gc if gc[i]["status"] != mc[i]["status"])
    agree = sorted(i for i in gc if gc[i]["status"] == mc[i]["status"])
    check(len(differ) >= 5 and agree, f"the two runs differ in some cases ({differ})")
    rows = {c["id"]: c for c in doc["cases"]}
    check(sorted(rows) == sorted(gc), "every case of the runs has a row")
    check(all(rows[i]["agree"] == (i in agree) for i in rows), "agree flags match the inputs")
    check(all(rows[i]["cells"][0]["status"] == gc[i]["status"] and
              rows[i]["cells"][1]["status"] == mc[i]["status"] for i in rows),
          "each cell is the run's status of that case")
    first = mc["P2-902"]["failures"][0]["observed"]
    check(rows["P2-902"]["cells"][1]["detail"] == first,
          "a failed cell carries the first failure's observed value")
    check(rows["P3-903"]["cells"][1]["detail"] == mc["P3-903"]["reason"],
          "a skipped cell carries the skip reason")
    check(doc["cases_agree"] == len(agree), "cases_agree counts the agreeing rows")
    for i in differ:
        check(i in out, f"console shows differing case {i}")
    quiet_agree = [i for i in agree if i in out]
    check(not quiet_agree, f"console folds agreeing cases by default ({quiet_agree})")
    check("--all" in out, "console says how to unfold")
    rc, out_all, _ = run(["compare", "--all", gp, mp])
    check(rc == 0 and all(i in out_all for i in agree), "--all shows the agreeing cases too")
    cl = {c["id"]: c for c in doc["clauses"]}
    gcl = {c["id"]: c["status"] for c in gd["clauses"]}
    mcl = {c["id"]: c["status"] for c in md["clauses"]}
    check(all(cl[k]["cells"] == [gcl[k], mcl[k]] for k in cl), "clause cells are the roll-ups")
    md_path = os.path.join(tmp, "cmp.md")
    html_path = os.path.join(tmp, "cmp.html")
    rc, _, _ = run(["compare", gp, mp, "--markdown", md_path, "--html", html_path, "--quiet"])
    with open(md_path, encoding="utf-8") as f:
        mdt = f.read()
    check(rc == 0 and all(f"| {i} " in mdt for i in differ) and
          not any(f"| {i} " in mdt for i in agree), "Markdown lists the differing rows only")
    text = check_page(html_path, "comparison HTML")
    check(text.find('id="differ"') < text.find('id="glance"') < text.find('id="group-'),
          "comparison HTML: differences, then the pictures, then the sections")
    check(text.count('class="glance"') == 2, "comparison HTML: one picture per run")
    rc, out3, _ = run(["compare", gp, mp, gp])
    check(rc == 0 and "  C  " in out3, "three runs compare (labels A, B, C)")


def test_absent(tmp, good, mixed):
    print("cases present in one run only")
    (gp, gd), (mp, md) = good, mixed
    less = copy.deepcopy(md)
    less["cases"] = [c for c in less["cases"] if c["id"] != "P7-907"]
    lp = save(tmp, "less.json", less)
    rc, out, err, doc = compare_json(tmp, [gp, lp])
    rows = {c["id"]: c for c in doc["cases"]} if doc else {}
    check(rc == 0 and rows.get("P7-907", {}).get("cells", [{}, {}])[1].get("status") == "absent",
          f"a case missing from a run is shown as absent ({err.strip()})")
    rc, out, err, doc = compare_json(tmp, ["--base", gp, lp])
    dis = [d["id"] for d in doc["base"]["disappeared"]] if doc else []
    check(rc == 1 and "P7-907" in dis, "--base: a passing case that disappeared is listed and gates")
    rc, out, err, doc = compare_json(tmp, ["--base", lp, gp])
    new = [d["id"] for d in doc["base"]["new_cases"]] if doc else []
    check("P7-907" in new, "--base: a case only NEW has is listed as new")


def test_regressions(tmp, good, mixed):
    print("regressions (--base)")
    (gp, gd), (mp, md) = good, mixed
    gc, mc = cases(gd), cases(md)
    bad = {"fail", "timeout", "error"}
    want_regr = sorted(i for i in gc if gc[i]["outcome"] == "pass" and mc[i]["outcome"] != "pass")
    want_new = sorted(i for i in gc if mc[i]["outcome"] in bad and gc[i]["outcome"] not in bad)
    rc, out, err, doc = compare_json(tmp, ["--base", gp, mp])
    b = doc["base"] if doc else {}
    check(rc == 1, f"a case that passed in OLD and does not in NEW: exit 1 (got {rc})")
    got_regr = sorted(d["id"] for k in ("new_failures", "changed", "disappeared")
                      for d in b.get(k, []) if d["regression"])
    check(got_regr == want_regr, f"regressions are exactly {want_regr} (got {got_regr})")
    check(sorted(d["id"] for d in b.get("new_failures", [])) == want_new,
          f"new failures are exactly {want_new}")
    check(b.get("regressions") == len(want_regr) and doc["exit_code"] == 1,
          "the JSON counts the regressions and the exit code")
    check("REGRESSION" in out and "P2-902" in out, "console lists the regressions")
    rc, out, err, doc = compare_json(tmp, ["--base", mp, gp])
    fixed = sorted(d["id"] for d in doc["base"]["fixed"]) if doc else []
    want_fixed = sorted(i for i in gc if mc[i]["outcome"] in bad and gc[i]["outcome"] == "pass")
    check(rc == 0 and fixed == want_fixed, f"the other way round: fixed {want_fixed}, exit 0")
    rc, _, _ = run(["compare", "--base", gp, gp])
    check(rc == 0, "a run against itself: no regressions, exit 0")
    allow = ",".join(want_regr[:-1])
    rc, out, _ = run(["compare", "--base", gp, mp, "--allow", allow])
    check(rc == 1 and want_regr[-1] in out, "--allow of all but one: still exit 1")
    rc, out, _ = run(["compare", "--base", gp, mp, "--allow", allow, "--allow", want_regr[-1]])
    check(rc == 0 and "exempt" in out, "--allow of every regression: exit 0, shown as exempt")
    base = save(tmp, "known.yaml", "expected_failures:\n" +
                "".join(f"  - id: {i}\n    reason: known\n" for i in want_regr))
    rc, _, _ = run(["compare", "--base", gp, mp, "--baseline", base])
    check(rc == 0, "a baseline listing every regression exempts them")
    unknown = save(tmp, "unknown.yaml", "- id: X9-999\n  reason: gone\n")
    rc, _, err = run(["compare", "--base", gp, mp, "--baseline", unknown])
    check(rc == 2 and "X9-999" in err, "a baseline naming an unknown case: exit 2 naming it")
    rc, _, err = run(["compare", "--base", gp, mp, "--allow", "NOPE-1"])
    check(rc == 2 and "NOPE-1" in err, "--allow of an unknown case: exit 2 naming it")
    # NEW's own baseline: its expected failures are exempt.
    nb, nbd = produce(tmp, "mixed-base.json", None, ["--baseline", base])
    expected = sorted(i for i, c in cases(nbd).items() if c["status"] == "expected-fail")
    others = ",".join(i for i in want_regr if i not in expected)
    rc, _, _ = run(["compare", "--base", gp, nb, "--allow", others])
    check(expected and rc == 0,
          f"cases NEW's run expected to fail (its baseline: {expected}) are exempt")


def test_baseline_upkeep(tmp, good, mixed):
    print("baseline upkeep")
    (gp, gd), (mp, md) = good, mixed
    mc = cases(md)
    bad = sorted(i for i, c in mc.items() if c["outcome"] in ("fail", "timeout"))
    errors = sorted(i for i, c in mc.items() if c["outcome"] == "error")
    kb = os.path.join(tmp, "written.yaml")
    rc, out, err = run(["compare", "--write-baseline", kb, mp])
    check(rc == 0 and os.path.exists(kb), f"--write-baseline writes the file ({err.strip()})")
    with open(kb, encoding="utf-8") as f:
        text = f.read()
    ids = sorted(l.split(":", 1)[1].strip() for l in text.splitlines()
                 if l.strip().startswith("- id:"))
    check(ids == bad, f"one entry per failed or timed-out case ({ids})")
    check(errors and all(f"not added {i}" in out for i in errors),
          f"errors (the suite's) are not added, and said so ({errors})")
    check(mc["P2-902"]["failures"][0]["observed"].split("&")[0].strip() in text,
          "an entry's reason comes from the first failure")
    check('link: ""' in text, "the link is left for the user")
    # The written file is a baseline the runner accepts: every failure is then expected.
    launch = (f"/usr/bin/python3 {A.fake_runtime} --grpc-port {{grpc_port}} "
              "--rest-port {rest_port} --root {root}")
    bp = os.path.join(tmp, "with-written.json")
    run(["--launch", launch, "--launch-env", "SANDBOX_FROM_TEST=yes", "--jobs", "4", "--unresponsive-after", "0",
         "--quiet", "--baseline", kb, "--json", bp])
    with open(bp, encoding="utf-8") as f:
        wc = cases(json.load(f))
    check(all(wc[i]["status"] == "expected-fail" for i in bad),
          "a run with the written baseline expects every one of those failures")
    # Rewriting keeps what the user filled in.
    with open(kb, encoding="utf-8") as f:
        edited = f.read().replace('link: ""', 'link: "https://example.org/7"', 1)
    with open(kb, "w", encoding="utf-8") as f:
        f.write(edited)
    rc, out, _ = run(["compare", "--write-baseline", kb, mp])
    with open(kb, encoding="utf-8") as f:
        again = f.read()
    check(rc == 0 and "https://example.org/7" in again and "0 entries added" in out,
          "rewriting keeps existing entries as the user edited them")
    rc, out, _ = run(["compare", "--prune-baseline", kb, gp])
    with open(kb, encoding="utf-8") as f:
        pruned = f.read()
    gcs = cases(gd)
    still = sorted(i for i in bad if gcs[i]["outcome"] != "pass")
    left = sorted(l.split(":", 1)[1].strip() for l in pruned.splitlines()
                  if l.strip().startswith("- id:"))
    check(rc == 0 and left == still, f"--prune-baseline keeps only what still fails ({left})")
    check("pruned P2-902" in out, "prune says what it removed")
    fresh = os.path.join(tmp, "fresh.yaml")
    rc, out, err = run(["compare", "--write-baseline", fresh, "--prune-baseline", fresh, mp])
    check(rc == 0 and os.path.exists(fresh), f"write and prune together on a new file ({err})")
    unknown = save(tmp, "prune-unknown.yaml", "- id: X9-999\n  reason: gone\n")
    before = open(unknown, encoding="utf-8").read()
    rc, _, err = run(["compare", "--prune-baseline", unknown, gp])
    check(rc == 2 and "X9-999" in err and open(unknown, encoding="utf-8").read() == before,
          "pruning a baseline naming an unknown case: exit 2, file untouched")


def test_bad_input(tmp, good, mixed):
    print("bad input: exit 2 with a message, no matrix")
    (gp, gd), (mp, md) = good, mixed

    def edited(name, fn):
        d = copy.deepcopy(gd)
        fn(d)
        return save(tmp, name, d)

    def dup(d):
        d["cases"].append(d["cases"][0])

    def bad_outcome(d):
        d["cases"][0]["outcome"] = "great"

    def no_outcome(d):
        del d["cases"][1]["outcome"]

    def other_clauses(d):
        d["cases"][0]["clauses"] = ["P9"]

    def core(d):
        d["parameters"]["level"] = "core"

    def v2(d):
        d["schema_version"] = 2

    def renamed(d):
        for c in d["cases"]:
            c["id"] = "Z" + c["id"]

    def profile(d):
        d["parameters"]["profiles"] = ["transport"]

    scenarios = [
        ("corrupt JSON", save(tmp, "corrupt.json", '{"schema_version": 1, "cases": ['), "JSON"),
        ("empty file", save(tmp, "empty.json", ""), "empty.json"),
        ("not a results document", save(tmp, "other.json", {"hello": 1}), "not a sandboxd"),
        ("a bench result", save(tmp, "bench.json", {"schema": "sandboxd-conformance-bench/1"}),
         "bench --compare"),
        ("another schema version", edited("v2.json", v2), "schema version 2"),
        ("a case twice", edited("dup.json", dup), "twice"),
        ("an unknown outcome", edited("outcome.json", bad_outcome), "outcome"),
        ("a case without outcome", edited("nooutcome.json", no_outcome), "outcome"),
        ("another catalog", edited("catalog.json", other_clauses), "different catalogs"),
        ("another level", edited("core.json", core), "level"),
        ("another profile", edited("profile.json", profile), "profile"),
        ("a missing file", os.path.join(tmp, "missing.json"), "missing.json"),
        ("no case in common", edited("renamed.json", renamed), "share no case"),
    ]
    for what, path, needle in scenarios:
        rc, out, err = run(["compare", gp, path])
        check(rc == 2 and needle in err and "clause / case" not in out,
              f"{what}: exit 2, says '{needle}' ({err.strip()[:120]!r})")
    for args, needle in ((["--bogus"], "unknown option '--bogus'"),
                         (["--bogus", gp, mp], "unknown option '--bogus'"),
                         ([gp], "two or more"), ([], "no results"),
                         (["--base", gp], "exactly one"), (["--base", gp, gp, mp], "exactly one"),
                         (["--allow", "P1-901", gp, mp], "need --base"),
                         (["--html"], "needs a value")):
        rc, _, err = run(["compare"] + args)
        check(rc == 2 and needle in err, f"compare {' '.join(args)[:40]}: exit 2, '{needle}'")
    rc, out, _ = run(["compare", "--help"])
    check(rc == 0 and "--base" in out and "--write-baseline" in out, "compare --help")
    rc, _, err = run(["compare", gp, mp, "--html", os.path.join(tmp, "no", "such", "x.html")])
    check(rc == 4 and "cannot write" in err, "an output that cannot be written: exit 4")


def main():
    global A
    ap = argparse.ArgumentParser()
    ap.add_argument("--runner", required=True)
    ap.add_argument("--fake-runtime", required=True)
    A = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="sbxc-compare-") as tmp:
        print("producing results")
        good = produce(tmp, "good.json", "good")
        mixed = produce(tmp, "mixed.json", None)
        test_matrix(tmp, good, mixed)
        test_absent(tmp, good, mixed)
        test_regressions(tmp, good, mixed)
        test_baseline_upkeep(tmp, good, mixed)
        test_bad_input(tmp, good, mixed)
    if FAILURES:
        print(f"\n{len(FAILURES)} check(s) failed")
        return 1
    print("\nall checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
