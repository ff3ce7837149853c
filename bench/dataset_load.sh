#!/usr/bin/env bash
# Loading a large --input-file: wall time and peak RSS of a short run on a 1,000,000-line
# single_turn JSONL file, against the same run on a 1,000-line file (the difference is what
# loading the dataset costs).
#
# The run sends --request-count 1000 requests (closed loop, concurrency 8) to the mock server, so
# almost all of its time and memory is the dataset: reading and parsing every line, and building
# the request bodies the run sends. Results are appended to bench/DATASETS.md.
#
# Usage: bench/dataset_load.sh [LINES] [REQUESTS]   (defaults 1000000 and 1000)
# RINGPERF_BINARY=path picks the binary (default build-bench/cli/ringperf, built unless
# RINGPERF_BENCH_NO_BUILD=1); RINGPERF_BENCH_NOTE=text fills the row's note column;
# RINGPERF_BENCH_SAMPLING=sequential|random|shuffle sets --dataset-sampling-strategy (random and
# shuffle draw from the whole file, so they read all of it).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
lines="${1:-1000000}"
requests="${2:-1000}"
if [ -z "${RINGPERF_BINARY:-}" ] && [ "${RINGPERF_BENCH_NO_BUILD:-0}" != 1 ]; then
    RINGPERF_BUILD_DIR="$root/build-bench" "$root/scripts/build.sh" \
        -DCMAKE_BUILD_TYPE=Release >/dev/null
fi
ringperf="${RINGPERF_BINARY:-$root/build-bench/cli/ringperf}"
out="$root/bench/out/dataset_load"
rm -rf "$out"
mkdir -p "$out"

# gen N FILE: N single_turn records of 24-40 words each (~200 bytes a line), deterministic.
gen() {
    awk -v n="$1" 'BEGIN {
        split("alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike " \
              "november oscar papa quebec romeo sierra tango uniform victor whiskey xray", w, " ")
        for (i = 0; i < n; i++) {
            k = 24 + i % 17
            s = ""
            for (j = 0; j < k; j++) s = s (j ? " " : "") w[1 + (i * 7 + j * 13) % 24]
            printf("{\"text\": \"%d %s\"}\n", i, s)
        }
    }' >"$2"
}
gen "$lines" "$out/big.jsonl"
gen 1000 "$out/small.jsonl"

mock_pid=""
cleanup() {
    if [ -n "$mock_pid" ]; then
        kill "$mock_pid" 2>/dev/null || true
        wait "$mock_pid" 2>/dev/null || true
    fi
}
trap cleanup EXIT
"$ringperf" mock-server --port 0 >"$out/mock.log" 2>&1 &
mock_pid=$!
port=""
for _ in $(seq 1 100); do
    port="$(sed -n 's/.*127\.0\.0\.1:\([0-9]*\).*/\1/p' "$out/mock.log" | head -1)"
    [ -n "$port" ] && break
    sleep 0.1
done
[ -n "$port" ] || { echo "mock server did not start" >&2; exit 1; }

# run NAME FILE: prints "seconds rss_mib" of one profile run.
run() {
    /usr/bin/time -f "%e %M" -o "$out/$1.time" "$ringperf" profile --model m \
        --url "127.0.0.1:$port" --input-file "$2" --custom-dataset-type single_turn \
        --request-count "$requests" --concurrency 8 --ui-type none \
        --dataset-sampling-strategy "${RINGPERF_BENCH_SAMPLING:-sequential}" \
        --artifact-dir "$out/$1" >"$out/$1.log" 2>&1
    awk '{ printf("%.2f %.0f\n", $1, $2 / 1024) }' "$out/$1.time"
}
read -r small_s small_mib < <(run small "$out/small.jsonl")
read -r big_s big_mib < <(run big "$out/big.jsonl")
file_mib="$(du -m "$out/big.jsonl" | cut -f1)"
sent="$(wc -l <"$out/big/profile_export.jsonl")"

commit="$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)"
dirty="$(git -C "$root" status --porcelain 2>/dev/null | grep -q . && echo ' + local changes' || true)"
results="$root/bench/DATASETS.md"
if [ ! -f "$results" ]; then
    cat >"$results" <<'EOF'
# Dataset loading

Appended by `bench/dataset_load.sh`; do not edit by hand. Each row is one run of
`ringperf profile --input-file FILE --custom-dataset-type single_turn --request-count R
--concurrency 8` against the mock server, timed with GNU time (wall seconds, peak RSS).
"load" is the big file's run minus the 1,000-line file's run.

| date (UTC) | commit | note | lines | file MiB | requests sent | wall s (1k lines) | wall s (big) | load s | peak RSS MiB (1k lines) | peak RSS MiB (big) |
|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|
EOF
fi
load_s="$(awk -v a="$big_s" -v b="$small_s" 'BEGIN { printf("%.2f", a - b) }')"
printf '| %s | %s%s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' \
    "$(date -u '+%Y-%m-%d %H:%M')" "$commit" "$dirty" \
    "${RINGPERF_BENCH_NOTE:-}${RINGPERF_BENCH_NOTE:+; }${RINGPERF_BENCH_SAMPLING:-sequential}" "$lines" \
    "$file_mib" "$sent" \
    "$small_s" "$big_s" "$load_s" "$small_mib" "$big_mib" >>"$results"
tail -1 "$results"
