#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Hostile gRPC clients against sandboxd-ref, on loopback, each attack
bounded in connections and time (frames are written by hand: no HTTP/2
library is needed).

  silent     1,000 TCP connections that never send the HTTP/2 preface:
             closed by the handshake deadline
  idle       1,000 connections that finish the handshake and open no
             stream: their memory, then GOAWAY and close at the idle timeout
  cap        more connections than --grpc-max-connections: the excess closed
  per-client one address opening more than its share (a quarter of the cap):
             the excess closed at once, other clients served; then 9,000
             idle connections from 100 addresses: the cap holds
  half-open  streams whose request never ends: reset at the request timeout

During every attack /v1/health must answer within 1 s (a bounded wait) and
Execute must work (the suite's P1-001 case); after it the daemon's threads
and descriptors must come back to their level before, its RSS close to it.
"""
import argparse
import resource
import selectors
import socket
import sys
import time

from hostile_common import Daemon, check, connect, execute_works, failures, health_answers, \
    usage, wait_back_down
from raw_h2 import HEADERS, PREFACE, frame, grpc_request_block


def request_headers(stream):
    # HEADERS, END_HEADERS, no END_STREAM
    return frame(HEADERS, 0x4, stream, grpc_request_block("Execute"))


def handshake():
    return PREFACE + frame(4, 0, 0)  # an empty SETTINGS


def wait_closed(socks, seconds, want_frame=None):
    """Reads every socket until the daemon closes it or the wait runs out.
    Returns (closed sockets, sockets that got a frame of type want_frame)."""
    sel = selectors.DefaultSelector()
    bufs = {}
    for s in socks:
        s.setblocking(False)
        sel.register(s, selectors.EVENT_READ)
        bufs[s] = b""
    closed, framed, end = set(), set(), time.time() + seconds
    while len(closed) < len(socks) and time.time() < end:
        for key, _ in sel.select(timeout=0.2):
            s = key.fileobj
            try:
                data = s.recv(65536)
            except (BlockingIOError, InterruptedError):
                continue
            except OSError:
                data = b""
            if not data:
                closed.add(s)
                sel.unregister(s)
                continue
            bufs[s] += data
            b = bufs[s]
            while len(b) >= 9:
                n = int.from_bytes(b[:3], "big")
                if len(b) < 9 + n:
                    break
                if want_frame is not None and b[3] == want_frame:
                    framed.add(s)
                b = b[9 + n:]
            bufs[s] = b
    sel.close()
    return closed, framed


def open_many(port, n, first_bytes=b""):
    socks = []
    sources = ["127.0.0.2", "127.0.0.3", "127.0.0.4", "127.0.0.5"]
    for i in range(n):
        s = connect(port, sources[i % len(sources)])
        if first_bytes:
            s.sendall(first_bytes)
        socks.append(s)
    return socks


def probes(args, d, what):
    check(health_answers(d.rest), f"health answers within 1 s beside {what}")
    check(execute_works(args.suite, d), f"Execute works beside {what}")


def attack_silent(args):
    d = Daemon(args.daemon, ["--grpc-handshake-timeout", "3s"])
    try:
        before = usage(d.p.pid)
        socks = open_many(d.grpc, 1000)
        probes(args, d, "1,000 silent gRPC connections")
        closed, _ = wait_closed(socks, 20)
        print(f"      silent: {len(closed)} of 1000 closed by the handshake deadline")
        check(len(closed) == 1000, "every connection that never sent the preface is closed")
        for s in socks:
            s.close()
        wait_back_down(d, before, "after the silent connections")
    finally:
        d.stop()


def attack_idle(args):
    d = Daemon(args.daemon, ["--grpc-idle-timeout", "20s"])
    try:
        before = usage(d.p.pid)
        socks = open_many(d.grpc, 1000, handshake())
        end = time.time() + 20
        while usage(d.p.pid)[1] < before[1] + 1000 and time.time() < end:
            time.sleep(0.2)
        time.sleep(0.5)  # the handshakes are read
        t, fd, rss = usage(d.p.pid)
        print(f"      1,000 idle HTTP/2 connections held: fds {fd}, RSS {rss} KiB "
              f"({(rss - before[2]) / 1000:.1f} KiB per connection)")
        check(fd >= before[1] + 1000, f"the daemon holds the 1,000 idle connections (fds {fd})")
        probes(args, d, "1,000 idle HTTP/2 connections")
        closed, goaway = wait_closed(socks, 45, want_frame=7)
        print(f"      idle: {len(goaway)} got GOAWAY, {len(closed)} of 1000 closed")
        check(len(goaway) == 1000 and len(closed) == 1000,
              "every idle connection gets GOAWAY and is closed at the idle timeout")
        for s in socks:
            s.close()
        wait_back_down(d, before, "after the idle HTTP/2 connections")
    finally:
        d.stop()


def attack_cap(args):
    # The per-client cap is lifted: this attack is about the total.
    d = Daemon(args.daemon, ["--grpc-max-connections", "200",
                             "--grpc-max-connections-per-client", "300"])
    try:
        before = usage(d.p.pid)
        socks = open_many(d.grpc, 300, handshake())
        closed, _ = wait_closed(socks, 5)
        print(f"      cap 200: {len(closed)} of 300 connections closed at once")
        check(len(closed) == 100, f"exactly the 100 over the cap are closed ({len(closed)})")
        for s in socks:
            s.close()
        wait_back_down(d, before, "after the connection cap")
        check(execute_works(args.suite, d), "Execute works once the cap's connections are gone")
    finally:
        d.stop()


def open_from(port, sources, per_source, first_bytes):
    """Non-blocking connects from each source address, first_bytes sent
    as soon as each is up; returns the sockets."""
    socks = []
    for src in sources:
        for _ in range(per_source):
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.setblocking(False)
            s.bind((src, 0))
            s.connect_ex(("127.0.0.1", port))
            socks.append(s)
    sel = selectors.DefaultSelector()
    for s in socks:
        sel.register(s, selectors.EVENT_WRITE)
    pending, end = set(socks), time.time() + 20
    while pending and time.time() < end:
        for key, _ in sel.select(timeout=0.2):
            s = key.fileobj
            sel.unregister(s)
            pending.discard(s)
            try:
                s.send(first_bytes)
            except OSError:
                pass
    sel.close()
    return socks


def attack_per_client(args):
    resource.setrlimit(resource.RLIMIT_NOFILE, (resource.getrlimit(resource.RLIMIT_NOFILE)[1],) * 2)
    d = Daemon(args.daemon, ["--grpc-idle-timeout", "60s"])
    try:
        before = usage(d.p.pid)
        # The default caps: 1,024 connections, a quarter of them per address.
        one = open_from(d.grpc, ["127.0.0.9"], 400, handshake())
        closed, _ = wait_closed(one, 5)
        print(f"      one address: {len(closed)} of 400 closed at once (share 256 of 1,024)")
        check(len(closed) == 400 - 256,
              f"one address keeps its share of 256 and the 144 over it are closed "
              f"({len(closed)} closed)")
        probes(args, d, "one address holding its share of gRPC connections")
        for s in one:
            s.close()
        wait_back_down(d, before, "after one address's gRPC connections")
        many = open_from(d.grpc, [f"127.0.8.{i}" for i in range(1, 101)], 90, handshake())
        closed, _ = wait_closed(many, 5)
        t, fd, rss = usage(d.p.pid)
        print(f"      9,000 idle HTTP/2 connections from 100 addresses: {len(closed)} closed at "
              f"once, {len(many) - len(closed)} held; threads {t}, fds {fd}, RSS {rss} KiB")
        check(len(many) - len(closed) <= 1024,
              f"the daemon holds at most its cap of 1,024 ({len(many) - len(closed)})")
        check(health_answers(d.rest), "health answers within 1 s beside them")
        for s in many:
            s.close()
        wait_back_down(d, before, "after 9,000 gRPC connections from 100 addresses")
        check(execute_works(args.suite, d), "Execute works once they are gone")
    finally:
        d.stop()


def attack_half_open(args):
    d = Daemon(args.daemon, ["--grpc-request-timeout", "3s"])
    try:
        before = usage(d.p.pid)
        socks = open_many(d.grpc, 50, handshake() + b"".join(
            request_headers(2 * i + 1) for i in range(20)))
        probes(args, d, "1,000 half-open streams")
        sel = selectors.DefaultSelector()
        resets = {s: 0 for s in socks}
        for s in socks:
            s.setblocking(False)
            sel.register(s, selectors.EVENT_READ)
        bufs, end = {s: b"" for s in socks}, time.time() + 20
        while sum(resets.values()) < 1000 and time.time() < end:
            for key, _ in sel.select(timeout=0.2):
                s = key.fileobj
                try:
                    data = s.recv(65536)
                except (BlockingIOError, InterruptedError):
                    continue
                except OSError:
                    data = b""
                if not data:
                    sel.unregister(s)
                    continue
                b = bufs[s] + data
                while len(b) >= 9 and len(b) >= 9 + int.from_bytes(b[:3], "big"):
                    if b[3] == 3:  # RST_STREAM
                        resets[s] += 1
                    b = b[9 + int.from_bytes(b[:3], "big"):]
                bufs[s] = b
        n = sum(resets.values())
        print(f"      half-open: {n} of 1000 streams reset")
        check(n == 1000, "every stream whose request never completes is reset")
        for s in socks:
            s.close()
        wait_back_down(d, before, "after the half-open streams")
    finally:
        d.stop()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--daemon", required=True)
    ap.add_argument("--suite", required=True)
    ap.add_argument("--only", default="silent,idle,cap,half-open")
    args = ap.parse_args()
    attacks = {"silent": attack_silent, "idle": attack_idle, "cap": attack_cap,
               "half-open": attack_half_open, "per-client": attack_per_client}
    for name in args.only.split(","):
        print(f"== {name}", flush=True)
        attacks[name](args)
    if failures:
        print(f"{len(failures)} check(s) failed")
        return 1
    print("all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
