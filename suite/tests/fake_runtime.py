#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""A stand-in runtime for the runner's own tests (not a sandboxd).

Serves just enough for the runner: REST /v1/health, /v1/metadata and
/v1/files (PUT, GET, HEAD, DELETE with recursive) over a root directory, a
gRPC port that answers the HTTP/2 preface with a SETTINGS frame and then
closes (so every RPC fails fast and the runner's REST fallbacks are used),
and hostile routes for robustness cases: /test/hang, /test/garbage,
/test/huge, /test/reset. Exits 0 on SIGTERM.
"""
import argparse
import http.server
import json
import os
import shutil
import signal
import socket
import socketserver
import sys
import threading
import time
import urllib.parse

CREDENTIAL_MARKERS = ("TOKEN", "SECRET", "PASSWORD", "CREDENTIAL", "KEY", "PASSWD", "CRED",
                      "AUTH", "BEARER", "PRIVATE", "CERT")


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    root = "/"
    started = time.time()

    def log_message(self, fmt, *args):  # quiet
        pass

    def send_json(self, status, obj, extra=None):
        body = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        for k, v in (extra or {}).items():
            self.send_header(k, v)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def error(self, status, code):
        self.send_json(status, {"code": code, "message": code.lower()})

    def local_path(self):
        raw = self.path.split("?", 1)[0][len("/v1/files/"):]
        rel = urllib.parse.unquote(raw)
        full = os.path.realpath(os.path.join(self.root, rel.lstrip("/")))
        if full != self.root and not full.startswith(self.root + os.sep):
            return None
        return full

    def query(self):
        return urllib.parse.parse_qs(urllib.parse.urlsplit(self.path).query)

    def do_GET(self):
        if self.path == "/v1/health":
            return self.send_json(200, {"status": "ok",
                                        "uptime_seconds": int(time.time() - self.started)})
        if self.path == "/v1/metadata":
            env = {k: v for k, v in os.environ.items() if k.startswith("SANDBOX_") and
                   not any(m in k.upper() for m in CREDENTIAL_MARKERS)}
            return self.send_json(200, {"env": env})
        if self.path == "/test/hang":
            time.sleep(60)
            return None
        if self.path == "/test/garbage":
            self.wfile.write(b"\x00\xffNOT HTTP AT ALL\r\n\r\n")
            self.close_connection = True
            return None
        if self.path == "/test/reset":
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00"
                                       b"\x00\x00\x00\x00")
            self.close_connection = True
            return None
        if self.path == "/test/huge":
            self.send_response(200)
            self.send_header("Content-Type", "application/octet-stream")
            self.send_header("Content-Length", str(64 << 20))
            self.end_headers()
            chunk = b"x" * 65536
            try:
                for _ in range(1024):
                    self.wfile.write(chunk)
            except OSError:
                pass
            return None
        if self.path.startswith("/v1/files/"):
            p = self.local_path()
            if p is None:
                return self.error(403, "PERMISSION_DENIED")
            if os.path.isdir(p):
                entries = [{"name": n, "size": 0, "type": "file",
                            "modified_at": "2000-01-01T00:00:00Z"} for n in sorted(os.listdir(p))]
                return self.send_json(200, {"path": "/", "entries": entries})
            if not os.path.isfile(p):
                return self.error(404, "NOT_FOUND")
            with open(p, "rb") as f:
                data = f.read()
            self.send_response(200)
            self.send_header("Content-Type", "application/octet-stream")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(data)
            return None
        return self.error(404, "NOT_FOUND")

    do_HEAD = do_GET

    def do_PUT(self):
        p = self.local_path() if self.path.startswith("/v1/files/") else None
        n = int(self.headers.get("Content-Length", "0"))
        data = self.rfile.read(n) if n else b""
        if p is None:
            return self.error(403, "PERMISSION_DENIED")
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "wb") as f:
            f.write(data)
        self.send_response(204)
        self.send_header("Content-Length", "0")
        self.end_headers()
        return None

    def do_DELETE(self):
        p = self.local_path() if self.path.startswith("/v1/files/") else None
        if p is None or p == self.root:
            return self.error(403, "PERMISSION_DENIED")
        if not os.path.lexists(p):
            return self.error(404, "NOT_FOUND")
        if os.path.isdir(p):
            if self.query().get("recursive") == ["true"]:
                shutil.rmtree(p)
            else:
                try:
                    os.rmdir(p)
                except OSError:
                    return self.error(409, "CONFLICT")
        else:
            os.unlink(p)
        self.send_response(204)
        self.send_header("Content-Length", "0")
        self.end_headers()
        return None


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    allow_reuse_address = True


def grpc_stub(port, silent):
    srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind(("127.0.0.1", port))
    srv.listen(64)

    def serve(conn):
        try:
            if silent:  # read whatever comes, answer nothing, until the peer leaves
                conn.settimeout(60)
                while conn.recv(4096):
                    pass
                return
            conn.settimeout(5)
            conn.sendall(b"\x00\x00\x00\x04\x00\x00\x00\x00\x00")
            conn.recv(4096)
        except OSError:
            pass
        finally:
            conn.close()

    while True:
        c, _ = srv.accept()
        threading.Thread(target=serve, args=(c,), daemon=True).start()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--grpc-port", type=int, required=True)
    ap.add_argument("--rest-port", type=int, required=True)
    ap.add_argument("--root", required=True)
    ap.add_argument("--exit-code", type=int, default=0, help="status to exit with on SIGTERM")
    ap.add_argument("--grpc-silent", action="store_true",
                    help="accept gRPC connections but never send anything")
    a = ap.parse_args()
    os.makedirs(a.root, exist_ok=True)
    Handler.root = os.path.realpath(a.root)
    signal.signal(signal.SIGTERM, lambda *_: os._exit(a.exit_code))
    threading.Thread(target=grpc_stub, args=(a.grpc_port, a.grpc_silent), daemon=True).start()
    httpd = Server(("127.0.0.1", a.rest_port), Handler)
    print(f"fake runtime on grpc {a.grpc_port} rest {a.rest_port} root {a.root}", flush=True)
    httpd.serve_forever()


if __name__ == "__main__":
    sys.exit(main())
