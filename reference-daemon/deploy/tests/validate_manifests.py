#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Structural checks of the deployment recipes (no cluster, no registry):
every manifest parses and has its required fields; images, commands, flags,
ports, volumes and labels agree with each other, with the image recipes and
with the binaries' own --help.

  validate_manifests.py --deploy-dir reference-daemon/deploy --suite BIN --daemon BIN
  validate_manifests.py --self-test ...   each of MUTATIONS, applied to a copy,
                                          must make the validation fail
"""
import argparse
import glob
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

import yaml

GRPC, REST = 9090, 8080
CONFORMANCE_LABEL = ("app.kubernetes.io/name", "sandboxd-conformance")
problems = []

# Broken variants of the recipes (file, text, replacement): each must fail.
MUTATIONS = [
    ("k8s/topology-a.yaml", "containerPort: 9090", "containerPort: 9091"),
    ("k8s/topology-a.yaml", "path: /v1/health", "path: /healthz"),
    ("k8s/topology-a.yaml", '"--listen-host", "0.0.0.0"', '"--listen-host", "127.0.0.1"'),
    ("k8s/topology-b.yaml", 'command: ["/sandboxd/sandboxd-ref"]', 'command: ["/opt/sandboxd-ref"]'),
    ("k8s/topology-b.yaml", "mountPath: /workspace", "mountPath: /work"),
    ("k8s/topology-b.yaml", "app.kubernetes.io/name: sandboxd-conformance", "app: other"),
    ("images/init.Containerfile", "FROM scratch", "FROM debian:12-slim"),
    ("images/init.Containerfile", '"--copy-to", "/sandboxd"', '"--copy-to", "/bin"'),
    ("images/runtime.Containerfile", '"--root-dir"', '"--root"'),
    ("k8s/conformance-job.yaml", '"--bundle", "/results/', '"--bundle", "/tmp/'),
    ("k8s/conformance-job.yaml", '"--quiet"', '"--quiett"'),
    ("k8s/conformance-job.yaml", "$(SANDBOX_HOST):8080", "$(SANDBOX_HOST):9090"),
    ("k8s/conformance-fleet-job.yaml", "completions: 3", "completions: 2"),
    ("k8s/conformance-fleet-job.yaml", "claimName: sandboxd-conformance-results",
     "claimName: elsewhere"),
    ("k8s/conformance-fleet-summary-job.yaml", '"--targets"', '"--target"'),
]


def self_test(a):
    failed = 0
    for rel, old, new in MUTATIONS:
        work = tempfile.mkdtemp(prefix="sbx-manifests-")
        try:
            copy = os.path.join(work, "deploy")
            shutil.copytree(a.deploy_dir, copy)
            path = os.path.join(copy, rel)
            text = open(path).read()
            if old not in text:
                print("validate: self-test: %s no longer holds %r" % (rel, old))
                failed += 1
                continue
            open(path, "w").write(text.replace(old, new))
            r = subprocess.run([sys.executable, os.path.abspath(__file__), "--deploy-dir", copy,
                                "--suite", a.suite, "--daemon", a.daemon],
                               capture_output=True, text=True, timeout=120)
            caught = r.returncode == 1 and "FAIL" in r.stdout
            print("validate: self-test: %s %r -> %r: %s" % (rel, old, new,
                                                          "caught" if caught else "NOT CAUGHT"))
            failed += not caught
        finally:
            shutil.rmtree(work, ignore_errors=True)
    return 1 if failed else 0


def bad(where, msg):
    problems.append("%s: %s" % (where, msg))


def help_flags(binary, *args):
    out = subprocess.run([binary, *args, "--help"], capture_output=True, text=True,
                         timeout=30).stdout
    return set(re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]*)", out))


def containerfiles(deploy):
    """image name -> {"file", "entrypoint", "cmd", "from"} from the recipes'
    `-t NAME:TAG` build lines and their last stage."""
    images = {}
    for path in sorted(glob.glob(os.path.join(deploy, "images", "*.Containerfile"))):
        text = open(path).read()
        tag = re.search(r"-f \S*%s -t (\S+)" % re.escape(os.path.basename(path)), text)
        if not tag:
            bad(path, "no `podman build -f ... -t NAME` line naming its image")
            continue
        stages = re.split(r"(?m)^FROM ", text)
        last = stages[-1]
        info = {"file": path, "from": last.split()[0]}
        for key in ("ENTRYPOINT", "CMD"):
            m = re.search(r"(?m)^%s (\[.*\])$" % key, last)
            info[key.lower()] = json.loads(m.group(1)) if m else None
        images[tag.group(1)] = info
    return images


def flags_of(argv):
    """--flag value pairs of an argv (also --flag=value)."""
    out = {}
    i = 0
    while i < len(argv):
        a = argv[i]
        if a.startswith("--"):
            if "=" in a:
                k, v = a.split("=", 1)
                out[k] = v
            elif i + 1 < len(argv) and not argv[i + 1].startswith("--"):
                out[a] = argv[i + 1]
                i += 1
            else:
                out[a] = None
        i += 1
    return out


def check_flags(where, argv, known):
    for f in flags_of(argv):
        if f not in known:
            bad(where, "%s is not a flag of the binary (--help)" % f)


def pod_specs(doc):
    """(where, pod spec, pod labels) of a Pod, a SandboxTemplate or a Job."""
    kind, name = doc.get("kind"), doc.get("metadata", {}).get("name")
    where = "%s/%s" % (kind, name)
    if kind == "Pod":
        yield where, doc.get("spec", {}), doc["metadata"].get("labels", {})
    elif kind == "SandboxTemplate":
        t = doc.get("spec", {}).get("podTemplate", {})
        yield where, t.get("spec", {}), t.get("metadata", {}).get("labels", {})
    elif kind == "Job":
        t = doc.get("spec", {}).get("template", {})
        yield where, t.get("spec", {}), t.get("metadata", {}).get("labels", {})


def check_daemon_container(where, c, spec, images, daemon_flags, topology):
    argv = c.get("command", []) + c.get("args", [])
    image = images.get(c.get("image"))
    if image and not c.get("command"):
        argv = (image["entrypoint"] or []) + (c.get("args") or image["cmd"] or [])
    check_flags(where, argv, daemon_flags)
    f = flags_of(argv)
    if f.get("--grpc-port") != str(GRPC) or f.get("--rest-port") != str(REST):
        bad(where, "the daemon must listen on %d and %d (has %s, %s)"
            % (GRPC, REST, f.get("--grpc-port"), f.get("--rest-port")))
    if f.get("--listen-host") in (None, "127.0.0.1", "localhost"):
        bad(where, "--listen-host must be given and reach the pod network (has %s)"
            % f.get("--listen-host"))
    ports = {p.get("containerPort") for p in c.get("ports", [])}
    if ports != {GRPC, REST}:
        bad(where, "containerPorts %s, not {%d, %d}" % (sorted(ports), GRPC, REST))
    probe = c.get("readinessProbe", {}).get("httpGet", {})
    if probe.get("path") != "/v1/health" or probe.get("port") not in (REST, "rest"):
        bad(where, "readiness must be GET /v1/health on the REST port (has %s)" % probe)
    mounts = {m["mountPath"]: m["name"] for m in c.get("volumeMounts", [])}
    root = f.get("--root-dir")
    if root != "/workspace" or root not in mounts:
        bad(where, "--root-dir %s must be the mounted /workspace volume" % root)
    volumes = {v["name"]: v for v in spec.get("volumes", [])}
    for path, vol in mounts.items():
        if vol not in volumes:
            bad(where, "mounts %s from undeclared volume %s" % (path, vol))
    if topology == "b":
        inits = spec.get("initContainers", [])
        if len(inits) != 1:
            bad(where, "topology B needs exactly one initContainer")
            return
        init = inits[0]
        iimg = images.get(init.get("image"))
        if not iimg:
            bad(where, "init image %s has no recipe in images/" % init.get("image"))
            return
        if iimg["from"] != "scratch":
            bad(iimg["file"], "the init image must hold only the static binary (FROM scratch)")
        copy_to = flags_of(iimg["entrypoint"] or []).get("--copy-to")
        imounts = {m["mountPath"]: m["name"] for m in init.get("volumeMounts", [])}
        if copy_to not in imounts or "emptyDir" not in volumes.get(imounts[copy_to], {}):
            bad(where, "the init container must copy into a mounted emptyDir (--copy-to %s)"
                % copy_to)
            return
        if c.get("command") != [copy_to + "/sandboxd-ref"]:
            bad(where, "the workload must run %s/sandboxd-ref (runs %s)"
                % (copy_to, c.get("command")))
        if mounts.get(copy_to) != imounts[copy_to]:
            bad(where, "the workload must mount the init container's emptyDir at %s" % copy_to)
        if c.get("image") in images:
            bad(where, "topology B runs the workload's own image, not one of ours")
    elif c.get("image") not in images:
        bad(where, "topology A's image %s has no recipe in images/" % c.get("image"))


def check_conformance_container(where, c, spec, images, suite_flags, summary_flags):
    if c.get("image") not in images:
        bad(where, "image %s has no recipe in images/" % c.get("image"))
    argv = c.get("args", [])
    if c.get("command", [])[:2] == ["/bin/sh", "-c"]:
        script = argv[0] if argv else ""
        argv = []
        for line in script.replace("\\\n", " ").splitlines():
            if "sandboxd-conformance" in line:
                argv = shlex.split(line.split("sandboxd-conformance", 1)[1])
    if argv[:1] == ["summary"]:
        check_flags(where, argv[1:], summary_flags)
        return
    check_flags(where, argv, suite_flags)
    f = flags_of(argv)
    for flag, port in (("--grpc", GRPC), ("--rest", REST)):
        if not (f.get(flag) or "").endswith(":%d" % port):
            bad(where, "%s must point at the sandbox's port %d (has %s)" % (flag, port, f.get(flag)))
    mounts = [m["mountPath"] for m in c.get("volumeMounts", [])]
    bundle = f.get("--bundle") or ""
    if not any(bundle.startswith(m + "/") for m in mounts):
        bad(where, "--bundle %s is not on a mounted volume" % bundle)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--deploy-dir", required=True)
    ap.add_argument("--suite", required=True)
    ap.add_argument("--daemon", required=True)
    ap.add_argument("--self-test", action="store_true")
    a = ap.parse_args()
    if a.self_test:
        return self_test(a)
    daemon_flags = help_flags(a.daemon)
    suite_flags = help_flags(a.suite)
    summary_flags = help_flags(a.suite, "summary")
    if not daemon_flags or not suite_flags or not summary_flags:
        sys.exit("validate: could not read the binaries' --help")
    images = containerfiles(a.deploy_dir)
    for name, info in images.items():
        if info["file"].endswith("init.Containerfile") or info["file"].endswith(
                "runtime.Containerfile"):
            check_flags(info["file"], (info["entrypoint"] or [])[1:] + (info["cmd"] or []),
                        daemon_flags)
    docs = []
    for path in sorted(glob.glob(os.path.join(a.deploy_dir, "k8s", "*.yaml"))):
        try:
            for d in yaml.safe_load_all(open(path)):
                if d is not None:
                    docs.append((os.path.basename(path), d))
        except yaml.YAMLError as e:
            bad(path, "does not parse: %s" % e)
    kinds = {}
    for path, d in docs:
        for key in ("apiVersion", "kind"):
            if key not in d:
                bad(path, "a document without %s" % key)
        if not d.get("metadata", {}).get("name"):
            bad(path, "a %s without metadata.name" % d.get("kind"))
        kinds.setdefault(d.get("kind"), []).append((path, d))
    for k in ("Pod", "SandboxTemplate", "Service", "NetworkPolicy", "Job", "ConfigMap",
              "PersistentVolumeClaim"):
        if k not in kinds:
            bad(a.deploy_dir, "no %s manifest" % k)
    pods = {}
    for path, d in docs:
        for where, spec, labels in pod_specs(d):
            where = path + ": " + where
            containers = spec.get("containers", [])
            if not containers:
                bad(where, "no containers")
            for c in containers + spec.get("initContainers", []):
                if not c.get("name") or not c.get("image"):
                    bad(where, "a container without name or image")
            if d["kind"] == "Job":
                if spec.get("restartPolicy") not in ("Never", "OnFailure"):
                    bad(where, "a Job's pods need restartPolicy Never or OnFailure")
                if labels.get(CONFORMANCE_LABEL[0]) != CONFORMANCE_LABEL[1]:
                    bad(where, "the Job's pods lack the label the NetworkPolicies admit")
                for c in containers:
                    check_conformance_container(where, c, spec, images, suite_flags,
                                                summary_flags)
            else:
                topology = labels.get("sandboxd.topology")
                if topology not in ("a", "b"):
                    bad(where, "label sandboxd.topology must be a or b")
                check_daemon_container(where, containers[-1], spec, images, daemon_flags,
                                       topology)
                if d["kind"] == "Pod":
                    pods[d["metadata"]["name"]] = labels
    for path, d in kinds.get("Service", []):
        sel = d.get("spec", {}).get("selector", {})
        if not any(all(l.get(k) == v for k, v in sel.items()) for l in pods.values()):
            bad(path, "Service %s selects no Pod" % d["metadata"]["name"])
        if {p.get("port") for p in d["spec"].get("ports", [])} != {GRPC, REST}:
            bad(path, "Service %s must expose %d and %d" % (d["metadata"]["name"], GRPC, REST))

    def admits_suite(ingress):
        for rule in ingress or []:
            ports = {p.get("port") for p in rule.get("ports", [])}
            for peer in rule.get("from", []):
                ml = peer.get("podSelector", {}).get("matchLabels", {})
                if ml.get(CONFORMANCE_LABEL[0]) == CONFORMANCE_LABEL[1] and {GRPC, REST} <= ports:
                    return True
        return False

    for path, d in kinds.get("NetworkPolicy", []):
        if not admits_suite(d.get("spec", {}).get("ingress")):
            bad(path, "NetworkPolicy %s must admit the conformance pods on %d and %d"
                % (d["metadata"]["name"], GRPC, REST))
    for path, d in kinds.get("SandboxTemplate", []):
        if not admits_suite(d.get("spec", {}).get("networkPolicy", {}).get("ingress")):
            bad(path, "SandboxTemplate %s: networkPolicy.ingress must admit direct clients on "
                "%d and %d" % (d["metadata"]["name"], GRPC, REST))
    configmaps = {d["metadata"]["name"]: d for _, d in kinds.get("ConfigMap", [])}
    claims = {d["metadata"]["name"] for _, d in kinds.get("PersistentVolumeClaim", [])}
    for path, d in kinds.get("Job", []):
        js = d["spec"]
        spec = js["template"]["spec"]
        for v in spec.get("volumes", []):
            if "persistentVolumeClaim" in v and v["persistentVolumeClaim"]["claimName"] not in claims:
                bad(path, "Job %s uses an undeclared claim" % d["metadata"]["name"])
            if "configMap" in v and v["configMap"]["name"] not in configmaps:
                bad(path, "Job %s uses an undeclared ConfigMap" % d["metadata"]["name"])
        if js.get("completionMode") == "Indexed":
            cm = next((configmaps[v["configMap"]["name"]] for v in spec.get("volumes", [])
                       if "configMap" in v), None)
            lines = [l for l in (cm or {}).get("data", {}).get("targets", "").splitlines()
                     if l.strip() and not l.startswith("#")]
            if js.get("completions") != len(lines):
                bad(path, "indexed Job: completions %s, but the list has %d sandboxes"
                    % (js.get("completions"), len(lines)))
            for l in lines:
                if len(l.split()) != 2:
                    bad(path, "fleet list line %r is not NAME HOST" % l)
    for p in problems:
        print("validate: FAIL: " + p)
    print("validate: %d manifests in %d files, %d image recipes"
          % (len(docs), len({p for p, _ in docs}), len(images)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
