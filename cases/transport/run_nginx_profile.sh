#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Proof of the transport profile (T1-T4) through a real proxy: Debian's nginx
# on loopback in front of sandboxd-ref, with grpc_pass (HTTP/2 listener) for
# the ProcessService and proxy_pass for REST.
#
#   1. streaming configuration (proxy_buffering off, proxy_request_buffering
#      off, small grpc_buffer_size): every T case must pass;
#   2. buffering configuration (proxy_buffering on with large buffers and a
#      temporary file, proxy_request_buffering on): T4-001 (large GET) and
#      T4-002 (slow PUT) must be reported failing;
#   3. HTTP/1.1-only configuration (a plain `listen`, no http2, proxy_pass
#      only), like a router that cannot carry the gRPC ProcessService. The
#      run must go on and be reported, in both layouts:
#        a. one proxy address for both surfaces (--grpc and --rest at it);
#        b. split: --rest through the proxy, --grpc through a second address
#           of the same proxy;
#      T1-T3 fail saying the proxy cannot carry gRPC, REST cases pass, cases
#      that need gRPC (P1-001, and T4, which checks through Execute) are
#      skipped with that reason, the verdict is not conformant, every report
#      is written, exit 1; and
#        c. split with --grpc straight at the runtime: every case runs and
#           passes.
#
# nginx's gRPC proxy has no response buffering at all (there is no
# grpc_buffering directive; grpc_buffer_size only sizes the read buffer and
# responses are passed on as they arrive), so no nginx configuration can make
# T3 (Start not buffered) fail: in the buffering run T3 is expected to pass
# and is only reported. T3's failing side is covered by the suite's own case
# logic (an early event that does not arrive within 3 s fails it).
#
# Usage: run_nginx_profile.sh SUITE_BINARY DAEMON_BINARY
# Exit: 0 proven, 1 not proven, 77 skipped (nginx or its gRPC module missing).
set -euo pipefail

suite=${1:?usage: run_nginx_profile.sh SUITE DAEMON}
daemon=${2:?usage: run_nginx_profile.sh SUITE DAEMON}
python=/usr/bin/python3

if ! command -v nginx >/dev/null 2>&1; then
  echo "nginx is not installed (ci/install-deps.sh installs nginx-light): skipped"
  exit 77
fi

work=$(mktemp -d /tmp/sbx-nginx-profile-XXXXXX)
chmod 755 "$work"
nginx_scheme=http
nginx_missing_module='unknown directive "grpc_'
# shellcheck source=nginx_runtime.sh
. "$(dirname "$0")/nginx_runtime.sh"

# ---- the runtime ------------------------------------------------------------
start_runtime

# ---- nginx --------------------------------------------------------------------
write_conf() { # mode (streaming|buffering|http1) nginx_grpc_port nginx_rest_port
  local mode=$1 ng=$2 nr=$3 user_line="" rest_opts grpc_opts grpc_server
  # As root, workers would drop to "nobody" and could not use the temp dirs.
  [ "$(id -u)" -eq 0 ] && user_line="user root;"
  if [ "$mode" = streaming ] || [ "$mode" = http1 ]; then
    rest_opts="proxy_buffering off; proxy_request_buffering off;"
    grpc_opts="grpc_buffer_size 4k;"
  else
    rest_opts="proxy_buffering on; proxy_buffer_size 64k; proxy_buffers 64 1m;
      proxy_busy_buffers_size 2m; proxy_max_temp_file_size 2048m;
      proxy_request_buffering on; client_body_buffer_size 1m;"
    grpc_opts="grpc_buffer_size 1m;"
  fi
  # The gRPC address: HTTP/2 with grpc_pass, or (http1) a second plain
  # HTTP/1.1 address of the same REST proxy, as a router without HTTP/2 has.
  if [ "$mode" = http1 ]; then
    grpc_server="server {
    listen 127.0.0.1:$ng;
    location / {
      proxy_pass http://sandbox_rest;
      proxy_http_version 1.1;
      proxy_set_header Connection \"\";
      $rest_opts
    }
  }"
  else
    grpc_server="server {
    listen 127.0.0.1:$ng http2;
    location / {
      grpc_pass grpc://127.0.0.1:$grpc_port;
      grpc_read_timeout 300s;
      grpc_send_timeout 300s;
      $grpc_opts
    }
  }"
  fi
  mkdir -p "$work/nginx/tmp"
  cat >"$work/nginx.conf" <<EOF
$user_line
daemon off;
worker_processes 1;
pid $work/nginx/nginx.pid;
error_log $work/nginx/error.log warn;
events { worker_connections 512; }
http {
  access_log off;
  client_body_temp_path $work/nginx/tmp/body;
  proxy_temp_path $work/nginx/tmp/proxy;
  fastcgi_temp_path $work/nginx/tmp/fastcgi;
  uwsgi_temp_path $work/nginx/tmp/uwsgi;
  scgi_temp_path $work/nginx/tmp/scgi;
  client_max_body_size 0;
  upstream sandbox_rest { server 127.0.0.1:$rest_port; keepalive 16; }
  $grpc_server
  server {
    listen 127.0.0.1:$nr;
    location / {
      proxy_pass http://sandbox_rest;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_read_timeout 300s;
      proxy_send_timeout 300s;
      $rest_opts
    }
  }
}
EOF
}

