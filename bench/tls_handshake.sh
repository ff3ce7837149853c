#!/usr/bin/env bash
# TLS handshake rate with and without session resumption.
#
# nginx terminates TLS in front of the mock server with `keepalive_requests 1`, so every request
# needs a new connection and a full or resumed handshake. ringperf runs the same closed-loop,
# non-streaming workload twice, pinned to one core: with its session cache on (the default) and
# with RINGPERF_TLS_NO_RESUMPTION=1. Reported: requests/s (= handshakes/s), client CPU seconds per
# 1,000 handshakes (GNU time, user + system), and how many handshakes nginx saw resumed
# ($ssl_session_reused in its access log).
#
# Usage: bench/tls_handshake.sh [REQUESTS] [CONNECTIONS]   (defaults 4000 and 16)
# RINGPERF_BENCH_NO_BUILD=1 reuses build-bench/ as it is.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
requests="${1:-4000}"
conns="${2:-16}"
if [ "${RINGPERF_BENCH_NO_BUILD:-0}" != 1 ]; then
    "$root/scripts/install-deps.sh"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq time >/dev/null
    RINGPERF_BUILD_DIR="$root/build-bench" "$root/scripts/build.sh" \
        -DCMAKE_BUILD_TYPE=Release >/dev/null
fi
ringperf="${RINGPERF_BINARY:-$root/build-bench/cli/ringperf}"
out="$root/bench/out/tls_handshake"
rm -rf "$out"
mkdir -p "$out/nginx/tmp"
cpus="$(nproc)"
client_cpu=0
server_cpu=$((cpus > 1 ? 1 : 0))
sh "$root/tests/tls/gen_certs.sh" "$out/nginx" >/dev/null 2>&1

pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
}
trap cleanup EXIT

log="$out/mock.log"
taskset -c "$server_cpu" "$ringperf" mock-server --port 0 --threads 1 --output-tokens 16 \
    --max-connections 8192 >"$log" &
pids+=($!)
for _ in $(seq 100); do grep -q listening "$log" && break; sleep 0.1; done
upstream="$(sed -n 's|.*listening on http://||p' "$log")"
port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
n="$out/nginx"
cat >"$n/nginx.conf" <<CONF
daemon off;
master_process off;
worker_processes 1;
pid $n/nginx.pid;
error_log $n/error.log warn;
events { worker_connections 4096; }
http {
  log_format reuse '\$ssl_session_reused \$ssl_protocol';
  client_body_temp_path $n/tmp; proxy_temp_path $n/tmp; fastcgi_temp_path $n/tmp;
  uwsgi_temp_path $n/tmp; scgi_temp_path $n/tmp;
  upstream mock { server $upstream; keepalive 64; }
  server {
    listen 127.0.0.1:$port ssl;
    ssl_certificate $n/server.crt;
    ssl_certificate_key $n/server.key;
    ssl_protocols TLSv1.2 TLSv1.3;
    ssl_session_cache shared:bench:4m;
    keepalive_requests 1;
    access_log $n/access.log reuse;
    location / { proxy_pass http://mock; proxy_http_version 1.1; proxy_set_header Connection ""; }
  }
}
CONF
taskset -c "$server_cpu" nginx -p "$n/" -c "$n/nginx.conf" -e "$n/error.log" &
pids+=($!)
for _ in $(seq 100); do (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break; sleep 0.1; done

# run NAME [ENV...]: one ringperf run; prints "name req/s cpu_s_per_1000 resumed/total".
run() {
    local name="$1"
    shift
    : >"$n/access.log"
    env "$@" /usr/bin/time -f "%U %S" -o "$out/$name.time" taskset -c "$client_cpu" \
        "$ringperf" profile -m bench --url "https://localhost:$port" --tls-ca "$n/ca.crt" \
        --request-count "$requests" --concurrency "$conns" --workers-max 1 --osl 16 \
        --ui-type none --export-level summary --artifact-dir "$out/$name" >"$out/$name.txt" 2>&1
    local rps cpu resumed total
    rps="$(sed -n 's/.*Request Throughput (requests\/sec) *│ *\([0-9.,]*\).*/\1/p' \
        "$out/$name.txt" | tr -d ,)"
    cpu="$(awk -v n="$requests" '{printf "%.3f", ($1 + $2) * 1000 / n}' "$out/$name.time")"
    total="$(wc -l <"$n/access.log")"
    resumed="$(grep -c '^r ' "$n/access.log" || true)"
    printf '%-22s %10s %14s %10s/%s\n' "$name" "$rps" "$cpu" "$resumed" "$total"
}

{
    printf '%-22s %10s %14s %12s\n' "run" "req/s" "cpu_s/1000req" "resumed"
    run resumption RINGPERF_TLS_NO_RESUMPTION=0
    run no-resumption RINGPERF_TLS_NO_RESUMPTION=1
} | tee "$out/summary.txt"
