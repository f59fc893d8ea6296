#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Every external symbol the wire layer's archives define carries the
# library's prefix (sbx_grpc_, sbx_ for the shared helpers), or is the
# protobuf-c code generated for grpc.reflection.v1: the archives link into
# both products and into test programs, where a bare name such as
# inbox_feed or server_dispatch could meet another of the same name.
# Usage: check_symbols_prefixed.sh ARCHIVE...
set -euo pipefail
bad=$(nm -g --defined-only "$@" | awk 'NF == 3 { print $3 }' |
  grep -Ev '^(sbx_|grpc__reflection__v1__)' || true)
if [ -n "$bad" ]; then
  echo "unprefixed external symbols in the wire layer:" $bad >&2
  exit 1
fi
echo "wire layer: every external symbol prefixed"
