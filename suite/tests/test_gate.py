#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""ci/gate.sh end to end on the test catalog: the baseline gate, and the
regression gate against a main branch's results (--against), with its
exemptions and its refusal of a missing results file."""
import argparse
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


def gate(args, mode=None, summary=None):
    env = dict(os.environ, SANDBOXD_CONFORMANCE=A.runner)
    env.pop("SBXC_FAKE_MODE", None)
    env.pop("GITHUB_STEP_SUMMARY", None)
    if mode:
        env["SBXC_FAKE_MODE"] = mode
    if summary:
        env["GITHUB_STEP_SUMMARY"] = summary
    launch = (f"/usr/bin/python3 {A.fake_runtime} --grpc-port {{grpc_port}} "
              "--rest-port {rest_port} --root {root}")
    p = subprocess.run(["bash", A.gate, "--launch", launch] + args +
                       ["--", "--launch-env", "SANDBOX_FROM_TEST=yes", "--jobs", "4", "--unresponsive-after", "0", "--quiet"],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, timeout=300)
    return p.returncode, p.stdout.decode(errors="replace") + p.stderr.decode(errors="replace")


def main():
    global A
    ap = argparse.ArgumentParser()
    ap.add_argument("--runner", required=True)
    ap.add_argument("--fake-runtime", required=True)
    ap.add_argument("--gate", required=True)
    A = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="sbxc-gate-") as tmp:
        main_out = os.path.join(tmp, "main")
        rc, out = gate(["--out", main_out], "good")
        main_json = os.path.join(main_out, "results.json")
        check(rc == 0 and os.path.exists(main_json), f"main branch run: exit 0, results kept ({rc})")
        pr = os.path.join(tmp, "pr")
        summary = os.path.join(tmp, "summary.md")
        rc, out = gate(["--out", pr, "--against", main_json], None, summary)
        check(rc == 1 and "regressions against" in out, f"a PR that breaks cases: exit 1 ({rc})")
        for f in ("compare.md", "compare.html", "compare.json", "results.json"):
            check(os.path.exists(os.path.join(pr, f)), f"the regression gate writes {f}")
        with open(summary, encoding="utf-8") as f:
            check("Regressions" in f.read(), "the comparison goes to the job summary")
        rc, out = gate(["--out", os.path.join(tmp, "pr2"), "--against", main_json], "good")
        check(rc == 0 and "no regressions" in out, f"an unchanged PR: exit 0 ({rc})")
        known = os.path.join(tmp, "known.yaml")
        with open(known, "w", encoding="utf-8") as f:
            f.write("- id: P2-902\n  reason: known\n- id: P5-905\n  reason: known\n"
                    "- id: F1-908\n  reason: known\n")
        rc, out = gate(["--out", os.path.join(tmp, "pr3"), "--against", main_json,
                        "--baseline", known, "--allow", "P3-903,P4-904,P6-906"])
        check(rc == 0, f"regressions exempt by the baseline and --allow: exit 0 ({rc})")
        rc, out = gate(["--out", os.path.join(tmp, "pr4"), "--against",
                        os.path.join(tmp, "none.json")])
        check(rc == 2 and "no results of the main branch" in out, "a missing MAIN.json: exit 2")
        rc, out = gate(["--out", os.path.join(tmp, "b"), "--baseline", known])
        check(rc == 1 and "new conformance failures" in out,
              f"the baseline gate still fails on failures it does not list ({rc})")
        rc, out = gate(["--out", os.path.join(tmp, "b2"), "--allow", "P1-901"])
        check(rc == 2, "--allow without --against is a usage error")
    if FAILURES:
        print(f"\n{len(FAILURES)} check(s) failed")
        return 1
    print("\nall checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
