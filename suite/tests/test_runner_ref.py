#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""The real suite in launch mode against sandboxd-ref on the health and
metadata cases: the launch path end to end, reports, and the daemon's exit
status after SIGTERM (which must be a clean exit)."""
import argparse
import json
import os
import subprocess
import sys
import tempfile


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--suite", required=True)
    ap.add_argument("--daemon", required=True)
    ap.add_argument("--xmllint", default="")
    ap.add_argument("--junit-xsd", required=True)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="sbxc-ref-") as tmp:
        rj, jx = os.path.join(tmp, "r.json"), os.path.join(tmp, "j.xml")
        p = subprocess.run([a.suite, "--launch-bundled", a.daemon, "--tags", "health,metadata",
                            "--json", rj, "--junit", jx, "--jobs", "2"],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                           timeout=500)
        print(p.stdout[-4000:])
        if not os.path.exists(rj):
            sys.exit(f"no results (exit {p.returncode})")
        doc = json.load(open(rj))
        problems = []
        ran = [c for c in doc["cases"] if c["selected"]]
        if not ran:
            problems.append("no health or metadata case selected")
        bad = [(c["id"], c["outcome"]) for c in ran if c["outcome"] not in ("pass", "skip")]
        if bad:
            problems.append(f"cases not passing against sandboxd-ref: {bad}")
        ext = doc["runtime"]["exit"]
        if not ext or ext["wait_status"] != 0:
            problems.append(f"sandboxd-ref did not exit cleanly after SIGTERM: {ext}")
        if doc["runtime"]["mode"] != "launch" or not doc["runtime"]["version"]:
            problems.append(f"runtime identity incomplete: {doc['runtime']}")
        if p.returncode != 0:
            problems.append(f"exit status {p.returncode}")
        if a.xmllint and not a.xmllint.endswith("NOTFOUND"):
            x = subprocess.run([a.xmllint, "--noout", "--schema", a.junit_xsd, jx])
            if x.returncode != 0:
                problems.append("JUnit does not validate")
        print(f"sandboxd-ref exit after SIGTERM: {ext}")
        if problems:
            sys.exit("\n".join(problems))


if __name__ == "__main__":
    main()
