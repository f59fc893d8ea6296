#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Smoke runs of `sandboxd-conformance bench` with tiny sizes.

  launch  bench launches the bundled sandboxd-ref itself
  attach  this script starts sandboxd-ref; bench attaches with --pid
  cli     --help, a usage error and an unreachable endpoint
  compare two runtimes side by side (--compare-*, --rounds), and
          `bench --compare` of saved results, real and made up

Checks exit statuses and that the JSON document parses and holds every
figure with its numbers. Figures are never compared with limits: the
machine's speed is not under test.
"""
import argparse
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

TINY = ["--size", "1M", "--small-size", "1K", "--count", "20", "--duration", "1s",
        "--warmup", "2", "--streams", "20", "--stream-sleep", "1", "--streams-timeout", "30s"]

FLOORS = ["floor.spawn", "floor.pipe", "floor.tcp", "floor.tcp_rtt", "floor.file_read",
          "floor.file_write", "floor.file_copy", "floor.tcp_file", "floor.sync_one",
          "floor.sync_crowd"]
EXECUTE = ["execute.sequential", "execute.concurrent_1", "execute.concurrent_8",
           "execute.concurrent_64"]
START = ["start.init", "start.first_byte", "start.stream"]
STREAMS = ["streams.concurrent"]
REST = ["rest.get_small_c1", "rest.get_small_c64", "rest.put_small_c1", "rest.put_small_c64",
        "rest.put_big", "rest.get_big"]
MEMORY = ["memory.rss_growth_rest_big", "memory.rss_idle", "memory.rss_peak", "memory.hwm",
          "memory.rss_end"]
TARGETS = ["execute_vs_spawn", "start_stream_rate", "start_concurrent", "idle_rss",
           "rest_get_big", "rest_put_big", "rest_big_rss_growth", "rest_small_get_64"]

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
    return cond


def is_num(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def check_figure(f):
    fid = f["id"]
    check(f.get("measured") is True, f"{fid}: not measured ({f.get('note')})")
    if f["kind"] in ("latency", "transfer"):
        if check(is_num(f["count"]) and f["count"] > 0, f"{fid}: no successful sample"):
            vals = [f[k] for k in ("p50_s", "p90_s", "p99_s", "max_s")]
            if check(all(is_num(v) for v in vals), f"{fid}: percentiles missing: {vals}"):
                check(0 < vals[0] <= vals[1] <= vals[2] <= vals[3],
                      f"{fid}: percentiles not ordered: {vals}")
            check(is_num(f["throughput"]) and f["throughput"] > 0, f"{fid}: no throughput")
        if f["floor"] is not None:
            check(is_num(f["ratio"]) and f["ratio"] > 0, f"{fid}: no ratio to {f['floor']}")
            check(f["ratio_of"] in ("p50", "throughput"), f"{fid}: ratio_of {f['ratio_of']}")
    if f["kind"] == "transfer":
        check(f["bytes"] == 1048576, f"{fid}: bytes {f['bytes']}")
    if f["kind"] == "streams":
        check(f["opened"] == 20, f"{fid}: opened {f['opened']}")
        check(is_num(f["completed"]), f"{fid}: completed missing")
    if f["kind"] == "memory":
        check(is_num(f["bytes"]) and f["bytes"] >= 0, f"{fid}: bytes missing")
        if fid != "memory.rss_growth_rest_big":
            check(f["bytes"] > 0, f"{fid}: zero RSS")


def check_document(path, expected, stdout, table=True):
    if table:
        check("Targets of sandboxd-ref" in stdout, "table: no targets section")
        check("floor" in stdout and "ratio" in stdout, "table: no floor/ratio columns")
    with open(path) as fh:
        doc = json.load(fh)
    check(doc.get("schema") == "sandboxd-conformance-bench/1", f"schema {doc.get('schema')}")
    m = doc.get("machine", {})
    check(is_num(m.get("nproc")) and m.get("cpu") and m.get("kernel") and m.get("date"),
          f"machine {m}")
    check(doc["params"]["size"] == 1048576, "params.size")
    figs = {f["id"]: f for f in doc["figures"]}
    for fid in expected:
        if check(fid in figs, f"figure {fid} missing"):
            check_figure(figs[fid])
    ids = {f["floor"] for f in doc["figures"] if f["floor"]}
    check(ids <= set(figs), f"floors referenced but absent: {ids - set(figs)}")
    targets = {t["id"]: t for t in doc["targets"]}
    check(sorted(targets) == sorted(TARGETS), f"targets {sorted(targets)}")
    return doc, figs, targets


def run(cmd, timeout):
    print("+", " ".join(cmd), flush=True)
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                       timeout=timeout)
    sys.stdout.write(p.stdout)
    sys.stderr.write(p.stderr[-4000:])
    return p


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def mode_launch(a, work):
    out = os.path.join(work, "bench.json")
    p = run([a.suite, "bench", "--launch-bundled", a.daemon, "--json", out, "--quiet"] + TINY,
            240)
    if not check(p.returncode == 0, f"exit status {p.returncode}"):
        return
    doc, figs, targets = check_document(out, FLOORS + EXECUTE + START + STREAMS + REST + MEMORY,
                                        p.stdout)
    check(doc["target"]["mode"] == "launch", "target.mode")
    # A small PUT is judged against the small durable write, not the round trip.
    for fid, floor in (("rest.put_small_c1", "floor.sync_one"),
                       ("rest.put_small_c64", "floor.sync_crowd"),
                       ("rest.get_small_c1", "floor.tcp_rtt")):
        check(figs.get(fid, {}).get("floor") == floor, f"{fid}: floor {floor}")
    check(figs.get("floor.sync_crowd", {}).get("count", 0) > 0 and
          figs.get("floor.sync_crowd", {}).get("throughput", 0) > 0,
          "floor.sync_crowd: calls measured")
    check(is_num(doc["target"]["pid"]), "target.pid")
    for t in targets.values():
        check(isinstance(t["reached"], bool), f"target {t['id']} not evaluated")


def mode_attach(a, work):
    root = os.path.join(work, "root")
    os.makedirs(root)
    g, r = free_port(), free_port()
    log = open(os.path.join(work, "daemon.log"), "w")
    d = subprocess.Popen([a.daemon, "--listen-host", "127.0.0.1", "--grpc-port", str(g),
                          "--rest-port", str(r), "--root-dir", root], stdout=log, stderr=log)
    try:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{r}/v1/health", timeout=1) as h:
                    if h.status == 200:
                        break
            except OSError:
                time.sleep(0.1)
        out = os.path.join(work, "bench.json")
        p = run([a.suite, "bench", "--grpc", f"127.0.0.1:{g}", "--rest", f"127.0.0.1:{r}",
                 "--pid", str(d.pid), "--only", "execute,rest", "--json", out, "--quiet"]
                + TINY, 240)
        if not check(p.returncode == 0, f"exit status {p.returncode}"):
            return
        doc, figs, _ = check_document(out, FLOORS + EXECUTE + REST + MEMORY, p.stdout)
        check(doc["target"]["mode"] == "attach", "target.mode")
        check(doc["target"]["pid"] == d.pid, "target.pid")
        for fid in START + STREAMS:
            check(fid not in figs, f"{fid} measured although --only left it out")
        check(d.poll() is None, "bench stopped a runtime it did not launch")
        check(os.listdir(root) == [], f"workspace not cleaned: {os.listdir(root)}")
    finally:
        d.send_signal(signal.SIGTERM)
        try:
            d.wait(20)
        except subprocess.TimeoutExpired:
            d.kill()
            d.wait()
        log.close()


def mode_cli(a, work):
    p = run([a.suite, "bench", "--help"], 30)
    check(p.returncode == 0 and "--json" in p.stdout and "--launch" in p.stdout, "--help")
    p = run([a.suite, "bench", "--size", "nope"], 30)
    check(p.returncode == 2 and "--size" in p.stderr, f"usage error: {p.returncode}")
    port = free_port()
    p = run([a.suite, "bench", "--grpc", f"127.0.0.1:{port}", "--rest", f"127.0.0.1:{port}",
             "--quiet"], 60)
    check(p.returncode == 3 and "unreachable" in p.stderr, f"unreachable: {p.returncode}")


def line_of(stdout, label):
    for ln in stdout.splitlines():
        if ln.startswith(label[:44]):
            return ln
    return None


def mode_compare(a, work):
    aj, bj = os.path.join(work, "a.json"), os.path.join(work, "b.json")
    b_cmd = (f"'{a.daemon}' --listen-host {{host}} --grpc-port {{grpc_port}} "
             "--rest-port {rest_port} --root-dir {root}")
    p = run([a.suite, "bench", "--launch-bundled", a.daemon, "--compare-launch", b_cmd,
             "--rounds", "2", "--only", "execute,rest", "--json", aj, "--compare-json", bj,
             "--quiet"] + TINY, 400)
    if not check(p.returncode == 0, f"side by side: exit status {p.returncode}"):
        return
    check("B/A" in p.stdout and "spreadA" in p.stdout, "side by side: B/A and spread columns")
    docs = []
    for path in (aj, bj):
        doc, figs, _ = check_document(path, FLOORS + EXECUTE + REST + MEMORY, p.stdout, False)
        docs.append(figs)
        for fid in FLOORS + EXECUTE + REST:
            f = figs.get(fid, {})
            check(len(f.get("rounds", [])) == 2 and is_num(f.get("spread")),
                  f"{path}: {fid} has 2 rounds and a spread ({f.get('rounds')})")
    for fid in FLOORS:
        check(docs[0][fid]["p50_s"] == docs[1][fid]["p50_s"],
              f"floor {fid} is the same measurement for both runtimes")
    for fid in EXECUTE + REST + MEMORY:
        label = docs[0][fid]["label"]
        ln = line_of(p.stdout, label)
        check(ln is not None and len(ln.split()) > 4, f"side by side: a row for {fid}")
    check(docs[0]["memory.rss_idle"]["bytes"] > 0 and docs[1]["memory.rss_idle"]["bytes"] > 0,
          "memory figures for both runtimes")

    p = run([a.suite, "bench", "--compare", aj, bj], 60)
    check(p.returncode == 0 and all(line_of(p.stdout, docs[0][f]["label"]) for f in EXECUTE),
          f"bench --compare of the saved results: {p.returncode}")
    # A crowd is compared by its calls per second, the floor's crowd too,
    # live and from the saved results alike.
    for fid in ("rest.put_small_c64", "floor.sync_crowd"):
        ln = line_of(p.stdout, docs[0][fid]["label"]) or ""
        a_value = ln[44:].split()[0] if ln[44:].split() else ""
        check(a_value.endswith("/s"), f"bench --compare shows {fid} in calls per second: {ln!r}")

    # Made-up documents: the verdict of every kind of move is known.
    def doc(fig):
        return {"schema": "sandboxd-conformance-bench/1", "figures": fig}

    def lat(fid, label, p50, rounds):
        return {"id": fid, "label": label, "group": "execute", "kind": "latency",
                "measured": True, "count": 10, "p50_s": p50, "throughput": 1.0,
                "floor": None, "ratio": None, "rounds": rounds,
                "spread": (max(rounds) - min(rounds)) / p50 if len(rounds) > 1 else None}

    old = doc([lat("x.apart", "apart ranges", 1.0, [0.9, 1.0, 1.1]),
               lat("x.overlap", "overlapping ranges", 1.0, [0.8, 1.0, 1.2]),
               lat("x.single", "one round each", 1.0, [1.0]),
               lat("x.small", "small change, one round", 1.0, [1.0]),
               lat("x.faster", "faster, apart", 1.0, [0.95, 1.0, 1.05])])
    new = doc([lat("x.apart", "apart ranges", 1.5, [1.4, 1.5, 1.6]),
               lat("x.overlap", "overlapping ranges", 1.3, [1.1, 1.3, 1.5]),
               lat("x.single", "one round each", 1.5, [1.5]),
               lat("x.small", "small change, one round", 1.05, [1.05]),
               lat("x.faster", "faster, apart", 0.5, [0.45, 0.5, 0.55])])
    op, np_ = os.path.join(work, "old.json"), os.path.join(work, "new.json")
    for path, d in ((op, old), (np_, new)):
        with open(path, "w") as fh:
            json.dump(d, fh)
    p = run([a.suite, "bench", "--compare", op, np_], 60)
    want = {"apart ranges": "B WORSE", "overlapping ranges": None,
            "one round each": "B WORSE", "small change, one round": None,
            "faster, apart": "B better"}
    for label, verdict in want.items():
        ln = line_of(p.stdout, label) or ""
        if verdict:
            check(verdict in ln, f"'{label}' flagged {verdict}: {ln!r}")
        else:
            check(ln and "WORSE" not in ln and "better" not in ln, f"'{label}' not flagged: {ln!r}")
    check("(spread assumed)" in (line_of(p.stdout, "one round each") or ""),
          "a one-round figure says its spread is assumed")

    for args, what in (([aj], "one file"), ([aj, os.path.join(work, "none.json")], "missing"),
                       ([aj, a.daemon], "not JSON")):
        p = run([a.suite, "bench", "--compare"] + args, 30)
        check(p.returncode == 2, f"bench --compare {what}: exit 2 ({p.returncode})")
    with open(os.path.join(work, "other.json"), "w") as fh:
        json.dump({"schema_version": 1}, fh)
    p = run([a.suite, "bench", "--compare", aj, os.path.join(work, "other.json")], 30)
    check(p.returncode == 2 and "not a bench result" in p.stderr, "a results.json is refused")
    for args in (["--compare-grpc", "127.0.0.1:1"], ["--compare-json", aj], ["--rounds", "0"],
                 ["--rounds", "10"], ["--compare-launch", "x", "--compare-bundled", "y"],
                 ["--compare-pid", "1", "--compare-launch", "x"]):
        p = run([a.suite, "bench"] + args, 30)
        check(p.returncode == 2, f"bench {' '.join(args)}: usage error ({p.returncode})")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--suite", required=True)
    ap.add_argument("--daemon", required=True)
    ap.add_argument("--workdir", required=True)
    ap.add_argument("mode", choices=["launch", "attach", "cli", "compare"])
    a = ap.parse_args()
    work = tempfile.mkdtemp(prefix=f"bench-{a.mode}-", dir=a.workdir)
    try:
        {"launch": mode_launch, "attach": mode_attach, "cli": mode_cli,
         "compare": mode_compare}[a.mode](a, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    for f in failures:
        print("FAIL:", f)
    print("ok" if not failures else f"{len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
