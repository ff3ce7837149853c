#!/usr/bin/env bash
# ringperf against wrk on the same mock server, side by side in one run.
#
# Scenario 1 (non-streaming): both clients send the same chat-completions POST over the same
# number of keep-alive connections, one client core each, to a mock server pinned to the other
# core. Reported: requests/s and client CPU seconds per 1,000 requests, and their ratios.
# Scenario 2 (streaming): ringperf's client CPU per 1,000 SSE events.
#
# Usage: bench/run.sh [SECONDS_PER_CLIENT] [CONNECTIONS]   (defaults 10 and 64)
#   environment: RINGPERF_BENCH_ROUNDS (3): interleaved rounds of the non-streaming clients;
#   RINGPERF_BENCH_NO_BUILD=1 uses build-bench/ as it is.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
seconds="${1:-10}"
conns="${2:-64}"
"$root/scripts/install-deps.sh"
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk time >/dev/null
if [ "${RINGPERF_BENCH_NO_BUILD:-0}" != 1 ]; then
    RINGPERF_BUILD_DIR="$root/build-bench" "$root/scripts/build.sh" -DCMAKE_BUILD_TYPE=Release >/dev/null
fi
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
# throughput FILE: the Request Throughput figure of a ringperf console table.
throughput() {
    awk '/Request Throughput/ {gsub(",", "", $0); for (i = 1; i <= NF; i++) if ($i ~ /^[0-9.]+$/) {print $i; exit}}' "$1"
}

# run_ringperf NAME COUNT [ARGS...]: one non-streaming ringperf run; appends
# "NAME requests/s CPU-seconds-per-1000" to the rounds file.
run_ringperf() {
    local name="$1" count="$2"
    shift 2
    /usr/bin/time -o "$out/$name.time" -f '%U %S %e' taskset -c "$client_cpu" \
        "$ringperf" profile -m bench --url "$url" --endpoint-type chat --concurrency "$conns" \
        --request-count "$count" --osl 16 --workers-max 1 --isl 6 --random-seed 1 \
        --artifact-dir "$out/$name" "$@" >"$out/$name.txt" 2>/dev/null
    echo "$name $(throughput "$out/$name.txt") $(awk -v c="$(cpu_seconds "$out/$name.time")" \
        -v n="$count" 'BEGIN {printf "%.6f", 1000 * c / n}')" >>"$rounds_file"
}

# The machines these run on drift by several percent from one minute to the next, so the clients
# take turns, round after round, and the medians are compared.
rounds="${RINGPERF_BENCH_ROUNDS:-3}"
rounds_file="$out/rounds.txt"
: >"$rounds_file"
for _ in $(seq "$rounds"); do
    /usr/bin/time -o "$out/wrk.time" -f '%U %S' taskset -c "$client_cpu" \
        wrk -t1 -c"$conns" -d"${seconds}s" -s "$out/post.lua" "http://$url/v1/chat/completions" \
        >"$out/wrk.txt"
    wrk_requests="$(awk '/requests in/ {print $1}' "$out/wrk.txt")"
    wrk_rps="$(awk '/Requests\/sec/ {print $2}' "$out/wrk.txt")"
    echo "wrk $wrk_rps $(awk -v c="$(cpu_seconds "$out/wrk.time")" -v n="$wrk_requests" \
        'BEGIN {printf "%.6f", 1000 * c / n}')" >>"$rounds_file"
    # ringperf runs a fixed count sized from wrk's rate so both run about as long.
    count="$(awk -v r="$wrk_rps" -v s="$seconds" 'BEGIN {printf "%d", r * s}')"
    run_ringperf ringperf-nonstreaming "$count"
    # Without the per-request JSON lines (AIPerf's --export-level summary): what the engine
    # itself costs, next to what writing one record per request adds.
    run_ringperf ringperf-summary "$count" --export-level summary
done

stream_count=2000
stream_osl=256
/usr/bin/time -o "$out/stream.time" -f '%U %S %e' taskset -c "$client_cpu" \
    "$ringperf" profile -m bench --url "$url" --endpoint-type chat --streaming \
    --concurrency "$conns" --request-count "$stream_count" --osl "$stream_osl" --workers-max 1 \
    --isl 6 --random-seed 1 --artifact-dir "$out/ringperf-streaming" >"$out/stream.txt" 2>/dev/null
stream_cpu="$(cpu_seconds "$out/stream.time")"
events=$((stream_count * stream_osl))

# median NAME COLUMN: the median over the rounds of one client's requests/s (2) or CPU (3).
median() {
    awk -v n="$1" -v c="$2" '$1 == n {print $c}' "$rounds_file" | sort -g |
        awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'
}
awk -v wrps="$(median wrk 2)" -v wcpk="$(median wrk 3)" \
    -v rrps="$(median ringperf-nonstreaming 2)" -v rcpk="$(median ringperf-nonstreaming 3)" \
    -v srps="$(median ringperf-summary 2)" -v sspk="$(median ringperf-summary 3)" \
    -v ev="$events" -v scpu="$stream_cpu" -v conns="$conns" -v rounds="$rounds" 'BEGIN {
    printf "non-streaming, %d connections, one client core, medians of %d interleaved rounds\n", conns, rounds
    printf "  %-10s %12s %22s\n", "client", "requests/s", "CPU s / 1000 requests"
    printf "  %-10s %12.0f %22.5f\n", "wrk", wrps, wcpk
    printf "  %-10s %12.0f %22.5f   (per-request records written)\n", "ringperf", rrps, rcpk
    printf "  %-10s %12.0f %22.5f   (--export-level summary)\n", "ringperf", srps, sspk
    printf "  ratio ringperf/wrk: throughput %.2f, CPU per request %.2f (records), %.2f (summary)\n", rrps / wrps, rcpk / wcpk, sspk / wcpk
    printf "streaming: ringperf CPU s / 1000 SSE events: %.5f (%d events)\n", 1000 * scpu / ev, ev
}' | tee "$out/summary.txt"
echo "every round (client, requests/s, CPU s / 1000 requests):" | tee -a "$out/summary.txt"
sed 's/^/  /' "$rounds_file" | tee -a "$out/summary.txt"
