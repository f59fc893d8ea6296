#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Loopback-adapted copies of the shipped manifests, for trying them on one
machine with podman 4.3 (`podman kube play`, `podman run`) instead of a
cluster. The manifests stay as shipped; this derives what podman can play:

- only the kinds kube play creates (Pod; it ignores SandboxTemplate, Service,
  NetworkPolicy, ConfigMap and refuses files of Jobs alone) are kept, and
  the dropped ones are listed;
- every containerPort gets `hostIP: 127.0.0.1` and a `hostPort` (from
  --port CONTAINER=HOST): without a hostPort podman 4.3 publishes the
  containerPort itself on every interface, and with one alone too;
- `restartPolicy: Never`: under the default (Always) podman 4.3 restarts
  a finished init container in a loop and the workload never starts;
- image names mapped (--image NAME=LOCAL): no registry is assumed;
- pod names suffixed (--suffix), so that a run's pods are its own.

A Job cannot be played; `job_run` turns a Job's container into the
`podman run` options and arguments its pod would get (env expanded in args as
the kubelet does, volume mounts bound to host directories).

  kube_play_adapt.py k8s/topology-b.yaml --port 9090=19090 --port 8080=18080 \\
      --image sandboxd-ref-init:0.1.0=localhost/init:test [--suffix -t1] > pod.yaml
"""
import argparse
import copy
import re
import sys

import yaml

PLAYED_KINDS = ("Pod",)
LOOPBACK = "127.0.0.1"


def pair(text):
    k, sep, v = text.partition("=")
    if not sep or not k or not v:
        raise argparse.ArgumentTypeError("expected NAME=VALUE, got %r" % text)
    return k, v


def adapt_pods(docs, ports, images, suffix=""):
    """(played documents, dropped "Kind/name" list). ports: {containerPort:
    hostPort}; every containerPort of a played pod must be mapped. images:
    {name in the manifest: local name}; an unmapped image is kept."""
    played, dropped = [], []
    for d in docs:
        if d is None:
            continue
        kind = d.get("kind")
        name = d.get("metadata", {}).get("name")
        if kind not in PLAYED_KINDS:
            dropped.append("%s/%s" % (kind, name))
            continue
        d = copy.deepcopy(d)
        d["metadata"]["name"] = name + suffix
        spec = d["spec"]
        spec["restartPolicy"] = "Never"
        for c in spec.get("initContainers", []) + spec.get("containers", []):
            c["image"] = images.get(c["image"], c["image"])
            for p in c.get("ports", []):
                cp = p["containerPort"]
                if cp not in ports:
                    raise ValueError("%s/%s: containerPort %d has no --port mapping"
                                     % (kind, name, cp))
                p["hostPort"] = ports[cp]
                p["hostIP"] = LOOPBACK
        played.append(d)
    return played, dropped


def expand(text, env):
    """$(VAR) as the kubelet expands it in command and args; $$ escapes."""
    return re.sub(r"\$\$|\$\(([A-Za-z_][A-Za-z0-9_]*)\)",
                  lambda m: "$" if m.group(0) == "$$" else env.get(m.group(1), m.group(0)),
                  text)


def job_run(job, env_override, mounts, images):
    """(podman run options, image, arguments) for the Job's first container.
    env_override replaces the manifest's env values (e.g. the Service name by
    an address podman can reach); mounts: {volume name: host path}, one for
    every volume the container mounts."""
    spec = job["spec"]["template"]["spec"]
    c = spec["containers"][0]
    env = {e["name"]: e.get("value", "") for e in c.get("env", [])}
    env.update(env_override)
    opts = []
    for k in sorted(env):
        opts += ["--env", "%s=%s" % (k, env[k])]
    for m in c.get("volumeMounts", []):
        if m["name"] not in mounts:
            raise ValueError("volume %s of the Job has no host directory" % m["name"])
        opts += ["--volume", "%s:%s%s" % (mounts[m["name"]], m["mountPath"],
                                          ":ro" if m.get("readOnly") else "")]
    command = [expand(x, env) for x in c.get("command", [])]
    if command:
        opts += ["--entrypoint", command[0]]
    args = command[1:] + [expand(x, env) for x in c.get("args", [])]
    return opts, images.get(c["image"], c["image"]), args


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("manifest")
    ap.add_argument("--port", type=pair, action="append", default=[],
                    help="CONTAINER=HOST port (repeatable)")
    ap.add_argument("--image", type=pair, action="append", default=[],
                    help="NAME=LOCAL image (repeatable)")
    ap.add_argument("--suffix", default="")
    a = ap.parse_args()
    try:
        ports = {int(k): int(v) for k, v in a.port}
    except ValueError:
        ap.error("--port takes numbers")
    with open(a.manifest) as f:
        docs = list(yaml.safe_load_all(f))
    try:
        played, dropped = adapt_pods(docs, ports, dict(a.image), a.suffix)
    except ValueError as e:
        ap.error(str(e))
    if not played:
        ap.error("%s holds nothing kube play creates (%s)" % (a.manifest, ", ".join(dropped)))
    print("# Generated from %s by kube_play_adapt.py: loopback ports, restartPolicy"
          " Never, local images." % a.manifest)
    print("# Left out (kube play ignores them): %s" % (", ".join(dropped) or "nothing"))
    yaml.safe_dump_all(played, sys.stdout, sort_keys=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
