#!/usr/bin/env bash
# Builds the libFuzzer targets with clang and runs each one.
# Usage: scripts/fuzz.sh [RUNS]       (default 20000 runs per target; or set FUZZ_SECONDS for a timed run)
# FUZZ_ONLY=fuzz_evs_parser (a target's name, or a glob) builds and runs only the targets it names.
# A smoke run also stops a target after FUZZ_SMOKE_SECONDS (60): the targets that talk to a real
# server over loopback (fuzz_api_requests) or write a merge (fuzz_cluster_merge) run tens of inputs
# a second, not thousands.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build_dir="$root/build-fuzz"
runs="${1:-20000}"
CC=clang cmake -S "$root" -B "$build_dir" -DRINGPERF_FUZZ=ON -DRINGPERF_TESTS=OFF -DCMAKE_BUILD_TYPE=Debug >/dev/null
only="${FUZZ_ONLY:-fuzz_*}"
if [ -n "${FUZZ_ONLY:-}" ] && [[ "$only" != *"*"* ]]; then
    cmake --build "$build_dir" -j "$(nproc)" --target "$only" >/dev/null
else
    cmake --build "$build_dir" -j "$(nproc)" >/dev/null
fi
shopt -s nullglob
for target in "$build_dir"/tests/fuzz/$only; do
    [ -x "$target" ] || continue
    name="$(basename "$target")"
    corpus="$build_dir/corpus/$name"
    mkdir -p "$corpus"
    seeds=()
    [ -d "$root/tests/fuzz/seeds/$name" ] && seeds=("$root/tests/fuzz/seeds/$name")
    if [ -n "${FUZZ_SECONDS:-}" ]; then
        "$target" -max_total_time="$FUZZ_SECONDS" "$corpus" "${seeds[@]}" 2>&1 | tail -n 2
    else
        "$target" -runs="$runs" -max_total_time="${FUZZ_SMOKE_SECONDS:-60}" "$corpus" "${seeds[@]}" 2>&1 | tail -n 1
    fi
    echo "fuzz $name: ok"
done
