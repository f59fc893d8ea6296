#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Fails when a case names a clause that the contract document lacks, or when
a clause of the document has no case.

  check_coverage.py --suite build/suite/sandboxd-conformance \
                    --contract cases/contract/CONTRACT.md
"""
import argparse
import re
import subprocess
import sys


def document_clauses(path):
    with open(path, encoding="utf-8") as f:
        ids = re.findall(r'<a id="clause-([A-Z][0-9]+)"></a>\*\*\1 ', f.read())
    if not ids:
        sys.exit("check_coverage: no clauses found in %s" % path)
    return set(ids)


def case_clauses(suite):
    # The transport profile adds the T cases to the selection.
    out = subprocess.run([suite, "--list", "--profile", "transport"], check=True,
                         capture_output=True, text=True, timeout=60).stdout
    cases = {}
    for line in out.splitlines()[1:]:
        cols = line.split()
        if len(cols) >= 3 and re.fullmatch(r"[A-Z][0-9]+-[0-9]+", cols[0]):
            cases[cols[0]] = [c for c in cols[2].split(",") if c]
    if not cases:
        sys.exit("check_coverage: %s --list printed no cases" % suite)
    return cases


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--suite", required=True)
    ap.add_argument("--contract", required=True)
    a = ap.parse_args()
    doc = document_clauses(a.contract)
    cases = case_clauses(a.suite)
    problems = []
    named = set()
    for cid, clauses in sorted(cases.items()):
        for c in clauses:
            named.add(c)
            if c not in doc:
                problems.append("case %s names clause %s, which %s lacks" % (cid, c, a.contract))
    for c in sorted(doc - named, key=lambda c: (c[0], int(c[1:]))):
        problems.append("clause %s has no case" % c)
    for p in problems:
        print("check_coverage: " + p)
    print("check_coverage: %d cases, %d clauses in the document, %d named by cases"
          % (len(cases), len(doc), len(named & doc)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
