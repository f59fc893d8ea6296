#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""A scripted hostile runtime on loopback for the suite's own tests: the
gRPC port speaks just enough HTTP/2 (frames written by hand, HPACK literals
only), the REST port just enough HTTP/1.1. Modes:

  silent    both ports accept connections and never send a byte
  close     both ports close every connection at once
  garbage   health answers; the gRPC port sends its SETTINGS, then garbage
            in answer to the first request
  forever   health answers, PUT and DELETE answer 204; a Start of `seq`
            gets an InitEvent and then stdout without end (honouring flow
            control), any other call a successful Execute answer; every GET
            of a file gets a chunked body without end
  hang      health answers; the gRPC port finishes the handshake and then
            never answers a request

Prints "grpc-port=N" and "rest-port=N" once listening; runs until killed.
"""
import argparse
import socket
import struct
import sys
import threading
import time

MODE = None
# What the gRPC port answers a request with in garbage mode.
GARBAGE = b"HTTP/1.1 400 Bad Request\r\nServer: not-http2\r\n\r\n" + b"\xff" * 64
PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
CHUNK = 16384


def frame(ftype, flags, stream, payload=b""):
    return struct.pack(">I", len(payload))[1:] + bytes([ftype, flags]) + \
        struct.pack(">I", stream) + payload


def literal(name, value):
    return b"\x00" + bytes([len(name)]) + name + bytes([len(value)]) + value


def grpc_message(body):
    return b"\x00" + struct.pack(">I", len(body)) + body


def varint(n):
    out = b""
    while True:
        b = n & 0x7f
        n >>= 7
        if n:
            out += bytes([b | 0x80])
        else:
            return out + bytes([b])


INIT_EVENT = grpc_message(b"\x0a\x02\x08\x01")  # StartResponse{init{process_id: 1}}
STDOUT_PAYLOAD = b"x" * (CHUNK - 16)
STDOUT_EVENT = grpc_message(b"\x12" + varint(len(STDOUT_PAYLOAD)) + STDOUT_PAYLOAD)


def read_exact(conn, n):
    buf = b""
    while len(buf) < n:
        chunk = conn.recv(n - len(buf))
        if not chunk:
            raise EOFError
        buf += chunk
    return buf


class H2:
    """One server connection: a reader thread updates flow-control windows,
    the writer streams to every open stream."""

    def __init__(self, conn):
        self.conn = conn
        self.lock = threading.Condition()
        self.conn_window = 65535
        self.initial = 65535
        self.streams = {}  # id -> window, for the endless ones
        self.bodies = {}   # id -> request bytes so far
        self.wlock = threading.Lock()

    def send(self, data):
        with self.wlock:
            self.conn.sendall(data)

    def reader(self):
        read_exact(self.conn, len(PREFACE))
        while True:
            hdr = read_exact(self.conn, 9)
            n = int.from_bytes(hdr[:3], "big")
            ftype, flags = hdr[3], hdr[4]
            sid = int.from_bytes(hdr[5:9], "big") & 0x7fffffff
            payload = read_exact(self.conn, n) if n else b""
            if ftype == 4 and not flags & 1:  # SETTINGS
                for i in range(0, len(payload), 6):
                    ident, val = struct.unpack(">HI", payload[i:i + 6])
                    if ident == 4:
                        with self.lock:
                            for s in self.streams:
                                self.streams[s] += val - self.initial
                            self.initial = val
                            self.lock.notify_all()
                self.send(frame(4, 1, 0))
            elif ftype == 8:  # WINDOW_UPDATE
                inc = int.from_bytes(payload[:4], "big") & 0x7fffffff
                with self.lock:
                    if sid == 0:
                        self.conn_window += inc
                    elif sid in self.streams:
                        self.streams[sid] += inc
                    self.lock.notify_all()
            elif ftype == 1:  # HEADERS: a new request
                self.bodies[sid] = b""
                if flags & 1:
                    self.on_request(sid, b"")
            elif ftype == 0 and sid in self.bodies:  # DATA of a request
                pad = payload[0] if flags & 0x8 else 0
                self.bodies[sid] += payload[1:len(payload) - pad] if flags & 0x8 else payload
                if flags & 1:
                    self.on_request(sid, self.bodies.pop(sid))
            elif ftype == 6 and not flags & 1:  # PING
                self.send(frame(6, 1, 0, payload))
            elif ftype == 3:  # RST_STREAM
                with self.lock:
                    self.streams.pop(sid, None)

    def on_request(self, sid, body):
        if MODE == "garbage":
            self.send(GARBAGE)
            return
        if MODE == "hang":
            return
        headers = literal(b":status", b"200") + literal(b"content-type", b"application/grpc")
        self.send(frame(1, 4, sid, headers))
        if b"seq" not in body:
            # Not the streaming case's Start (it runs seq): a successful
            # Execute, so the suite's set-up (mkdir, the probe) goes through.
            out = b"/root\nprocfs\npty\n"
            self.send(frame(0, 0, sid, grpc_message(b"\x12" + varint(len(out)) + out)))
            self.send(frame(1, 5, sid, literal(b"grpc-status", b"0")))
            return
        with self.lock:
            self.streams[sid] = self.initial
            self.lock.notify_all()
        self.send_data(sid, INIT_EVENT)

    def send_data(self, sid, data):
        with self.lock:
            while sid in self.streams and (self.conn_window < len(data) or
                                           self.streams[sid] < len(data)):
                self.lock.wait(1)
            if sid not in self.streams:
                return False
            self.conn_window -= len(data)
            self.streams[sid] -= len(data)
        self.send(frame(0, 0, sid, data))
        return True

    def writer(self):
        """Endless stdout on every open stream, round robin, until the
        connection goes."""
        try:
            self.write_forever()
        except OSError:
            pass

    def write_forever(self):
        while True:
            with self.lock:
                while not self.streams:
                    self.lock.wait(1)
                ids = list(self.streams)
            for sid in ids:
                self.send_data(sid, STDOUT_EVENT)


def serve_grpc(conn):
    try:
        if MODE == "silent":
            while conn.recv(65536):
                pass
            return
        if MODE == "close":
            return
        h = H2(conn)
        h.send(frame(4, 0, 0))
        if MODE == "forever":
            threading.Thread(target=h.writer, daemon=True).start()
        h.reader()
    except (EOFError, OSError):
        pass
    finally:
        conn.close()


def serve_rest(conn):
    try:
        if MODE == "silent":
            while conn.recv(65536):
                pass
            return
        if MODE == "close":
            return
        buf = b""
        while True:
            while b"\r\n\r\n" not in buf:
                chunk = conn.recv(65536)
                if not chunk:
                    return
                buf += chunk
            head, buf = buf.split(b"\r\n\r\n", 1)
            lines = head.split(b"\r\n")
            method, target = lines[0].split(b" ")[:2]
            length = 0
            for line in lines[1:]:
                k, _, v = line.partition(b":")
                if k.strip().lower() == b"content-length":
                    length = int(v.strip())
            while len(buf) < length:
                chunk = conn.recv(65536)
                if not chunk:
                    return
                buf += chunk
            buf = buf[length:]
            if target.startswith(b"/v1/health") or target.startswith(b"/v1/metadata"):
                body = b'{"status":"ok","uptime_seconds":1}' if b"health" in target \
                    else b'{"env":{}}'
                conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                             b"Content-Length: %d\r\n\r\n" % len(body) + body)
            elif method in (b"PUT", b"DELETE"):
                conn.sendall(b"HTTP/1.1 204 No Content\r\n\r\n")
            elif MODE == "forever" and method == b"GET":
                conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\n"
                             b"Transfer-Encoding: chunked\r\n\r\n")
                chunk = b"%x\r\n" % 65536 + b"y" * 65536 + b"\r\n"
                while True:
                    conn.sendall(chunk)
            else:
                body = b'{"code":"NOT_FOUND","message":"scripted"}'
                conn.sendall(b"HTTP/1.1 404 Not Found\r\nContent-Type: application/json\r\n"
                             b"Content-Length: %d\r\n\r\n" % len(body) + body)
    except (OSError, ValueError):
        pass
    finally:
        conn.close()


LISTENERS = []  # held for the process's life: a listener is never collected


def listen(handler):
    srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind(("127.0.0.1", 0))
    srv.listen(128)
    LISTENERS.append(srv)

    def loop():
        # A failed accept or thread start (a busy machine) costs that one
        # connection, never the listener.
        while True:
            try:
                c, _ = srv.accept()
            except OSError as e:
                print(f"hostile runtime: accept: {e}", file=sys.stderr, flush=True)
                time.sleep(0.05)
                continue
            try:
                threading.Thread(target=handler, args=(c,), daemon=True).start()
            except RuntimeError as e:
                print(f"hostile runtime: {e}", file=sys.stderr, flush=True)
                c.close()

    threading.Thread(target=loop, daemon=True).start()
    return srv.getsockname()[1]


def main():
    global MODE
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", choices=["silent", "close", "garbage", "forever", "hang"])
    MODE = ap.parse_args().mode
    g = listen(serve_grpc)
    r = listen(serve_rest)
    print(f"grpc-port={g}\nrest-port={r}", flush=True)
    threading.Event().wait()


if __name__ == "__main__":
    sys.exit(main())
