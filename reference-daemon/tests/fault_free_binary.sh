#!/bin/sh
# Usage: fault_free_binary.sh BINARY [--optional] [SYMBOL...]
# The shipped daemon holds no fault or variant code: nm finds no symbol
# naming one ("default" aside). The SYMBOLs listed are the ones still to be
# moved into reference-daemon/faults/ (FAULTS.md, "Faults still in the
# production sources"); each must still be there, so the list only shrinks.
# With --optional, a missing BINARY is a skip (exit 77), not a failure.
bin=$1
shift
if [ "$1" = "--optional" ]; then
  shift
  [ -e "$bin" ] || { echo "skipped: no $bin (reference-daemon/static/build-static.sh builds it)"; exit 77; }
fi
syms=$(nm "$bin" | awk '{print $NF}' | grep -iE 'fault|variant' | grep -vi 'default') || true
status=0
for s in $syms; do
  case " $* " in
  *" $s "*) ;;
  *) echo "fault symbol in $bin: $s"; status=1 ;;
  esac
done
for s in "$@"; do
  printf '%s\n' "$syms" | grep -qx "$s" || { echo "$s is gone: remove it from the list"; status=1; }
done
[ $status -eq 0 ] && echo "no fault symbol in $bin${*:+ besides $*}"
exit $status
