# SPDX-License-Identifier: Apache-2.0
"""What the hostile-peer tests share: a sandboxd-ref on ephemeral loopback
ports over a temporary root, its threads, descriptors and RSS from /proc,
health and Execute probes, and the check log."""
import json
import os
import shutil
import socket
import subprocess
import tempfile
import time

failures = []


def check(ok, what):
    print(("ok    " if ok else "FAIL  ") + what, flush=True)
    if not ok:
        failures.append(what)


def proc_status(pid):
    out = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            k, _, v = line.partition(":")
            out[k] = v.split()[0] if v.split() else ""
    out["fds"] = len(os.listdir(f"/proc/{pid}/fd"))
    return out


def usage(pid):
    s = proc_status(pid)
    return int(s["Threads"]), s["fds"], int(s["VmRSS"])


class Daemon:
    def __init__(self, binary, extra):
        self.root = tempfile.mkdtemp(prefix="sbx-hostile-")
        self.p = subprocess.Popen(
            [binary, "--listen-host", "127.0.0.1", "--grpc-port", "0", "--rest-port", "0",
             "--root-dir", self.root] + extra,
            stdout=subprocess.PIPE, text=True)
        ports = {}
        deadline = time.time() + 20
        while len(ports) < 2 and time.time() < deadline:
            line = self.p.stdout.readline()
            if not line:
                break
            k, _, v = line.strip().partition("=")
            if k in ("grpc-port", "rest-port"):
                ports[k] = int(v)
        if len(ports) < 2:
            raise SystemExit("daemon did not print its ports")
        self.grpc, self.rest = ports["grpc-port"], ports["rest-port"]
        with open(f"/proc/{self.p.pid}/maps") as f:
            self.sanitized = any("libasan" in line or "libubsan" in line for line in f)

    def stop(self):
        self.p.terminate()
        try:
            self.p.wait(20)
        except subprocess.TimeoutExpired:
            self.p.kill()
            self.p.wait()
        shutil.rmtree(self.root, ignore_errors=True)


def connect(port, source="127.0.0.1"):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.bind((source, 0))
    s.settimeout(5)
    s.connect(("127.0.0.1", port))
    return s


def exchange(port, data, wait=1.0, source="127.0.0.1"):
    """Sends data; returns what came back until EOF or the wait ran out,
    and whether the server closed the connection."""
    s = connect(port, source)
    s.sendall(data)
    s.settimeout(0.1)
    out, closed, end = b"", False, time.time() + wait
    while time.time() < end:
        try:
            chunk = s.recv(65536)
        except socket.timeout:
            continue
        except ConnectionResetError:
            closed = True
            break
        if not chunk:
            closed = True
            break
        out += chunk
    s.close()
    return out, closed


def health_answers(port, source="127.0.0.1"):
    try:
        out, _ = exchange(port, b"GET /v1/health HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n",
                          wait=1.0, source=source)
    except OSError:
        return False
    return out.startswith(b"HTTP/1.1 200") and b'"ok"' in out


def execute_works(suite, d):
    """The suite's P1-001 (Execute with stdout and stderr) passes."""
    with tempfile.TemporaryDirectory(prefix="sbx-hostile-json-") as tmp:
        out = os.path.join(tmp, "r.json")
        r = subprocess.run([suite, "--grpc", f"127.0.0.1:{d.grpc}", "--rest",
                            f"127.0.0.1:{d.rest}", "--focus", "^P1-001 ", "--json", out],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                           timeout=120)
        try:
            with open(out) as f:
                cases = {c["id"]: c for c in json.load(f)["cases"]}
        except (OSError, ValueError, KeyError):
            cases = {}
    ok = r.returncode == 0 and cases.get("P1-001", {}).get("outcome") == "pass"
    if not ok:
        print(r.stdout[-2000:])
    return ok


def wait_back_down(d, before, what):
    """Bounded wait (20 s) for threads, descriptors and RSS to return (the
    heap is trimmed only once the last connection is gone, a moment after
    the descriptors drop)."""
    t0, fd0, rss0 = before
    end = time.time() + 20
    while True:
        t, fd, rss = usage(d.p.pid)
        rss_back = d.sanitized or rss <= rss0 + 8 * 1024
        if (t <= t0 + 1 and fd <= fd0 + 1 and rss_back) or time.time() > end:
            break
        time.sleep(0.2)
    print(f"      {what}: threads {t0} -> {t}, fds {fd0} -> {fd}, RSS {rss0} -> {rss} KiB")
    check(t <= t0 + 1, f"{what}: threads back down ({t} vs {t0} before)")
    check(fd <= fd0 + 1, f"{what}: descriptors back down ({fd} vs {fd0} before)")
    if d.sanitized:
        print(f"      {what}: RSS not checked (sanitizer build: freed memory is quarantined)")
    else:
        check(rss <= rss0 + 8 * 1024, f"{what}: RSS within 8 MiB of before ({rss} vs {rss0} KiB)")


