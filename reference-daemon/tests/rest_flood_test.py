#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Floods of REST connections against sandboxd-ref, on loopback only, each
bounded in connections and time (well under a minute).

  flood       9,000 idle and 9,000 slowloris connections (one header byte
              every 2 s) from 100 client addresses, reopened in waves
              faster than the header deadline closes them
  per-client  one address opens more than its default share; 99 others
              are served meanwhile
  downloads   64 clients download 64 MiB each beside 1,000 slowloris
              connections

Throughout, /v1/health is probed on a fresh connection from an address no
attacker uses, from a process of its own, each answer awaited 1 s after
the connection is up. At the height of each attack a
1 MiB PUT and its GET must come back intact; after it, the daemon's
threads, descriptors and RSS must come back down.
"""
import argparse
import collections
import errno
import os
import resource
import selectors
import select
import socket
import subprocess
import sys
import time

from hostile_common import Daemon, check, failures, health_answers, usage, wait_back_down

SLOW_REQUEST = b"GET /v1/health HTTP/1.1\r\nHost: h\r\nX-Slow: " + b"a" * 4096


def raise_fd_limit():
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return hard


def attacker_addresses(n, third=1):
    return [f"127.0.{third}.{i}" for i in range(1, n + 1)]


def probe_loop(port, interval):
    """--probe: health probes every interval until stdin closes, one line
    each: answered (0/1), seconds taken, seconds since the start."""
    n, start = 0, time.monotonic()
    while True:
        n += 1
        t0 = time.monotonic()
        ok = health_answers(port, f"127.0.200.{n % 250 + 1}")
        print(f"{int(ok)} {time.monotonic() - t0:.4f} {t0 - start:.1f}", flush=True)
        if select.select([sys.stdin], [], [], interval)[0]:
            return


class Prober:
    """Health probes every interval from fresh addresses of 127.0.200.0/24,
    each on a new connection and bounded to 1 s. They run in a process of
    their own, so that the attacker's work in this one never delays them."""

    def __init__(self, port, interval):
        self.p = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--probe",
                                   str(port), str(interval)],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.results = []  # (answered, seconds)
        self.failed_at = []  # seconds since the start of unanswered probes

    def start(self):
        pass

    def summary(self, what):
        out, _ = self.p.communicate(timeout=10)
        for line in out.split("\n"):
            f = line.split()
            if len(f) == 3:
                self.results.append((f[0] == "1", float(f[1])))
                if f[0] != "1":
                    self.failed_at.append(float(f[2]))
        lat = sorted(s for ok, s in self.results if ok)
        failed = sum(1 for ok, _ in self.results if not ok)
        if lat:
            print(f"      health during {what}: {len(self.results)} probes, {failed} unanswered; "
                  f"latency median {lat[len(lat) // 2] * 1000:.1f} ms, "
                  f"max {lat[-1] * 1000:.1f} ms"
                  + (f"; unanswered at {self.failed_at} s" if self.failed_at else ""), flush=True)
        # One probe in ten may go unanswered, never two in a row: at the
        # header deadline's waves thousands of connections close and reopen
        # at once, and libmicrohttpd accepts at most ten per turn of its loop,
        # so a probe can queue behind them on a loaded machine. A server
        # that stops answering fails twice in a row (the thread-per-
        # connection one left 27 of 33 unanswered).
        ok_flags = [ok for ok, _ in self.results]
        twice = any(not a and not b for a, b in zip(ok_flags, ok_flags[1:]))
        check(self.results and failed <= len(self.results) // 10 and not twice,
              f"health answers from a fresh address throughout {what}, at most one probe "
              f"in ten unanswered and never two in a row "
              f"({len(self.results) - failed} of {len(self.results)})")
        return lat


def http(port, data, source="127.0.201.1", wait=20.0):
    """One request on its own connection; returns (status, body)."""
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.bind((source, 0))
    s.settimeout(wait)
    try:
        s.connect(("127.0.0.1", port))
        s.sendall(data)
        buf = b""
        while b"\r\n\r\n" not in buf:
            chunk = s.recv(65536)
            if not chunk:
                return 0, b""
            buf += chunk
        head, _, body = buf.partition(b"\r\n\r\n")
        status = int(head.split(b" ", 2)[1])
        length = 0
        for line in head.split(b"\r\n")[1:]:
            k, _, v = line.partition(b":")
            if k.strip().lower() == b"content-length":
                length = int(v)
        while len(body) < length:
            chunk = s.recv(1 << 20)
            if not chunk:
                break
            body += chunk
        return status, body
    except OSError:
        return 0, b""
    finally:
        s.close()


