#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""A suite killed with SIGKILL mid-run leaks nothing: in launch mode (and
with --confine-runtime when run as root), once the launched runtime and a
private instance of a case are up, the suite gets SIGKILL; within 3 s no
process of that run (the suite's descendants, anything naming the run's
directory) and no runtime directory (the sandbox roots) may remain. A next
run then removes the killed run's directory, and nothing else: not a
directory whose owner pid is alive, not a name that does not match exactly,
and no file a link inside points to.

Everything happens below a private TMPDIR; every wait is bounded.
"""
import argparse
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

LAUNCH = ("{daemon} --listen-host 127.0.0.1 --grpc-port {{grpc_port}} "
          "--rest-port {{rest_port}} --root-dir {{root}}")
# L5-001 runs a private instance for most of its 150 s; S1-001 keeps the
# launched runtime busy beside it.
FOCUS = "^(L5-001|S1-001) "
UP_WAIT_S = 60
GONE_WAIT_S = 3.0


def stat_of(pid):
    """(ppid, start time) of a live, non-zombie pid, or None."""
    try:
        with open(f"/proc/{pid}/stat", encoding="utf-8", errors="replace") as f:
            text = f.read()
    except OSError:
        return None
    rest = text[text.rindex(")") + 2:].split()
    if rest[0] in ("Z", "X"):
        return None
    return int(rest[1]), rest[19]


def all_pids():
    return [int(p) for p in os.listdir("/proc") if p.isdigit()]


def mentions(pid, needle):
    """Whether the process's command line or working directory names needle."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            if needle.encode() in f.read():
                return True
        return needle in os.readlink(f"/proc/{pid}/cwd")
    except OSError:
        return False


def descendants(root):
    kids = {}
    for pid in all_pids():
        s = stat_of(pid)
        if s:
            kids.setdefault(s[0], []).append(pid)
    out, todo = [], [root]
    while todo:
        p = todo.pop()
        for c in kids.get(p, []):
            out.append(c)
            todo.append(c)
    return out


def runtime_dirs(tmp):
    found = []
    for run in os.listdir(tmp):
        path = os.path.join(tmp, run)
        if run.startswith("sbxc-run-") and os.path.isdir(path) and not os.path.islink(path):
            found += [os.path.join(path, d) for d in os.listdir(path) if d.startswith("runtime-")]
    return found


def kill_mid_run(a, tmp, confine):
    """(whether both runtimes came up, the problems found)."""
    env = dict(os.environ, TMPDIR=tmp)
    cmd = [a.suite, "--launch", LAUNCH.format(daemon=a.daemon), "--focus", FOCUS, "--jobs", "2"]
    if confine:
        cmd.append("--confine-runtime")
    log_path = os.path.join(tmp, "confined.log" if confine else "plain.log")
    with open(log_path, "wb") as log:
        suite = subprocess.Popen(cmd, env=env, stdout=log, stderr=subprocess.STDOUT)
    what = "--confine-runtime" if confine else "plain launch mode"
    try:
        deadline = time.monotonic() + UP_WAIT_S
        daemons = []
        while time.monotonic() < deadline and suite.poll() is None:
            daemons = [p for p in all_pids() if mentions(p, tmp) and mentions(p, "--root-dir")]
            if len(daemons) >= 2 and len(runtime_dirs(tmp)) >= 2:
                break
            time.sleep(0.2)
        if len(daemons) < 2:
            ended = "" if suite.poll() is None else f"; the suite ended with {suite.returncode}"
            with open(log_path, "rb") as log:
                tail = log.read()[-1500:].decode("utf-8", "replace")
            return False, [f"{what}: the launched runtime and a private instance were not both up "
                    f"within {UP_WAIT_S} s (saw {len(daemons)}){ended}; its output ended:\n"
                    + tail]
        tree = {p: stat_of(p) for p in descendants(suite.pid)}
        tree = {p: s for p, s in tree.items() if s}
        os.kill(suite.pid, signal.SIGKILL)
        suite.wait()
        killed_at = time.monotonic()
        left, dirs = [], []
        while time.monotonic() - killed_at < GONE_WAIT_S:
            left = [p for p, s in tree.items() if stat_of(p) and stat_of(p)[1] == s[1]]
            left += [p for p in all_pids() if stat_of(p) and mentions(p, tmp) and p not in left]
            dirs = runtime_dirs(tmp)
            if not left and not dirs:
                break
            time.sleep(0.1)
        took = time.monotonic() - killed_at
        problems = []
        if left:
            problems.append(f"{what}: {len(left)} process(es) of the killed run still there "
                            f"{GONE_WAIT_S:.0f} s later: " + "; ".join(
                                f"{p} {open(f'/proc/{p}/cmdline', 'rb').read()[:120]!r}"
                                for p in left if stat_of(p)))
        if dirs:
            problems.append(f"{what}: runtime directories left: {dirs}")
        print(f"{what}: {len(tree)} processes of the run ({len(daemons)} runtimes); "
              f"gone {took:.2f} s after SIGKILL" if not problems else problems[-1])
        return True, problems
    finally:
        if suite.poll() is None:
            suite.kill()
            suite.wait()
        for p in all_pids():
            if stat_of(p) and mentions(p, tmp):
                try:
                    os.kill(p, signal.SIGKILL)
                except OSError:
                    pass


