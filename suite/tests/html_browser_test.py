#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""The HTML reports in a real browser (headless Chromium): the conformance
report and the comparison page are loaded in an iframe of a probe page whose
script reads the rendered DOM (order of the sections, the failures and where
their links lead, the picture of the contract: one visible cell per clause,
coloured by the status the results document gives it, MUST and SHOULD
apart) and confirms that nothing was loaded from outside the page. The
findings are checked against the results documents; a screenshot of each
page is kept in the working directory. Exits 77 (skipped) without Chromium."""
import argparse
import html
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

A = None
FAILURES = []
SKIP = 77

PROBE = r"""<!DOCTYPE html><html><head><meta charset="utf-8"/></head><body>
<pre id="probe">pending</pre><iframe id="f" src="PAGE" width="1280" height="900"></iframe>
<script>
document.getElementById('f').addEventListener('load', function () {
  var w = this.contentWindow, d = this.contentDocument, out = {};
  out.h2 = Array.from(d.querySelectorAll('h2')).map(function (h) { return h.id || h.textContent; });
  out.resources = w.performance.getEntriesByType('resource').map(function (e) { return e.name; });
  out.failed = Array.from(d.querySelectorAll('ul.failed li')).map(function (li) {
    var a = li.querySelectorAll('a');
    var t = d.getElementById(a[0].getAttribute('href').slice(1));
    return {clause: a[0].textContent, caseid: a[1].textContent,
            target: t ? t.id : null, caseTarget: !!d.getElementById(a[1].textContent)};
  });
  out.glances = Array.from(d.querySelectorAll('div.glance')).map(function (g) {
    return Array.from(g.querySelectorAll('a.cell')).map(function (a) {
      var s = w.getComputedStyle(a), strip = a.parentElement.className;
      var t = d.getElementById(a.getAttribute('href').slice(1));
      return {id: a.dataset.clause, status: a.className.replace('cell ', ''),
              bg: s.backgroundColor, visible: a.offsetWidth > 0 && a.offsetHeight > 0,
              strip: strip.indexOf('should') >= 0 ? 'SHOULD' : 'MUST', target: !!t};
    });
  });
  out.differ = Array.from(d.querySelectorAll('table.differ tr')).slice(1).map(function (tr) {
    return tr.children[1].textContent;
  });
  out.collapsed = Array.from(d.querySelectorAll('details')).filter(function (x) {
    return !x.open; }).length;
  document.getElementById('probe').textContent = JSON.stringify(out);
});
</script></body></html>
"""


def check(cond, what):
    print(("  ok   " if cond else "  FAIL ") + what)
    if not cond:
        FAILURES.append(what)
    return cond


def chromium_args(tmp):
    return [A.chromium, "--headless", "--no-sandbox", "--disable-gpu",
            "--disable-background-networking", "--disable-component-update", "--disable-sync",
            "--no-first-run", "--hide-scrollbars",
            f"--user-data-dir={tempfile.mkdtemp(dir=tmp, prefix='chromium-')}"]


def probe(tmp, page):
    path = os.path.join(tmp, "probe-" + os.path.basename(page))
    with open(path, "w", encoding="utf-8") as f:
        f.write(PROBE.replace("PAGE", os.path.basename(page)))
    p = subprocess.run(chromium_args(tmp) + ["--allow-file-access-from-files",
                                             "--virtual-time-budget=10000", "--dump-dom",
                                             "file://" + path],
                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, timeout=180)
    m = re.search(r'<pre id="probe">(.*?)</pre>', p.stdout.decode(errors="replace"), re.S)
    text = html.unescape(m.group(1)) if m else ""
    if not check(text.startswith("{"), f"the browser rendered {os.path.basename(page)}"):
        return None
    return json.loads(text)


def screenshot(tmp, page, name):
    out = os.path.join(A.workdir, name)
    subprocess.run(chromium_args(tmp) + ["--window-size=1280,1600", f"--screenshot={out}",
                                         "file://" + page],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=180)
    check(os.path.exists(out) and os.path.getsize(out) > 1000, f"screenshot {out}")


def run(args, mode=None):
    env = dict(os.environ)
    env.pop("SBXC_FAKE_MODE", None)
    if mode:
        env["SBXC_FAKE_MODE"] = mode
    return subprocess.run([A.runner] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          env=env, timeout=300).returncode


def check_glance(cells, clause_status, clause_level, what):
    check(sorted(c["id"] for c in cells) == sorted(clause_status),
          f"{what}: one cell per clause ({len(cells)} of {len(clause_status)})")
    wrong = [c["id"] for c in cells if c["status"] != clause_status.get(c["id"])]
    check(not wrong, f"{what}: every cell has its clause's status {wrong[:5]}")
    check(all(c["visible"] and c["target"] for c in cells),
          f"{what}: every cell is visible and links to its clause's section")
    apart = [c["id"] for c in cells if c["strip"] != clause_level[c["id"]]]
    check(not apart, f"{what}: MUST and SHOULD clauses in their own strips {apart[:5]}")
    colours = {}
    for c in cells:
        colours.setdefault(c["status"], set()).add(c["bg"])
    check(all(len(v) == 1 for v in colours.values()) and
          len({next(iter(v)) for v in colours.values()}) == len(colours),
          f"{what}: one colour per status, a different one for each ({colours})")


def test_report(tmp):
    print("conformance report")
    page = os.path.join(tmp, "report.html")
    res = os.path.join(tmp, "mixed.json")
    launch = (f"/usr/bin/python3 {A.fake_runtime} --grpc-port {{grpc_port}} "
              "--rest-port {rest_port} --root {root}")
    run(["--launch", launch, "--jobs", "4", "--unresponsive-after", "0", "--quiet", "--json", res, "--html", page])
    with open(res, encoding="utf-8") as f:
        doc = json.load(f)
    p = probe(tmp, page)
    if not p:
        return
    check(p["resources"] == [], f"nothing loaded from outside the page {p['resources'][:3]}")
    check(p["h2"][:3] == ["failed", "glance", "run"] and "group-P" in p["h2"],
          f"opens with what failed, then the picture, then the run and the sections ({p['h2'][:4]})")
    bad = sorted(c["id"] for c in doc["cases"] if c["outcome"] in ("fail", "timeout", "error")
                 and c["status"] != "expected-fail")
    check(sorted(x["caseid"] for x in p["failed"]) == bad, f"every failure is listed ({bad})")
    first = {c["id"]: c["clauses"][0] for c in doc["cases"]}
    check(all(x["target"] == "clause-" + first[x["caseid"]] and x["caseTarget"]
              for x in p["failed"]), "each failure links to its clause section and its case")
    status = {c["id"]: c["status"] for c in doc["clauses"]}
    level = {c["id"]: c["level"] for c in doc["clauses"]}
    check(len(p["glances"]) == 1, "one picture of the contract")
    if p["glances"]:
        check_glance(p["glances"][0], status, level, "report picture")
    screenshot(tmp, page, "report.png")
    return res


def test_compare(tmp, mixed):
    print("comparison page")
    good = os.path.join(tmp, "good.json")
    launch = (f"/usr/bin/python3 {A.fake_runtime} --grpc-port {{grpc_port}} "
              "--rest-port {rest_port} --root {root}")
    run(["--launch", launch, "--jobs", "4", "--unresponsive-after", "0", "--quiet", "--json", good], "good")
    page = os.path.join(tmp, "compare.html")
    cj = os.path.join(tmp, "compare.json")
    rc = run(["compare", "--quiet", "--base", good, mixed, "--html", page, "--json", cj])
    check(rc == 1, "the comparison found the regressions")
    with open(cj, encoding="utf-8") as f:
        doc = json.load(f)
    p = probe(tmp, page)
    if not p:
        return
    check(p["resources"] == [], "nothing loaded from outside the page")
    check(p["h2"][:3] == ["regressions", "differ", "glance"],
          f"opens with the regressions, then the differences, then the pictures ({p['h2'][:3]})")
    differ = [c["id"] for c in doc["cases"] if not c["agree"]]
    check(sorted(p["differ"]) == sorted(differ), f"the differing cases are listed ({differ})")
    check(p["collapsed"] > 0, "clauses where every run agrees are collapsed")
    check(len(p["glances"]) == len(doc["runs"]), "one picture of the contract per run")
    level = {c["id"]: c["level"] for c in doc["clauses"]}
    for r, cells in enumerate(p["glances"]):
        status = {c["id"]: c["cells"][r] for c in doc["clauses"]}
        check_glance(cells, status, level, f"picture of run {doc['runs'][r]['label']}")
    screenshot(tmp, page, "compare.png")


def main():
    global A
    ap = argparse.ArgumentParser()
    ap.add_argument("--runner", required=True)
    ap.add_argument("--fake-runtime", required=True)
    ap.add_argument("--workdir", required=True)
    ap.add_argument("--chromium", default="/usr/bin/chromium")
    A = ap.parse_args()
    if not shutil.which(A.chromium):
        print(f"skipped: no Chromium at {A.chromium} (apt-get install chromium)")
        return SKIP
    with tempfile.TemporaryDirectory(prefix="sbxc-html-") as tmp:
        mixed = test_report(tmp)
        if mixed:
            test_compare(tmp, mixed)
    if FAILURES:
        print(f"\n{len(FAILURES)} check(s) failed")
        return 1
    print("\nall checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
