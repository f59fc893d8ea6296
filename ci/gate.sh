#!/usr/bin/env bash
# CI gate: run the conformance suite against given endpoints with a baseline
# of known deviations and fail the job only on new failures.
#
#   ci/gate.sh --grpc HOST:PORT --rest HOST:PORT [--baseline FILE] [--out DIR]
#              [-- extra sandboxd-conformance options]
#   ci/gate.sh --launch 'CMD {grpc_port} {rest_port} {root}' [...]
#
# Writes results.json, junit.xml, report.md and report.html to DIR (default
# conformance-out/), appends report.md to $GITHUB_STEP_SUMMARY when set, and
# exits with the suite's status: 0 no new failures, 1 new failures (or an
# expected failure turned into an error), 2 usage, 3 unreachable, 4 suite
# failure. Set SANDBOXD_CONFORMANCE to the suite binary (default: on PATH,
# else build/suite/sandboxd-conformance).
set -euo pipefail

suite=${SANDBOXD_CONFORMANCE:-}
if [ -z "$suite" ]; then
  if command -v sandboxd-conformance >/dev/null 2>&1; then
    suite=$(command -v sandboxd-conformance)
  else
    suite="$(dirname "$0")/../build/suite/sandboxd-conformance"
  fi
fi
[ -x "$suite" ] || { echo "gate: sandboxd-conformance not found (set SANDBOXD_CONFORMANCE)" >&2; exit 4; }

target=() baseline="" out=conformance-out extra=()
while [ $# -gt 0 ]; do
  case "$1" in
  --grpc | --rest | --launch | --launch-bundled) target+=("$1" "$2"); shift 2 ;;
  --baseline) baseline=$2; shift 2 ;;
  --out) out=$2; shift 2 ;;
  --) shift; extra=("$@"); break ;;
  -h | --help) sed -n '2,16p' "$0"; exit 0 ;;
  *) echo "gate: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
[ ${#target[@]} -gt 0 ] || { echo "gate: give --grpc/--rest, --launch or --launch-bundled" >&2; exit 2; }

mkdir -p "$out"
args=("${target[@]}" --json "$out/results.json" --junit "$out/junit.xml"
      --markdown "$out/report.md" --html "$out/report.html" --log "$out/run.log" --color never)
[ -n "$baseline" ] && args+=(--baseline "$baseline")

set +e
"$suite" "${args[@]}" "${extra[@]}"
rc=$?
set -e
if [ -n "${GITHUB_STEP_SUMMARY:-}" ] && [ -f "$out/report.md" ]; then
  cat "$out/report.md" >>"$GITHUB_STEP_SUMMARY"
fi
case $rc in
0) echo "gate: no new conformance failures" ;;
1) echo "gate: new conformance failures (see $out/report.md)" >&2 ;;
3) echo "gate: the endpoint is unreachable" >&2 ;;
*) echo "gate: the suite could not run (exit $rc)" >&2 ;;
esac
exit $rc
