#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Every source file of the project carries an SPDX licence line near its top.

  spdx.py check   list the tracked source files without one; exit 1 if any
  spdx.py add     add the line where it is missing (after a shebang)

Source files: C, headers, Python, shell, CMake, .proto, Containerfiles,
.ci/run and the man pages. Data (corpora, tables, YAML documents, JSON)
and prose carry the licence through LICENSE alone.
"""
import os
import re
import subprocess
import sys

LINE = "SPDX-License-Identifier: Apache-2.0"
REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def comment_for(path):
    base = os.path.basename(path)
    if path.endswith((".c", ".h")):
        return f"/* {LINE} */"
    if path.endswith(".proto"):
        return f"// {LINE}"
    if re.search(r"\.[1-9](\.in)?$", path):
        return f'.\\" {LINE}'
    if (path.endswith((".py", ".sh", ".cmake", ".Containerfile")) or base == "CMakeLists.txt"
            or path == ".ci/run"):
        return f"# {LINE}"
    return None


def source_files():
    out = subprocess.run(["git", "ls-files", "-z"], cwd=REPO, check=True,
                         capture_output=True).stdout.decode()
    for path in out.split("\0"):
        if path and "/corpus/" not in path and comment_for(path) and os.path.isfile(
                os.path.join(REPO, path)):
            yield path


def has_line(text):
    return LINE in "\n".join(text.split("\n")[:3])


def add_line(path, text):
    lines = text.split("\n")
    at = 1 if lines and lines[0].startswith("#!") else 0
    lines.insert(at, comment_for(path))
    return "\n".join(lines)


def main():
    if len(sys.argv) != 2 or sys.argv[1] not in ("check", "add"):
        sys.exit(__doc__)
    missing = []
    for path in source_files():
        full = os.path.join(REPO, path)
        with open(full, encoding="utf-8") as f:
            text = f.read()
        if has_line(text):
            continue
        if sys.argv[1] == "add":
            with open(full, "w", encoding="utf-8") as f:
                f.write(add_line(path, text))
        else:
            missing.append(path)
    for path in missing:
        print(f"{path}: no '{LINE}' line in its first three lines")
    sys.exit(1 if missing else 0)


if __name__ == "__main__":
    main()
