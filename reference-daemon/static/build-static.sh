#!/usr/bin/env bash
# Builds a fully static sandboxd-ref (for images that only copy the binary in,
# the seed's deployment topology B).
#
# Debian 12's libmicrohttpd.a is built with GnuTLS, whose static dependency
# chain Debian does not ship complete. So libmicrohttpd is rebuilt here from
# Debian's own source package without TLS (the daemon serves plain HTTP), and
# the rest links against Debian's static archives (libnghttp2.a,
# libprotobuf-c.a, libjansson.a, libuv_a.a, glibc's libc.a).
#
# Usage: reference-daemon/static/build-static.sh [BUILD_DIR]
#   BUILD_DIR defaults to build-static/ at the top of the repository.
#   Result: BUILD_DIR/reference-daemon/sandboxd-ref
# Needs root for apt-get (deb-src entries and build tools are added when
# missing).
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
build=$(mkdir -p "${1:-$repo/build-static}" && cd "${1:-$repo/build-static}" && pwd)
cache=$build/mhd
prefix=$cache/install

need_apt_update=0
# Source entries mirror the binary entries already configured for this
# machine, so the same archive serves the source package.
if ! grep -rqs '^Types:.*deb-src' /etc/apt/sources.list.d/ &&
   ! grep -qs '^deb-src ' /etc/apt/sources.list; then
  if [ -f /etc/apt/sources.list.d/debian.sources ]; then
    sed 's/^Types: deb$/Types: deb-src/' /etc/apt/sources.list.d/debian.sources \
      > /etc/apt/sources.list.d/sandboxd-deb-src.sources
  elif [ -f /etc/apt/sources.list ]; then
    grep '^deb ' /etc/apt/sources.list | sed 's/^deb /deb-src /' \
      > /etc/apt/sources.list.d/sandboxd-deb-src.list
  else
    echo "build-static: no apt sources to derive deb-src entries from" >&2
    exit 1
  fi
  need_apt_update=1
fi
for tool in dpkg-source make gcc; do
  command -v "$tool" >/dev/null || need_tools=1
done
if [ "${need_tools:-0}" = 1 ] || [ "$need_apt_update" = 1 ]; then
  apt-get update -qq
fi
if [ "${need_tools:-0}" = 1 ]; then
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq dpkg-dev build-essential
fi

if [ ! -f "$prefix/lib/libmicrohttpd.a" ]; then
  rm -rf "$cache"
  mkdir -p "$cache"
  (cd "$cache" && apt-get source -qq libmicrohttpd)
  src=$(find "$cache" -maxdepth 1 -type d -name 'libmicrohttpd-*' | head -n1)
  [ -n "$src" ] || { echo "build-static: libmicrohttpd source not unpacked" >&2; exit 1; }
  (cd "$src" &&
    ./configure --quiet --prefix="$prefix" --disable-https --without-gnutls \
      --enable-static --disable-shared --disable-doc --disable-examples \
      --disable-curl --disable-dependency-tracking &&
    make -s -j"$(nproc)" -C src/microhttpd &&
    make -s -C src/microhttpd install)
  mkdir -p "$prefix/include"
  cp "$src/src/include/microhttpd.h" "$prefix/include/"
fi
[ -f "$prefix/lib/libmicrohttpd.a" ] || { echo "build-static: libmicrohttpd.a was not built" >&2; exit 1; }

cmake -S "$repo" -B "$build" -DSBX_STATIC_DAEMON=ON -DSBX_MHD_STATIC_ROOT="$prefix" \
  -DSBX_BUILD_TESTS=OFF -DSBX_WERROR=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build" -j"$(nproc)" --target sandboxd-ref
bin=$build/reference-daemon/sandboxd-ref
file "$bin"
if ldd "$bin" >/dev/null 2>&1; then
  echo "build-static: $bin is dynamically linked" >&2
  exit 1
fi
echo "build-static: $bin is fully static"
