#!/usr/bin/env bash
# The project's tests: install what is missing, build (warnings are errors),
# run every unit, interop and end-to-end test through ctest.
#   ci/test.sh              normal build in build/
#   ci/test.sh --sanitize   ASan+UBSan build in build-asan/
set -euo pipefail
cd "$(dirname "$0")/.."

build=build
flags=(-DSBX_WERROR=ON)
if [ "${1:-}" = "--sanitize" ]; then
  build=build-asan
  flags+=(-DSBX_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug)
fi

bash ci/install-deps.sh
cmake -S . -B "$build" "${flags[@]}" >/dev/null
cmake --build "$build" -j "$(nproc)"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
# Most tests wait on sockets, processes and timers rather than the CPU.
ctest --test-dir "$build" --output-on-failure -j "$(($(nproc) * 2))" --timeout 600
