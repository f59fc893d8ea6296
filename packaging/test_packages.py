#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Builds the Debian packages of a build tree with CPack, checks their fields
and contents, unpacks them with dpkg-deb -x into a scratch directory (no
installation on this machine) and runs the unpacked suite against the
unpacked daemon, with the source tree out of its way (its data directory must
be the unpacked one).

  test_packages.py --build build [--static-build build-static] [--level core]

--static-build: also package that static build tree (sandboxd-ref-static) and
run the unpacked suite against the unpacked static daemon (instead of the
dynamic one).
"""
import argparse
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile

# What each package must hold and depend on (shared libraries by dpkg-shlibdeps).
EXPECT = {
    "sandboxd-conformance": {
        "files": ["./usr/bin/sandboxd-conformance",
                  "./usr/share/man/man1/sandboxd-conformance.1.gz",
                  "./usr/share/sandboxd-conformance/openapi/sandboxd.yaml",
                  "./usr/share/sandboxd-conformance/cases/confinement/traversal.yaml",
                  "./usr/share/sandboxd-conformance/cases/contract/CONTRACT.md",
                  "./usr/share/sandboxd-conformance/reports/results-schema.json",
                  "./usr/libexec/sandboxd-conformance/sbx-race-swapper",
                  "./usr/libexec/sandboxd-conformance/sbx-first-look"],
        "depends": ["libc6", "libcurl4", "libjansson4", "libyaml-0-2", "libnghttp2-14",
                    "libprotobuf-c1"],
    },
    "sandboxd-ref": {
        "files": ["./usr/bin/sandboxd-ref", "./usr/share/man/man1/sandboxd-ref.1.gz"],
        "depends": ["libc6", "libuv1", "libjansson4", "libnghttp2-14", "libprotobuf-c1"],
    },
    "sandboxd-ref-static": {
        "files": ["./usr/bin/sandboxd-ref", "./usr/share/man/man1/sandboxd-ref.1.gz"],
        "depends": [],
        "fields": {"Provides": "sandboxd-ref", "Conflicts": "sandboxd-ref"},
    },
}
NEVER = ["sandboxd-ref-faulty"]  # test-only builds are never shipped


def run(cmd, **kw):
    print("+ " + " ".join(cmd), flush=True)
    return subprocess.run(cmd, check=True, **kw)


def field(deb, name):
    r = subprocess.run(["dpkg-deb", "-f", deb, name], capture_output=True, text=True)
    return r.stdout.strip()


def build_debs(build, out):
    os.makedirs(out, exist_ok=True)
    run(["cpack", "-G", "DEB", "--config", os.path.join(build, "CPackConfig.cmake"), "-B", out],
        stdout=subprocess.DEVNULL)
    return sorted(glob.glob(os.path.join(out, "*.deb")))


def check_deb(deb, problems):
    name = field(deb, "Package")
    want = EXPECT.get(name)
    if not want:
        problems.append("%s: unexpected package %s" % (deb, name))
        return name
    listing = subprocess.run(["dpkg-deb", "-c", deb], check=True, capture_output=True,
                             text=True).stdout
    paths = [line.split()[-1] for line in listing.splitlines() if line.split()]
    for f in want["files"]:
        if f not in paths:
            problems.append("%s: lacks %s" % (name, f))
    for p in paths:
        if any(n in p for n in NEVER):
            problems.append("%s: ships the test-only %s" % (name, p))
    depends = field(deb, "Depends")
    dep_names = {d.split()[0] for d in depends.replace("|", ",").split(",") if d.strip()}
    for d in want["depends"]:
        if d not in dep_names:
            problems.append("%s: Depends lacks %s (has: %s)" % (name, d, depends or "nothing"))
    if not want["depends"] and depends:
        problems.append("%s: a static package depends on %s" % (name, depends))
    for k, v in want.get("fields", {}).items():
        if field(deb, k) != v:
            problems.append("%s: %s is %r, not %r" % (name, k, field(deb, k), v))
    print("packages: %s %s (Depends: %s)" % (name, field(deb, "Version"), depends or "-"))
    return name


# One case per surface (health, Execute, a file): enough to show that the
# unpacked suite finds its data and the unpacked daemon serves; the same
# binaries, the static daemon's included, are certified whole by .ci/run.
SMOKE_FOCUS = "^(M1-001|P1-001|F1-001)( |$)"


def certify(root, daemon_root, work, level, problems, label, focus=None):
    """The unpacked suite, run from an empty directory with a clean environment,
    launches the unpacked daemon beside it (or the one given)."""
    suite = os.path.join(root, "usr/bin/sandboxd-conformance")
    env = {k: v for k, v in os.environ.items() if not k.startswith("SBX_")}
    env["PATH"] = "/usr/sbin:/usr/bin:/sbin:/bin"
    version = subprocess.run([suite, "--version"], check=True, capture_output=True, text=True,
                             env=env).stdout
    data = os.path.realpath(os.path.join(root, "usr/share/sandboxd-conformance"))
    if "data directory: %s\n" % data not in version:
        problems.append("%s: the unpacked suite does not use its unpacked data (%s)"
                        % (label, version.strip()))
    results = os.path.join(work, "results-%s.json" % label)
    cmd = [suite, "--quiet", "--color", "never", "--jobs", "2", "--json", results]
    if level:
        cmd += ["--level", level]
    if focus:
        cmd += ["--focus", focus]
    if daemon_root:
        cmd += ["--launch-bundled", os.path.join(daemon_root, "usr/bin/sandboxd-ref")]
    cwd = tempfile.mkdtemp(dir=work)
    rc = subprocess.run(cmd, cwd=cwd, env=env, timeout=600).returncode
    if rc != 0:
        problems.append("%s: the unpacked suite exited %d" % (label, rc))
        return
    res = json.load(open(results))
    want = os.path.realpath(os.path.join(daemon_root or root, "usr/bin/sandboxd-ref"))
    if not res["runtime"]["command"].startswith(want + " "):
        problems.append("%s: the suite ran %s, not the unpacked daemon %s"
                        % (label, res["runtime"]["command"], want))
    s = res["summary"]
    print("packages: %s: %s, %d passed, %d failed, %d skipped"
          % (label, res["verdict"]["text"], s["pass"], s["fail"], s["skip"]))
    if s["pass"] == 0:
        problems.append("%s: no case passed" % label)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", required=True, help="the build tree (suite and daemon)")
    ap.add_argument("--static-build", help="a static daemon's build tree (build-static.sh)")
    ap.add_argument("--level", default="core", help="--level of the certifying runs ('' = full)")
    ap.add_argument("--keep", action="store_true", help="keep the scratch directory")
    a = ap.parse_args()
    for tool in ("cpack", "dpkg-deb", "dpkg-shlibdeps"):
        if not shutil.which(tool):
            print("packages: SKIPPED: %s is not installed (ci/install-deps.sh)" % tool)
            return 0
    if a.static_build and not os.path.exists(os.path.join(a.static_build, "CPackConfig.cmake")):
        print("packages: SKIPPED: no static build tree at %s "
              "(reference-daemon/static/build-static.sh makes it)" % a.static_build)
        return 77
    work = tempfile.mkdtemp(prefix="sbx-packages-")
    problems = []
    try:
        debs = build_debs(os.path.abspath(a.build), os.path.join(work, "debs"))
        if a.static_build:
            debs += build_debs(os.path.abspath(a.static_build), os.path.join(work, "debs-static"))
        names = {}
        for deb in debs:
            names[check_deb(deb, problems)] = deb
        wanted = ["sandboxd-conformance", "sandboxd-ref"] + (
            ["sandboxd-ref-static"] if a.static_build else [])
        for n in wanted:
            if n not in names:
                problems.append("cpack built no %s package" % n)
        if not problems:
            root = os.path.join(work, "root")
            for n in ("sandboxd-conformance", "sandboxd-ref"):
                run(["dpkg-deb", "-x", names[n], root])
            for page in glob.glob(os.path.join(root, "usr/share/man/man1/*.1.gz")):
                r = subprocess.run(["man", "--warnings", "-l", page], capture_output=True,
                                   text=True, env=dict(os.environ, MANWIDTH="80"))
                if r.returncode != 0 or r.stderr.strip() or not r.stdout.strip():
                    problems.append("man -l %s: %s" % (page, r.stderr.strip() or "no output"))
            if not a.static_build:
                certify(root, None, work, a.level, problems, "sandboxd-ref", SMOKE_FOCUS)
            else:
                static_root = os.path.join(work, "root-static")
                run(["dpkg-deb", "-x", names["sandboxd-ref-static"], static_root])
                certify(root, static_root, work, a.level, problems, "sandboxd-ref-static",
                        SMOKE_FOCUS)
    finally:
        if a.keep:
            print("packages: scratch directory kept: " + work)
        else:
            shutil.rmtree(work, ignore_errors=True)
    for p in problems:
        print("packages: FAIL: " + p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
