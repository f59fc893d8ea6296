# SPDX-License-Identifier: Apache-2.0
"""A Start call over a hand-written HTTP/2 connection (raw_h2.py), for tests
that must control what a well-behaved client would not: the flow-control
window it grants, and whether it reads at all."""
import socket
import struct
import time

from raw_h2 import DATA, GOAWAY, HEADERS, PREFACE, RST_STREAM, SETTINGS, \
    SETTINGS_INITIAL_WINDOW_SIZE, frame, grpc_request_block


def varint(v):
    out = b""
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out += bytes([b | 0x80])
        else:
            return out + bytes([b])


def field(num, payload):
    return varint(num << 3 | 2) + varint(len(payload)) + payload


def start_request(argv):
    config = b"".join(field(1, a.encode()) for a in argv)
    msg = field(1, config)
    return b"\x00" + struct.pack(">I", len(msg)) + msg


class RawStart:
    """One Start stream (id 1). window: the initial stream window announced
    in SETTINGS (0 = the daemon may send no DATA at all)."""

    def __init__(self, port, argv, window=65535):
        self.s = socket.create_connection(("127.0.0.1", port), timeout=5)
        settings = struct.pack(">HI", SETTINGS_INITIAL_WINDOW_SIZE, window)
        block = grpc_request_block("Start")
        self.s.sendall(PREFACE + frame(SETTINGS, 0, 0, settings) +
                       frame(HEADERS, 0x4, 1, block) +
                       frame(DATA, 0x1, 1, start_request(argv)))
        self.buf = b""
        self.ended = None  # "end-stream", "rst", "goaway" or "closed"
        self.data = b""    # DATA payload of stream 1 (gRPC messages)

    def pump(self, seconds):
        """Reads frames for up to `seconds`, or until the stream ended."""
        end = time.time() + seconds
        self.s.settimeout(0.2)
        while self.ended is None and time.time() < end:
            try:
                chunk = self.s.recv(65536)
            except socket.timeout:
                continue
            except OSError:
                chunk = b""
            if not chunk:
                self.ended = "closed"
                break
            self.buf += chunk
            while len(self.buf) >= 9:
                n = int.from_bytes(self.buf[:3], "big")
                if len(self.buf) < 9 + n:
                    break
                ftype, flags = self.buf[3], self.buf[4]
                stream = int.from_bytes(self.buf[5:9], "big") & 0x7FFFFFFF
                payload = self.buf[9:9 + n]
                self.buf = self.buf[9 + n:]
                if ftype == SETTINGS and not flags & 1:
                    self.s.sendall(frame(SETTINGS, 1, 0))
                if stream == 1 and ftype == DATA:
                    self.data += payload
                if stream == 1 and ftype in (DATA, HEADERS) and flags & 1:
                    self.ended = "end-stream"
                if stream == 1 and ftype == RST_STREAM:
                    self.ended = "rst"
                if ftype == GOAWAY:
                    self.ended = "goaway"
        return self.ended

    def messages(self):
        """The StartResponse messages received so far, as (field, bytes)."""
        out, b = [], self.data
        while len(b) >= 5:
            n = struct.unpack(">I", b[1:5])[0]
            if len(b) < 5 + n:
                break
            m = b[5:5 + n]
            b = b[5 + n:]
            if m:
                out.append((m[0] >> 3, m))
        return out

    def close(self):
        self.s.close()
