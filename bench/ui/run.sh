#!/usr/bin/env bash
# The terminal dashboard's CPU cost at UI_REDRAW_HZ (10 frames a second, every one a full redraw
# of a busy run's snapshot) on a pseudo-terminal, at 200x50 and 80x24. Issue 25 asks for at most
# 1% of a core.
# Usage: bench/ui/run.sh [SECONDS]   (default 10 per size). Output also in bench/out/ui.txt.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
seconds="${1:-10}"
build="$root/build-bench-ui"
out="$root/bench/out"
mkdir -p "$out"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DRINGPERF_TESTS=OFF >/dev/null
cmake --build "$build" --target ringperf_ui -j "$(nproc)" >/dev/null
cc -O2 -D_GNU_SOURCE -I"$root" -o "$build/bench_ui" "$root/bench/ui/bench_ui.c" \
    "$build/ui/libringperf_ui.a" "$build/api/libringperf_api.a" \
    "$build/metrics/libringperf_metrics.a" "$build/tokenizer/libringperf_tokenizer.a" \
    "$build/record/libringperf_record.a" "$build/scrape/libringperf_scrape.a" -lmicrohttpd -ljansson -lpcre2-8 -lutf8proc -lpthread -lm
{
    echo "terminal dashboard CPU ($(nproc) CPUs, $(date -u +%Y-%m-%dT%H:%MZ))"
    "$build/bench_ui" "$seconds" 200 50
    "$build/bench_ui" "$seconds" 80 24
} | tee "$out/ui.txt"
