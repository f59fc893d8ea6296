#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# The long runs of `sandboxd-conformance explore` (README, "Exploring"),
# at the lowest priority so that they share a machine politely:
#   targets  SECONDS per target (default 600): the clean daemon, each legal
#            variant set, the clean daemon against each set; two at a time;
#   faults   every fault of the F, S, C, P and M clauses, BOUND seconds each
#            (default 60), next to the time its cases take to catch it;
#   all      both at once.
# Each writes a Markdown table in OUT (default explore-long-runs/).
# Usage: long_runs.sh targets|faults|all [BUILD_DIR] [OUT]
#   faults run in FAULT_SHARDS (default 2) parallel shards.
# Environment: SECONDS_PER_TARGET, FAULT_BOUND, SHRINK_TIME, JOBS (concurrent
# jobs of every target), ONLY (these faults, or these targets: "clean",
# "variant set SET", "clean against SET"), FAULT_SHARDS.
set -euo pipefail
mode=${1:?usage: long_runs.sh targets|faults|all [BUILD_DIR] [OUT]}
build=$(cd "${2:-build}" && pwd)
out=${3:-explore-long-runs}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
e2e=(nice -n 19 python3 "$here/explore_e2e.py" --suite "$build/suite/sandboxd-conformance"
     --daemon "$build/reference-daemon/sandboxd-ref"
     --faulty "$build/reference-daemon/sandboxd-ref-faulty")

targets() {
    "${e2e[@]}" long --seconds "${SECONDS_PER_TARGET:-600}" --jobs "${JOBS:-1}" \
        --seeds 11 --parallel 2 ${ONLY:+--only "$ONLY"} | tee "$out/targets${JOBS:+-jobs$JOBS}.md"
}
faults() {
    local n=${FAULT_SHARDS:-2} pids=() k
    for k in $(seq 1 "$n"); do
        "${e2e[@]}" all-faults --bound "${FAULT_BOUND:-60}" --shrink-time "${SHRINK_TIME:-60}" \
            --shard "$k/$n" ${ONLY:+--only "$ONLY"} >"$out/faults-$k.md" &
        pids+=($!)
    done
    for k in "${pids[@]}"; do wait "$k"; done
    # One table: the header once, every shard's rows, then each shard's count.
    head -n 2 "$out/faults-1.md" >"$out/faults.md"
    for k in $(seq 1 "$n"); do grep '^| [a-z]' "$out/faults-$k.md" | tail -n +2; done >>"$out/faults.md"
    grep -h 'faults found' "$out"/faults-*.md >>"$out/faults.md"
    cat "$out/faults.md"
}
case $mode in
targets) targets ;;
faults) faults ;;
all)
    targets &
    t=$!
    faults
    wait "$t"
    ;;
*)
    echo "usage: long_runs.sh targets|faults|all [BUILD_DIR] [OUT]" >&2
    exit 2
    ;;
esac
