#!/usr/bin/env bash
# Installs the packages, builds ringperf, starts the mock server on loopback and
# runs a streaming chat benchmark against it.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/scripts/install-deps.sh"
"$root/scripts/build.sh"
ringperf="${RINGPERF_BUILD_DIR:-$root/build}/cli/ringperf"

log="$(mktemp)"
"$ringperf" mock-server --host 127.0.0.1 --port 0 --ttft-ms 50 --itl-ms 5 --threads 2 >"$log" &
mock_pid=$!
trap 'kill "$mock_pid" 2>/dev/null; wait "$mock_pid" 2>/dev/null; rm -f "$log"' EXIT
for _ in $(seq 100); do
    grep -q listening "$log" && break
    kill -0 "$mock_pid" 2>/dev/null || { echo "mock-server failed to start" >&2; exit 1; }
    sleep 0.1
done
url="$(sed -n 's|.*listening on http://||p' "$log")"

"$ringperf" profile --model Qwen/Qwen3-0.6B --url "$url" --endpoint-type chat \
    --endpoint /v1/chat/completions --streaming --concurrency 64 --request-count 2000 --osl 64
