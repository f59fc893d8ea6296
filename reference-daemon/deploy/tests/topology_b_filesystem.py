#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Topology B without a registry: assembles the file systems of its two images
and certifies the daemon started from them.

- the init image: a directory holding nothing but the static sandboxd-ref;
- the "unmodified tool-rich image": a minimal tree with a shell and
  coreutils (Debian's busybox-static), knowing nothing of sandboxd;
- the init container runs `sandboxd-ref --copy-to /sandboxd` chrooted into the
  init image with the shared emptyDir mounted at /sandboxd;
- the workload container runs /sandboxd/sandboxd-ref chrooted into the tool
  image, with the emptyDir at /sandboxd and the suite's root under
  /workspace; the suite launches it through that, so every launch case runs.

Each container gets a private mount namespace (unshare --mount), so nothing
is mounted on the host. Exit 77 (ctest: skipped) with the reason where this
machine refuses: not root, no static daemon, no busybox-static, or a kernel
that refuses mount namespaces or chroot.

  topology_b_filesystem.py --suite SUITE --static-daemon BIN [--busybox /bin/busybox]
"""
import argparse
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile

SKIP = 77
# Cases the tool image cannot serve, and the reason the suite must give:
# busybox has no program that binds a unix socket (no python3, socat or
# nc -U), so S9-002 (a SHOULD) says skipped. Anything else not passing fails.
EXPECTED_SKIPS = {"S9-002": "unix socket"}


def skip(why):
    print("topology-b: SKIPPED: " + why)
    sys.exit(SKIP)


def is_static(path):
    """An ELF executable without a PT_INTERP program header."""
    with open(path, "rb") as f:
        head = f.read(64)
        if head[:4] != b"\x7fELF" or head[4] != 2:
            return False
        phoff = int.from_bytes(head[32:40], "little")
        phentsize = int.from_bytes(head[54:56], "little")
        phnum = int.from_bytes(head[56:58], "little")
        f.seek(phoff)
        for _ in range(phnum):
            ph = f.read(phentsize)
            if int.from_bytes(ph[0:4], "little") == 3:  # PT_INTERP
                return False
    return True


def tool_image(root, busybox):
    """Shell and coreutils, nothing else (the "unmodified" image)."""
    for d in ("bin", "sbin", "usr/bin", "usr/sbin", "etc", "tmp", "dev", "proc", "workspace"):
        os.makedirs(os.path.join(root, d), exist_ok=True)
    os.chmod(os.path.join(root, "tmp"), 0o1777)
    shutil.copy2(busybox, os.path.join(root, "bin/busybox"))
    applets = subprocess.run([busybox, "--list-full"], check=True, capture_output=True,
                             text=True).stdout.split()
    for a in applets:
        link = os.path.join(root, a)
        if not os.path.lexists(link):
            os.makedirs(os.path.dirname(link), exist_ok=True)
            os.symlink("/bin/busybox", link)
    with open(os.path.join(root, "etc/passwd"), "w") as f:
        f.write("root:x:0:0:root:/root:/bin/sh\n")
    with open(os.path.join(root, "etc/group"), "w") as f:
        f.write("root:x:0:\n")
    return len(applets)


def container(image, mounts, argv):
    """argv chrooted into image in a private mount namespace; mounts are
    (host path, path in the image, kind). The command is exec'd, so its PID is
    the container's process (the suite signals it)."""
    script = ["set -e"]
    for src, dst, kind in mounts:
        target = shlex.quote(os.path.join(image, dst.lstrip("/")))
        if kind == "proc":
            script.append("mount -t proc proc %s" % target)
        elif kind == "rbind":
            script.append("mount --rbind %s %s" % (shlex.quote(src), target))
        else:
            script.append("mount --bind %s %s" % (shlex.quote(src), target))
    script.append("exec chroot %s %s" % (shlex.quote(image), " ".join(argv)))
    return ["unshare", "--mount", "--propagation", "private", "sh", "-c", "\n".join(script)]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--suite", required=True)
    ap.add_argument("--static-daemon", required=True)
    ap.add_argument("--busybox", default="/bin/busybox")
    ap.add_argument("--level", default="", help="--level of the certifying run ('' = full)")
    a = ap.parse_args()
    if os.geteuid() != 0:
        skip("needs root (chroot and mount namespaces)")
    if not os.path.exists(a.static_daemon):
        skip("no static daemon at %s (reference-daemon/static/build-static.sh builds it)"
             % a.static_daemon)
    if not is_static(a.static_daemon):
        print("topology-b: FAIL: %s is dynamically linked" % a.static_daemon)
        return 1
    if not os.path.exists(a.busybox) or not is_static(a.busybox):
        skip("no static busybox at %s (Debian's busybox-static)" % a.busybox)
    probe = subprocess.run(["unshare", "--mount", "--propagation", "private", "chroot", "/",
                            "true"], capture_output=True, text=True)
    if probe.returncode != 0:
        skip("the kernel refuses a mount namespace or chroot: " + probe.stderr.strip())

    work = tempfile.mkdtemp(prefix="sbx-topology-b-")
    try:
        init_image = os.path.join(work, "init-image")
        os.makedirs(init_image)
        shutil.copy2(a.static_daemon, os.path.join(init_image, "sandboxd-ref"))
        held = sorted(os.listdir(init_image))
        if held != ["sandboxd-ref"]:
            print("topology-b: FAIL: the init image holds %s" % held)
            return 1
        # Mount points a container runtime creates in the container's root.
        for d in ("proc", "sandboxd"):
            os.makedirs(os.path.join(init_image, d))
        app_image = os.path.join(work, "app-image")
        n = tool_image(app_image, a.busybox)
        os.makedirs(os.path.join(app_image, "sandboxd"))
        empty_dir = os.path.join(work, "emptydir")
        os.makedirs(empty_dir)
        print("topology-b: init image: /sandboxd-ref only; tool image: busybox with %d applets"
              % n)

        init = container(init_image, [(None, "/proc", "proc"), (empty_dir, "/sandboxd", "bind")],
                         ["/sandboxd-ref", "--copy-to", "/sandboxd"])
        r = subprocess.run(init, capture_output=True, text=True, timeout=60)
        if r.returncode != 0 or os.listdir(empty_dir) != ["sandboxd-ref"]:
            print("topology-b: FAIL: the init container did not copy the daemon: rc %d %s"
                  % (r.returncode, r.stderr.strip()))
            return 1
        print("topology-b: init container: " + r.stdout.strip())

        # The workload container, as a --launch template. The suite's fresh
        # root is the /workspace volume; it is mounted at the same path inside
        # (the suite's launch cases compare paths a process prints with it),
        # and its parent is what is mounted, so a root the suite wants missing
        # is still created by the daemon (L2).
        launcher = os.path.join(work, "workload-container.sh")
        mounts = [(None, "/proc", "proc"), ("/dev", "/dev", "rbind"),
                  (empty_dir, "/sandboxd", "bind"), ("@VOLUME@", "@VOLUME@", "bind")]
        cmd = container(app_image, mounts,
                        ["/sandboxd/sandboxd-ref", "--listen-host", "127.0.0.1",
                         "--grpc-port", '"$grpc"', "--rest-port", '"$rest"', "--root-dir",
                         '"$root"', '"$@"'])
        volume_host = shlex.quote("@VOLUME@")
        volume_image = shlex.quote(os.path.join(app_image, "@VOLUME@"))
        body = cmd[-1].replace(volume_image, '"%s$volume"' % app_image).replace(
            volume_host, '"$volume"')
        # Flags after the root (the suite adds some, e.g. L3's prefix) are the
        # daemon's.
        body = ('grpc=$1 rest=$2 root=$3\nshift 3\nvolume=$(dirname "$root")\n'
                'mkdir -p "%s$volume"\n' % app_image) + body
        with open(launcher, "w") as f:
            f.write("#!/bin/sh\n# The workload container of topology B.\n"
                    "exec unshare --mount --propagation private sh -c %s sh \"$@\"\n"
                    % shlex.quote(body))
        os.chmod(launcher, 0o755)
        results = os.path.join(work, "results.json")
        run = [os.path.abspath(a.suite), "--launch", "%s {grpc_port} {rest_port} {root}" % launcher,
               "--quiet", "--color", "never", "--json", results]
        if a.level:
            run += ["--level", a.level]
        print("+ " + " ".join(shlex.quote(x) for x in run), flush=True)
        rc = subprocess.run(run, cwd=work, timeout=1200).returncode
        unexpected = unexpected_outcomes(results)
        if rc not in (0, 1) or unexpected is None or unexpected:
            print("topology-b: FAIL: the suite exited %d against the daemon of the tool image"
                  % rc)
            for line in unexpected or []:
                print("topology-b:   " + line)
            return 1
        leftover = [p for p in os.listdir(empty_dir) if p != "sandboxd-ref"]
        if leftover:
            print("topology-b: FAIL: the shared volume gained %s" % leftover)
            return 1
        print("topology-b: certified the daemon started from topology B's file system")
        return 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


def unexpected_outcomes(results):
    """What did not go as certified: a selected case that did not pass and is
    not an expected skip, or a MUST clause not passed. None: no results."""
    try:
        with open(results) as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        print("topology-b: no results (%s)" % e)
        return None
    bad = []
    for c in doc.get("cases", []):
        if not c.get("selected", True) or c.get("outcome") == "pass":
            continue
        if c["id"].startswith("T") and "profile not selected" in (c.get("reason") or ""):
            continue
        want = EXPECTED_SKIPS.get(c["id"])
        if c.get("outcome") == "skip" and want and want in (c.get("reason") or ""):
            print("topology-b: %s skipped as expected: %s" % (c["id"], c["reason"]))
            continue
        bad.append("%s %s: %s" % (c["id"], c.get("outcome"), c.get("reason") or ""))
    verdict = doc.get("verdict") or {}
    must = verdict.get("must") or {}
    if verdict.get("result") not in ("full-conformant", "core-conformant") or \
            must.get("total") is None or must.get("passed") != must.get("total"):
        bad.append("verdict %s, MUST %s" % (verdict.get("result"), json.dumps(must)))
    return bad


if __name__ == "__main__":
    sys.exit(main())
