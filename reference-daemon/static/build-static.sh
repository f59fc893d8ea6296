#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds a fully static sandboxd-ref (for images that only copy the binary in,
# the seed's deployment topology B).
#
# Debian 12's libmicrohttpd.a is built with GnuTLS, whose static dependency
# chain Debian does not ship complete. So libmicrohttpd is rebuilt from
# Debian's own source package without TLS (../deps/, the same archive the
# dynamically linked daemon uses), and the rest links against Debian's static
# archives (libnghttp2.a, libprotobuf-c.a, libjansson.a, libuv_a.a, glibc's
# libc.a).
#
# Usage: reference-daemon/static/build-static.sh [BUILD_DIR]
#   BUILD_DIR defaults to build-static/ at the top of the repository.
#   Result: BUILD_DIR/reference-daemon/sandboxd-ref, and its Debian package
#   BUILD_DIR/sandboxd-ref-static_VERSION_ARCH.deb (packaging/CMakeLists.txt)
# Needs root for apt-get when the libmicrohttpd source package must be
# fetched (deb-src entries and build tools are added when missing).
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
build=$(mkdir -p "${1:-$repo/build-static}" && cd "${1:-$repo/build-static}" && pwd)
mhd=$repo/.deps/libmicrohttpd

bash "$repo/reference-daemon/deps/libmicrohttpd-without-tls.sh" "$mhd"

cmake -S "$repo" -B "$build" -DSBX_STATIC_DAEMON=ON -DSBX_MHD_ROOT="$mhd" \
  -DSBX_BUILD_TESTS=OFF -DSBX_WERROR=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build" -j"$(nproc)" --target sandboxd-ref
bin=$build/reference-daemon/sandboxd-ref
file "$bin"
if ldd "$bin" >/dev/null 2>&1; then
  echo "build-static: $bin is dynamically linked" >&2
  exit 1
fi
echo "build-static: $bin is fully static"
# The package of the static daemon (CPack; same paths as sandboxd-ref).
(cd "$build" && cpack -G DEB >/dev/null)
ls "$build"/sandboxd-ref-static_*.deb
