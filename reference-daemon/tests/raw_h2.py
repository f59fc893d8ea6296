# SPDX-License-Identifier: Apache-2.0
"""HTTP/2 frames written by hand, for tests that must send what a
well-behaved client never would (no HTTP/2 library is needed): the
connection preface, frames, and an HPACK header block of plain literals."""
import struct

PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
DATA, HEADERS, RST_STREAM, SETTINGS, GOAWAY, WINDOW_UPDATE = 0, 1, 3, 4, 7, 8
SETTINGS_INITIAL_WINDOW_SIZE = 4


def frame(ftype, flags, stream, payload=b""):
    return struct.pack(">I", len(payload))[1:] + bytes([ftype, flags]) + \
        struct.pack(">I", stream) + payload


def literal(name, value):
    """HPACK literal header field without indexing, no Huffman coding."""
    assert len(name) < 127 and len(value) < 127
    return b"\x00" + bytes([len(name)]) + name + bytes([len(value)]) + value


def grpc_request_block(method):
    """The header block of a gRPC request to /process.v1.ProcessService/<method>."""
    return b"".join(literal(n, v) for n, v in [
        (b":method", b"POST"), (b":scheme", b"http"), (b":authority", b"h"),
        (b":path", b"/process.v1.ProcessService/" + method.encode()),
        (b"content-type", b"application/grpc"), (b"te", b"trailers")])
