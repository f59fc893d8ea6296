#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds libmicrohttpd from Debian's own source package without TLS, as a
# position-independent static archive the daemon links into itself.
#
# Why: Debian 12's libmicrohttpd is built with GnuTLS, which the daemon never
# uses (it serves plain HTTP), yet loading it maps and initialises GnuTLS and
# its eight dependencies: about 2.3 MiB of the daemon's idle RSS. And its
# static chain is incomplete in Debian (no libp11-kit.a, no libunistring.a),
# so the fully static daemon cannot link it at all.
#
# Usage: reference-daemon/deps/libmicrohttpd-without-tls.sh [PREFIX]
#   PREFIX defaults to .deps/libmicrohttpd at the top of the repository,
#   where CMake looks for it (SBX_MHD_ROOT). Result: PREFIX/lib/libmicrohttpd.a
#   and PREFIX/include/microhttpd.h. Does nothing when they exist.
# Needs root for apt-get when deb-src entries or build tools are missing.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
prefix=${1:-$repo/.deps/libmicrohttpd}
[ -f "$prefix/lib/libmicrohttpd.a" ] && [ -f "$prefix/include/microhttpd.h" ] && exit 0

say() { echo "libmicrohttpd-without-tls: $*" >&2; }

need_apt_update=0
# Source entries mirror the binary entries already configured for this
# machine, so the same archive serves the source package.
if ! grep -rqs '^Types:.*deb-src' /etc/apt/sources.list.d/ &&
   ! grep -qs '^deb-src ' /etc/apt/sources.list; then
  [ "$(id -u)" -eq 0 ] || { say "no deb-src entries for apt, and not root to add them"; exit 1; }
  if [ -f /etc/apt/sources.list.d/debian.sources ]; then
    sed 's/^Types: deb$/Types: deb-src/' /etc/apt/sources.list.d/debian.sources \
      > /etc/apt/sources.list.d/sandboxd-deb-src.sources
  elif [ -f /etc/apt/sources.list ]; then
    grep '^deb ' /etc/apt/sources.list | sed 's/^deb /deb-src /' \
      > /etc/apt/sources.list.d/sandboxd-deb-src.list
  else
    say "no apt sources to derive deb-src entries from"
    exit 1
  fi
  need_apt_update=1
fi
need_tools=0
for tool in dpkg-source make gcc; do
  command -v "$tool" >/dev/null || need_tools=1
done
if [ "$need_tools" = 1 ] && [ "$(id -u)" -ne 0 ]; then
  say "dpkg-dev and build-essential are missing, and not root to install them"
  exit 1
fi
if [ "$need_tools" = 1 ] || [ "$need_apt_update" = 1 ]; then
  apt-get update -qq
fi
if [ "$need_tools" = 1 ]; then
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq dpkg-dev build-essential >/dev/null
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/libmicrohttpd-src.XXXXXX")
trap 'rm -rf "$work"' EXIT
say "building Debian's libmicrohttpd source without TLS into $prefix"
(cd "$work" && apt-get source -qq libmicrohttpd >/dev/null 2>&1) ||
  { say "apt-get source libmicrohttpd failed"; exit 1; }
src=$(find "$work" -mindepth 1 -maxdepth 1 -type d -name 'libmicrohttpd-*' | head -n1)
[ -n "$src" ] || { say "the source package did not unpack"; exit 1; }
# Built in a scratch directory and installed in one step, so an interrupted
# build never leaves a half-made prefix behind.
stage=$work/install
(cd "$src" &&
  ./configure --quiet --prefix="$stage" --disable-https --without-gnutls \
    --enable-static --disable-shared --with-pic --disable-doc --disable-examples \
    --disable-curl --disable-dependency-tracking >/dev/null &&
  make -s -j"$(nproc)" -C src/microhttpd >/dev/null &&
  make -s -C src/microhttpd install >/dev/null)
mkdir -p "$stage/include"
cp "$src/src/include/microhttpd.h" "$stage/include/"
rm -f "$stage/lib/libmicrohttpd.la"
[ -f "$stage/lib/libmicrohttpd.a" ] || { say "libmicrohttpd.a was not built"; exit 1; }
mkdir -p "$(dirname "$prefix")"
rm -rf "$prefix"
mv "$stage" "$prefix"
