#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""The whole suite against sandboxd-ref with --openapi set to the upstream
reference's own document (openapi/upstream/, a copy: CI's checkout does not
rely on ../shared being at a given path).

The document declares its server at http://localhost:8080/v1 and its paths
relative to it, and describes no HEAD, no 206, no 400 for DELETE, nothing for
unknown routes or methods. sandboxd-ref implements the contract, so:

  1. the verdict is *full conformant* (exit 0), no case fails or errors;
  2. what the document does not describe is listed as document findings in
     every report (console, JSON, JUnit, TAP, Markdown, HTML), among them
     HEAD, 206, 405 and the unknown route;
  3. the document's shapes still catch a broken runtime: against
     `sandboxd-ref-faulty --fault list-bad-time` (modified_at as Unix
     seconds) F8-001 fails under this document too;
  4. a document that describes none of the suite's routes, or is not
     OpenAPI, is a usage error (exit 2) with a message, before any case.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

LAUNCH = ("{daemon} {extra}--listen-host 127.0.0.1 --grpc-port {{grpc_port}} "
          "--rest-port {{rest_port}} --root-dir {{root}}")
EXPECTED_FINDINGS = [
    "HEAD /v1/files/{path}: status 200 is not described",
    "GET /v1/files/{path}: status 206 is not described",
    "DELETE /v1/files/{path}: status 400 is not described",
    "GET a path that matches no route: status 404 is not described",
    "no route describes an error response with status 405",
]
problems = []


def check(cond, what):
    print(("ok: " if cond else "FAIL: ") + what)
    if not cond:
        problems.append(what)


def run(cmd, timeout=900):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                       timeout=timeout)
    return p.returncode, p.stdout, p.stderr


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--suite", required=True)
    ap.add_argument("--daemon", required=True)
    ap.add_argument("--faulty", required=True)
    ap.add_argument("--document", required=True)
    ap.add_argument("--xmllint", default="")
    ap.add_argument("--junit-xsd", required=True)
    a = ap.parse_args()

    with tempfile.TemporaryDirectory(prefix="sbxc-upstream-") as tmp:
        out = {k: os.path.join(tmp, "r." + k) for k in ("json", "xml", "tap", "md", "html")}
        rc, stdout, stderr = run([a.suite, "--launch-bundled", a.daemon, "--openapi", a.document,
                                  "--jobs", "2", "--seed", "1", "--color", "never",
                                  "--json", out["json"], "--junit", out["xml"], "--tap",
                                  out["tap"], "--markdown", out["md"], "--html", out["html"]])
        print(stdout[-6000:])
        print(stderr[-2000:])
        if not os.path.exists(out["json"]):
            sys.exit(f"no results (exit {rc})")
        doc = json.load(open(out["json"], encoding="utf-8"))
        ran = [c for c in doc["cases"] if c["selected"]]
        bad = [(c["id"], c["outcome"], c["failures"][:1] or c["reason"]) for c in ran
               if c["outcome"] not in ("pass", "skip")]
        check(not bad, f"no case fails or errors under the upstream document: {bad}")
        skipped = [c["id"] for c in ran if c["outcome"] == "skip"]
        check(all(i.startswith("T") for i in skipped),
              f"only the transport profile's cases are skipped: {skipped}")
        check(doc["verdict"]["result"] == "full-conformant",
              f"verdict full conformant (got {doc['verdict']['result']})")
        check(rc == 0, f"exit status 0 (got {rc})")

        document = doc.get("document") or {}
        check(document.get("path") == a.document and document.get("contract") is False,
              f"the results name the document: {document.get('path')}")
        texts = [f["text"] for f in document.get("findings", [])]
        for want in EXPECTED_FINDINGS:
            check(want in texts, f"document finding listed: {want}")
        for f in document.get("findings", []):
            check(f["cases"] and all(any(c["id"] == i and f["text"] in c["document_findings"]
                                         for c in ran) for i in f["cases"]),
                  f"finding {f['text']!r} names the cases that found it: {f['cases']}")
        head = [c for c in ran if c["id"] == "F9-001"]
        check(head and head[0]["outcome"] == "pass" and head[0]["document_findings"],
              "F9-001 (HEAD, a MUST) passes by the contract and lists its finding")

        title = "Document findings: what the document does not describe"
        check(title in stdout, "the console shows the document findings")
        for k in ("xml", "tap", "md", "html"):
            text = open(out[k], encoding="utf-8").read()
            found = (title in text or k == "xml") and all(
                w.replace("{", "").replace("}", "") in text.replace("{", "").replace("}", "")
                for w in EXPECTED_FINDINGS)
            check(found, f"the {k} report lists the document findings")
        if a.xmllint and not a.xmllint.endswith("NOTFOUND"):
            x = subprocess.run([a.xmllint, "--noout", "--schema", a.junit_xsd, out["xml"]])
            check(x.returncode == 0, "the JUnit report validates")

        # 3. The document's shapes still catch a broken runtime.
        faulty = os.path.join(tmp, "faulty.json")
        rc, stdout, _ = run([a.suite, "--launch",
                             LAUNCH.format(daemon=a.faulty, extra="--fault list-bad-time "),
                             "--openapi", a.document, "--focus", "^F8-001( |$)", "--json", faulty])
        fdoc = json.load(open(faulty, encoding="utf-8")) if os.path.exists(faulty) else {}
        f8 = [c for c in fdoc.get("cases", []) if c["id"] == "F8-001"]
        check(rc == 1 and f8 and f8[0]["outcome"] == "fail" and
              any("RFC 3339" in x["observed"] for x in f8[0]["failures"]),
              "F8-001 fails a listing with modified_at in Unix seconds under the upstream "
              "document (its DirectoryListing schema)")

        # 4. Documents that cannot serve are usage errors.
        pets = os.path.join(tmp, "pets.yaml")
        with open(pets, "w", encoding="utf-8") as f:
            f.write("openapi: 3.0.3\ninfo: {title: pets, version: '1'}\n"
                    "servers: [{url: 'http://localhost/api'}]\n"
                    "paths:\n  /pets:\n    get: {responses: {'200': {description: ok}}}\n")
        rc, _, stderr = run([a.suite, "--launch-bundled", a.daemon, "--openapi", pets])
        check(rc == 2 and "none of the routes the suite checks" in stderr and
              "/api/pets" in stderr, f"a document of other routes is a usage error: {stderr!r}")
        notapi = os.path.join(tmp, "not.yaml")
        with open(notapi, "w", encoding="utf-8") as f:
            f.write("swagger: '2.0'\npaths: {}\n")
        rc, _, stderr = run([a.suite, "--launch-bundled", a.daemon, "--openapi", notapi])
        check(rc == 2 and "not an OpenAPI 3.0 document" in stderr,
              f"a Swagger 2.0 document is a usage error: {stderr!r}")
    if problems:
        sys.exit(f"{len(problems)} checks failed")


if __name__ == "__main__":
    main()
