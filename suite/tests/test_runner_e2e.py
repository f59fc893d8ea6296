#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""End-to-end tests of the runner on its test catalog (fake_cases.c) against
the stand-in runtime (fake_runtime.py): outcomes, exit codes, the verdict,
baseline, rerun-failed, seed, selection, and every reporter read back."""
import argparse
import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET

A = None
FAILURES = []


def check(cond, what):
    if cond:
        print(f"  ok   {what}")
    else:
        print(f"  FAIL {what}")
        FAILURES.append(what)
    return cond


def run(args, env_mode=None, timeout=240):
    env = dict(os.environ)
    env.pop("SBXC_FAKE_MODE", None)
    env.pop("NO_COLOR", None)
    if env_mode:
        env["SBXC_FAKE_MODE"] = env_mode
    # The stand-in runtime's gRPC port is a stub, so its cases would trip the
    # circuit breaker (test_runner_hostile.py tests that): off here.
    p = subprocess.run([A.runner, "--unresponsive-after", "0"] + args, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, env=env, timeout=timeout)
    return p.returncode, p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace")


def launch_args():
    return ["--launch", f"/usr/bin/python3 {A.fake_runtime} --grpc-port {{grpc_port}} "
            "--rest-port {rest_port} --root {root}", "--launch-env", "SANDBOX_FROM_TEST=yes",
            "--jobs", "4"]


# ---- a small JSON Schema checker (the subset results-schema.json uses) ----

def schema_errors(value, schema, root, path="$"):
    errs = []
    if "$ref" in schema:
        ref = schema["$ref"].split("/")[-1]
        return schema_errors(value, root["$defs"][ref], root, path)
    types = schema.get("type")
    if types is not None:
        types = types if isinstance(types, list) else [types]
        pytypes = {"object": dict, "array": list, "string": str, "boolean": bool,
                   "null": type(None)}
        ok = False
        for t in types:
            if t == "integer":
                ok |= isinstance(value, int) and not isinstance(value, bool)
            elif t == "number":
                ok |= isinstance(value, (int, float)) and not isinstance(value, bool)
            else:
                ok |= isinstance(value, pytypes[t])
        if not ok:
            return [f"{path}: {value!r} is not {types}"]
    if "enum" in schema and value not in schema["enum"]:
        errs.append(f"{path}: {value!r} not in {schema['enum']}")
    if "minimum" in schema and isinstance(value, (int, float)) and value < schema["minimum"]:
        errs.append(f"{path}: {value} < {schema['minimum']}")
    if isinstance(value, dict):
        for k in schema.get("required", []):
            if k not in value:
                errs.append(f"{path}: missing {k}")
        for k, sub in schema.get("properties", {}).items():
            if k in value:
                errs += schema_errors(value[k], sub, root, f"{path}.{k}")
    if isinstance(value, list) and "items" in schema:
        for i, v in enumerate(value):
            errs += schema_errors(v, schema["items"], root, f"{path}[{i}]")
    return errs


def load_results(path):
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    with open(A.json_schema, encoding="utf-8") as f:
        schema = json.load(f)
    errs = schema_errors(doc, schema, schema)
    check(not errs, f"{os.path.basename(path)} valid against results-schema.json"
          + ("" if not errs else f": {errs[:5]}"))
    return doc


def by_id(doc):
    return {c["id"]: c for c in doc["cases"]}


# ---- scenarios ------------------------------------------------------------

def test_usage():
    print("usage and catalog commands")
    for args, code in ((["--bogus"], 2), (["--level", "most"], 2), (["--grpc", "127.0.0.1:1"], 2),
                       (["--grpc", "nohostport", "--rest", "127.0.0.1:1"], 2),
                       (["--jobs", "0"], 2), (["--explain", "NOPE-1"], 2),
                       (["--focus", "("], 2), (["--help"], 0), (["--version"], 0)):
        rc, out, err = run(args)
        check(rc == code, f"{' '.join(args)} exits {code} (got {rc})")
    for args in (["--bogus"], ["--bogus", "word"], ["--bogus=word"]):
        rc, _, err = run(args)
        check(rc == 2 and "unknown option '--bogus'" in err,
              f"{' '.join(args)}: named as an unknown option (got {err.strip()!r})")
    rc, _, err = run(["--json"])
    check(rc == 2 and "--json needs a value" in err, "a known option without its value says so")
    rc, out, _ = run(["--help"])
    check("Exit status" in out and "--baseline" in out and "--launch" in out,
          "--help documents targets, baseline and exit status")
    rc, out, _ = run(["--list"])
    check(rc == 0 and "P1-901" in out and "15 of 15 cases" in out, "--list prints the catalog")
    rc, out, _ = run(["--list", "--focus", "^P", "--skip", "crash"])
    check("P1-901" in out and "F1-908" not in out and "P6-906" not in out,
          "--list honours --focus and --skip")
    rc, out, _ = run(["--list", "--tags", "lifecycle,grpc"])
    check("L1-914" in out and "G7-910" in out and "P1-901" not in out, "--tags selects by tag")
    rc, out, _ = run(["--list", "--level", "core"])
    check("G7-910" not in out and "P1-901" in out, "--level core lists MUST cases only")
    rc, out, _ = run(["--explain", "P1-901"])
    check(rc == 0 and "Execute returns exit_code" in out and "PUT then GET" in out,
          "--explain prints the clause text and how the case decides")


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


def test_unreachable():
    print("unreachable endpoint")
    p = free_port()
    rc, out, err = run(["--grpc", f"127.0.0.1:{p}", "--rest", f"127.0.0.1:{p}"])
    check(rc == 3, f"closed ports exit 3 (got {rc})")
    check("unreachable" in err, "the message says unreachable")
    rc, out, err = run(["--launch", "/bin/false {grpc_port} {rest_port} {root}",
                        "--startup-timeout", "5"])
    check(rc == 3 and "before it became healthy" in err,
          f"a runtime that exits at start-up exits 3 with the reason (got {rc})")
    rc, out, err = run(["--launch", f"/usr/bin/python3 {A.fake_runtime} --grpc-silent "
                        "--grpc-port {grpc_port} "
                        "--rest-port {rest_port} --root {root}", "--startup-timeout", "10"])
    check(rc == 3 and "gRPC endpoint does not answer" in err and "no HTTP/2 SETTINGS" in err,
          f"a launched runtime healthy over REST whose gRPC port never speaks exits 3 "
          f"(got {rc}: {err[-300:]!r})")


def test_mixed(tmp):
    print("launch mode, every outcome, every reporter")
    out_dir = os.path.join(tmp, "mixed")
    os.makedirs(out_dir)
    f = {k: os.path.join(out_dir, v) for k, v in
         (("json", "r.json"), ("junit", "j.xml"), ("tap", "r.tap"), ("markdown", "r.md"),
          ("html", "r.html"))}
    args = launch_args() + ["--seed", "7", "--bundle", os.path.join(out_dir, "bundle")]
    for k, v in f.items():
        args += [f"--{k}", v]
    t0 = time.time()
    rc, out, err = run(args)
    check(rc == 1, f"a run with failures exits 1 (got {rc}; stderr {err[-300:]!r})")
    check(time.time() - t0 < 120, "the run ends despite a hang, a crash and 8 MiB of output")
    check("seed 7" in out, "the seed is printed")
    check("Verdict: not conformant" in out, "the console prints the verdict")
    check("\033[" not in out, "no colour when stdout is not a TTY")
    doc = load_results(f["json"])
    c = by_id(doc)
    expect = {"P1-901": "pass", "P2-902": "fail", "P3-903": "skip", "P4-904": "error",
              "P5-905": "timeout", "P6-906": "error", "P7-907": "pass", "F1-908": "fail",
              "M3-909": "pass", "G7-910": "pass", "T1-911": "skip", "C5-912": "pass",
              "S1-913": "pass", "L1-914": "pass", "F10-915": "pass"}
    for cid, o in expect.items():
        got = c.get(cid, {}).get("outcome")
        check(got == o, f"{cid} is {o} (got {got}; reason {c.get(cid, {}).get('reason')!r}; "
              f"failures {c.get(cid, {}).get('failures')!r})")
    f2 = c["P2-902"]
    check(f2["failures_total"] == 2 and f2["failures"][0]["request"] == "GET /v1/imaginary"
          and "418" in f2["failures"][0]["observed"], "failures keep expected/observed/request")
    check("\\x01" in f2["failures"][1]["observed"], "binary bytes in messages are escaped")
    check(c["P3-903"]["reason"] == "no widget in this runtime", "a skip keeps its reason")
    check("widgets" in (c["P4-904"]["reason"] or ""), "an error keeps its message")
    check("killed" in (c["P5-905"]["reason"] or "") and c["P5-905"]["notes"] == ["about to hang"],
          "a timeout says so and keeps what the case recorded before")
    check("crashed" in (c["P6-906"]["reason"] or ""), "a crash is an error naming the signal")
    check(c["P7-907"]["output_bytes"] >= 8 * 1024 * 1024 and len(c["P7-907"]["output"]) < 40000,
          "8 MiB of case output is counted, and kept bounded")
    obs = " ".join(x["observed"] for x in c["F1-908"]["failures"])
    check("Timeout" in obs or "timed out" in obs, "a hanging endpoint fails with a clear message")
    check(c["T1-911"]["reason"].startswith("transport profile not selected"),
          "transport cases skip without the profile")
    check(doc["verdict"]["result"] == "not-conformant" and doc["verdict"]["exit_code"] == 1,
          "verdict not conformant, exit code 1 in the JSON")
    s = doc["summary"]
    check((s["pass"], s["fail"], s["timeout"], s["skip"], s["error"]) == (8, 2, 1, 2, 2),
          f"summary counts (got {s})")
    rt = doc["runtime"]
    check(rt["mode"] == "launch" and "fake_runtime.py" in rt["command"], "launch command recorded")
    check(rt["exit"] and rt["exit"]["wait_status"] == 0 and "after SIGTERM" in
          rt["exit"]["description"], f"the runtime's exit after SIGTERM is collected ({rt['exit']})")
    check(rt["health"] == {"status": "ok", "uptime_seconds": rt["health"].get("uptime_seconds")},
          "the health answer is recorded")
    check(rt["metadata"]["env"].get("SANDBOX_FROM_TEST") == "yes" and
          "SANDBOX_API_TOKEN" not in rt["metadata"]["env"],
          "the metadata answer is recorded (with --launch-env planted)")
    p1 = [x for x in doc["clauses"] if x["id"] == "P1"][0]
    check(p1["cases"] == ["P1-901"] and p1["status"] == "pass", "per-clause roll-up")
    # JUnit
    if A.xmllint:
        p = subprocess.run([A.xmllint, "--noout", "--schema", A.junit_xsd, f["junit"]],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        check(p.returncode == 0, f"JUnit validates against junit.xsd ({p.stdout[-300:]!r})")
    root = ET.parse(f["junit"]).getroot()
    cases = root.findall(".//testcase")
    check(len(cases) == s["selected"], "one testcase per selected case")
    check(len(root.findall(".//testcase/failure")) == 3 and
          len(root.findall(".//testcase/error")) == 2 and
          len(root.findall(".//testcase/skipped")) == 2, "JUnit failure/error/skipped counts")
    check({tc.get("classname") for tc in cases} == {"P", "F", "M", "G", "T", "C", "S", "L"},
          "classname is the clause group")
    check(root.find(".//testcase/failure[@type='timeout']") is not None, "timeout kept apart")
    # TAP
    tap = open(f["tap"], encoding="utf-8").read().splitlines()
    check(tap[0] == "TAP version 13" and tap[1] == f"1..{s['selected']}", "TAP 13 header and plan")
    points = [x for x in tap if re.match(r"^(not )?ok \d+ - ", x)]
    check(len(points) == s["selected"], "one TAP test point per case")
    check(len([x for x in points if x.startswith("not ok")]) == 5, "5 TAP test points not ok")
    check(len([x for x in points if "# SKIP" in x]) == 2, "skips carry the SKIP directive")
    # HTML and Markdown
    if A.xmllint:
        p = subprocess.run([A.xmllint, "--html", "--noout", f["html"]], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT)
        check(p.returncode == 0 and not p.stdout, f"HTML parses cleanly ({p.stdout[:300]!r})")
        p = subprocess.run([A.xmllint, "--noout", f["html"]], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT)
        check(p.returncode == 0, f"HTML is well-formed XML too ({p.stdout[:300]!r})")
    html = open(f["html"], encoding="utf-8").read()
    check("not conformant" in html and 'id="clause-P1"' in html and 'id="group-T"' in html and
          "fake_runtime.py" in html, "HTML: verdict, every clause group, runtime identity")
    check("<script" not in html and "http://" not in html.split("<body>")[0],
          "HTML is self-contained")
    md = open(f["markdown"], encoding="utf-8").read()
    check(md.startswith("## sandboxd conformance: **not conformant**") and "| P1 |" in md and
          "P2-902" in md, "Markdown: verdict, clause table, failures")
    # Bundle
    b = os.path.join(out_dir, "bundle")
    names = set(os.listdir(b))
    want = {"results.json", "junit.xml", "run.log", "runtime.log", "identity.json", "README.txt",
            "report.html", "report.md", "results.tap"}
    check(want <= names, f"bundle has {sorted(want)} (got {sorted(names)})")
    ident = json.load(open(os.path.join(b, "identity.json")))
    check(ident["suite"]["name"] == "sandboxd-conformance" and ident["runtime"]["exit"] and
          ident["parameters"]["seed"] == 7, "identity.json: suite, runtime exit, parameters")
    log = open(os.path.join(b, "run.log"), encoding="utf-8", errors="replace").read()
    check("=== P2-902 fail" in log and "verdict: not conformant" in log, "the full log")
    if not check("SendSignal SIGKILL to process 4242" in log and "4343" not in log,
                 "cleanup signals tracked (and only still-tracked) processes"):
        print("      the log's clean-up lines: " + repr(
            [line for line in log.splitlines() if "cleanup" in line or "F10-915" in line][:20]))
    return f["json"]


def test_rerun_and_seed(tmp, mixed_json):
    print("rerun-failed and seed")
    out = os.path.join(tmp, "rerun.json")
    rc, _, _ = run(launch_args() + ["--rerun-failed", mixed_json, "--json", out])
    doc = load_results(out)
    sel = sorted(c["id"] for c in doc["cases"] if c["selected"])
    check(sel == ["F1-908", "P2-902", "P4-904", "P5-905", "P6-906"],
          f"only failed/timed-out/errored cases rerun (got {sel})")
    check(rc == 1 and doc["verdict"]["result"] == "not-conformant", "rerun verdict and exit")
    notes = []
    for seed in ("7", "7", "8"):
        p = os.path.join(tmp, f"seed{len(notes)}.json")
        run(launch_args() + ["--focus", "^S1-913", "--seed", seed, "--json", p])
        notes.append(by_id(json.load(open(p)))["S1-913"]["notes"])
    check(notes[0] == notes[1] and notes[0], "the same seed gives the same draws")
    check(notes[0] != notes[2], "another seed gives other draws")
    mixed = by_id(json.load(open(mixed_json)))
    check(mixed["S1-913"]["notes"] == notes[0], "--focus does not change a case's derived seed")


def test_verdicts(tmp):
    print("verdicts and exit codes")
    p = os.path.join(tmp, "good.json")
    rc, out, _ = run(launch_args() + ["--json", p], env_mode="good")
    d = load_results(p)
    check(rc == 0 and d["verdict"]["result"] == "full-conformant" and d["verdict"]["complete"],
          f"all pass in launch mode: full conformant, exit 0 (got {rc}, {d['verdict']})")
    rc, out, _ = run(launch_args() + ["--json", p, "--level", "core", "--require-complete"],
                     env_mode="good")
    d = load_results(p)
    check(rc == 0 and d["verdict"]["result"] == "core-conformant",
          f"--level core: core conformant, exit 0 (got {rc}, {d['verdict']['result']})")
    check(not by_id(d)["G7-910"]["selected"], "--level core leaves SHOULD cases out")
    rc, out, _ = run(launch_args() + ["--json", p], env_mode="should")
    d = load_results(p)
    check(rc == 1 and d["verdict"]["result"] == "core-conformant",
          f"a failing SHOULD case: core conformant, exit 1 (got {rc}, {d['verdict']['result']})")
    rc, out, _ = run(launch_args() + ["--json", p, "--profile", "transport"], env_mode="good")
    d = load_results(p)
    check(rc == 0 and by_id(d)["T1-911"]["outcome"] == "pass" and
          d["verdict"]["must"]["total"] == 12, "--profile transport runs T cases as MUST")
    rc, out, _ = run(launch_args() + ["--json", p, "--focus", "^P1-901"], env_mode="good")
    d = load_results(p)
    check(rc == 0 and d["verdict"]["result"] == "incomplete",
          "a filtered run never claims conformance")
    # Attach mode against a runtime the test started.
    g, r = free_port(), free_port()
    root = tempfile.mkdtemp(dir=tmp)
    srv = subprocess.Popen(["/usr/bin/python3", A.fake_runtime, "--grpc-port", str(g),
                            "--rest-port", str(r), "--root", root], stdout=subprocess.DEVNULL)
    try:
        for _ in range(100):
            try:
                socket.create_connection(("127.0.0.1", r), timeout=1).close()
                break
            except OSError:
                time.sleep(0.1)
        att = ["--grpc", f"127.0.0.1:{g}", "--rest", f"127.0.0.1:{r}", "--json", p]
        rc, out, _ = run(att, env_mode="good")
        d = load_results(p)
        c = by_id(d)
        check(rc == 0 and d["verdict"]["result"] == "incomplete",
              f"attach mode: incomplete, exit 0 (got {rc}, {d['verdict']['result']})")
        check(c["M3-909"]["reason"] == "needs launch mode" and
              c["L1-914"]["reason"] == "needs launch mode",
              "[launch] cases are skipped: needs launch mode")
        check(d["runtime"]["mode"] == "attach" and d["runtime"]["exit"] is None,
              "attach mode identity")
        rc, _, _ = run(att + ["--require-complete"], env_mode="good")
        check(rc == 1, "--require-complete turns incomplete into exit 1")
        rc, out, _ = run(att + ["--color", "always", "--focus", "^P1-901"], env_mode="good")
        check("\033[32m" in out, "--color always colours the console")
        check(os.listdir(root) == [], f"the case workspaces are removed ({os.listdir(root)})")
    finally:
        srv.terminate()
        srv.wait(timeout=10)


def test_baseline(tmp):
    print("baseline")
    base = os.path.join(tmp, "baseline.yaml")
    with open(base, "w") as f:
        f.write("# known deviations\nexpected_failures:\n"
                "  - id: P2-902\n    reason: teapot\n    link: https://example.org/1\n"
                "  - id: P5-905\n    reason: hangs\n"
                "  - id: F1-908\n    reason: hostile\n"
                "  - id: P1-901\n    reason: fixed since\n")
    p = os.path.join(tmp, "base.json")
    j = os.path.join(tmp, "base.xml")
    rc, out, err = run(launch_args() + ["--baseline", base, "--skip", "P4-904|P6-906",
                                        "--json", p, "--junit", j])
    d = load_results(p)
    c = by_id(d)
    check(rc == 0, f"only expected failures: exit 0 (got {rc})")
    check(c["P2-902"]["status"] == "expected-fail" and c["P2-902"]["outcome"] == "fail" and
          c["P2-902"]["baseline"] == {"reason": "teapot", "link": "https://example.org/1"},
          "a baselined failure is expected-fail with reason and link")
    check(c["P5-905"]["status"] == "expected-fail", "a baselined timeout is expected-fail")
    check(c["P1-901"]["status"] == "unexpected-pass", "a baselined pass is unexpected-pass")
    check(d["verdict"]["result"] == "incomplete", "expected failures make the verdict incomplete")
    root = ET.parse(j).getroot()
    check(len(root.findall(".//testcase/failure")) == 0, "JUnit shows no failure for them")
    bad = os.path.join(tmp, "bad.yaml")
    with open(bad, "w") as f:
        f.write("expected_failures: [ {reason: no id} ]\n")
    rc, _, err = run(launch_args() + ["--baseline", bad])
    check(rc == 2 and "without an id" in err, "a broken baseline is a usage error")
    # An entry for a case the catalog lacks would silently cover nothing:
    # refused before anything runs, naming the file and the ID.
    stale = os.path.join(tmp, "stale.yaml")
    with open(stale, "w") as f:
        f.write("expected_failures:\n  - id: P2-902\n    reason: teapot\n"
                "  - id: X9-999\n    reason: gone\n")
    sp = os.path.join(tmp, "stale.json")
    rc, out, err = run(launch_args() + ["--baseline", stale, "--json", sp])
    check(rc == 2 and "X9-999" in err and stale in err and "does not have" in err,
          f"a baseline naming an unknown case: exit 2 naming file and ID (got {rc}: {err[-300:]})")
    check("cases to run" not in out and not os.path.exists(sp),
          "a baseline naming an unknown case: nothing is run")


def main():
    global A
    ap = argparse.ArgumentParser()
    ap.add_argument("--runner", required=True)
    ap.add_argument("--fake-runtime", required=True)
    ap.add_argument("--junit-xsd", required=True)
    ap.add_argument("--json-schema", required=True)
    ap.add_argument("--xmllint", default="")
    A = ap.parse_args()
    if A.xmllint.endswith("NOTFOUND"):
        A.xmllint = ""
    with tempfile.TemporaryDirectory(prefix="sbxc-e2e-") as tmp:
        test_usage()
        test_unreachable()
        mixed_json = test_mixed(tmp)
        test_rerun_and_seed(tmp, mixed_json)
        test_verdicts(tmp)
        test_baseline(tmp)
    if FAILURES:
        print(f"\n{len(FAILURES)} check(s) failed")
        return 1
    print("\nall checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