def put_get_intact(port, what):
    payload = os.urandom(1 << 20)
    st, _ = http(port, b"PUT /v1/files/flood/one-mib.bin HTTP/1.1\r\nHost: h\r\n"
                 b"Connection: close\r\nContent-Length: %d\r\n\r\n" % len(payload) + payload)
    gst, body = http(port, b"GET /v1/files/flood/one-mib.bin HTTP/1.1\r\nHost: h\r\n"
                     b"Connection: close\r\n\r\n")
    check(st == 204 and gst == 200 and body == payload,
          f"a 1 MiB PUT and its GET come back intact {what} (PUT {st}, GET {gst}, "
          f"{len(body)} bytes)")


class Flood:
    """Holds connections from many addresses: idle ones send nothing,
    slow ones one byte of an endless header block every 2 s. Connections the
    daemon closes are replaced at the next wave."""

    def __init__(self, port, sources, idle, slow):
        self.port, self.sources = port, sources
        self.want = {"idle": idle, "slow": slow}
        self.sel = selectors.DefaultSelector()
        self.socks = {}  # sock -> [kind, bytes sent]
        self.count = {"idle": 0, "slow": 0}
        self.due = collections.deque()  # (when, sock) of slow sockets
        self.next_source = 0
        self.closed_by_daemon = 0
        self.refused = 0

    def _open(self, kind):
        src = self.sources[self.next_source % len(self.sources)]
        self.next_source += 1
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.setblocking(False)
        try:
            s.bind((src, 0))
            rc = s.connect_ex(("127.0.0.1", self.port))
        except OSError:
            s.close()
            self.refused += 1
            return False
        if rc not in (0, errno.EINPROGRESS):
            s.close()
            self.refused += 1
            return False
        self.socks[s] = [kind, 0]
        self.count[kind] += 1
        self.sel.register(s, selectors.EVENT_READ)
        if kind == "slow":
            self.due.append((time.monotonic() + 0.5, s))
        return True

    def _drop(self, s):
        kind = self.socks.pop(s)[0]
        self.count[kind] -= 1
        self.sel.unregister(s)
        s.close()

    def wave(self, budget):
        """Opens up to budget connections towards the wanted counts."""
        for kind in ("idle", "slow"):
            while self.count[kind] < self.want[kind] and budget > 0:
                budget -= 1
                if not self._open(kind):
                    return

    def pump(self, seconds):
        """Reads closures and feeds slow connections for seconds."""
        end = time.monotonic() + seconds
        while True:
            left = end - time.monotonic()
            if left <= 0:
                break
            for key, _ in self.sel.select(timeout=min(left, 0.05)):
                s = key.fileobj
                try:
                    data = s.recv(4096)
                except (BlockingIOError, InterruptedError):
                    continue
                except OSError:
                    data = b""
                if not data:  # the header deadline (or a cap) closed it
                    self.closed_by_daemon += 1
                    self._drop(s)
            now = time.monotonic()
            while self.due and self.due[0][0] <= now:
                _, s = self.due.popleft()
                st = self.socks.get(s)
                if not st:
                    continue
                try:
                    s.send(SLOW_REQUEST[st[1]:st[1] + 1])
                    st[1] += 1
                except (BlockingIOError, InterruptedError):
                    pass
                except OSError:
                    self.closed_by_daemon += 1
                    self._drop(s)
                    continue
                self.due.append((now + 2.0, s))

    def held(self):
        return self.count["idle"] + self.count["slow"]

    def close(self):
        for s in list(self.socks):
            self._drop(s)


def cores():
    return len(os.sched_getaffinity(0))


