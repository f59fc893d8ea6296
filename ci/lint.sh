#!/usr/bin/env bash
# Style and static analysis over the project's own C sources (not generated
# code). Usage: ci/lint.sh format|fix|cppcheck|tidy BUILD_DIR
set -euo pipefail
cd "$(dirname "$0")/.."
mapfile -t files < <(git ls-files '*.c' '*.h' 2>/dev/null || find proto suite cases reference-daemon -name '*.[ch]')
[ ${#files[@]} -gt 0 ] || exit 0
case "${1:-}" in
format) clang-format --dry-run -Werror "${files[@]}" ;;
fix) clang-format -i "${files[@]}" ;;
cppcheck)
  mapfile -t cfiles < <(printf '%s\n' "${files[@]}" | grep '\.c$')
  cppcheck --quiet --error-exitcode=1 --std=c11 --enable=warning,portability \
    --inline-suppr --suppress=missingIncludeSystem -D_GNU_SOURCE -DSBX_FAULTS=1 \
    -DSBX_VERSION='"0"' -DSBX_GIT_COMMIT='"0"' -I suite/src -I cases "${cfiles[@]}" ;;
tidy)
  build=${2:-build}
  mapfile -t cfiles < <(printf '%s\n' "${files[@]}" | grep '\.c$')
  # Generated code is not ours; the compile database lists what is built.
  printf '%s\n' "${cfiles[@]}" |
    xargs -P "$(nproc)" -n 8 clang-tidy --quiet -p "$build" 2>/dev/null |
    tee /dev/stderr | { ! grep -qE '(warning|error):'; } ;;
*) echo "usage: ci/lint.sh format|fix|cppcheck|tidy [BUILD_DIR]" >&2; exit 2 ;;
esac
