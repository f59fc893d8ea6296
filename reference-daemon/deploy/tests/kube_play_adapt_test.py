#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The loopback adaptation (kube_play_adapt.py) over the shipped manifests:
only Pods are kept and the rest is listed; every port is on 127.0.0.1 with
its mapped hostPort; restartPolicy Never; images mapped; names suffixed; the
shipped documents untouched; the conformance Job's `podman run` has its
$(VAR) args expanded and its volumes bound; and the command line refuses
what it cannot adapt.

  kube_play_adapt_test.py --deploy-dir reference-daemon/deploy
"""
import argparse
import copy
import os
import subprocess
import sys

import yaml

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kube_play_adapt  # noqa: E402

problems = []


def expect(cond, what):
    if not cond:
        problems.append(what)


def load(path):
    with open(path) as f:
        return [d for d in yaml.safe_load_all(f) if d is not None]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--deploy-dir", required=True)
    a = ap.parse_args()
    k8s = os.path.join(a.deploy_dir, "k8s")
    ports = {9090: 19090, 8080: 18080}
    images = {"sandboxd-ref-init:0.1.0": "localhost/init:t", "python:3.11-slim": "localhost/base:t"}

    for name, topology in (("topology-a.yaml", "a"), ("topology-b.yaml", "b")):
        docs = load(os.path.join(k8s, name))
        shipped = copy.deepcopy(docs)
        played, dropped = kube_play_adapt.adapt_pods(docs, ports, images, "-x1")
        expect(docs == shipped, "%s: the shipped documents were changed" % name)
        expect([d["kind"] for d in played] == ["Pod"], "%s: played %s" % (name, played))
        expect(sorted(x.split("/")[0] for x in dropped) ==
               ["NetworkPolicy", "SandboxTemplate", "Service"],
               "%s: dropped %s" % (name, dropped))
        pod = played[0]
        expect(pod["metadata"]["name"] == "sandboxd-%s-x1" % topology,
               "%s: pod name %s" % (name, pod["metadata"]["name"]))
        expect(pod["metadata"]["labels"]["sandboxd.topology"] == topology,
               "%s: labels lost" % name)
        spec = pod["spec"]
        expect(spec["restartPolicy"] == "Never", "%s: restartPolicy %s" % (name,
                                                                          spec["restartPolicy"]))
        every = spec.get("initContainers", []) + spec["containers"]
        published = []
        for c in every:
            expect(c["image"] not in images, "%s: %s not mapped" % (name, c["image"]))
            for p in c.get("ports", []):
                published.append((p["containerPort"], p.get("hostPort"), p.get("hostIP")))
        expect(sorted(published) == [(8080, 18080, "127.0.0.1"), (9090, 19090, "127.0.0.1")],
               "%s: ports %s" % (name, published))
        if topology == "b":
            init = spec["initContainers"][0]
            expect(init["image"] == "localhost/init:t", "b: init image %s" % init["image"])
            expect(spec["containers"][0]["image"] == "localhost/base:t",
                   "b: workload image %s" % spec["containers"][0]["image"])
            expect(spec["containers"][0]["command"] == ["/sandboxd/sandboxd-ref"],
                   "b: the workload's command changed")
        else:
            expect(spec["containers"][0]["image"] == "sandboxd-ref-runtime:0.1.0",
                   "a: an unmapped image must be kept")
        # A port without a mapping is refused, not published on a guess.
        try:
            kube_play_adapt.adapt_pods(docs, {9090: 19090}, images)
            expect(False, "%s: an unmapped containerPort was accepted" % name)
        except ValueError:
            pass

    job = load(os.path.join(k8s, "conformance-job.yaml"))[0]
    opts, image, args = kube_play_adapt.job_run(job, {"SANDBOX_HOST": "127.0.0.1"},
                                                {"results": "/tmp/r"},
                                                {"sandboxd-conformance:0.1.0": "localhost/c:t"})
    expect(image == "localhost/c:t", "job: image %s" % image)
    expect(args[:4] == ["--grpc", "127.0.0.1:9090", "--rest", "127.0.0.1:8080"],
           "job: args %s" % args)
    expect("/results/sandboxd-a" in args, "job: --bundle not expanded: %s" % args)
    expect("--volume" in opts and "/tmp/r:/results" in opts, "job: volumes %s" % opts)
    expect("SANDBOX_HOST=127.0.0.1" in opts, "job: env %s" % opts)
    expect(kube_play_adapt.expand("$$(A) $(A) $(B)", {"A": "x"}) == "$(A) x $(B)",
           "expand: $$ escape or unknown variable")
    try:
        kube_play_adapt.job_run(job, {}, {}, {})
        expect(False, "job: a volume without a host directory was accepted")
    except ValueError:
        pass
    summary = load(os.path.join(k8s, "conformance-fleet-summary-job.yaml"))[-1]
    opts, _, args = kube_play_adapt.job_run(summary, {}, {"fleet": "/f", "results": "/r"}, {})
    expect(args[0] == "summary" and "/f:/fleet:ro" in opts, "summary job: %s %s" % (opts, args))
    fleet = load(os.path.join(k8s, "conformance-fleet-job.yaml"))[-1]
    opts, _, args = kube_play_adapt.job_run(fleet, {}, {"fleet": "/f", "results": "/r"}, {})
    expect(opts[opts.index("--entrypoint") + 1] == "/bin/sh" and args[0] == "-c",
           "fleet job: the command is the entrypoint: %s %s" % (opts, args))

    # The command line: YAML out, the dropped kinds said, refusals as usage errors.
    tool = os.path.join(os.path.dirname(os.path.abspath(__file__)), "kube_play_adapt.py")
    b = os.path.join(k8s, "topology-b.yaml")
    r = subprocess.run([sys.executable, tool, b, "--port", "9090=19090", "--port", "8080=18080",
                        "--image", "python:3.11-slim=localhost/base:t"],
                       capture_output=True, text=True, timeout=60)
    out = [d for d in yaml.safe_load_all(r.stdout)] if r.returncode == 0 else []
    expect(r.returncode == 0 and len(out) == 1 and out[0]["kind"] == "Pod",
           "cli: rc %d, %s" % (r.returncode, r.stderr))
    expect("SandboxTemplate/sandboxd-topology-b" in r.stdout, "cli: dropped kinds not said")
    r = subprocess.run([sys.executable, tool, b, "--port", "9090=19090"], capture_output=True,
                       text=True, timeout=60)
    expect(r.returncode == 2, "cli: an unmapped port exits %d, not 2" % r.returncode)
    r = subprocess.run([sys.executable, tool, os.path.join(k8s, "conformance-job.yaml")],
                       capture_output=True, text=True, timeout=60)
    expect(r.returncode == 2 and "nothing kube play creates" in r.stderr,
           "cli: a Job-only file exits %d: %s" % (r.returncode, r.stderr))

    for p in problems:
        print("kube-play-adapt: FAIL: " + p)
    print("kube-play-adapt: %d problems" % len(problems))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
