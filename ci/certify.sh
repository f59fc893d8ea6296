#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The main job: install what is missing, build, start the bundled sandboxd-ref
# on ephemeral loopback ports over a temporary root (launch mode), run the
# full conformance suite against it, print the summary and write the reports
# to reports/out/. Extra arguments go to sandboxd-conformance.
set -euo pipefail
cd "$(dirname "$0")/.."

bash ci/install-deps.sh
cmake -S . -B build >/dev/null
cmake --build build -j "$(nproc)"

out=reports/out
mkdir -p "$out"
exec build/suite/sandboxd-conformance \
  --launch-bundled build/reference-daemon/sandboxd-ref \
  --json "$out/results.json" --junit "$out/junit.xml" --tap "$out/results.tap" \
  --markdown "$out/report.md" --html "$out/report.html" --bundle "$out/bundle" \
  "$@"
