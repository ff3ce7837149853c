#!/usr/bin/env bash
# ringperf against wrk on the same mock server, side by side in one run.
#
# Scenario 1 (non-streaming): both clients send the same chat-completions POST over the same
# number of keep-alive connections, one client core each, to a mock server pinned to the other
# core. Reported: requests/s and client CPU seconds per 1,000 requests, and their ratios.
# Scenario 2 (streaming): ringperf's client CPU per 1,000 SSE events.
#
# Usage: bench/run.sh [SECONDS_PER_CLIENT] [CONNECTIONS]   (defaults 10 and 64)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
seconds="${1:-10}"
conns="${2:-64}"
"$root/scripts/install-deps.sh"
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk time >/dev/null
RINGPERF_BUILD_DIR="$root/build-bench" "$root/scripts/build.sh" -DCMAKE_BUILD_TYPE=Release >/dev/null
ringperf="$root/build-bench/cli/ringperf"
out="$root/bench/out"
mkdir -p "$out"
cpus="$(nproc)"
client_cpu=0
server_cpu=$((cpus > 1 ? 1 : 0))

log="$out/mock.log"
taskset -c "$server_cpu" "$ringperf" mock-server --port 0 --threads 1 --output-tokens 16 \
    --max-connections 8192 >"$log" &
mock_pid=$!
trap 'kill "$mock_pid" 2>/dev/null; wait "$mock_pid" 2>/dev/null || true' EXIT
for _ in $(seq 100); do grep -q listening "$log" && break; sleep 0.1; done
url="$(sed -n 's|.*listening on http://||p' "$log")"

body='{"messages":[{"role":"user","content":"tell me about rivers and mountains"}],"model":"bench","stream":false,"max_completion_tokens":16}'
cat >"$out/post.lua" <<LUA
wrk.method = "POST"
wrk.body = '$body'
wrk.headers["Content-Type"] = "application/json"
LUA

# cpu_seconds FILE: user+system seconds from GNU time's "%U %S" line.
cpu_seconds() { awk '{print $1 + $2}' "$1"; }

/usr/bin/time -o "$out/wrk.time" -f '%U %S' taskset -c "$client_cpu" \
    wrk -t1 -c"$conns" -d"${seconds}s" -s "$out/post.lua" "http://$url/v1/chat/completions" \
    >"$out/wrk.txt"
wrk_requests="$(awk '/requests in/ {print $1}' "$out/wrk.txt")"
wrk_rps="$(awk '/Requests\/sec/ {print $2}' "$out/wrk.txt")"
wrk_cpu="$(cpu_seconds "$out/wrk.time")"

# ringperf runs a fixed count sized from wrk's rate so both run about as long.
count="$(awk -v r="$wrk_rps" -v s="$seconds" 'BEGIN {printf "%d", r * s}')"
/usr/bin/time -o "$out/ringperf.time" -f '%U %S %e' taskset -c "$client_cpu" \
    "$ringperf" profile -m bench --url "$url" --endpoint-type chat --concurrency "$conns" \
    --request-count "$count" --osl 16 --workers-max 1 --isl 6 --random-seed 1 \
    --artifact-dir "$out/ringperf-nonstreaming" >"$out/ringperf.txt" 2>/dev/null
rp_cpu="$(cpu_seconds "$out/ringperf.time")"
rp_rps="$(awk '/Request Throughput/ {gsub(",", "", $0); for (i = 1; i <= NF; i++) if ($i ~ /^[0-9.]+$/) {print $i; exit}}' "$out/ringperf.txt")"

# The same run without the per-request JSON lines (AIPerf's --export-level summary): what the
# engine itself costs, next to what writing one record per request adds.
/usr/bin/time -o "$out/ringperf-summary.time" -f '%U %S %e' taskset -c "$client_cpu" \
    "$ringperf" profile -m bench --url "$url" --endpoint-type chat --concurrency "$conns" \
    --request-count "$count" --osl 16 --workers-max 1 --isl 6 --random-seed 1 \
    --export-level summary --artifact-dir "$out/ringperf-summary" >"$out/ringperf-summary.txt" 2>/dev/null
rs_cpu="$(cpu_seconds "$out/ringperf-summary.time")"
rs_rps="$(awk '/Request Throughput/ {gsub(",", "", $0); for (i = 1; i <= NF; i++) if ($i ~ /^[0-9.]+$/) {print $i; exit}}' "$out/ringperf-summary.txt")"

stream_count=2000
stream_osl=256
/usr/bin/time -o "$out/stream.time" -f '%U %S %e' taskset -c "$client_cpu" \
    "$ringperf" profile -m bench --url "$url" --endpoint-type chat --streaming \
    --concurrency "$conns" --request-count "$stream_count" --osl "$stream_osl" --workers-max 1 \
    --isl 6 --random-seed 1 --artifact-dir "$out/ringperf-streaming" >"$out/stream.txt" 2>/dev/null
stream_cpu="$(cpu_seconds "$out/stream.time")"
events=$((stream_count * stream_osl))

awk -v wr="$wrk_requests" -v wrps="$wrk_rps" -v wcpu="$wrk_cpu" \
    -v rc="$count" -v rrps="$rp_rps" -v rcpu="$rp_cpu" -v srps="$rs_rps" -v scpu_s="$rs_cpu" \
    -v ev="$events" -v scpu="$stream_cpu" -v conns="$conns" 'BEGIN {
    wcpk = 1000 * wcpu / wr; rcpk = 1000 * rcpu / rc; sspk = 1000 * scpu_s / rc
    printf "non-streaming, %d connections, one client core\n", conns
    printf "  %-10s %12s %22s\n", "client", "requests/s", "CPU s / 1000 requests"
    printf "  %-10s %12.0f %22.4f\n", "wrk", wrps, wcpk
    printf "  %-10s %12.0f %22.4f   (per-request records written)\n", "ringperf", rrps, rcpk
    printf "  %-10s %12.0f %22.4f   (--export-level summary)\n", "ringperf", srps, sspk
    printf "  ratio ringperf/wrk: throughput %.2f, CPU per request %.2f (records), %.2f (summary)\n", rrps / wrps, rcpk / wcpk, sspk / wcpk
    printf "streaming: ringperf CPU s / 1000 SSE events: %.4f (%d events)\n", 1000 * scpu / ev, ev
}' | tee "$out/summary.txt"