run_suite() { # name [grpc address] [rest address] [focus]
  local name=$1 grpc=${2:-127.0.0.1:$ng} rest=${3:-127.0.0.1:$nr} focus=${4:-'^T[0-9]-'} rc=0
  "$suite" --grpc "$grpc" --rest "$rest" --profile transport \
    --focus "$focus" --seed 1 --jobs 1 --color never --json "$work/$name.json" \
    --junit "$work/$name.xml" --tap "$work/$name.tap" --markdown "$work/$name.md" \
    --html "$work/$name.html" >"$work/$name.log" 2>&1 || rc=$?
  grep -E '^\[|cases selected|^Verdict|^transport profile' "$work/$name.log" || cat "$work/$name.log"
  return $rc
}

outcomes() { # json -> "ID outcome" lines of the cases that ran
  "$python" - "$1" <<'EOF'
import json, sys
doc = json.load(open(sys.argv[1], encoding="utf-8"))
for c in doc.get("cases", []):
    if c.get("selected", True) and c.get("outcome") != "not-run":
        print(c["id"], c.get("outcome"))
EOF
}

# The HTTP/1.1-only proxy: what a run through it must report (see 3. above).
check_http1() { # name exit-status
  "$python" - "$work/$1" "$2" <<'EOF'
import json, os, sys
base, rc = sys.argv[1], int(sys.argv[2])
bad = []
doc = json.load(open(base + ".json", encoding="utf-8"))
cases = {c["id"]: c for c in doc["cases"] if c.get("outcome") != "not-run"}
for i in ("T1-001", "T2-001", "T3-001"):
    c = cases.get(i, {})
    said = " ".join(f["observed"] for f in c.get("failures", []))
    if c.get("outcome") != "fail" or "cannot carry gRPC" not in said:
        bad.append(f"{i}: {c.get('outcome')} {said[:200]!r}, expected a failure saying the "
                   f"proxy cannot carry gRPC")
for i in ("T4-001", "T4-002", "P1-001"):
    c = cases.get(i, {})
    if c.get("outcome") != "skip" or "cannot carry" not in (c.get("reason") or ""):
        bad.append(f"{i}: {c.get('outcome')} ({c.get('reason')}), expected skipped: needs gRPC")
for i in ("F1-001", "F9-001", "F13-002", "M1-001"):
    if cases.get(i, {}).get("outcome") != "pass":
        bad.append(f"{i}: {cases.get(i, {}).get('outcome')}, expected pass (REST only)")
if doc["verdict"]["result"] != "not-conformant":
    bad.append(f"verdict {doc['verdict']['result']}, expected not-conformant")
if rc != 1:
    bad.append(f"exit status {rc}, expected 1")
for ext in ("xml", "tap", "md", "html"):
    if not os.path.getsize(base + "." + ext):
        bad.append(f"no {ext} report")
for b in bad:
    print("FAIL:", b)
sys.exit(1 if bad else 0)
EOF
}

status=0

# ---- 1. streaming: everything passes -------------------------------------------
start_nginx streaming
if ! run_suite streaming; then
  echo "FAIL: the transport cases do not all pass through a streaming nginx"
  status=1
fi
got=$(outcomes "$work/streaming.json")
echo "$got"
if [ "$(echo "$got" | grep -c ' pass$')" -lt 5 ]; then
  echo "FAIL: expected T1-001, T2-001, T3-001, T4-001 and T4-002 to pass"
  status=1
fi
stop_nginx

# ---- 2. buffering: T4 must be reported failing ------------------------------------
start_nginx buffering
run_suite buffering || true
got=$(outcomes "$work/buffering.json")
echo "$got"
for id in T4-001 T4-002; do
  if ! echo "$got" | grep -q "^$id fail$"; then
    echo "FAIL: $id was not reported failing through a buffering nginx"
    status=1
  fi
done
echo "(T3-001 through the buffering nginx: $(echo "$got" | sed -n 's/^T3-001 //p');" \
  "nginx passes gRPC responses on unbuffered whatever the configuration)"
stop_nginx

# ---- 3. HTTP/1.1 only: the run goes on and reports what the proxy breaks ---------
start_nginx http1
http1_focus='^(T[0-9]-[0-9]+|F1-001|F9-001|F13-002|M1-001|P1-001)( |$)'
rc=0; run_suite http1-single "127.0.0.1:$nr" "127.0.0.1:$nr" "$http1_focus" || rc=$?
outcomes "$work/http1-single.json"
if ! check_http1 http1-single "$rc"; then
  echo "FAIL: one HTTP/1.1-only proxy address for both surfaces"; status=1
fi
rc=0; run_suite http1-split "127.0.0.1:$ng" "127.0.0.1:$nr" "$http1_focus" || rc=$?
outcomes "$work/http1-split.json"
if ! check_http1 http1-split "$rc"; then
  echo "FAIL: REST and gRPC through two HTTP/1.1-only proxy addresses"; status=1
fi
rc=0; run_suite http1-direct-grpc "127.0.0.1:$grpc_port" "127.0.0.1:$nr" "$http1_focus" || rc=$?
got=$(outcomes "$work/http1-direct-grpc.json")
echo "$got"
if [ "$rc" -ne 0 ] || echo "$got" | grep -qv ' pass$'; then
  echo "FAIL: REST through the HTTP/1.1-only proxy and gRPC direct: every case must pass"
  status=1
fi
stop_nginx

if [ $status -ne 0 ]; then
  echo "--- nginx error log"; cat "$work/nginx/error.log" 2>/dev/null || true
  echo "--- daemon log"; tail -n 30 "$work/daemon.log"
fi
exit $status