def kill_twice_if_not_up(a, tmp, confine):
    """kill_mid_run, once more when the run ended before both runtimes were
    up (what this test checks needs them up; why it ended is printed)."""
    came_up, problems = kill_mid_run(a, tmp, confine)
    if not came_up:
        print("first attempt:", problems[0])
        _, problems = kill_mid_run(a, tmp, confine)
    return problems


def next_run_sweeps(a, tmp):
    """The killed run's directory goes at the next run; nothing else does."""
    killed = [d for d in os.listdir(tmp) if re.fullmatch(r"sbxc-run-\d+-\w{6}", d)]
    outside = os.path.join(tmp, "outside")
    os.makedirs(outside)
    with open(os.path.join(outside, "sentinel"), "w", encoding="utf-8") as f:
        f.write("keep")
    fake = os.path.join(tmp, "sbxc-run-999999999-abcdef")  # beyond pid_max: dead
    os.makedirs(os.path.join(fake, "runtime-x", "root"))
    os.symlink(outside, os.path.join(fake, "runtime-x", "root", "link"))
    live = os.path.join(tmp, f"sbxc-run-{os.getpid()}-abcdef")  # owner alive
    other = os.path.join(tmp, "sbxc-run-999999999-abcdefg")     # not exactly the pattern
    for d in (live, other):
        os.makedirs(d)
    env = dict(os.environ, TMPDIR=tmp)
    subprocess.run([a.suite, "--launch", LAUNCH.format(daemon=a.daemon), "--focus", "^M1-001 "],
                   env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=120)
    problems = []
    for d in killed + [os.path.basename(fake)]:
        if os.path.lexists(os.path.join(tmp, d)):
            problems.append(f"the next run left the killed run's directory {d}")
    for d in (live, other, outside):
        if not os.path.isdir(d):
            problems.append(f"the next run removed {d}, which is not a killed run's")
    if not os.path.isfile(os.path.join(outside, "sentinel")):
        problems.append("the next run followed a link out of a killed run's directory")
    left = [d for d in os.listdir(tmp) if d.startswith("sbxc-run-")]
    if not problems:
        print(f"next run: removed {len(killed) + 1} killed runs' directories, kept {left}")
    return problems


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--suite", required=True)
    ap.add_argument("--daemon", required=True)
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="sbx-killed-suite-")
    problems = []
    try:
        problems += kill_twice_if_not_up(a, tmp, False)
        # A confined runtime sees a private, empty /tmp: a build tree under
        # /tmp has no daemon to run there.
        under_tmp = os.path.realpath(a.daemon).startswith("/tmp/")
        if os.geteuid() != 0:
            print("--confine-runtime: not checked (needs root)")
        elif under_tmp:
            print("--confine-runtime: not checked (the daemon lives under /tmp, which a "
                  "confined runtime sees empty)")
        else:
            problems += kill_twice_if_not_up(a, tmp, True)
        problems += next_run_sweeps(a, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    for p in problems:
        print("FAIL:", p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
