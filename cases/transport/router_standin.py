#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""A stand-in for the upstream sandbox-router, for tests on loopback.

Written from the router's described behaviour, not its code:

- HTTP/1.1 only, downstream and upstream (it cannot carry gRPC: an HTTP/2
  preface gets an HTTP/1.1 error answer);
- every request is routed by its headers: X-Sandbox-ID (required: without
  it, 400 {"detail":"X-Sandbox-ID header is required."}), X-Sandbox-Namespace
  (default "default"; a sandbox is known in one namespace), X-Sandbox-Pod-IP
  (the backend's address; default: the address the sandbox was registered
  with) and X-Sandbox-Port (default 8080);
- "%2F" in the path is decoded to "/" before forwarding;
- Authorization and the hop-by-hop headers (RFC 9110 7.6.1, and those the
  Connection header names) are not forwarded;
- bodies stream both ways (no buffering of a whole body).

--require-bearer-file FILE adds a gateway's check in front: a request whose
Authorization is not "Bearer <the file's first line>" gets 401 (the token
stays out of the process list). Backends are loopback addresses only.

Prints "router-port=N" once listening.
"""
import argparse
import http.client
import http.server
import ipaddress
import json
import re
import socketserver
import sys

HOP_BY_HOP = {"connection", "keep-alive", "proxy-authenticate", "proxy-authorization", "te",
              "trailer", "transfer-encoding", "upgrade", "proxy-connection"}
NOT_FORWARDED = HOP_BY_HOP | {"authorization", "host", "content-length"}
CHUNK = 65536


class Router(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # Error answers to what is not HTTP/1.x (an HTTP/2 preface) still carry
    # an HTTP/1.1 status line.
    default_request_version = "HTTP/1.1"
    server_version = "sandbox-router-standin/1"
    sys_version = ""

    def log_message(self, fmt, *args):
        if self.server.verbose:
            sys.stderr.write("router: " + fmt % args + "\n")

    def answer(self, status, detail):
        body = json.dumps({"detail": detail}).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def backend(self):
        """(host, port) for the request, or None after answering it."""
        token = self.server.bearer
        if token is not None and self.headers.get("Authorization") != "Bearer " + token:
            self.answer(401, "Not authenticated")
            return None
        sandbox = self.headers.get("X-Sandbox-ID")
        if not sandbox:
            self.answer(400, "X-Sandbox-ID header is required.")
            return None
        namespace = self.headers.get("X-Sandbox-Namespace", "default")
        known = self.server.sandboxes.get((namespace, sandbox))
        host = self.headers.get("X-Sandbox-Pod-IP") or known
        if known is None and not self.headers.get("X-Sandbox-Pod-IP"):
            self.answer(404, f"Sandbox {sandbox} not found in namespace {namespace}.")
            return None
        try:
            if not ipaddress.ip_address(host).is_loopback:
                raise ValueError
        except ValueError:
            self.answer(403, "the stand-in forwards to loopback addresses only")
            return None
        port = self.headers.get("X-Sandbox-Port", "8080")
        if not port.isdigit() or not 0 < int(port) < 65536:
            self.answer(400, "X-Sandbox-Port is not a port.")
            return None
        return host, int(port)

    def forward(self):
        where = self.backend()
        if where is None:
            return
        path = re.sub("%2[Ff]", "/", self.path)
        named = {h.strip().lower() for h in self.headers.get("Connection", "").split(",")}
        up = http.client.HTTPConnection(where[0], where[1], timeout=300)
        try:
            up.putrequest(self.command, path, skip_host=True, skip_accept_encoding=True)
            up.putheader("Host", "%s:%d" % where)
            for name, value in self.headers.items():
                if name.lower() not in NOT_FORWARDED and name.lower() not in named:
                    up.putheader(name, value)
            chunked = "chunked" in self.headers.get("Transfer-Encoding", "").lower()
            length = self.headers.get("Content-Length")
            if chunked:
                up.putheader("Transfer-Encoding", "chunked")
            elif length is not None:
                up.putheader("Content-Length", length)
            up.endheaders()
            if chunked:
                self.copy_chunked_request(up)
            elif length is not None:
                left = int(length)
                while left > 0:
                    data = self.rfile.read1(min(CHUNK, left))
                    if not data:
                        raise ConnectionError("the client closed mid-body")
                    up.send(data)
                    left -= len(data)
            resp = up.getresponse()
        except (OSError, http.client.HTTPException, ValueError) as e:
            self.close_connection = True
            try:
                self.answer(502, f"upstream: {e}")
            except OSError:
                pass
            up.close()
            return
        self.send_response_only(resp.status, resp.reason)
        rnamed = {h.strip().lower() for h in (resp.getheader("Connection") or "").split(",")}
        for name, value in resp.getheaders():
            if name.lower() not in HOP_BY_HOP and name.lower() not in rnamed:
                self.send_header(name, value)
        no_body = self.command == "HEAD" or resp.status in (204, 304) or resp.status < 200
        stream_chunked = not no_body and resp.getheader("Content-Length") is None
        if stream_chunked:
            self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        try:
            while not no_body:
                data = resp.read1(CHUNK)
                if not data:
                    break
                if stream_chunked:
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
                else:
                    self.wfile.write(data)
            if stream_chunked:
                self.wfile.write(b"0\r\n\r\n")
        except OSError:
            self.close_connection = True
        finally:
            up.close()

    def copy_chunked_request(self, up):
        while True:
            line = self.rfile.readline(1024)
            size = int(line.split(b";")[0].strip() or b"0", 16)
            if size == 0:
                while self.rfile.readline(1024) not in (b"\r\n", b"\n", b""):
                    pass
                up.send(b"0\r\n\r\n")
                return
            left = size
            up.send(b"%x\r\n" % size)
            while left > 0:
                data = self.rfile.read1(min(CHUNK, left))
                if not data:
                    raise ConnectionError("the client closed mid-chunk")
                up.send(data)
                left -= len(data)
            self.rfile.readline(16)
            up.send(b"\r\n")

    do_GET = do_HEAD = do_PUT = do_POST = do_DELETE = do_PATCH = do_OPTIONS = forward


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    allow_reuse_address = True


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--port", type=int, default=0, help="listening port on 127.0.0.1 (0: any)")
    ap.add_argument("--sandbox", action="append", default=[], metavar="NS/ID=HOST",
                    help="a known sandbox and its backend address (repeatable)")
    ap.add_argument("--require-bearer-file", metavar="FILE",
                    help="answer 401 unless Authorization is 'Bearer <first line of FILE>'")
    ap.add_argument("--verbose", action="store_true")
    args = ap.parse_args()
    server = Server(("127.0.0.1", args.port), Router)
    server.verbose = args.verbose
    server.sandboxes = {}
    for s in args.sandbox:
        key, _, host = s.partition("=")
        ns, _, sid = key.rpartition("/")
        server.sandboxes[(ns or "default", sid)] = host
    server.bearer = None
    if args.require_bearer_file:
        with open(args.require_bearer_file, encoding="utf-8") as f:
            server.bearer = f.readline().strip()
    print("router-port=%d" % server.server_address[1], flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
