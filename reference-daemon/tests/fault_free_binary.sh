#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Usage: fault_free_binary.sh BINARY [--optional]
# The shipped daemon holds no fault or variant code: nm finds no symbol
# naming one ("default" aside; faults live in reference-daemon/faults/,
# linked only into sandboxd-ref-faulty). With --optional, a missing BINARY
# is a skip (exit 77), not a failure.
bin=$1
if [ "$2" = "--optional" ] && [ ! -e "$bin" ]; then
  echo "skipped: no $bin (reference-daemon/static/build-static.sh builds it)"
  exit 77
fi
nm "$bin" >/dev/null || exit 1
syms=$(nm "$bin" | awk '{print $NF}' | grep -iE 'fault|variant' | grep -vi 'default')
if [ -n "$syms" ]; then
  echo "fault symbols in $bin:"
  printf '  %s\n' $syms
  exit 1
fi
echo "no fault symbol in $bin"
