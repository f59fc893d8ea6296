#!/usr/bin/env bash
# Installs every Debian 12 package the project needs: build, tests, interop
# peers and lint tools; then builds Debian's libmicrohttpd source without TLS
# for the reference daemon (reference-daemon/deps/). Idempotent, and silent
# when everything is present.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(
  # build
  gcc make cmake pkg-config git
  # wire layer and libraries
  libnghttp2-dev libprotobuf-c-dev protobuf-c-compiler protobuf-compiler libprotobuf-dev
  libcurl4-openssl-dev libjansson-dev libyaml-dev libmicrohttpd-dev libuv1-dev
  # TLS to the runtime under test (the suite only; the daemon has none)
  libssl-dev
  # tests and interop peers
  # (nginx-light has the ssl, http_v2 and grpc modules the TLS test needs;
  # openssl makes its throwaway CA and certificates)
  libcmocka-dev python3-grpcio python3-protobuf curl nghttp2-client nginx-light openssl
  procps util-linux libxml2-utils
  # packages, man pages, topology B's tool image, manifest and contract checks
  dpkg-dev man-db file busybox-static python3-yaml
  # style and static analysis
  clang-format clang-tidy cppcheck
  # fuzzing (fuzz/, ci/fuzz.sh): clang and its libFuzzer and sanitizer runtimes
  clang libclang-rt-14-dev
)
# The HTML reports are checked in headless Chromium (html_reports_in_browser;
# skipped where it is absent). It is the largest package here: set
# SBX_NO_BROWSER=1 to leave it out.
[ -n "${SBX_NO_BROWSER:-}" ] || packages+=(chromium)

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

# Without it the daemon still builds, on Debian's libmicrohttpd (which loads
# GnuTLS); only the static daemon needs it, and build-static.sh says so.
if ! bash reference-daemon/deps/libmicrohttpd-without-tls.sh; then
  echo "install-deps: warning: libmicrohttpd without TLS not built;" \
    "sandboxd-ref links Debian's libmicrohttpd (idle RSS about 2.3 MiB higher)" >&2
fi
