#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The man pages render with `man -l` without warnings, and each documents
every option its command's --help lists.

  test_man_pages.py --page suite/man/sandboxd-conformance.1 --binary build/suite/sandboxd-conformance
                    [--page ... --binary ...]
"""
import argparse
import os
import re
import shutil
import subprocess
import sys

FLAG = re.compile(r"(?<![\w-])(--[a-z][a-z0-9-]*)")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--page", action="append", required=True)
    ap.add_argument("--binary", action="append", required=True)
    a = ap.parse_args()
    if not shutil.which("man"):
        print("man-pages: SKIPPED: man is not installed (man-db)")
        return 77
    problems = []
    for page, binary in zip(a.page, a.binary):
        r = subprocess.run(["man", "--warnings", "-l", page], capture_output=True, text=True,
                           env=dict(os.environ, MANWIDTH="80", MAN_KEEP_FORMATTING="0"))
        if r.returncode != 0 or r.stderr.strip():
            problems.append("%s: man -l: %s" % (page, r.stderr.strip() or "exit %d" % r.returncode))
        with open(page, encoding="utf-8") as f:
            in_page = set(FLAG.findall(f.read().replace("\\-", "-")))
        helped = set(FLAG.findall(subprocess.run([binary, "--help"], capture_output=True,
                                                 text=True, timeout=30).stdout))
        if not helped:
            problems.append("%s --help lists no option" % binary)
        for f in sorted(helped - in_page):
            problems.append("%s does not document %s (in %s --help)" % (page, f, binary))
        print("man-pages: %s: %d options" % (page, len(in_page)))
    for p in problems:
        print("man-pages: FAIL: " + p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
