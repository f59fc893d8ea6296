#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""What sandboxd-ref does with a Start's process group when the stream
ends, on loopback, bounded in time:

  group    a leader that leaves background children in its group and
           exits: once its stream has ended, a child that takes SIGTERM is
           gone, and so is one that ignores it (SIGKILL after the grace);
           with --expect-survivors (the legal variant
           variant-group-outlives-stream) both must still run after the
           grace, which shows the check can fail
  window   a Start of `cat /dev/zero` whose client announces a zero
           flow-control window and never reads: the daemon's RSS stays
           bounded, /v1/health answers within 1 s and Execute works, and
           once --grpc-stall-timeout passes the stream is reset and the
           process is gone

The contract leaves both to the runtime (no conformance case may fail a
runtime for either choice); this is the reference daemon's own policy.
"""
import argparse
import os
import sys
import time

from hostile_common import Daemon, check, execute_works, failures, health_answers, usage
from raw_start import RawStart

GRACE_S = 2.0  # END_GROUP_GRACE_MS of the daemon


def alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def read_pid(root, name, seconds=10):
    end = time.time() + seconds
    while time.time() < end:
        try:
            with open(os.path.join(root, name)) as f:
                v = f.read().strip()
            if v:
                return int(v)
        except (OSError, ValueError):
            pass
        time.sleep(0.05)
    return None


def wait_gone(pids, seconds):
    end = time.time() + seconds
    while time.time() < end and any(alive(p) for p in pids):
        time.sleep(0.1)
    return [p for p in pids if alive(p)]


def test_group(args):
    extra = ["--fault", "variant-group-outlives-stream"] if args.expect_survivors else []
    d = Daemon(args.daemon, extra)
    try:
        script = ("sleep 300 >/dev/null 2>&1 & echo $! > polite.pid; "
                  "(trap '' TERM; exec sleep 301) >/dev/null 2>&1 & echo $! > stubborn.pid; "
                  "echo ready")
        st = RawStart(d.grpc, ["sh", "-c", script])
        ended = st.pump(20)
        check(ended == "end-stream", f"the leader's stream ends once it exited ({ended})")
        kinds = [k for k, _ in st.messages()]
        check(kinds[:1] == [1] and kinds[-1:] == [4], f"InitEvent first, ExitEvent last ({kinds})")
        st.close()
        pids = [read_pid(d.root, "polite.pid"), read_pid(d.root, "stubborn.pid")]
        check(None not in pids, "the children recorded their pids")
        pids = [p for p in pids if p]
        if args.expect_survivors:
            time.sleep(GRACE_S * 2 + 1)
            left = [p for p in pids if alive(p)]
            check(len(left) == len(pids), f"with the variant the children run on ({left})")
            for p in left:
                os.kill(p, 9)
        else:
            left = wait_gone(pids, GRACE_S * 2 + 10)
            check(not left, f"children left in the group are gone after the stream ended "
                            f"(SIGTERM, then SIGKILL for the one ignoring it): still running {left}")
            for p in left:
                os.kill(p, 9)
    finally:
        d.stop()


def test_window(args):
    stall_s = 3
    d = Daemon(args.daemon, ["--grpc-stall-timeout", f"{stall_s}s"])
    try:
        before = usage(d.p.pid)
        streams = []
        for i in range(20):
            st = RawStart(d.grpc, ["sh", "-c", f"echo $$ > zero{i}.pid; exec cat /dev/zero"],
                          window=0)
            streams.append(st)
        pids = [read_pid(d.root, f"zero{i}.pid") for i in range(20)]
        check(None not in pids, "every `cat /dev/zero` started")
        time.sleep(1)
        _, _, rss1 = usage(d.p.pid)
        t0 = time.time()
        check(health_answers(d.rest), "health answers within 1 s beside 20 window-blocked Starts")
        check(execute_works(args.suite, d), "Execute works beside 20 window-blocked Starts")
        _, _, rss2 = usage(d.p.pid)
        grown = rss2 - before[2]
        print(f"      RSS {before[2]} -> {rss1} -> {rss2} KiB ({time.time() - t0:.1f} s apart)")
        # Each stream queues at most START_PAUSE_BYTES (1 MiB) and one read
        # before its child is paused; 20 of them stay far below 64 MiB.
        check(grown < 64 * 1024, f"RSS stays bounded while nobody reads ({grown} KiB grown)")
        check(rss2 <= rss1 + 4 * 1024, f"RSS does not keep growing ({rss1} -> {rss2} KiB)")
        ended = [st.pump(stall_s + 15) for st in streams]
        check(all(e == "rst" for e in ended),
              f"every stalled stream is reset after --grpc-stall-timeout ({set(ended)})")
        left = wait_gone([p for p in pids if p], 10)
        check(not left, f"the processes of the reset streams are gone (still running {left})")
        for st in streams:
            st.close()
        for p in left:
            os.kill(p, 9)
    finally:
        d.stop()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--daemon", required=True)
    ap.add_argument("--suite")
    ap.add_argument("--expect-survivors", action="store_true")
    ap.add_argument("test", choices=["group", "window"])
    args = ap.parse_args()
    {"group": test_group, "window": test_window}[args.test](args)
    if failures:
        print(f"{len(failures)} check(s) failed")
        return 1
    print("all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
