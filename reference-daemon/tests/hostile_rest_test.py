#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Hostile REST clients against sandboxd-ref, on loopback, each attack
bounded in connections and time.

  idle      2,000 connections that send nothing, from four client addresses
            (beyond libmicrohttpd's old default limit of 1,020)
  slowloris connections sending a header byte every 0.3 s: closed by the
            header-block deadline although they are never idle
  per-client one address opening more than the per-client cap
  framing   requests a proxy and the daemon could frame differently
  closes    (not in the default list) 100 to 299 idle connections closed by
            their clients all at once, 200 rounds: every one is closed by
            the daemon too

During every attack /v1/health must answer within 1 s (a bounded wait, not
a speed check); after each, Execute must work (the suite's P1-001 case) and
the daemon's threads and descriptors must come back to their level before
the attack, its RSS close to it.
"""
import argparse
import os
import selectors
import signal
import sys
import time

from hostile_common import Daemon, check, connect, exchange, execute_works, failures, \
    health_answers, usage, wait_back_down


def open_many(port, sources, per_source):
    socks = []
    for src in sources:
        for _ in range(per_source):
            socks.append(connect(port, src))
    return socks


def attack_idle(args):
    d = Daemon(args.daemon, ["--http-header-timeout", "60s"])
    try:
        before = usage(d.p.pid)
        socks = open_many(d.rest, ["127.0.0.2", "127.0.0.3", "127.0.0.4", "127.0.0.5"], 500)
        # Accepted, not just queued: each one holds a descriptor in the daemon.
        end = time.time() + 20
        while usage(d.p.pid)[1] < before[1] + 2000 and time.time() < end:
            time.sleep(0.2)
        t, fd, rss = usage(d.p.pid)
        print(f"      2,000 idle connections held: threads {t}, fds {fd}, RSS {rss} KiB "
              f"({(rss - before[2]) / 2000:.1f} KiB per connection)")
        check(fd >= before[1] + 2000, f"the daemon holds all 2,000 idle connections (fds {fd})")
        check(health_answers(d.rest), "health answers within 1 s beside 2,000 idle connections")
        check(execute_works(args.suite, d), "Execute works beside 2,000 idle connections")
        for s in socks:
            s.close()
        wait_back_down(d, before, "after the idle connections")
        check(execute_works(args.suite, d), "Execute works after the idle connections")
    finally:
        d.stop()


def attack_slowloris(args):
    d = Daemon(args.daemon, ["--http-header-timeout", "2s", "--http-idle-timeout", "3s"])
    try:
        before = usage(d.p.pid)
        n, sel = 100, selectors.DefaultSelector()
        socks = open_many(d.rest, ["127.0.0.6"], n)
        line = b"GET /v1/health HTTP/1.1\r\nHost: h\r\nX-Slow: " + b"a" * 10000
        for s in socks:
            s.setblocking(False)
            sel.register(s, selectors.EVENT_READ)
        open_ = set(socks)
        sent, end, probed = 0, time.time() + 20, False
        while open_ and time.time() < end and sent < len(line):
            for s in list(open_):
                try:
                    s.send(line[sent:sent + 1])
                except OSError:
                    open_.discard(s)
            sent += 1
            for key, _ in sel.select(timeout=0.3):
                try:
                    if key.fileobj.recv(4096):
                        continue
                except OSError:
                    pass
                open_.discard(key.fileobj)
                sel.unregister(key.fileobj)
            if not probed and sent == 3:
                probed = True
                check(health_answers(d.rest), "health answers within 1 s beside 100 slowloris clients")
        print(f"      slowloris: {n - len(open_)} of {n} closed by the daemon after {sent} bytes each")
        check(not open_, "every slowloris connection is closed by the header deadline "
                         "although it sends a byte every 0.3 s (shorter than the idle timeout)")
        for s in socks:
            s.close()
        wait_back_down(d, before, "after slowloris")
        check(execute_works(args.suite, d), "Execute works after slowloris")
    finally:
        d.stop()


def attack_per_client(args):
    d = Daemon(args.daemon, ["--http-max-connections-per-client", "200"])
    try:
        before = usage(d.p.pid)
        socks = open_many(d.rest, ["127.0.0.7"], 300)
        for s in socks:
            s.setblocking(False)
        live, end = set(socks), time.time() + 10
        while len(live) > 200 and time.time() < end:  # the server accepts, then refuses
            time.sleep(0.1)
            for s in list(live):
                try:
                    if not s.recv(1):
                        live.discard(s)
                except BlockingIOError:
                    pass
                except OSError:
                    live.discard(s)
        time.sleep(0.3)  # and closes no more than the excess
        for s in list(live):
            try:
                if not s.recv(1):
                    live.discard(s)
            except BlockingIOError:
                pass
            except OSError:
                live.discard(s)
        kept = len(live)
        print(f"      per-client cap 200: {kept} of 300 connections from one address kept")
        check(kept == 200, f"one address keeps exactly its cap of 200 connections ({kept})")
        check(health_answers(d.rest), "health from another address answers within 1 s")
        for s in socks:
            s.close()
        wait_back_down(d, before, "after the per-client attack")
    finally:
        d.stop()


def attack_framing(args):
    d = Daemon(args.daemon, [])
    try:
        follow = b"GET /v1/health HTTP/1.1\r\nHost: h\r\n\r\n"
        cases = [
            (b"GET /v1/health HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\n"
             b"Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n" + follow, b"400",
             "Content-Length with Transfer-Encoding"),
            (b"GET /v1/health HTTP/1.1\r\nHost: h\r\nContent-Length: 0\r\nContent-Length: 5\r\n\r\n"
             + follow, b"400", "two different Content-Lengths"),
            (b"GET /v1/health HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: gzip\r\n\r\n", b"501",
             "an unknown transfer coding"),
            (b"PUT /v1/files/x HTTP/1.1\r\nHost: h\r\nContent-Length: 18446744073709551615\r\n\r\n",
             b"400", "a Content-Length of 2^64-1"),
            (b"GET /v1/health HTTP/1.1\r\n\r\n", b"400", "an HTTP/1.1 request without Host"),
        ]
        for data, status, what in cases:
            out, closed = exchange(d.rest, data, wait=3.0)
            check(out.startswith(b"HTTP/1.1 " + status) and b"HTTP/1.1 200" not in out and closed,
                  f"{what}: answered {status.decode()} at once, connection closed, nothing "
                  f"pipelined behind it served (got {out[:40]!r}, closed={closed})")
        out, closed = exchange(d.rest, follow + follow, wait=1.0)
        check(out.count(b"HTTP/1.1 200") == 2 and not closed,
              "control: two well-framed pipelined requests are both served, connection kept")
        check(os.listdir(d.root) == [], "no file was created by the refused PUT")
    finally:
        d.stop()


def daemon_fds_when(d, done, seconds):
    """The daemon's descriptor count once done(count) holds, or after a
    bounded wait."""
    end = time.time() + seconds
    while not done(usage(d.p.pid)[1]) and time.time() < end:
        time.sleep(0.02)
    return usage(d.p.pid)[1]


def attack_closes(args):
    """libmicrohttpd 0.9.75 drains epoll 128 events at a time and, after a
    full batch, waits again with its old timeout: the closes of that batch
    were left unprocessed until the next event (the idle timeout here).
    The daemon is stopped while the clients close, so that every close is
    pending at once and some round ends on a full batch (7 rounds of 300
    left 128 or 256 open before the fix)."""
    d = Daemon(args.daemon, ["--http-header-timeout", "60s"])
    stuck = []
    try:
        base = usage(d.p.pid)[1]
        for n in range(100, 300):
            socks = [connect(d.rest, f"127.0.0.{2 + i % 8}") for i in range(n)]
            daemon_fds_when(d, lambda fds: fds >= base + n, 10)
            os.kill(d.p.pid, signal.SIGSTOP)
            try:
                for s in socks:
                    s.close()
                time.sleep(0.02)
            finally:
                os.kill(d.p.pid, signal.SIGCONT)
            left = daemon_fds_when(d, lambda fds: fds <= base, 5) - base
            if left > 0:
                stuck.append((n, left))
                # A new connection's event makes the loop process the rest.
                connect(d.rest).close()
                daemon_fds_when(d, lambda fds: fds <= base, 5)
        print(f"      closes: 200 rounds; rounds with connections left open: {stuck}")
        check(not stuck, "every connection its client closed is closed by the daemon "
                         "within 5 s, in each of 200 rounds")
        check(health_answers(d.rest), "health answers after the rounds")
    finally:
        d.stop()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--daemon", required=True)
    ap.add_argument("--suite", required=True)
    ap.add_argument("--only", default="idle,slowloris,per-client,framing")
    args = ap.parse_args()
    attacks = {"idle": attack_idle, "slowloris": attack_slowloris,
               "per-client": attack_per_client, "framing": attack_framing,
               "closes": attack_closes}
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
