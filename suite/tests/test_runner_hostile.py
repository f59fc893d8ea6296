#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""The real suite against scripted hostile runtimes (hostile_runtime.py):
each run must end within a bound, write every report asked for, say what
it observed, and keep its workers' memory bounded.

  silent / close  exit 3 with the reason, every report written
  forever         Start output and a GET body without end: the cases fail
                  with "output exceeds 16 MiB" and "response body exceeds
                  16 MiB", the workers' RSS stays bounded
  garbage         the failure names the bytes, not "error 0"
  hang            the circuit breaker reports the rest "runtime
                  unresponsive" at once
  SIGTERM         the reports are written before the workspace clean-up,
                  the cases never run are "not run (interrupted)"
"""
import argparse
import importlib.util
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time

A = None
FAILURES = []


def check(cond, what):
    print(f"  {'ok  ' if cond else 'FAIL'} {what}", flush=True)
    if not cond:
        FAILURES.append(what)
    return cond


class Runtime:
    def __init__(self, mode):
        self.p = subprocess.Popen(["/usr/bin/python3", A.hostile_runtime, mode],
                                  stdout=subprocess.PIPE, text=True)
        ports = {}
        for _ in range(2):
            k, _, v = self.p.stdout.readline().strip().partition("=")
            ports[k] = v
        self.grpc = f"127.0.0.1:{ports['grpc-port']}"
        self.rest = f"127.0.0.1:{ports['rest-port']}"

    def stop(self):
        if self.p.poll() is not None:
            print(f"  note: the hostile runtime had ended by itself (status {self.p.returncode})")
        self.p.kill()
        self.p.wait()


def descendants_rss_kib(root_pid):
    """The largest VmRSS among root_pid's descendants (the case workers)."""
    parent = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open(f"/proc/{d}/stat") as f:
                    parent[int(d)] = int(f.read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                pass
    best = 0
    for pid in parent:
        p, hops = parent.get(pid), 0
        while p and p != root_pid and hops < 8:
            p, hops = parent.get(p), hops + 1
        if p != root_pid:
            continue
        try:
            with open(f"/proc/{pid}/status") as f:
                for line in f:
                    if line.startswith("VmRSS:"):
                        best = max(best, int(line.split()[1]))
        except OSError:
            pass
    return best


def run_suite(args, bound_s, term_after=None):
    """Runs the suite; returns (exit code, seconds, stderr, peak worker RSS
    in KiB, seconds from SIGTERM to the JSON report, if term_after)."""
    t0 = time.time()
    p = subprocess.Popen([A.suite] + args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                         text=True)
    peak, termed, report_after = 0, None, None
    json_path = args[args.index("--json") + 1] if "--json" in args else None
    while p.poll() is None and time.time() - t0 < bound_s:
        peak = max(peak, descendants_rss_kib(p.pid))
        if term_after is not None and termed is None and time.time() - t0 >= term_after:
            p.send_signal(signal.SIGTERM)
            termed = time.time()
        if termed and report_after is None and json_path and os.path.exists(json_path):
            report_after = time.time() - termed
        time.sleep(0.1)
    if p.poll() is None:
        p.kill()
        p.wait()
        check(False, f"the run ends within {bound_s} s ({' '.join(args[:6])} ...)")
    if termed and report_after is None and json_path and os.path.exists(json_path):
        report_after = time.time() - termed
    err = p.stderr.read()
    return p.returncode, time.time() - t0, err, peak, report_after


def reports(tmp, name):
    j, x = os.path.join(tmp, f"{name}.json"), os.path.join(tmp, f"{name}.xml")
    return ["--json", j, "--junit", x], j, x


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def test_unreachable(tmp, mode):
    print(f"{mode}: exit 3, every report written with the reason")
    rt = Runtime(mode)
    try:
        rep, j, x = reports(tmp, mode)
        rc, secs, err, _, _ = run_suite(["--grpc", rt.grpc, "--rest", rt.rest,
                                         "--focus", "^(P1|F1)-00"] + rep, 60)
        check(rc == 3, f"exit 3 (got {rc}: {err[-300:]!r})")
        d = load(j)
        check(d is not None and os.path.exists(x), "the JSON and JUnit reports are written")
        if d:
            st = d.get("stopped") or {}
            check(st.get("why") == "unreachable" and st.get("detail"),
                  f"the JSON says why: {st}")
            reasons = [c["reason"] or "" for c in d["cases"] if c["selected"]]
            check(reasons and all("unreachable" in r for r in reasons),
                  f"every selected case is 'not run' with the reason ({reasons[:1]})")
    finally:
        rt.stop()


def test_forever(tmp):
    print("forever: endless Start output and GET bodies are cut at --max-output")
    rt = Runtime("forever")
    try:
        rep, j, _ = reports(tmp, "forever")
        rc, secs, err, peak, _ = run_suite(["--grpc", rt.grpc, "--rest", rt.rest, "--jobs", "2",
                                            "--max-output", "16M", "--unresponsive-after", "0",
                                            "--focus", "^(P11-001|F1-001) "] + rep, 150)
        d = load(j)
        check(d is not None, "the JSON report is written")
        print(f"      run took {secs:.1f} s, peak worker RSS {peak / 1024:.1f} MiB")
        check(peak < 100 * 1024, f"the workers' RSS stays below 100 MiB ({peak} KiB)")
        if d:
            text = {c["id"]: json.dumps(c) for c in d["cases"] if c["selected"]}
            check("output exceeds 16 MiB" in text.get("P11-001", ""),
                  "the Start case fails with 'output exceeds 16 MiB'")
            check("response body exceeds 16 MiB" in text.get("F1-001", ""),
                  "the GET case fails with 'response body exceeds 16 MiB'")
    finally:
        rt.stop()


def names_garbage(text):
    """Whether a failure quotes the hostile runtime's garbage: six bytes of
    it in a row among the hex bytes of the last read. The last read may
    begin with HTTP/2 frames sent before the garbage (a SETTINGS ack), so
    where the garbage starts in it depends on how the reads fell."""
    spec = importlib.util.spec_from_file_location("hostile_runtime", A.hostile_runtime)
    runtime = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(runtime)
    m = re.search(r"the last read starting .*? = ((?:[0-9a-f]{2} ?)+)", text)
    seen = bytes.fromhex(m.group(1)) if m else b""
    return any(seen[i:i + 6] in runtime.GARBAGE for i in range(len(seen) - 5))


def test_garbage(tmp):
    print("garbage: the failure says what the server sent")
    rt = Runtime("garbage")
    try:
        rep, j, _ = reports(tmp, "garbage")
        rc, secs, err, _, _ = run_suite(["--grpc", rt.grpc, "--rest", rt.rest,
                                         "--unresponsive-after", "0",
                                         "--focus", "^P1-001 "] + rep, 90)
        d = load(j)
        check(d is not None, "the JSON report is written")
        if d:
            text = json.dumps([c for c in d["cases"] if c["selected"]])
            check("not valid HTTP/2" in text and names_garbage(text) and "error 0" not in text,
                  f"the failure names the bytes the server sent ({text[-400:]!r})")
    finally:
        rt.stop()


def test_hang(tmp):
    print("hang: the circuit breaker stops waiting on a runtime that never answers")
    rt = Runtime("hang")
    try:
        rep, j, x = reports(tmp, "hang")
        rc, secs, err, _, _ = run_suite(["--grpc", rt.grpc, "--rest", rt.rest, "--jobs", "1",
                                         "--timeout-scale", "0.2", "--focus", "^(P1|P7|P11)-"]
                                        + rep, 240)
        d = load(j)
        check(d is not None and os.path.exists(x), "the JSON and JUnit reports are written")
        print(f"      run took {secs:.1f} s")
        if d:
            st = d.get("stopped") or {}
            check(st.get("why") == "unresponsive", f"the JSON says the runtime is unresponsive "
                                                   f"({st})")
            sel = [c for c in d["cases"] if c["selected"]]
            gave_up = [c for c in sel if c["outcome"] == "error" and
                       "runtime unresponsive" in (c["reason"] or "")]
            timed_out = [c for c in sel if c["outcome"] == "timeout"]
            check(len(timed_out) == 3 and len(gave_up) == len(sel) - 3,
                  f"3 cases time out, the other {len(sel) - 3} are 'error: runtime "
                  f"unresponsive' ({len(timed_out)} timeouts, {len(gave_up)} given up)")
    finally:
        rt.stop()


def test_sigterm(tmp):
    print("SIGTERM mid-case: reports first, never-run cases 'not run (interrupted)'")
    rt = Runtime("hang")
    try:
        rep, j, x = reports(tmp, "term")
        rc, secs, err, _, report_after = run_suite(
            ["--grpc", rt.grpc, "--rest", rt.rest, "--jobs", "1", "--unresponsive-after", "0",
             "--focus", "^(P1|P7|P11)-"] + rep, 120, term_after=24)
        print(f"      JSON report {report_after} s after SIGTERM, exit after {secs:.1f} s")
        check(report_after is not None and report_after < 10,
              f"the JSON report exists within 10 s of SIGTERM ({report_after})")
        d = load(j)
        check(d is not None and os.path.exists(x), "the JSON and JUnit reports are written")
        if d:
            check(d["interrupted"] and (d.get("stopped") or {}).get("why") == "interrupted",
                  "the JSON says the run was interrupted")
            never = [c for c in d["cases"] if c["selected"] and
                     c["reason"] == "not run (interrupted)"]
            check(len(never) >= 5, f"cases never started are 'not run (interrupted)' "
                                   f"({len(never)})")
            cut = [c for c in d["cases"] if c["selected"] and
                   (c["reason"] or "").startswith("interrupted while running")]
            check(len(cut) == 1, f"the case running at the signal says it was interrupted "
                                 f"while running ({len(cut)})")
            check(any("not run or not finished (the run was interrupted)" in r
                      for r in d["verdict"]["reasons"]) and
                  not any("unmet needs" in r for r in d["verdict"]["reasons"]),
                  f"the verdict counts them as not run ({d['verdict']['reasons']})")
    finally:
        rt.stop()


def main():
    global A
    ap = argparse.ArgumentParser()
    ap.add_argument("--suite", required=True)
    ap.add_argument("--hostile-runtime", required=True)
    ap.add_argument("--only", default="silent,close,forever,garbage,hang,sigterm")
    A = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="sbxc-hostile-") as tmp:
        for name in A.only.split(","):
            if name in ("silent", "close"):
                test_unreachable(tmp, name)
            else:
                {"forever": test_forever, "garbage": test_garbage, "hang": test_hang,
                 "sigterm": test_sigterm}[name](tmp)
    if FAILURES:
        print(f"\n{len(FAILURES)} check(s) failed")
        return 1
    print("\nall checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