def attack_flood(args):
    d = Daemon(args.daemon, ["--http-header-timeout", "8s"])
    try:
        before = usage(d.p.pid)
        prober = Prober(d.rest, 0.5)
        prober.start()
        flood = Flood(d.rest, attacker_addresses(100), 9000, 9000)
        peak_fds, peak_rss, max_threads, start = 0, 0, before[0], time.monotonic()
        # Waves of at most 1,500 a quarter second: the 18,000 are open in
        # 3 s, well inside the 8 s deadline, and every closed one is back
        # within a quarter second.
        while time.monotonic() - start < 20:
            flood.wave(1500)
            flood.pump(0.25)
            t, fds, rss = usage(d.p.pid)
            max_threads = max(max_threads, t)
            if fds > peak_fds:
                peak_fds, peak_rss = fds, rss
        held = peak_fds - before[1]
        print(f"      flood: {flood.held()} open now, the daemon held up to {held} "
              f"({flood.closed_by_daemon} closed by the daemon, {flood.refused} not opened); "
              f"threads {before[0]} -> max {max_threads}; RSS {before[2]} -> {peak_rss} KiB at "
              f"the peak ({(peak_rss - before[2]) / max(held, 1):.2f} KiB per connection)",
              flush=True)
        # How many are open at once depends on the attacker's pace too: on a
        # 2-core machine at a load of 15 it reaches 15,000, on a quieter one
        # all 18,000. The thread-per-connection server stopped at 4,096.
        check(held >= 12000, f"the daemon held at least 12,000 of the 18,000 at once ({held})")
        check(flood.closed_by_daemon >= 9000,
              f"the header deadline closed slow and idle connections in waves "
              f"({flood.closed_by_daemon})")
        # The loop threads, the blocking pool, the deadline watchdog and the
        # main thread: no thread per connection.
        check(max_threads <= before[0] and max_threads <= 2 * cores() + 4,
              f"threads stay at {before[0]} (<= 2 x {cores()} cores + the pool of 4): "
              f"max {max_threads}")
        if d.sanitized:
            print("      RSS per connection not checked (sanitizer build)")
        else:
            check(peak_rss - before[2] <= 8 * held,
                  f"RSS grows at most 8 KiB per held connection "
                  f"({peak_rss - before[2]} KiB for {held})")
        put_get_intact(d.rest, "beside the flood")
        prober.summary("the flood")
        flood.close()
        wait_back_down(d, before, "after the flood")
    finally:
        d.stop()


