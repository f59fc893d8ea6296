#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The fault table (fault_table.def) against the documents that use it.

  faults_doc.py check ROOT   FAULTS.md's tables are the table's entries, and
                             every fault or variant named by cases/*/faults.tsv,
                             cases/variants.tsv, cases/sweeps.tsv and the
                             daemon's fault probes exists; every entry is named
                             by one of the .tsv files or says why not
                             (SBX_FAULT_OUTSIDE_MATRIX). Exit 1 on a mismatch.
  faults_doc.py write ROOT   rewrites FAULTS.md's tables from the table.

ROOT is the source tree. A FAULTS.md table follows a marker line
`<!-- fault table: SECTION -->` and ends at the first blank line.
"""
import glob
import os
import re
import sys

ENTRY = re.compile(r'^SBX_FAULT\((\w+), "([a-z0-9-]+)", (\w+), "((?:[^"\\]|\\.)*)", '
                   r'"((?:[^"\\]|\\.)*)"\)$')
OUTSIDE = re.compile(r'^SBX_FAULT_OUTSIDE_MATRIX\((\w+), "((?:[^"\\]|\\.)*)"\)$')
MARKER = re.compile(r"^<!-- fault table: (\w+) -->$")


def unescape(s):
    return re.sub(r"\\(.)", r"\1", s)


def read_table(path):
    entries, outside, errors = [], {}, []
    for n, line in enumerate(open(path, encoding="utf-8"), 1):
        line = line.rstrip("\n")
        if line.startswith("SBX_FAULT("):
            m = ENTRY.match(line)
            if not m:
                errors.append(f"{path}:{n}: not one SBX_FAULT(ID, \"name\", SECTION, \"...\", \"...\")")
                continue
            ident, name, section, clauses, what = m.groups()
            if ident != name.upper().replace("-", "_"):
                errors.append(f"{path}:{n}: ID {ident} is not the name {name} upper-cased")
            entries.append((ident, name, section, unescape(clauses), unescape(what)))
        elif line.startswith("SBX_FAULT_OUTSIDE_MATRIX("):
            m = OUTSIDE.match(line)
            if not m:
                errors.append(f"{path}:{n}: not one SBX_FAULT_OUTSIDE_MATRIX(ID, \"why\")")
                continue
            outside[m.group(1)] = unescape(m.group(2))
    names = [e[1] for e in entries]
    for name in {x for x in names if names.count(x) > 1}:
        errors.append(f"{path}: {name} is listed twice")
    return entries, outside, errors


def rows(entries, section):
    return [f"| `{name}` | {what} | {clauses} |" for _, name, s, clauses, what in entries
            if s == section]


def render(doc_lines, entries):
    out, i, seen = [], 0, set()
    while i < len(doc_lines):
        line = doc_lines[i]
        out.append(line)
        m = MARKER.match(line)
        i += 1
        if not m:
            continue
        seen.add(m.group(1))
        out.extend(doc_lines[i:i + 2])  # header and separator
        i += 2
        while i < len(doc_lines) and doc_lines[i].strip():
            i += 1
        out.extend(rows(entries, m.group(1)))
    return out, seen


def used_names(root):
    used = {}
    for path in sorted(glob.glob(os.path.join(root, "cases", "**", "faults.tsv"), recursive=True)):
        for line in open(path, encoding="utf-8"):
            cols = line.rstrip("\n").split("\t")
            if line.startswith("#") or len(cols) < 2:
                continue
            used.setdefault(cols[1].strip(), path)
    for name, col in (("variants.tsv", None), ("sweeps.tsv", None)):
        path = os.path.join(root, "cases", name)
        for line in open(path, encoding="utf-8"):
            cols = line.rstrip("\n").split("\t")
            if line.startswith("#") or not cols[0].strip():
                continue
            # A variant with daemon arguments (column 2) is a flag of the
            # clean build, not a switch of the table.
            if name == "variants.tsv" and len(cols) > 1 and cols[1].strip() != "-":
                continue
            used.setdefault(cols[0].strip(), path)
    return used


def probe_names(root):
    path = os.path.join(root, "reference-daemon", "tests", "daemon_faults_test.c")
    text = open(path, encoding="utf-8").read()
    return set(re.findall(r'^\s*\{"([a-z0-9-]+)",', text, re.M))


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in ("check", "write"):
        sys.exit(__doc__)
    root = sys.argv[2]
    table_path = os.path.join(root, "reference-daemon", "faults", "fault_table.def")
    doc_path = os.path.join(root, "reference-daemon", "FAULTS.md")
    entries, outside, errors = read_table(table_path)
    doc = open(doc_path, encoding="utf-8").read().split("\n")
    want, seen = render(doc, entries)
    for section in sorted({e[2] for e in entries} - seen):
        errors.append(f"{doc_path}: no marker '<!-- fault table: {section} -->'")
    if sys.argv[1] == "write":
        open(doc_path, "w", encoding="utf-8").write("\n".join(want))
    elif want != doc:
        errors.append(f"{doc_path}: its tables differ from {table_path} "
                      "(reference-daemon/faults/faults_doc.py write . rewrites them)")
    names = {e[1] for e in entries}
    idents = {e[0] for e in entries}
    used = used_names(root)
    for name, path in sorted(used.items()):
        if name not in names:
            errors.append(f"{path}: names {name}, which is not in {table_path}")
    for name in sorted(probe_names(root) - names):
        errors.append(f"daemon_faults_test.c: probes {name}, which is not in {table_path}")
    for ident in sorted(set(outside) - idents):
        errors.append(f"{table_path}: SBX_FAULT_OUTSIDE_MATRIX({ident}) is no entry")
    for ident, name, *_ in entries:
        if name in used and ident in outside:
            errors.append(f"{table_path}: {name} is named by {used[name]} but marked outside")
        if name not in used and ident not in outside:
            errors.append(f"{table_path}: {name} is named by no faults.tsv, variants.tsv or "
                          "sweeps.tsv (add it to one, or say why with SBX_FAULT_OUTSIDE_MATRIX)")
    for e in errors:
        print(e)
    if errors:
        sys.exit(1)
    print(f"{len(entries)} faults and variants: FAULTS.md and the cases' tables agree")


if __name__ == "__main__":
    main()
