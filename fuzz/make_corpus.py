#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Writes the seed corpora of fuzz/corpus/ from real material: the traversal
vectors, the project's and the upstream OpenAPI documents, baselines and
results files, multipart bodies and Range headers as the suite sends them,
and real gRPC and REST traffic recorded on loopback between the suite and
sandboxd-ref (both directions of every connection).

    fuzz/make_corpus.py BUILD_DIR

Seeds are named by the hash of their content, so rerunning adds nothing
twice. Found inputs are added with ci/fuzz.sh (libFuzzer -merge=1)."""
import hashlib
import json
import os
import re
import select
import socket
import subprocess
import sys
import tempfile
import threading

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(HERE)
CORPUS = os.path.join(HERE, "corpus")


def seed(target, data, limit=64 * 1024, name=None):
    """name: a whole real document, kept by ci/fuzz.sh merge as seed-NAME."""
    if isinstance(data, str):
        data = data.encode()
    data = data[:limit]
    d = os.path.join(CORPUS, target)
    os.makedirs(d, exist_ok=True)
    name = "seed-" + name if name else hashlib.sha1(data).hexdigest()[:16]
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def traversal_paths():
    text = open(os.path.join(SRC, "cases/confinement/traversal.yaml")).read()
    subst = {"{pf}": "canary.txt", "{pd}": "canary_dir", "{pi}": "canary_dir/inner",
             "{tf}": "tmp_canary", "{sf}": "sib/f", "{in}": "known.txt", "{sib}": "root-sib",
             "{pabs}": "tmp/sbx/root", "{cd}": "case"}
    out = []
    for m in re.finditer(r'path: "([^"]*)"', text):
        p = m.group(1)
        p = re.sub(r"\{(?:up|root|top)(?:\+\d+)?:([^}]*)\}", lambda g: g.group(1) * 4, p)
        p = re.sub(r"\{rep:(\d+):([^}]*)\}", lambda g: g.group(2) * min(int(g.group(1)), 300), p)
        p = re.sub(r"\{(pabs|cd):([^}]*)\}", lambda g: g.group(2).join(["tmp", "sbx", "root"]), p)
        for k, v in subst.items():
            p = p.replace(k, v)
        out.append(p)
    return out


def path_seeds():
    extra = ["", "/", ".", "d/file.txt", "up/outside.txt", "up_file", "slash/etc/passwd",
             "etc", "in_file", "round_trip/file.txt", "loop", "d/e/back/outside.txt",
             "d/e/self/self/back", "abs_in/file.txt", "dangling", "magic/etc/passwd",
             "a%20b%25.txt", "d/../../outside.txt", "%2e%2e/outside.txt", "d%2f..%2f..",
             "d/e/../../up", "%00", "%zz", "d//e///", "a" * 300]
    for i, p in enumerate(traversal_paths() + extra):
        seed("daemon_path_resolve", bytes([i % 16]) + p.encode())


def multipart_seeds():
    b = "sbxBoundary7MA4YWxk"
    ct = "multipart/form-data; boundary=" + b
    bodies = [
        f"--{b}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.txt\"\r\n"
        f"Content-Type: application/octet-stream\r\n\r\nhello\r\n--{b}--\r\n",
        f"preamble\r\n--{b}\r\nContent-Disposition: form-data; name=\"other\"\r\n\r\nx\r\n"
        f"--{b}\r\nContent-Disposition: form-data; name=\"file\"\r\n\r\n\r\n--{b}x\r\n--{b}--  \r\nepilogue",
        f"--{b}\r\nContent-Disposition: form-data; name=file\r\n\r\nno end",
        f"--{b}--\r\n",
        f"--{b}\r\ncontent-disposition: FORM-DATA; NAME=\"file\"\r\n\r\n\r\n\r\n--{b}--",
    ]
    for body in bodies:
        seed("daemon_multipart", ct + "\n" + body)
    seed("daemon_multipart", 'multipart/form-data; boundary="quoted b"\n--quoted b\r\n'
         'Content-Disposition: form-data; name="file"\r\n\r\nq\r\n--quoted b--\r\n')


def range_seeds():
    for size, h in [(100, "bytes=0-9"), (100, "bytes=-10"), (100, "bytes=90-"), (100, "bytes=100-"),
                    (0, "bytes=0-"), (100, "bytes=5-2"), (100, "bytes=0-1,3-4"), (100, "items=0-1"),
                    (100, " bytes = 1 - 2 "), (2**64 - 1, "bytes=18446744073709551614-"),
                    (100, "bytes=-0"), (100, "bytes=99999999999999999999-")]:
        seed("daemon_byte_range", size.to_bytes(8, "little") + h.encode())


def metadata_seeds():
    for s in ["SANDBOX_\nSANDBOX_NAME", "SANDBOX_\nSANDBOX_API_TOKEN", "SANDBOX_\nsandbox_x",
              "APP_\nAPP_PrivateKey", "\nANY", "SANDBOX_\nSANDBOX_AuThOrItY", "X\nXcert"]:
        seed("daemon_metadata_filter", s)


def yaml_seeds():
    for path in [os.path.join(SRC, "openapi/sandboxd.yaml"),
                 "/work/shared/upstream/filesystem-v1.openapi.yaml"]:
        if os.path.exists(path):
            seed("suite_openapi", b"\x00" + open(path, "rb").read(), limit=128 * 1024,
                 name=os.path.basename(path))
    for i, body in enumerate(['{"status":"ok"}', '{"code":"NOT_FOUND","message":"x"}',
                              '{"entries":[{"name":"a","type":"file","size":1}]}',
                              '{"SANDBOX_A":"1"}', "[1, 2", "status: ok\n", '{"a":1e999}']):
        seed("suite_openapi", bytes([1 + 2 * (i * 37 % 128)]) + body.encode())
    seed("suite_traversal_vectors", open(os.path.join(SRC, "cases/confinement/traversal.yaml"), "rb").read(),
         limit=256 * 1024, name="traversal.yaml")
    seed("suite_traversal_vectors", 'vectors:\n  - {id: a, class: literal, path: "x/{pf}/"}\n')
    seed("suite_baseline", "expected_failures:\n  - id: P6-001\n    reason: exit 127\n"
         "    link: https://example.org/1\n")
    seed("suite_baseline", "- id: S1-001\n  reason: r\n- {id: S2-001, reason: q}\n")
    fmt = '{"format":"sandboxd-conformance-explore-replay/1","seed":"7","ops":['
    seed("suite_explore_replay", fmt + '{"kind":"put","path":"a b/c","size":5,'
         '"content_seed":"00000000000000ff","mode":"0755","multipart":true},'
         '{"kind":"get","path":"a b/c","range_a":1,"range_b":3},'
         '{"kind":"symlink","path":"l","target":"a b"},'
         '{"kind":"start","slot":0,"pty":true,"has_cwd":true,"path":"a b"},'
         '{"kind":"write","slot":0,"input":"hi\\n"},{"kind":"signal","slot":0,"signal":15},'
         '{"kind":"delete","path":"a b","recursive":1,"nul":true,"enc":2}]}')
    seed("suite_explore_replay", fmt + '{"kind":"delete","path":"a/../../x"}]}')
    seed("suite_explore_replay", fmt + '{"kind":"resize","slot":-1,"cols":80,"rows":24},'
         '{"kind":"badcmd","empty_argv":true},{"kind":"env","input":"v"}]}')
    seed("suite_rerun_failed", '{"schema":"sandboxd-conformance/1","cases":['
         '{"id":"S1-001","outcome":"fail"},{"id":"P1-001","outcome":"pass"},'
         '{"id":"H1-001","outcome":"timeout"},{"id":"X","outcome":"error"}]}')
    # GET /v1/health answers: status index, content type, Server, body.
    for status, ctype, server, body in [
            (0, "application/json", "", '{"status":"ok","uptime_seconds":3}'),
            (0, "application/json; charset=utf-8", "", '{"status":"healthy"}'),
            (1, "application/json", "", '{"code":"UNAVAILABLE","message":"shutting down"}'),
            (2, "application/json", "sandbox-router", '{"detail":"X-Sandbox-ID header is required."}'),
            (3, "text/html", "nginx/1.22.1", "<html><h1>401 Authorization Required</h1></html>"),
            (5, "text/html", "nginx", "<html>502 Bad Gateway</html>"),
            (0, "text/plain", "", "ok\x00\x1b[31m"),
            (0, "application/json", "", "[1,2]")]:
        seed("suite_health_gate", bytes([status]) + f"{ctype}\n{server}\n{body}".encode())
    seed("suite_header_file", "# routing\nX-Sandbox-ID: sb-1\r\n\n  Authorization: Bearer t\n"
         "X-Sandbox-Port: 8080")
    seed("suite_header_file", "X-A: a\x00b\n")
    seed("suite_header_file", "Host: x\n")
    seed("suite_header_file", ":authority: x\n")
    seed("suite_header_file", ":")
    seed("suite_header_file", "X-Ok: 1\nbad line\n")
    samples = os.path.join(SRC, "reports/samples")
    for name in sorted(os.listdir(samples)) if os.path.isdir(samples) else []:
        if name.endswith(".json"):
            # A real results file, cut to its first cases to stay small.
            doc = json.load(open(os.path.join(samples, name)))
            if isinstance(doc.get("cases"), list):
                doc["cases"] = doc["cases"][:3]
            seed("suite_rerun_failed", json.dumps(doc, separators=(",", ":")), name=name)


class Recorder:
    """A loopback TCP relay that keeps both directions of each connection."""

    def __init__(self, upstream_port):
        self.up = upstream_port
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(64)
        self.port = self.sock.getsockname()[1]
        self.conns = []
        threading.Thread(target=self.accept, daemon=True).start()

    def accept(self):
        while True:
            c, _ = self.sock.accept()
            rec = [bytearray(), bytearray()]
            self.conns.append(rec)
            threading.Thread(target=self.relay, args=(c, rec), daemon=True).start()

    def relay(self, c, rec):
        u = socket.create_connection(("127.0.0.1", self.up))
        peers = {c: (u, rec[0]), u: (c, rec[1])}
        while peers:
            r, _, _ = select.select(list(peers), [], [], 30)
            if not r:
                break
            for s in r:
                data = s.recv(65536)
                other, buf = peers[s]
                if not data:
                    try:
                        other.shutdown(socket.SHUT_WR)
                    except OSError:
                        pass
                    del peers[s]
                    continue
                if len(buf) < 256 * 1024:
                    buf += data
                other.sendall(data)
        c.close()
        u.close()


def traffic_seeds(build):
    daemon = os.path.join(build, "reference-daemon/sandboxd-ref")
    suite = os.path.join(build, "suite/sandboxd-conformance")
    with tempfile.TemporaryDirectory() as root:
        p = subprocess.Popen([daemon, "--listen-host", "127.0.0.1", "--grpc-port", "0",
                              "--rest-port", "0", "--root-dir", root], stdout=subprocess.PIPE, text=True)
        ports = {}
        while len(ports) < 2:
            k, v = p.stdout.readline().strip().split("=")
            ports[k] = int(v)
        g, r = Recorder(ports["grpc-port"]), Recorder(ports["rest-port"])
        subprocess.run([suite, "--grpc", f"127.0.0.1:{g.port}", "--rest", f"127.0.0.1:{r.port}",
                        "--quiet", "--jobs", "2", "--focus", "^(P|G|F|H|M)[0-9]+-00[12] ",
                        "--skip", "^F1-003"],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=600)
        p.terminate()
        p.wait()
    for i, (to_server, to_client) in enumerate(g.conns):
        if to_server:
            seed("daemon_grpc_session", bytes([2 * (i % 2)]) + bytes(to_server))
        if to_client:
            seed("suite_grpc_client", bytes([i % 3 * 50]) + bytes(to_client))
    for i, (to_server, to_client) in enumerate(r.conns):
        if to_client:
            seed("suite_raw_http", bytes(to_client))
            seed("suite_rest_response", bytes([i % 4]) + bytes(to_client))
    # Requests as the daemon decodes them, taken from the recorded gRPC
    # DATA frames: the 5-byte message prefix, then the message.
    for to_server, _ in g.conns:
        for m in re.finditer(rb"\x00\x00\x00\x00([\x01-\xff])", bytes(to_server)):
            n = m.group(1)[0]
            body = bytes(to_server)[m.end():m.end() + n]
            if len(body) == n:
                for t in range(5):
                    seed("daemon_grpc_request", bytes([t]) + body)


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    path_seeds()
    multipart_seeds()
    range_seeds()
    metadata_seeds()
    yaml_seeds()
    traffic_seeds(sys.argv[1])


if __name__ == "__main__":
    main()
