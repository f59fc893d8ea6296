#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The libFuzzer targets of fuzz/ (see fuzz/README.md), built with clang in
# build-fuzz/ (-DSBX_FUZZ=ON: libFuzzer, ASan+UBSan, coverage).
#   ci/fuzz.sh TARGET|all SECONDS   fuzz each target for SECONDS, starting
#                                   from its corpus; new inputs go to
#                                   build-fuzz/corpus/TARGET, crashes to
#                                   build-fuzz/findings/TARGET; prints the
#                                   executions and the coverage reached
#   ci/fuzz.sh build                build the targets only
#   ci/fuzz.sh replay               build, then run every target once over
#                                   its corpus (what .ci/run does)
#   ci/fuzz.sh merge TARGET|all     minimise fuzz/corpus/TARGET together with
#                                   what the runs found (libFuzzer -merge=1);
#                                   regression-* (fixed findings) and seed-*
#                                   (whole real documents) inputs stay
#   ci/fuzz.sh list                 the target names
set -euo pipefail
cd "$(dirname "$0")/.."

build=${SBX_FUZZ_BUILD:-build-fuzz}
mapfile -t all_targets < <(sed -n 's/^sbx_fuzz_target(\([a-z_]*\) .*/\1/p' fuzz/CMakeLists.txt)

usage() {
  sed -n '3,17p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

build_targets() {
  if [ ! -f "$build/CMakeCache.txt" ]; then
    CC=${SBX_FUZZ_CC:-clang} cmake -S . -B "$build" -DSBX_FUZZ=ON -DSBX_BUILD_TESTS=OFF \
      -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
  fi
  cmake --build "$build" -j "$(nproc)" --target fuzz_targets >/dev/null
}

targets_of() {
  if [ "$1" = all ]; then
    printf '%s\n' "${all_targets[@]}"
  elif printf '%s\n' "${all_targets[@]}" | grep -qx "$1"; then
    echo "$1"
  else
    echo "fuzz: no target '$1' (ci/fuzz.sh list)" >&2
    exit 2
  fi
}

# libFuzzer's last status line: "#N DONE cov: C ft: F corp: ..."
summary() {
  grep -E '^#[0-9]+' "$1" | tail -1 |
    sed -E 's/^#([0-9]+)[^c]*cov: ([0-9]+) ft: ([0-9]+).*/\1 \2 \3/'
}

# Longest input per target (libFuzzer -max_len, also applied by merge): the
# network targets' recorded seeds are cut there to keep the corpora small;
# the file loaders read whole documents.
max_len() {
  case "$1" in
  daemon_grpc_session | suite_grpc_client | suite_rest_response | suite_raw_http) echo 4096 ;;
  daemon_multipart) echo 4096 ;;
  daemon_path_resolve) echo 16384 ;; # beyond the longest path the daemon accepts
  *) echo 2048 ;; # whole documents are kept as seed-* inputs
  esac
}

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
common=(-timeout=10 -rss_limit_mb=2048 -print_final_stats=1)

case "${1:-}" in
list) printf '%s\n' "${all_targets[@]}" ;;
build) build_targets ;;
replay)
  build_targets
  for t in "${all_targets[@]}"; do
    if ! "$build/fuzz/$t" "${common[@]}" -runs=0 "fuzz/corpus/$t" >"$build/replay-$t.log" 2>&1; then
      cat "$build/replay-$t.log" >&2
      echo "fuzz: $t failed on its corpus" >&2
      exit 1
    fi
    echo "fuzz: $t replayed $(ls "fuzz/corpus/$t" | wc -l) inputs"
  done ;;
merge)
  [ $# -eq 2 ] || usage
  build_targets
  for t in $(targets_of "$2"); do
    fresh=$(mktemp -d)
    found=()
    [ -d "$build/corpus/$t" ] && found+=("$build/corpus/$t")
    [ -d "$build/findings/$t" ] && found+=("$build/findings/$t")
    "$build/fuzz/$t" "${common[@]}" -max_len="$(max_len "$t")" -merge=1 "$fresh" "fuzz/corpus/$t" "${found[@]}" \
      >"$build/merge-$t.log" 2>&1
    # Inputs of fixed findings and whole real documents stay, whether or
    # not they add coverage (the others are cut at max_len).
    find "fuzz/corpus/$t" -maxdepth 1 \( -name 'regression-*' -o -name 'seed-*' \) \
      -exec cp {} "$fresh/" \;
    rm -rf "fuzz/corpus/$t"
    mv "$fresh" "fuzz/corpus/$t"
    chmod 755 "fuzz/corpus/$t"
    echo "fuzz: $t corpus: $(ls "fuzz/corpus/$t" | wc -l) inputs, $(du -sb "fuzz/corpus/$t" | cut -f1) bytes"
  done ;;
*)
  [ $# -eq 2 ] || usage
  case "$2" in '' | *[!0-9]*) usage ;; esac
  build_targets
  printf '%-26s %12s %8s %8s %s\n' target executions cov ft result
  status=0
  for t in $(targets_of "$1"); do
    mkdir -p "$build/corpus/$t" "$build/findings/$t"
    log="$build/fuzz-$t.log"
    result=ok
    if ! nice -n 10 "$build/fuzz/$t" "${common[@]}" -max_len="$(max_len "$t")" -max_total_time="$2" \
      -artifact_prefix="$build/findings/$t/" "$build/corpus/$t" "fuzz/corpus/$t" >"$log" 2>&1; then
      result="FINDING (see $log and $build/findings/$t/)"
      status=1
    fi
    read -r execs cov ft < <(summary "$log" || echo "? ? ?")
    printf '%-26s %12s %8s %8s %s\n' "$t" "$execs" "$cov" "$ft" "$result"
  done
  exit $status ;;
esac
