# SPDX-License-Identifier: Apache-2.0
# What the nginx proofs share (sourced by cases/transport/run_nginx_profile.sh
# and suite/tests/tls/run_tls_nginx.sh): sandboxd-ref on loopback ports of its
# own choosing, nginx started from a configuration the caller writes, and the
# clean-up of both and of the work directory.
#
# The caller sets `work` (a directory of its own) and `daemon` (the binary),
# defines write_conf MODE NGINX_GRPC_PORT NGINX_REST_PORT writing
# $work/nginx.conf, and sets nginx_scheme (http or https) and
# nginx_missing_module (an extended regex of `nginx -t` output meaning this
# nginx lacks a module the proof needs: the proof is then skipped).

daemon_pid=""
nginx_pid=""

stop_nginx() {
  if [ -n "$nginx_pid" ] && kill -0 "$nginx_pid" 2>/dev/null; then
    kill -QUIT "$nginx_pid" 2>/dev/null || true
    for _ in $(seq 1 50); do kill -0 "$nginx_pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$nginx_pid" 2>/dev/null || true
    wait "$nginx_pid" 2>/dev/null || true
  fi
  nginx_pid=""
}

cleanup() {
  stop_nginx
  if [ -n "$daemon_pid" ] && kill -0 "$daemon_pid" 2>/dev/null; then
    kill -TERM "$daemon_pid" 2>/dev/null || true
    for _ in $(seq 1 100); do kill -0 "$daemon_pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$daemon_pid" 2>/dev/null || true
    wait "$daemon_pid" 2>/dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT

# A loopback port nobody listens on (nothing answers a connect).
free_port() {
  for _ in $(seq 1 100); do
    local p=$((20000 + RANDOM % 40000))
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
      echo "$p"
      return 0
    fi
  done
  return 1
}

# Starts sandboxd-ref on ports it picks; sets grpc_port and rest_port.
start_runtime() {
  mkdir -p "$work/root"
  "$daemon" --listen-host 127.0.0.1 --grpc-port 0 --rest-port 0 --root-dir "$work/root" \
    >"$work/daemon.log" 2>&1 &
  daemon_pid=$!
  grpc_port="" rest_port=""
  for _ in $(seq 1 100); do
    grpc_port=$(sed -n 's/^grpc-port=//p' "$work/daemon.log")
    rest_port=$(sed -n 's/^rest-port=//p' "$work/daemon.log")
    [ -n "$grpc_port" ] && [ -n "$rest_port" ] && break
    sleep 0.1
  done
  if [ -z "$grpc_port" ] || [ -z "$rest_port" ]; then
    echo "sandboxd-ref did not report its ports:"; cat "$work/daemon.log"
    exit 1
  fi
  echo "sandboxd-ref: gRPC 127.0.0.1:$grpc_port, REST 127.0.0.1:$rest_port"
}

# Starts nginx with write_conf MODE on two free ports (ng for gRPC, nr for
# REST), retrying other ports if one was taken meanwhile; returns once REST
# answers through it.
start_nginx() { # mode
  local mode=$1
  for _attempt in 1 2 3 4 5; do
    ng=$(free_port) nr=$(free_port)
    [ "$ng" != "$nr" ] || continue
    write_conf "$mode" "$ng" "$nr"
    if ! nginx -t -p "$work/nginx" -c "$work/nginx.conf" >"$work/nginx-t.log" 2>&1; then
      if grep -qE "$nginx_missing_module" "$work/nginx-t.log"; then
        echo "this nginx lacks a module the proof needs: skipped"; cat "$work/nginx-t.log"
        exit 77
      fi
      echo "nginx rejects the generated configuration:"; cat "$work/nginx-t.log"
      exit 1
    fi
    nginx -p "$work/nginx" -c "$work/nginx.conf" >>"$work/nginx/stdout.log" 2>&1 &
    nginx_pid=$!
    for _ in $(seq 1 100); do
      if curl -sk -o /dev/null "$nginx_scheme://127.0.0.1:$nr/v1/health" 2>/dev/null; then
        echo "nginx ($mode): gRPC $nginx_scheme://127.0.0.1:$ng, REST $nginx_scheme://127.0.0.1:$nr"
        return 0
      fi
      kill -0 "$nginx_pid" 2>/dev/null || break
      sleep 0.1
    done
    stop_nginx # port taken meanwhile or slow start: try other ports
  done
  echo "nginx did not come up:"; cat "$work/nginx/error.log" 2>/dev/null || true
  exit 1
}
