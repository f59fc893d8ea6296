#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# CI gate: run the conformance suite against given endpoints and fail the job
# only on what is new. Two gates:
#
#   baseline gate (default): fail on failures not listed in --baseline FILE
#     (known deviations);
#   regression gate (--against MAIN.json): fail when a case that passed in
#     MAIN.json (the main branch's results.json) does not pass now; cases of
#     --baseline FILE and --allow IDs are exempt. Failures main had too do
#     not fail the job.
#
#   ci/gate.sh --grpc HOST:PORT --rest HOST:PORT [--baseline FILE] [--out DIR]
#              [--against MAIN.json [--allow ID,...]]
#              [-- extra sandboxd-conformance options]
#   ci/gate.sh --launch 'CMD {grpc_port} {rest_port} {root}' [...]
#
# Writes results.json, junit.xml, report.md and report.html to DIR (default
# conformance-out/), with --against also compare.md, compare.html and
# compare.json; appends the Markdown to $GITHUB_STEP_SUMMARY when set. Exit
# status: 0 nothing new, 1 new failures (baseline gate) or regressions
# (regression gate), 2 usage (or MAIN.json unusable), 3 unreachable, 4 suite
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

target=() baseline="" out=conformance-out extra=() against="" allow=()
while [ $# -gt 0 ]; do
  case "$1" in
  --grpc | --rest | --launch | --launch-bundled) target+=("$1" "$2"); shift 2 ;;
  --baseline) baseline=$2; shift 2 ;;
  --out) out=$2; shift 2 ;;
  --against) against=$2; shift 2 ;;
  --allow) allow+=(--allow "$2"); shift 2 ;;
  --) shift; extra=("$@"); break ;;
  -h | --help) sed -n '2,25p' "$0"; exit 0 ;;
  *) echo "gate: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
[ ${#target[@]} -gt 0 ] || { echo "gate: give --grpc/--rest, --launch or --launch-bundled" >&2; exit 2; }
[ ${#allow[@]} -eq 0 ] || [ -n "$against" ] || { echo "gate: --allow needs --against" >&2; exit 2; }
if [ -n "$against" ] && [ ! -r "$against" ]; then
  echo "gate: no results of the main branch at $against (--against)" >&2
  exit 2
fi

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
if [ -z "$against" ]; then
  case $rc in
  0) echo "gate: no new conformance failures" ;;
  1) echo "gate: new conformance failures (see $out/report.md)" >&2 ;;
  3) echo "gate: the endpoint is unreachable" >&2 ;;
  *) echo "gate: the suite could not run (exit $rc)" >&2 ;;
  esac
  exit $rc
fi
# Regression gate: the run must have produced results to compare.
case $rc in
0 | 1) ;;
3) echo "gate: the endpoint is unreachable" >&2; exit 3 ;;
*) echo "gate: the suite could not run (exit $rc)" >&2; exit "$rc" ;;
esac
cargs=(compare --base "$against" "$out/results.json" "${allow[@]}" --markdown "$out/compare.md"
       --html "$out/compare.html" --json "$out/compare.json")
[ -n "$baseline" ] && cargs+=(--baseline "$baseline")
set +e
"$suite" "${cargs[@]}"
crc=$?
set -e
if [ -n "${GITHUB_STEP_SUMMARY:-}" ] && [ -f "$out/compare.md" ]; then
  cat "$out/compare.md" >>"$GITHUB_STEP_SUMMARY"
fi
case $crc in
0) echo "gate: no regressions against $against" ;;
1) echo "gate: regressions against $against (see $out/compare.md)" >&2 ;;
2) echo "gate: cannot compare with $against (see the message above)" >&2 ;;
*) echo "gate: the comparison failed (exit $crc)" >&2 ;;
esac
exit $crc
