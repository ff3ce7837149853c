#!/usr/bin/env bash
# Side-by-side CPU per request of wrk and one or more ringperf builds, interleaved round by round
# on one mock server, for comparing two versions of ringperf (the machine drifts by up to 10%
# between minutes, so only interleaved runs are compared).
#
# Usage: bench/ab.sh ROUNDS RINGPERF_BINARY...
#   environment: AB_REQUESTS (default 300000), AB_EXPORT_LEVEL (summary), AB_CONNECTIONS (64)
# Prints, per client, the median and every round's task-clock microseconds per request, and for
# each ringperf build the median of its per-round ratios to wrk (each round's ringperf run against
# the wrk run just before it: the pairs share the machine's state of that minute).
set -euo pipefail
rounds="${1:?usage: bench/ab.sh ROUNDS RINGPERF_BINARY...}"
shift
[ "$#" -gt 0 ] || { echo "bench/ab.sh: name at least one ringperf binary" >&2; exit 2; }
requests="${AB_REQUESTS:-300000}"
level="${AB_EXPORT_LEVEL:-summary}"
conns="${AB_CONNECTIONS:-64}"
out="$(mktemp -d /tmp/ringperf-ab-XXXXXX)"
cpus="$(nproc)"
server_cpu=$((cpus > 1 ? 1 : 0))
taskset -c "$server_cpu" "$1" mock-server --port 0 --threads 1 --output-tokens 16 \
    --max-connections 8192 >"$out/mock.log" 2>&1 &
mock_pid=$!
trap 'kill "$mock_pid" 2>/dev/null; wait "$mock_pid" 2>/dev/null || true; rm -rf "$out"' EXIT
for _ in $(seq 100); do grep -q listening "$out/mock.log" && break; sleep 0.1; done
url="$(sed -n 's|.*listening on http://||p' "$out/mock.log")"
body='{"messages":[{"role":"user","content":"tell me about rivers and mountains"}],"model":"bench","stream":false,"max_completion_tokens":16}'
printf 'wrk.method = "POST"\nwrk.body = %s\nwrk.headers["Content-Type"] = "application/json"\n' \
    "'$body'" >"$out/post.lua"

# per_request ROUND LABEL STATFILE COUNT: appends "LABEL microseconds ROUND" from perf's
# task-clock (ms).
per_request() {
    awk -F, -v r="$1" -v l="$2" -v n="$4" \
        '$3 == "task-clock" {printf "%s %.3f %d\n", l, $1 * 1000 / n, r}' "$3"
}

for round in $(seq "$rounds"); do
    perf stat -x, -e task-clock -o "$out/wrk.stat" -- taskset -c 0 \
        wrk -t1 -c"$conns" -d2s -s "$out/post.lua" "http://$url/v1/chat/completions" >"$out/wrk.txt"
    per_request "$round" wrk "$out/wrk.stat" "$(awk '/requests in/ {print $1}' "$out/wrk.txt")" \
        >>"$out/results"
    for build in "$@"; do
        perf stat -x, -e task-clock -o "$out/rp.stat" -- taskset -c 0 "$build" profile -m bench \
            --url "$url" --endpoint-type chat --concurrency "$conns" --request-count "$requests" \
            --osl 16 --workers-max 1 --isl 6 --random-seed 1 --export-level "$level" \
            --artifact-dir "$out/artifacts" >/dev/null 2>&1
        per_request "$round" "$build" "$out/rp.stat" "$requests" >>"$out/results"
    done
done
sort -k1,1 -k2,2n "$out/results" | awk '{
    n[$1]++; v[$1, n[$1]] = $2; all[$1] = all[$1] " " $2
} END {
    for (k in n) printf "%-40s median %.2f us/request  rounds:%s\n", k, v[k, int((n[k] + 1) / 2)], all[k]
}'
# Paired ratios: each ringperf round over the wrk round it followed.
awk '$1 == "wrk" { w[$3] = $2 } $1 != "wrk" { print $1, $2 / w[$3] }' "$out/results" |
    sort -k1,1 -k2,2n | awk '{
    n[$1]++; v[$1, n[$1]] = $2; all[$1] = all[$1] sprintf(" %.3f", $2)
} END {
    for (k in n) printf "%-40s median ratio to wrk %.3f  rounds:%s\n", k, v[k, int((n[k] + 1) / 2)], all[k]
}'
