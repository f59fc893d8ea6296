#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The man pages render with `man -l` without warnings, and each binary's
option tables are what its man page and --help document and its parsers
accept.

  test_man_pages.py --page build/suite/sandboxd-conformance.1 --binary build/suite/sandboxd-conformance
                    [--page ... --binary ...]

BINARY --dump-options lists every table row: command, --name, short name,
argument, repeatable, and documented/alias/internal. For each command
("run" and "daemon" are the binary itself, the others its subcommands):
- every documented option has a row (.TP) in the generated man page and
  appears in the command's --help;
- every option a row of that command's --help starts with is in its table
  (nothing documented that the parser does not know);
- an option outside the table is refused as unknown (that every row
  parses is the unit tests' part: cli_options_test, daemon_options);
- every line of the command's --help fits an 80-column terminal.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys

FLAG = re.compile(r"(?<![\w-])(--[a-z][a-z0-9-]*)")
# A row of --help: the option it starts with ("  --json FILE", "  -h, --help").
ROW = re.compile(r"^  (?:-[a-zA-Z], )?(--[a-z][a-z0-9-]*)", re.M)
UNKNOWN = re.compile(r"unknown (option|flag)", re.I)
HELP_WIDTH = 80


def run(argv):
    return subprocess.run(argv, capture_output=True, text=True, timeout=30, stdin=subprocess.DEVNULL)


def prefix(binary, command):
    return [binary] if command in ("run", "daemon") else [binary, command]


def check_binary(page, binary, problems):
    r = run(["man", "--warnings", "-l", page])
    if r.returncode != 0 or r.stderr.strip():
        problems.append("%s: man -l: %s" % (page, r.stderr.strip() or "exit %d" % r.returncode))
    with open(page, encoding="utf-8") as f:
        text = re.sub(r"\\f[BIRP]", "", f.read()).replace("\\-", "-")
    # The options the page documents: those of its .TP labels.
    in_page = set(FLAG.findall("\n".join(re.findall(r"^\.TP\n(.*)$", text, re.M))))
    dump = run([binary, "--dump-options"])
    tables = {}
    for line in dump.stdout.splitlines():
        command, name, _short, arg, _rep, kind = line.split("\t")
        tables.setdefault(command, []).append((name, arg, kind))
    if dump.returncode != 0 or not tables:
        problems.append("%s --dump-options: exit %d, no rows" % (binary, dump.returncode))
    for command, rows in sorted(tables.items()):
        argv = prefix(binary, command)
        help_text = run(argv + ["--help"]).stdout
        helped = set(FLAG.findall(help_text))
        for n, line in enumerate(help_text.splitlines(), 1):
            if len(line) > HELP_WIDTH:
                problems.append("%s --help line %d is %d columns wide: %s"
                                % (" ".join(argv), n, len(line), line))
        names = {name for name, _, _ in rows}
        for name, _arg, kind in rows:
            if kind == "documented" and name not in in_page:
                problems.append("%s does not document %s %s" % (page, command, name))
            if kind == "documented" and name not in helped:
                problems.append("%s --help does not name %s" % (" ".join(argv), name))
        for name in sorted(set(ROW.findall(help_text)) - names):
            problems.append("%s --help names %s, which is not in its table" % (" ".join(argv), name))
        # The parser is built from the table (cli_options_test and
        # daemon_options parse every row); here, that it knows nothing else.
        r = run(argv + ["--no-such-option-anywhere", "--help"])
        if r.returncode != 2 or not UNKNOWN.search(r.stderr):
            problems.append("%s accepts --no-such-option-anywhere (exit %d)"
                            % (" ".join(argv), r.returncode))
        print("man-pages: %s %s: %d options" % (os.path.basename(binary), command, len(rows)))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--page", action="append", required=True)
    ap.add_argument("--binary", action="append", required=True)
    a = ap.parse_args()
    if not shutil.which("man"):
        print("man-pages: SKIPPED: man is not installed (man-db)")
        return 77
    os.environ.update(MANWIDTH="80", MAN_KEEP_FORMATTING="0")
    problems = []
    for page, binary in zip(a.page, a.binary):
        check_binary(page, binary, problems)
    for p in problems:
        print("man-pages: FAIL: " + p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
