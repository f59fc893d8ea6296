#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The project's tests: install what is missing, build (warnings are errors),
# run every unit, interop and end-to-end test through ctest.
#   ci/test.sh              normal build in build/
#   ci/test.sh --sanitize   ASan+UBSan build in build-asan/, the groups
#                           where sanitizers find something (see below)
#   ci/test.sh [--sanitize] --build-only
#                           only install and build (.ci/run builds the
#                           sanitizer tree while the regular tests run)
#   ci/test.sh --skip-clean-pass
#                           all but cases_clean_daemon_passes (.ci/run: its
#                           sanitizer run and main job cover that pass)
set -euo pipefail
cd "$(dirname "$0")/.."

build=build
flags=(-DSBX_WERROR=ON)
groups=()
exclude=()
sanitize=no
build_only=no
for arg in "$@"; do
  case "$arg" in
  --sanitize) sanitize=yes ;;
  --build-only) build_only=yes ;;
  --skip-clean-pass) exclude=(-E '^cases_clean_daemon_passes$') ;;
  *)
    sed -n '3,13p' "$0" | sed 's/^# \{0,1\}//' >&2
    exit 2
    ;;
  esac
done
if [ "$sanitize" = yes ]; then
  build=build-asan
  flags+=(-DSBX_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug)
  # The groups where instrumented code earns its time (ci/test_groups.cmake):
  # units, interop, fuzz replays, the clean pass and the fault matrix (a
  # fixed sample of it in this build, cases/sanitizer_sample.tsv).
  groups=(-L '^(unit|interop|fuzz|clean|faults)$')
fi

bash ci/install-deps.sh
cmake -S . -B "$build" "${flags[@]}" >/dev/null
cmake --build "$build" -j "$(nproc)"
[ "$build_only" = yes ] && exit 0
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
# Most tests wait on sockets, processes and timers rather than the CPU:
# three ctest slots per core, and one "whole_run" resource per core for the
# tests that run the whole suite (SBX_WHOLE_RUN in ci/test_groups.cmake).
resources="$PWD/$build/ctest-resources.json"
{
  printf '{"version": {"major": 1, "minor": 0}, "local": [{"whole_run": ['
  for i in $(seq 1 "$(nproc)"); do
    [ "$i" -gt 1 ] && printf ', '
    printf '{"id": "%d", "slots": 1}' "$i"
  done
  printf ']}]}\n'
} >"$resources"
ctest --test-dir "$build" --output-on-failure -j "$(($(nproc) * 3))" --timeout 600 \
  --resource-spec-file "$resources" "${groups[@]}" "${exclude[@]}"
