#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The TLS options' checks: bad input is a usage error (exit 2) with a clear
# message before anything runs, for the conformance run and the bench. The
# target is a closed loopback port, so a check that let bad input through
# would show as exit 3 (unreachable) instead; the same options with good
# files do reach that point (exit 3), which shows the checks are not simply
# always refusing.
#
# Usage: tls_options_test.sh SUITE_BINARY
set -uo pipefail

suite=${1:?usage: tls_options_test.sh SUITE}
if ! command -v openssl >/dev/null 2>&1; then
  echo "openssl is not installed: skipped"
  exit 77
fi
work=$(mktemp -d /tmp/sbx-tls-options-XXXXXX)
trap 'rm -rf "$work"' EXIT

key() { openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$1" 2>/dev/null; }
self_signed() { # name
  key "$work/$1.key"
  openssl req -x509 -new -key "$work/$1.key" -out "$work/$1.pem" -days 2 -subj "/CN=$1" 2>/dev/null
}
self_signed ca
self_signed client
key "$work/other.key"
echo "not a certificate" >"$work/garbage.pem"

closed=https://127.0.0.1:1
failures=0

expect() { # exit-status text -- command...
  local want=$1 text=$2
  shift 3
  local out rc=0
  out=$("$@" 2>&1) || rc=$?
  if [ "$rc" -ne "$want" ] || ! grep -qF -- "$text" <<<"$out"; then
    echo "FAIL: $* -> exit $rc (want $want and \"$text\"):"
    sed 's/^/    /' <<<"$out" | head -n 5
    failures=$((failures + 1))
  else
    echo "ok: exit $rc, \"$text\""
  fi
}

run=("$suite" --grpc "$closed" --rest "$closed" --json "$work/r.json")
expect 2 "--cacert $work/missing.pem: cannot read it: No such file or directory" -- \
  "${run[@]}" --cacert "$work/missing.pem"
expect 2 "no usable PEM certificate" -- "${run[@]}" --cacert "$work/garbage.pem"
expect 2 "--cert without --key" -- "${run[@]}" --cert "$work/client.pem"
expect 2 "--key without --cert" -- "${run[@]}" --key "$work/client.key"
expect 2 "--key $work/missing.key: cannot read it" -- \
  "${run[@]}" --cert "$work/client.pem" --key "$work/missing.key"
expect 2 "--cert $work/garbage.pem: not a PEM certificate" -- \
  "${run[@]}" --cert "$work/garbage.pem" --key "$work/client.key"
expect 2 "--key $work/garbage.pem: not a PEM private key" -- \
  "${run[@]}" --cert "$work/client.pem" --key "$work/garbage.pem"
expect 2 "--key $work/other.key does not match the certificate in --cert $work/client.pem" -- \
  "${run[@]}" --cert "$work/client.pem" --key "$work/other.key"
expect 2 "--require-complete refuses it" -- "${run[@]}" --insecure --require-complete
expect 2 "neither surface is TLS" -- \
  "$suite" --grpc 127.0.0.1:1 --rest 127.0.0.1:1 --cacert "$work/ca.pem"
expect 2 "apply to --grpc/--rest only" -- "$suite" --launch-bundled /bin/true --tls
expect 2 "is a unix socket" -- "$suite" --grpc unix:/tmp/x.sock --rest 127.0.0.1:1 --tls
expect 2 "--authority wants a host name" -- "${run[@]}" --authority "a b"
[ -e "$work/r.json" ] && { echo "FAIL: a report was written before the options were checked"; failures=$((failures + 1)); }
# The same options with good files get past the checks: the closed port.
expect 3 "unreachable" -- "${run[@]}" --cacert "$work/ca.pem" --cert "$work/client.pem" \
  --key "$work/client.key"
expect 3 "unreachable" -- "$suite" --grpc 127.0.0.1:1 --rest 127.0.0.1:1 --tls --insecure \
  --json "$work/r2.json"

bench=("$suite" bench --grpc "$closed" --rest "$closed" --quiet)
expect 2 "--cacert $work/missing.pem: cannot read it" -- "${bench[@]}" --cacert "$work/missing.pem"
expect 2 "does not match the certificate" -- \
  "${bench[@]}" --cert "$work/client.pem" --key "$work/other.key"
expect 2 "--cert without --key" -- "${bench[@]}" --cert "$work/client.pem"

[ $failures -eq 0 ] || { echo "$failures check(s) failed"; exit 1; }
echo "all TLS option checks hold"
