#!/usr/bin/env bash
# The mock's request-body reading speed on one core: the in-place reader beside the jansson
# reader it replaced, on chat bodies of 4 KiB to 16 MiB.
# Usage: bench/mock_body/run.sh [SECONDS]   (default 2 per reader and body; ~25 s in all).
# Output also in bench/out/mock_body.txt.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
seconds="${1:-2}"
build="$root/build-bench-mock-body"
out="$root/bench/out"
mkdir -p "$out"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DRINGPERF_TESTS=OFF >/dev/null
cmake --build "$build" --target ringperf_mock -j "$(nproc)" >/dev/null
cc -O2 -D_GNU_SOURCE -I"$root" -o "$build/bench_body" "$root/bench/mock_body/bench_body.c" \
    "$root/tests/mock/api_jansson.c" "$build/mock/libringperf_mock.a" \
    "$build/response/libringperf_response.a" "$build/evs/libringperf_evs.a" -ljansson -lz
{
    echo "mock body reading, one core ($(nproc) CPUs, $(date -u +%Y-%m-%dT%H:%MZ))"
    taskset -c 0 "$build/bench_body" "$seconds"
} | tee "$out/mock_body.txt"
