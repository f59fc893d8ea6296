#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
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
    -DSBX_VERSION='"0"' -DSBX_GIT_COMMIT='"0"' $(printf -- "-I %s " suite/src suite/src/*/) -I cases "${cfiles[@]}" ;;
tidy)
  build=${2:-build}
  mapfile -t cfiles < <(printf '%s\n' "${files[@]}" | grep '\.c$')
  # A file built into several targets has several compile commands; analyse
  # it once. One clang-tidy process per file: clang-tidy 14 run over several
  # translation units in one process reports false "uninitialized va_list"
  # warnings (clang-analyzer-valist) in every unit after the first.
  db=$(mktemp -d)
  out=$(mktemp)
  trap 'rm -rf "$db" "$out"' EXIT
  /usr/bin/python3 - "$build/compile_commands.json" "$db/compile_commands.json" <<'PY'
import json, sys
seen, keep = set(), []
for entry in json.load(open(sys.argv[1])):
    if entry["file"] not in seen:
        seen.add(entry["file"])
        keep.append(entry)
json.dump(keep, open(sys.argv[2], "w"))
PY
  printf '%s\n' "${cfiles[@]}" |
    xargs -P "$(nproc)" -n 1 clang-tidy --quiet -p "$db" 2>/dev/null >"$out" || true
  cat "$out"
  # Only tracked sources are analysed: generated code is not ours.
  ! grep -qE '(warning|error):' "$out" ;;
*) echo "usage: ci/lint.sh format|fix|cppcheck|tidy [BUILD_DIR]" >&2; exit 2 ;;
esac
