#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Proves that the cases whose time grows with load give a conformant
runtime the same verdict on a loaded machine: pass, or skipped because
they could not decide in time, never fail, timeout or error.

The clean sandboxd-ref is launched pinned to CPU 0 (`taskset -c 0` in the
launch command, so every process it starts shares that core too), a busy
loop is pinned to the same core, and a second busy loop runs beside them.
P15-007 (128 PTY Starts) runs with several seeds; the slowest cases of a
clean run (the traversal and symlink cases, each request checked through an
Execute) run once, with their timeouts scaled down so that the run stays
short and their step budgets are what decides. Every run is bounded
(subprocess timeouts) and the busy loops are killed by pid on every path.
"""
import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time

LAUNCH = ("taskset -c 0 {daemon} --listen-host 127.0.0.1 --grpc-port {{grpc_port}} "
          "--rest-port {{rest_port}} --root-dir {{root}}")
# P15-007 and its first-look family: one run per seed.
FIRST_LOOK = "^(P15-007|P16-004) "
# The slowest cases of a clean run on this machine (JSON durations), but
# L5-001, whose sampling window is already a fixed 100 s with a skip below
# a minimum of cycles.
SLOWEST = "^(S1-001|S1-002|S1-004|S2-001|S2-002|S3-001|S4-001|S5-001|S8-001|S8-002) "
GOOD = {"pass", "skip"}
LATE = "could not decide in time"


def busy_loop(cpu):
    """A process spinning on one CPU (any CPU when cpu is None)."""
    code = "while True: pass"
    p = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.DEVNULL,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                         start_new_session=True)
    if cpu is not None:
        os.sched_setaffinity(p.pid, {cpu})
    return p


def run(a, focus, seed, scale, tmp):
    out = os.path.join(tmp, f"results-{seed}-{scale}.json")
    cmd = [a.suite, "--launch", LAUNCH.format(daemon=a.daemon), "--focus", focus,
           "--seed", str(seed), "--jobs", "2", "--timeout-scale", str(scale), "--json", out]
    t0 = time.monotonic()
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                          timeout=300)
    took = time.monotonic() - t0
    if not os.path.exists(out):
        print(proc.stdout)
        sys.exit(f"the suite wrote no results (exit {proc.returncode})")
    with open(out, encoding="utf-8") as f:
        doc = json.load(f)
    bad, late, passed = [], [], []
    for c in doc["cases"]:
        if not c.get("selected", True) or c.get("outcome") is None:
            continue
        reason = c.get("reason") or ""
        if c["outcome"] not in GOOD:
            bad.append(f"{c['id']} {c['outcome']}: {reason[:300]}")
        elif c["outcome"] == "skip":
            late.append(c["id"])
            if LATE not in reason:
                bad.append(f"{c['id']} skipped for another reason than load: {reason[:300]}")
        else:
            passed.append(c["id"])
    print(f"seed {seed}, timeout scale {scale}: {took:.0f} s; pass {' '.join(passed) or '-'}; "
          f"could not decide in time {' '.join(late) or '-'}")
    return bad, len(passed) + len(late)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--suite", required=True)
    ap.add_argument("--daemon", required=True)
    ap.add_argument("--seeds", type=int, default=3)
    a = ap.parse_args()
    if len(os.sched_getaffinity(0)) < 2:
        print("skipped: needs two CPUs")
        return 77
    loops = [busy_loop(0), busy_loop(None)]
    bad, ran = [], 0
    try:
        with tempfile.TemporaryDirectory(prefix="sbx-load-") as tmp:
            for seed in range(1, a.seeds + 1):
                b, n = run(a, FIRST_LOOK, seed, 1.0, tmp)
                bad += b
                ran += n
            b, n = run(a, SLOWEST, 1, 0.3, tmp)
            bad += b
            ran += n
    finally:
        for p in loops:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
    if ran == 0:
        print("FAIL: no case ran")
        return 1
    for line in bad:
        print("FAIL:", line)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
