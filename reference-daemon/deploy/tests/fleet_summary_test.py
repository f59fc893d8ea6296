#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""`sandboxd-conformance summary` over a fleet's results volume built from the
sample bundles: a conformant sandbox, a failing one, a listed one without a
bundle and a broken results.json; checks every line, the Markdown and the
exit status.

  fleet_summary_test.py --suite BIN --samples reports/samples
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--suite", required=True)
    ap.add_argument("--samples", required=True)
    a = ap.parse_args()
    work = tempfile.mkdtemp(prefix="sbx-fleet-")
    problems = []

    def run(*args):
        return subprocess.run([a.suite, "summary", *args], capture_output=True, text=True,
                              timeout=60)

    def expect(cond, what):
        if not cond:
            problems.append(what)

    try:
        results = os.path.join(work, "results")
        shutil.copytree(os.path.join(a.samples, "bundle"), os.path.join(results, "good"))
        os.makedirs(os.path.join(results, "bad"))
        shutil.copy(os.path.join(a.samples, "not-conformant", "results.json"),
                    os.path.join(results, "bad"))
        os.makedirs(os.path.join(results, "broken"))
        open(os.path.join(results, "broken", "results.json"), "w").write("{\"truncated\": ")
        targets = os.path.join(work, "targets")
        open(targets, "w").write("good 10.0.0.1\nbad 10.0.0.2\nbroken 10.0.0.3\n"
                                 "gone 10.0.0.4\n")
        md = os.path.join(work, "fleet.md")
        r = run("--targets", targets, "--markdown", md, results)
        lines = {l.split()[0]: l for l in r.stdout.splitlines() if l.split()}
        expect(r.returncode == 1, "a failing fleet exits %d, not 1" % r.returncode)
        expect("full conformant" in lines.get("good", ""), "good: %r" % lines.get("good"))
        expect("not conformant" in lines.get("bad", "") and "F3-002" in lines.get("bad", ""),
               "bad: %r" % lines.get("bad"))
        expect("MISSING" in lines.get("broken", ""), "broken: %r" % lines.get("broken"))
        expect("MISSING" in lines.get("gone", ""), "gone: %r" % lines.get("gone"))
        expect("4 sandboxes: 1 passed, 1 failed, 2 missing" in r.stdout, "totals: " + r.stdout)
        text = open(md).read() if os.path.exists(md) else ""
        expect("| good | full conformant |" in text and "| gone | **missing** |" in text,
               "markdown: " + text)
        r = run(os.path.join(results, "good"))
        expect(r.returncode == 0, "a conformant bundle exits %d, not 0" % r.returncode)
        expect(run("--bogus").returncode == 2, "a bad option is not a usage error")
        expect(run(os.path.join(work, "nothing-here")).returncode == 1, "no bundle is not 1")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    for p in problems:
        print("fleet-summary: FAIL: " + p)
    print("fleet-summary: %d problems" % len(problems))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
