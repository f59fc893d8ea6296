#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Proves that the suite damages nothing outside the sandbox, whatever the
runtime under test does wrong.

Runs the whole suite in launch mode against `sandboxd-ref-faulty` with every
confinement fault at once (absolute paths used as host paths, `%2F` taken as
the host's `/`, symlinks followed out of the root, recursive DELETE
following links, the empty path resolving to the daemon's working
directory), inside a throwaway mount namespace:

  * the host's file system is seen through an overlay whose upper layer is a
    tmpfs: the real host is never written, and every change anybody makes to
    the host view lands in that upper layer, where it can be listed;
  * /tmp is a private tmpfs (the sandbox root and the suite's canaries live
    there);
  * sentinel trees stand in for a system directory (/etc), /usr, a home
    directory and the daemon's working directory (files, directories,
    symlinks, distinct modes and contents).

Then asserts, from a snapshot before and after (names, types, sizes, modes,
content hashes), that no sentinel changed and that the overlay's upper layer
holds nothing but the sentinels themselves (so nothing else of the host view
was created, changed or removed), and that the verdict is *not conformant*
with the confinement clauses failing.

Needs root (mount namespaces, overlayfs); exits 77 (skipped) without them.
"""
import argparse
import hashlib
import json
import os
import shutil
import signal
import stat
import subprocess
import sys
import tempfile

SKIP = 77

# Every confinement fault at once (reference-daemon/FAULTS.md).
FAULTS = ("absolute-host,absolute-root-host,symlink-follow-out,delete-recursive-follow,"
          "delete-follow-symlink,empty-path-cwd")

# Clauses that must come out failing with those faults.
MUST_FAIL_CLAUSES = {"F11", "S2", "S3", "S5"}

# Sentinel trees, by their path in the host view. The daemon runs in the
# last one.
DAEMON_CWD = "/srv/sbx-sentinel-daemon-cwd"
SENTINEL_ROOTS = ["/etc/sbx-sentinel", "/usr/share/sbx-sentinel", "/home/sbx-sentinel-user",
                  DAEMON_CWD]


def plant_sentinel(top):
    """A small tree of files, directories and links with distinct modes."""
    os.makedirs(os.path.join(top, "sub", "deeper"), exist_ok=True)
    files = {"passwd": "root:x:0:0::/root:/bin/sh\n", ".hidden": "dotfile\n",
             "sub/config.ini": "[a]\nb = c\n", "sub/deeper/data.bin": "\x00\x01\x02" * 100,
             "mode-0600": "private\n", "mode-0755": "#!/bin/sh\nexit 0\n"}
    for rel, text in files.items():
        with open(os.path.join(top, rel), "w", encoding="latin-1") as f:
            f.write(text)
    os.chmod(os.path.join(top, "mode-0600"), 0o600)
    os.chmod(os.path.join(top, "mode-0755"), 0o755)
    os.symlink("sub/config.ini", os.path.join(top, "link-inside"))
    os.symlink("/etc/hostname", os.path.join(top, "link-outside"))
    os.makedirs(os.path.join(top, "empty-dir"), exist_ok=True)


def snapshot(top):
    """Every entry below top: type, size, mode, content hash (or link target)."""
    if not os.path.lexists(top):
        return {".": ("absent",)}
    snap = {}
    for dirpath, dirnames, filenames in os.walk(top, followlinks=False):
        for name in sorted(dirnames + filenames):
            p = os.path.join(dirpath, name)
            st = os.lstat(p)
            rel = os.path.relpath(p, top)
            if stat.S_ISLNK(st.st_mode):
                snap[rel] = ("link", os.readlink(p))
            elif stat.S_ISDIR(st.st_mode):
                snap[rel] = ("dir", oct(stat.S_IMODE(st.st_mode)))
            elif stat.S_ISREG(st.st_mode):
                with open(p, "rb") as f:
                    digest = hashlib.sha256(f.read()).hexdigest()
                snap[rel] = ("file", st.st_size, oct(stat.S_IMODE(st.st_mode)), digest)
            else:
                snap[rel] = ("other", stat.S_IFMT(st.st_mode))
    st = os.lstat(top)
    snap["."] = ("dir", oct(stat.S_IMODE(st.st_mode)))
    return snap


def diff_snapshots(before, after):
    out = []
    for k in sorted(set(before) | set(after)):
        if k not in after:
            out.append(f"removed {k}")
        elif k not in before:
            out.append(f"created {k}")
        elif before[k] != after[k]:
            out.append(f"changed {k}: {before[k]} -> {after[k]}")
    return out


def upper_changes(upper, allowed):
    """Entries of the overlay's upper layer other than the sentinels and the
    directories leading to them (copied up when the sentinels were made)."""
    ancestors = {"/"}
    for a in allowed:
        parts = a.strip("/").split("/")
        ancestors.update("/" + "/".join(parts[:i]) for i in range(1, len(parts)))
    found = []
    for dirpath, dirnames, filenames in os.walk(upper, followlinks=False):
        here = "/" + os.path.relpath(dirpath, upper)
        here = "/" if here == "/." else here
        descend = []
        for name in sorted(dirnames + filenames):
            rel = here.rstrip("/") + "/" + name
            if rel in allowed:
                continue
            full = os.path.join(dirpath, name)
            st = os.lstat(full)
            if rel in ancestors and stat.S_ISDIR(st.st_mode):
                descend.append(name)
                continue
            kind = ("whiteout: removed" if stat.S_ISCHR(st.st_mode) and st.st_rdev == 0 else
                    "directory" if stat.S_ISDIR(st.st_mode) else "file or link")
            found.append(f"{rel} ({kind})")
        dirnames[:] = [d for d in dirnames if d in descend]
    return found


def kill_chrooted(merged):
    """Processes still running in the throwaway host view (a runtime the
    suite could not stop) end with it."""
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            root = os.readlink(f"/proc/{pid}/root")
        except OSError:
            continue
        if root == merged or root.startswith(merged + "/"):
            try:
                os.kill(int(pid), signal.SIGKILL)
            except OSError:
                pass


def sh(*args):
    subprocess.run(args, check=True)


def inner(args):
    """Runs inside the private mount namespace."""
    work = args.work
    sh("mount", "--make-rprivate", "/")
    sh("mount", "-t", "tmpfs", "-o", "size=512m", "sbx-sentinel-layers", work)
    upper, ovl_work, merged = (os.path.join(work, d) for d in ("upper", "work", "merged"))
    for d in (upper, ovl_work, merged):
        os.mkdir(d)
    sh("mount", "-t", "overlay", "sbx-sentinel-host", "-o",
       f"lowerdir=/,upperdir={upper},workdir={ovl_work}", merged)
    sh("mount", "--rbind", "/proc", os.path.join(merged, "proc"))
    sh("mount", "--rbind", "-o", "ro", "/sys", os.path.join(merged, "sys"))
    sh("mount", "--rbind", "/dev", os.path.join(merged, "dev"))
    sh("mount", "-o", "remount,bind,ro", os.path.join(merged, "dev"))
    sh("mount", "-t", "tmpfs", "sbx-sentinel-shm", os.path.join(merged, "dev", "shm"))
    sh("mount", "-t", "tmpfs", "-o", "mode=1777", "sbx-sentinel-tmp", os.path.join(merged, "tmp"))
    # A checkout or build under /tmp would be hidden by the private /tmp:
    # it is shown again there, read-only.
    repo = os.path.realpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    for d in sorted({repo, os.path.dirname(os.path.realpath(args.suite)),
                     os.path.dirname(os.path.realpath(args.faulty))}):
        if d.startswith("/tmp/") and not os.path.ismount(merged + d):
            os.makedirs(merged + d, exist_ok=True)
            sh("mount", "--bind", d, merged + d)
            sh("mount", "-o", "remount,bind,ro", merged + d)

    for top in SENTINEL_ROOTS:
        plant_sentinel(merged + top)
    before = {top: snapshot(merged + top) for top in SENTINEL_ROOTS}
    upper_before = upper_changes(upper, SENTINEL_ROOTS)
    if upper_before:
        print("the host view changed before the run:", upper_before)
        return 1

    # The suite launches the runtime with a controlled environment: the
    # switch that lets these faults run is part of the command.
    launch = (f"/usr/bin/env SBX_FAULTS_THROWAWAY_HOST=1 {args.faulty} --fault {FAULTS} --listen-host 127.0.0.1 --grpc-port {{grpc_port}} "
              f"--rest-port {{rest_port}} --root-dir {{root}}")
    results = "/tmp/sbx-sentinel-results.json"
    cmd = ["chroot", merged, "/bin/sh", "-c",
           'cd "$1" && shift && exec "$@"', "sh", DAEMON_CWD, args.suite, "--launch", launch,
           "--json", results, "--jobs", "2", "--seed", str(args.seed), "--color", "never"]
    problems = []
    try:
        proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                              timeout=args.timeout)
        log, status = proc.stdout, proc.returncode
    except subprocess.TimeoutExpired as e:
        out = e.output or ""
        log = out.decode(errors="replace") if isinstance(out, bytes) else out
        status = "killed"
        problems.append(f"the suite did not finish within {args.timeout} s")
    kill_chrooted(merged)

    for top in SENTINEL_ROOTS:
        d = diff_snapshots(before[top], snapshot(merged + top))
        if d:
            problems.append(f"sentinel {top} changed: " + "; ".join(d[:20]))
    outside = upper_changes(upper, SENTINEL_ROOTS)
    if outside:
        problems.append("the host view changed outside the sandbox root and the canaries: " +
                        ", ".join(outside[:40]))

    try:
        with open(merged + results, encoding="utf-8") as f:
            res = json.load(f)
    except (OSError, ValueError) as e:
        res = None
        problems.append(f"no results JSON ({e}); suite exit status {status}")
    if res is not None:
        verdict = res["verdict"]["result"]
        if verdict != "not-conformant":
            problems.append(f"verdict {verdict!r}, want 'not-conformant'")
        failed = [c for c in res["cases"] if c["outcome"] in ("fail", "timeout")]
        errored = [c["id"] for c in res["cases"] if c["outcome"] == "error"]
        failed_clauses = set()
        for c in failed:
            failed_clauses.update(c["clauses"])
        missing = MUST_FAIL_CLAUSES - failed_clauses
        if missing:
            problems.append(f"clauses {sorted(missing)} did not fail (failed: "
                            f"{sorted(failed_clauses)})")
        if errored:
            problems.append(f"cases errored (the suite blamed itself): {errored}")
        print(f"verdict {verdict}; {len(failed)} cases failed or timed out, clauses "
              f"{sorted(failed_clauses)}")
        refused = [c["id"] for c in res["cases"]
                   if any("was not sent" in (f.get("observed") or "")
                          for f in c.get("failures") or [])]
        print(f"cases that refused a destructive request after a probe: {refused}")
    print(f"sentinels checked: {', '.join(SENTINEL_ROOTS)}; host view: overlay upper layer "
          f"{'clean' if not outside else 'CHANGED'}")
    if problems:
        print(log[-6000:])
        for p in problems:
            print("PROBLEM:", p)
        return 1
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--suite", required=True)
    ap.add_argument("--faulty", required=True)
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--timeout", type=int, default=1200)
    ap.add_argument("--inner-work", dest="work", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.work:
        sys.exit(inner(args))
    if os.geteuid() != 0 or not shutil.which("unshare"):
        print("skipped: needs root and unshare(1) for a private mount namespace")
        sys.exit(SKIP)
    with open("/proc/filesystems", encoding="utf-8") as f:
        if "overlay" not in f.read():
            print("skipped: the kernel offers no overlayfs")
            sys.exit(SKIP)
    for p in (args.suite, args.faulty):
        if not os.path.isabs(p):
            sys.exit(f"{p}: want an absolute path")
    work = tempfile.mkdtemp(prefix="sbx-sentinel-")
    try:
        rc = subprocess.run(["unshare", "--mount", "--propagation", "private", sys.executable,
                             os.path.abspath(__file__), "--suite", args.suite, "--faulty",
                             args.faulty, "--seed", str(args.seed), "--timeout",
                             str(args.timeout), "--inner-work", work]).returncode
    finally:
        os.rmdir(work)
    sys.exit(rc)


if __name__ == "__main__":
    main()
