#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Certifying a runtime behind a router or a gateway, on loopback.

router: sandboxd-ref behind router_standin.py (HTTP/1.1 only, routes by the
  X-Sandbox-* headers), --grpc and --rest both at the router, as its one
  address is all a client has:
  1. without the headers the run stops before any case with exit 3, every
     report written, saying the target answered 400 and that --header is
     what to try, and no case is reported failing;
  2. with them, under --profile transport, T1-T3 fail saying the router
     cannot carry gRPC, REST cases pass through it, cases that need gRPC are
     skipped with that reason, and nothing else fails: no case blames the
     runtime for what the router did;
  3. a malformed --header or an unreadable --header-file is exit 2 before
     anything runs (no report written).

bearer: the same stand-in demanding "Authorization: Bearer <token>" for
  REST, and (when Debian's nginx with its gRPC module is there) nginx
  demanding it for gRPC in front of the runtime's gRPC port:
  1. without the token: exit 3 saying the target answered 401;
  2. with --header-file carrying the token and the routing headers (and a
     Cookie on the command line): the selected cases pass, T1-T3 included
     through nginx, and neither secret appears in any report, log, bundle
     file or console output;
  3. the bench: exit 3 naming the 401 without the token, measures REST
     through the gate with --header-file.

Usage: test_router_standin.py router|bearer SUITE DAEMON
Exit: 0 proven, 1 not proven.
"""
import json
import os
import re
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
STANDIN = os.path.join(HERE, "router_standin.py")
PY = "/usr/bin/python3"

problems = []


def check(ok, what):
    print(("ok:   " if ok else "FAIL: ") + what)
    if not ok:
        problems.append(what)


def read_port(proc, path, key, what, timeout=10.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with open(path, encoding="utf-8", errors="replace") as f:
            m = re.search(r"^%s=(\d+)$" % key, f.read(), re.M)
        if m:
            return int(m.group(1))
        if proc.poll() is not None:
            break
        time.sleep(0.05)
    with open(path, encoding="utf-8", errors="replace") as f:
        sys.exit(f"{what} did not report {key}:\n{f.read()}")


class Procs:
    def __init__(self):
        self.procs = []

    def start(self, argv, log):
        p = subprocess.Popen(argv, stdout=open(log, "w"), stderr=subprocess.STDOUT,
                             start_new_session=True)
        self.procs.append(p)
        return p

    def stop(self):
        for p in reversed(self.procs):
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
                try:
                    p.wait(10)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait()


def start_runtime(procs, work, daemon):
    root = os.path.join(work, "root")
    os.mkdir(root)
    log = os.path.join(work, "daemon.log")
    p = procs.start([daemon, "--listen-host", "127.0.0.1", "--grpc-port", "0", "--rest-port",
                     "0", "--root-dir", root], log)
    return (read_port(p, log, "grpc-port", "sandboxd-ref"),
            read_port(p, log, "rest-port", "sandboxd-ref"))


def start_router(procs, work, extra=()):
    log = os.path.join(work, "router.log")
    p = procs.start([PY, STANDIN, "--sandbox", "default/sb-1=127.0.0.1", *extra], log)
    return read_port(p, log, "router-port", "the router stand-in")


def run_suite(suite, work, name, args, timeout=300):
    """Runs the suite with every report asked for; (exit, output, paths)."""
    base = os.path.join(work, name)
    paths = {"json": base + ".json", "junit": base + ".xml", "tap": base + ".tap",
             "markdown": base + ".md", "html": base + ".html", "log": base + ".log",
             "bundle": base + "-bundle"}
    argv = [suite, *args, "--seed", "1", "--jobs", "2", "--color", "never"]
    for opt, path in paths.items():
        argv += ["--" + opt, path]
    t0 = time.monotonic()
    p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=timeout)
    out = p.stdout.decode(errors="replace")
    with open(base + ".console", "w", encoding="utf-8") as f:
        f.write(out)
    print(f"--- {name}: exit {p.returncode} in {time.monotonic() - t0:.1f} s")
    return p.returncode, out, paths


def reports_written(paths):
    return all(os.path.isfile(p) and os.path.getsize(p) > 0 for k, p in paths.items()
               if k != "bundle") and os.path.isfile(os.path.join(paths["bundle"], "results.json"))


def summary(out):
    """The console's closing summary: from the table by clause group on."""
    at = out.rfind("Summary by clause group")
    return out[at:] if at >= 0 else out[-3000:]


def prove_router(suite, daemon, work):
    procs = Procs()
    try:
        grpc_port, rest_port = start_runtime(procs, work, daemon)
        router = start_router(procs, work)
        addr = f"127.0.0.1:{router}"
        print(f"sandboxd-ref: gRPC {grpc_port}, REST {rest_port}; router stand-in {addr}")
        routing = ["--header", "X-Sandbox-ID: sb-1", "--header", "X-Sandbox-Namespace: default",
                   "--header", "X-Sandbox-Pod-IP: 127.0.0.1", "--header",
                   f"X-Sandbox-Port: {rest_port}"]

        # 1. No headers: the router's 400 is not the runtime's answer.
        rc, out, paths = run_suite(suite, work, "no-headers",
                                   ["--grpc", addr, "--rest", addr, "--profile", "transport"])
        print("\n".join(out.splitlines()[-4:]))
        check(rc == 3, f"without the routing headers: exit 3 (got {rc})")
        check("HTTP 400" in out and "X-Sandbox-ID header is required" in out and
              "--header" in out, "the console says the target answered 400 and to add --header")
        check(reports_written(paths), "every report is written")
        doc = json.load(open(paths["json"], encoding="utf-8"))
        stopped = doc.get("stopped") or {}
        said = stopped.get("detail") or ""
        check(stopped.get("why") == "unreachable" and "HTTP 400" in said and "--header" in said,
              f"results.json says what answered and what to try ({said[:160]!r})")
        check(not [c for c in doc["cases"] if c["outcome"] in ("fail", "error", "timeout")],
              "no case is reported failing for the router's answer")

        # 2. With the headers: the verdict is about the router.
        rc, out, paths = run_suite(suite, work, "with-headers",
                                   ["--grpc", addr, "--rest", addr, "--profile", "transport",
                                    *routing, "--skip", "^F1-003 "])
        print(summary(out))
        check(rc == 1, f"with the routing headers: exit 1, not conformant (got {rc})")
        doc = json.load(open(paths["json"], encoding="utf-8"))
        cases = {c["id"]: c for c in doc["cases"] if c.get("outcome") != "not-run"}
        bad = {i: c["outcome"] for i, c in cases.items()
               if c["outcome"] in ("fail", "error", "timeout")}
        check(set(bad) == {"T1-001", "T2-001", "T3-001"} and set(bad.values()) == {"fail"},
              f"exactly T1-001, T2-001 and T3-001 fail (got {bad})")
        for i, clause in (("T1-001", "T1"), ("T2-001", "T2"), ("T3-001", "T3")):
            c = cases.get(i, {})
            observed = " ".join(f.get("observed", "") for f in c.get("failures", []))
            check(clause in (c.get("clauses") or []) and "cannot carry gRPC" in observed,
                  f"{i} fails clause {clause} saying the router cannot carry gRPC")
        passed = {i for i, c in cases.items() if c["outcome"] == "pass"}
        check({"M1-001", "F1-001", "F9-001", "F13-002"} <= passed,
              "REST cases pass through the router (M1-001, F1-001, F9-001 raw HTTP, F13-002)")
        grpc_skips = [i for i, c in cases.items() if c["outcome"] == "skip" and
                      "cannot carry" in (c.get("reason") or "")]
        check("P1-001" in grpc_skips, f"cases needing gRPC are skipped as such "
              f"({len(grpc_skips)} of them, P1-001 among them)")
        check(doc["verdict"]["result"] == "not-conformant", "verdict: not conformant")

        # 3. Bad header options: exit 2, nothing run.
        for opt in (["--header", "X-Sandbox-ID"], ["--header", "X-A: a\nb"],
                    ["--header", "Host: x"], ["--grpc-header", "grpc-timeout: 1S"],
                    ["--header-file", os.path.join(work, "missing")]):
            js = os.path.join(work, "usage.json")
            p = subprocess.run([suite, "--grpc", addr, "--rest", addr, *opt, "--json", js],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=30)
            err = p.stderr.decode(errors="replace")
            check(p.returncode == 2 and opt[0] in err and not os.path.exists(js),
                  f"{opt[0]} {opt[1]!r}: exit 2 before anything runs ({err.splitlines()[0]!r})")
    finally:
        procs.stop()


NGINX_GRPC = """
{user}
daemon off;
worker_processes 1;
pid {work}/nginx.pid;
error_log {work}/nginx-error.log warn;
events {{ worker_connections 128; }}
http {{
  access_log off;
  client_body_temp_path {work}/nginx-tmp;
  server {{
    listen 127.0.0.1:{port} http2;
    location / {{
      if ($http_authorization != "Bearer {token}") {{ return 401; }}
      grpc_pass grpc://127.0.0.1:{grpc};
    }}
  }}
}}
"""


def free_port():
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_nginx(procs, work, grpc_port, token):
    """nginx gating gRPC on the token; its address, or None without nginx."""
    nginx = shutil.which("nginx") or (os.path.exists("/usr/sbin/nginx") and "/usr/sbin/nginx")
    if not nginx:
        return None
    os.makedirs(os.path.join(work, "nginx-tmp"), exist_ok=True)
    for _ in range(5):
        port = free_port()
        conf = os.path.join(work, "nginx.conf")
        with open(conf, "w", encoding="utf-8") as f:
            f.write(NGINX_GRPC.format(user="user root;" if os.getuid() == 0 else "", work=work,
                                      port=port, token=token, grpc=grpc_port))
        t = subprocess.run([nginx, "-t", "-p", work, "-c", conf], capture_output=True)
        if t.returncode != 0:
            print("nginx refuses the configuration (no gRPC module?):",
                  t.stderr.decode(errors="replace")[-300:])
            return None
        p = procs.start([nginx, "-p", work, "-c", conf], os.path.join(work, "nginx.out"))
        for _ in range(100):
            try:
                import socket
                with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                    return f"127.0.0.1:{port}"
            except OSError:
                if p.poll() is not None:
                    break
                time.sleep(0.05)
        if p.poll() is None:
            p.terminate()
            p.wait()
    return None


def prove_bearer(suite, daemon, work):
    token = "tok" + secrets.token_hex(16)
    cookie = "ck" + secrets.token_hex(16)
    procs = Procs()
    try:
        grpc_port, rest_port = start_runtime(procs, work, daemon)
        token_file = os.path.join(work, "token")
        with open(token_file, "w", encoding="utf-8") as f:
            f.write(token + "\n")
        router = start_router(procs, work, ["--require-bearer-file", token_file])
        rest = f"127.0.0.1:{router}"
        grpc = start_nginx(procs, work, grpc_port, token)
        focus = "^(M1-001|F1-001|F9-001|F13-002|P1-001|P2-001)( |$)"
        extra = []
        if grpc:
            print(f"gRPC through nginx at {grpc}, gated on the same token")
            focus = "^(M1-001|F1-001|F9-001|F13-002|P1-001|P2-001|T[123]-001)( |$)"
            extra = ["--profile", "transport"]
        else:
            grpc = f"127.0.0.1:{grpc_port}"
            print("no nginx with a gRPC module: gRPC goes straight to the runtime")
        headers = os.path.join(work, "headers")
        with open(headers, "w", encoding="utf-8") as f:
            f.write("# the gateway's token and the router's routing headers\n"
                    f"Authorization: Bearer {token}\n\n"
                    "X-Sandbox-ID: sb-1\n"
                    f"X-Sandbox-Port: {rest_port}\n")

        rc, out, paths = run_suite(suite, work, "no-token",
                                   ["--grpc", grpc, "--rest", rest, "--focus", focus])
        print("\n".join(out.splitlines()[-3:]))
        check(rc == 3 and "HTTP 401" in out and "--header-file" in out,
              f"without the token: exit 3 saying the target answered 401 (got {rc})")

        rc, out, paths = run_suite(suite, work, "token",
                                   ["--grpc", grpc, "--rest", rest, "--focus", focus,
                                    "--header-file", headers, "--rest-header",
                                    f"Cookie: session={cookie}", *extra])
        print(summary(out))
        doc = json.load(open(paths["json"], encoding="utf-8"))
        ran = {c["id"]: c["outcome"] for c in doc["cases"] if c["outcome"] != "not-run" and
               c.get("selected", True) and re.search(focus, c["id"] + " ")}
        check(rc == 0 and ran and set(ran.values()) == {"pass"},
              f"with --header-file: exit 0 and every selected case passes (got {rc}: {ran})")
        check("Cookie: <redacted>" in json.dumps(doc["parameters"]["argv"]),
              "the recorded command line shows the Cookie header redacted")

        # The bench reaches the runtime the same way, and refuses the gate's 401.
        bench = [suite, "bench", "--grpc", grpc, "--rest", rest, "--only", "rest", "--size",
                 "1M", "--count", "20", "--duration", "1s", "--warmup", "1", "--quiet"]
        p = subprocess.run(bench, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=120)
        bench_out = p.stdout.decode(errors="replace")
        check(p.returncode == 3 and "HTTP 401" in bench_out,
              f"bench without the token: exit 3 saying the target answered 401 (got "
              f"{p.returncode})")
        p = subprocess.run(bench + ["--header-file", headers], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, timeout=120)
        bench_out = p.stdout.decode(errors="replace")
        with open(os.path.join(work, "bench.console"), "w", encoding="utf-8") as f:
            f.write(bench_out)
        check(p.returncode == 0 and "REST GET" in bench_out,
              f"bench with --header-file measures REST through the gate (exit {p.returncode}: "
              f"{bench_out[-300:]!r})")

        # No secret anywhere the run wrote.
        leaks = []
        files = [p for k, p in paths.items() if k != "bundle"]
        for d, _, names in os.walk(paths["bundle"]):
            files += [os.path.join(d, n) for n in names]
        files += [os.path.join(work, "token.console"), os.path.join(work, "bench.console")]
        for path in files:
            with open(path, "rb") as f:
                data = f.read()
            for secret in (token, cookie):
                if secret.encode() in data:
                    leaks.append(f"{os.path.relpath(path, work)} holds {secret[:3]}...")
        check(len(files) >= 10 and not leaks,
              f"neither secret in the {len(files)} report, log, bundle and console files "
              f"({leaks or 'none found'})")
    finally:
        procs.stop()


def main():
    if len(sys.argv) != 4 or sys.argv[1] not in ("router", "bearer"):
        sys.exit(__doc__)
    mode, suite, daemon = sys.argv[1:]
    work = tempfile.mkdtemp(prefix=f"sbx-{mode}-")
    os.chmod(work, 0o755)
    try:
        (prove_router if mode == "router" else prove_bearer)(suite, daemon, work)
    finally:
        if problems:
            for name in ("router.log", "nginx-error.log"):
                path = os.path.join(work, name)
                if os.path.exists(path):
                    print(f"--- {name}")
                    print(open(path, encoding="utf-8", errors="replace").read()[-2000:])
        if not os.environ.get("SBX_KEEP"):
            shutil.rmtree(work, ignore_errors=True)
    if problems:
        print(f"{len(problems)} problem(s)")
        return 1
    print("proven")
    return 0


if __name__ == "__main__":
    sys.exit(main())
