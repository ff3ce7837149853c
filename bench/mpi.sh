#!/usr/bin/env bash
# bench/mpi.sh - one ringperf process against two MPI ranks (issue 10), side by side on this
# machine: requests/s and SSE events/s of the same streaming load against the mock server.
#
# Usage: bench/mpi.sh [SECONDS] [CONCURRENCY] [RINGPERF]   (defaults 10, 64, build-bench's binary)
# The mock sends one token per SSE event, so events/s is the output token throughput. The server
# shares this machine's cores with the clients: read the ratio, not the absolute numbers.
# Loopback only. Every process started here is stopped on exit.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
seconds="${1:-10}"
concurrency="${2:-64}"
ringperf="${3:-$root/build-bench/cli/ringperf}"
out="$root/bench/out/mpi"
mpirun_flags=(--oversubscribe --allow-run-as-root --bind-to none)

if [ ! -x "$ringperf" ]; then
    cmake -S "$root" -B "$root/build-bench" -DCMAKE_BUILD_TYPE=Release -DRINGPERF_WERROR=ON >/dev/null
    cmake --build "$root/build-bench" -j "$(nproc)" --target ringperf >/dev/null
fi
command -v mpirun >/dev/null || { echo "bench/mpi.sh: mpirun not found (apt-get install openmpi-bin)"; exit 1; }
rm -rf "$out"
mkdir -p "$out"

server_pid=""
cleanup() {
    if [ -n "$server_pid" ]; then
        kill "$server_pid" 2>/dev/null || true
        wait "$server_pid" 2>/dev/null || true
    fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

"$ringperf" mock-server --port 0 --ttft-ms 1 --itl-ms 0 --tokens-per-chunk 1 --output-tokens 64 \
    >"$out/mock.out" 2>&1 &
server_pid=$!
for _ in $(seq 50); do
    grep -q ':[0-9]' "$out/mock.out" 2>/dev/null && break
    sleep 0.1
done
port="$(head -1 "$out/mock.out" | sed 's/.*://')"

profile=(profile --model bench --url "127.0.0.1:$port" --endpoint-type chat --streaming
    --osl 64 --concurrency "$concurrency" --benchmark-duration "$seconds" --random-seed 1
    --export-level summary)

# summarise NAME DIR: requests/s and events/s from the run's JSON summary.
summarise() {
    python3 - "$1" "$2/profile_export_aiperf.json" <<'PY'
import json, sys
name, path = sys.argv[1], sys.argv[2]
d = json.load(open(path))
rps = d["request_throughput"]["avg"]
tps = d["output_token_throughput"]["avg"]
print(f"{name}\t{rps:.1f}\t{tps:.1f}")
PY
}

"$ringperf" "${profile[@]}" --artifact-dir "$out/one" >"$out/one.txt" 2>&1
mpirun -np 2 "${mpirun_flags[@]}" "$ringperf" "${profile[@]}" --artifact-dir "$out/two" \
    >"$out/two.txt" 2>&1

{
    printf 'setup\trequests/s\tevents/s\n'
    summarise "1 process" "$out/one"
    summarise "2 MPI ranks" "$out/two"
} | tee "$out/results.tsv" | column -t -s "$(printf '\t')"
echo "(concurrency $concurrency, ${seconds}s each, $(nproc) CPUs shared with the mock server; raw output in $out)"