def expected_per_client(hard):
    """The daemon's default per-client cap (rest_server.c): a sixteenth of
    the descriptor limit less gRPC's share (1,024 by default, at most a
    quarter) and a reserve of 256."""
    return (hard - min(1024, hard // 4) - 256) // 16


def attack_per_client(args):
    hard = raise_fd_limit()
    cap = expected_per_client(hard)
    d = Daemon(args.daemon, ["--http-header-timeout", "60s"])
    try:
        before = usage(d.p.pid)
        prober = Prober(d.rest, 0.5)
        prober.start()
        one = Flood(d.rest, ["127.0.5.1"], cap + 500, 0)
        others = Flood(d.rest, attacker_addresses(99, third=6), 99 * 20, 0)
        one.wave(cap + 500)
        others.wave(99 * 20)
        end = time.monotonic() + 10
        while time.monotonic() < end and (one.held() > cap or others.held() < 99 * 20):
            one.pump(0.2)
            others.pump(0.0)
        one.pump(0.5)  # and no more than the excess is closed
        others.pump(0.0)
        print(f"      per-client: one address kept {one.held()} of {cap + 500} "
              f"(cap {cap} of a {hard}-descriptor limit); 99 others kept {others.held()} "
              f"of {99 * 20}", flush=True)
        check(one.held() == cap, f"one address keeps exactly its share of {cap} ({one.held()})")
        check(others.held() == 99 * 20,
              f"every connection of 99 other addresses is kept ({others.held()})")
        served = sum(1 for i in range(1, 100) if health_answers(d.rest, f"127.0.6.{i}"))
        check(served == 99, f"each of the 99 other addresses is served ({served} of 99)")
        put_get_intact(d.rest, "beside one address at its cap")
        prober.summary("the per-client attack")
        one.close()
        others.close()
        wait_back_down(d, before, "after the per-client attack")
    finally:
        d.stop()


class Downloads:
    """count clients each reading one GET of size bytes at full speed."""

    def __init__(self, port, count, path, size):
        self.sel = selectors.DefaultSelector()
        self.state = {}
        req = (f"GET {path} HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n").encode()
        for i in range(count):
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.bind((f"127.0.9.{i + 1}", 0))
            s.settimeout(10)
            s.connect(("127.0.0.1", port))
            s.sendall(req)
            s.setblocking(False)
            self.sel.register(s, selectors.EVENT_READ)
            self.state[s] = {"head": b"", "body": 0, "last": time.monotonic(), "done": False,
                             "status": 0, "sample": b""}
        self.size = size
        self.longest_gap = 0.0

    def run(self, seconds, tick):
        buf = bytearray(1 << 20)
        end = time.monotonic() + seconds
        while time.monotonic() < end and any(not st["done"] for st in self.state.values()):
            now = time.monotonic()
            for key, _ in self.sel.select(timeout=0.1):
                s = key.fileobj
                st = self.state[s]
                try:
                    n = s.recv_into(buf)
                except (BlockingIOError, InterruptedError):
                    continue
                except OSError:
                    n = 0
                now = time.monotonic()
                self.longest_gap = max(self.longest_gap, now - st["last"])
                st["last"] = now
                if n == 0:
                    st["done"] = True
                    self.sel.unregister(s)
                    s.close()
                    continue
                data = bytes(buf[:n]) if not st["status"] else None
                if not st["status"]:
                    st["head"] += data
                    if b"\r\n\r\n" in st["head"]:
                        head, _, rest = st["head"].partition(b"\r\n\r\n")
                        st["status"] = int(head.split(b" ", 2)[1])
                        st["body"] += len(rest)
                        st["sample"] = rest[:16]
                else:
                    st["body"] += n
            tick()
            for st in self.state.values():
                if not st["done"]:
                    self.longest_gap = max(self.longest_gap, now - st["last"])

    def complete(self):
        return sum(1 for st in self.state.values()
                   if st["done"] and st["status"] == 200 and st["body"] == self.size)


def attack_downloads(args):
    d = Daemon(args.daemon, ["--http-header-timeout", "60s"])
    size = 64 << 20
    try:
        with open(os.path.join(d.root, "big.bin"), "wb") as f:
            block = bytes(range(256)) * 4096
            for _ in range(size // len(block)):
                f.write(block)
        before = usage(d.p.pid)
        slow = Flood(d.rest, attacker_addresses(10, third=10), 0, 1000)
        slow.wave(1000)
        slow.pump(1.0)
        prober = Prober(d.rest, 0.25)
        prober.start()
        t0 = time.monotonic()
        dl = Downloads(d.rest, 64, "/v1/files/big.bin", size)
        dl.run(40, lambda: slow.pump(0))
        took = time.monotonic() - t0
        total = 64 * size
        print(f"      downloads: {dl.complete()} of 64 complete in {took:.1f} s "
              f"({total / took / (1 << 20):.0f} MiB/s together); longest pause of a "
              f"transfer {dl.longest_gap * 1000:.0f} ms; {slow.held()} slowloris held",
              flush=True)
        check(dl.complete() == 64, f"all 64 downloads of 64 MiB complete ({dl.complete()})")
        # "No stall": no transfer went 5 s without a byte while the client
        # read as fast as it could (a loaded 2-core box pauses for tens of
        # milliseconds; a transfer stuck behind another waits seconds).
        check(dl.longest_gap < 5.0,
              f"no transfer paused 5 s or more ({dl.longest_gap * 1000:.0f} ms at most)")
        check(slow.held() >= 900, f"the slowloris connections are held meanwhile "
                                  f"({slow.held()})")
        put_get_intact(d.rest, "beside the slowloris connections")
        lat = prober.summary("the downloads")
        # Generous: the probe, 64 readers and the daemon share two cores, and
        # the probe's thread waits for the interpreter lock; the median says
        # whether health waits behind transfers (it would take seconds).
        if lat:
            med = lat[len(lat) // 2]
            check(med < 0.1, f"health's median latency during the downloads is under 100 ms "
                             f"({med * 1000:.1f} ms)")
        slow.close()
        wait_back_down(d, before, "after the downloads")
    finally:
        d.stop()


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "--probe":
        probe_loop(int(sys.argv[2]), float(sys.argv[3]))
        return 0
    ap = argparse.ArgumentParser()
    ap.add_argument("--daemon", required=True)
    ap.add_argument("--only", default="flood,per-client,downloads")
    args = ap.parse_args()
    raise_fd_limit()
    attacks = {"flood": attack_flood, "per-client": attack_per_client,
               "downloads": attack_downloads}
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
