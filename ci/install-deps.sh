#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs the Debian 12 packages the project needs, by set; then, with the
# build set, builds Debian's libmicrohttpd source without TLS for the
# reference daemon (reference-daemon/deps/). Idempotent, and silent when
# everything is present.
#
# Usage: ci/install-deps.sh [--set NAME]...
#   no --set    every set (CI, README); SBX_NO_BROWSER=1 leaves report-check out
#   build        compilers, libraries, protoc, the static daemon's and the
#                packages' tools (the builder image installs only this set)
#   test         the ctests' tools and interop peers, podman and runc for the
#                images' test
#   report-check headless Chromium for the HTML reports (the largest set)
#   lint         style, static analysis and the fuzzing toolchain
set -euo pipefail
cd "$(dirname "$0")/.."

declare -A sets
sets[build]="gcc make cmake pkg-config git dpkg-dev file
  libnghttp2-dev libprotobuf-c-dev protobuf-c-compiler protobuf-compiler libprotobuf-dev
  libcurl4-openssl-dev libjansson-dev libyaml-dev libmicrohttpd-dev libuv1-dev
  libssl-dev"
# Interop peers (nginx-light has the ssl, http_v2 and grpc modules the TLS
# test needs; openssl makes its throwaway CA and certificates), man pages and
# package checks, topology B's tool image and the manifests' checks
# (busybox-static, python3-yaml), and the images' test: podman with Debian's
# runc (crun fails on this machine type), catatonit for the pods' infra image
# and netavark for their published ports.
sets[test]="libcmocka-dev python3-grpcio python3-protobuf curl nghttp2-client nginx-light openssl
  procps util-linux libxml2-utils man-db busybox-static python3-yaml
  podman runc catatonit netavark"
# The HTML reports are checked in headless Chromium (html_reports_in_browser;
# skipped where it is absent).
sets[report-check]="chromium"
# Fuzzing (fuzz/, ci/fuzz.sh): clang and its libFuzzer and sanitizer runtimes.
sets[lint]="clang-format clang-tidy cppcheck clang libclang-rt-14-dev"

chosen=()
while [ $# -gt 0 ]; do
  case "$1" in
    --set)
      [ $# -ge 2 ] && [ -n "${sets[$2]+x}" ] || {
        echo "install-deps: --set needs one of: build test report-check lint" >&2
        exit 2
      }
      chosen+=("$2")
      shift 2
      ;;
    *)
      echo "usage: ci/install-deps.sh [--set build|test|report-check|lint]..." >&2
      exit 2
      ;;
  esac
done
if [ ${#chosen[@]} -eq 0 ]; then
  chosen=(build test lint)
  [ -n "${SBX_NO_BROWSER:-}" ] || chosen+=(report-check)
fi

packages=()
for s in "${chosen[@]}"; do
  for p in ${sets[$s]}; do packages+=("$p"); done
done

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$p")
  fi
done
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "install-deps: missing packages: ${missing[*]}" >&2
    echo "install-deps: run as root (or install them yourself)" >&2
    exit 1
  fi
  echo "install-deps: installing ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

case " ${chosen[*]} " in
  *" build "*)
    # Without it the daemon still builds, on Debian's libmicrohttpd (which
    # loads GnuTLS); only the static daemon needs it, and build-static.sh
    # says so.
    if ! bash reference-daemon/deps/libmicrohttpd-without-tls.sh; then
      echo "install-deps: warning: libmicrohttpd without TLS not built;" \
        "sandboxd-ref links Debian's libmicrohttpd (idle RSS about 2.3 MiB higher)" >&2
    fi
    ;;
esac
