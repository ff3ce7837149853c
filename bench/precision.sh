#!/usr/bin/env bash
# bench/precision.sh - inter-token timing error per precision mode (issue 20, part 3).
#
# The mock server (CPU 1, `--token-log`) logs the CLOCK_MONOTONIC instant it hands each token to
# the kernel; bench/analyze.py matches every token the client recorded against it. The gap error
# is |measured inter-token gap - true gap|. Each mode runs the same streaming load with ringperf
# beside the server on this machine, its shard pinned to CPU 0:
#   plain      ringperf as a normal process
#   chrt       the whole process under `chrt -f 10` (the reference of issue 20)
#   realtime   --realtime-priority 10 (SCHED_FIFO shards, other threads on CPU 1, memory locked)
# Each mode runs REPEATS times, interleaved, so that the machine's other load falls on all alike.
#
# Usage: bench/precision.sh [REPEATS] [STREAMS]   (defaults 3 and 100)
# Environment: RINGPERF_BINARY (default build-bench/cli/ringperf, built here unless
# RINGPERF_BENCH_NO_BUILD=1); RINGPERF_PRECISION_MODES="plain realtime" runs a subset.
# Writes bench/out/precision/results.tsv (suite keys s9.*) and prints the table (Markdown).
# Needs root (or CAP_SYS_NICE and CAP_IPC_LOCK) for the chrt and realtime modes to mean anything.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
repeats="${1:-3}"
streams="${2:-100}"
osl=32
itl_ms=5
requests=$((streams * 8)) # 8 rounds of streams: about 8 x 32 x 5 ms = 1.3 s a run
out="${RINGPERF_PRECISION_OUT:-$root/bench/out/precision}"
py=/usr/bin/python3
ringperf="${RINGPERF_BINARY:-$root/build-bench/cli/ringperf}"
server_cpu=$(($(nproc) > 1 ? 1 : 0))
modes="${RINGPERF_PRECISION_MODES:-plain chrt realtime}"

if [ -z "${RINGPERF_BINARY:-}" ] && [ "${RINGPERF_BENCH_NO_BUILD:-0}" != 1 ]; then
    cmake -S "$root" -B "$root/build-bench" -DCMAKE_BUILD_TYPE=Release -DRINGPERF_WERROR=ON >/dev/null
    cmake --build "$root/build-bench" -j "$(nproc)" --target ringperf >/dev/null
fi
rm -rf "$out"
mkdir -p "$out"
results="$out/results.tsv"
: >"$results"
server_pid=""
# stop_server stops the mock, which flushes its token log; on exit too.
stop_server() {
    [ -z "$server_pid" ] || kill "$server_pid" 2>/dev/null || true
    [ -z "$server_pid" ] || wait "$server_pid" 2>/dev/null || true
    server_pid=""
}
trap stop_server EXIT
trap 'exit 130' INT TERM
server_nice=()
[ "$(id -u)" -eq 0 ] && server_nice=(nice -n -10)

# client_command MODE: the client's prefix and extra flags for MODE, into prefix and extra.
client_command() {
    prefix=(taskset -c "0,$server_cpu")
    extra=()
    case "$1" in
    plain) ;;
    chrt) prefix=(chrt -f 10 "${prefix[@]}") ;;
    realtime) extra=(--realtime-priority 10) ;;
    *) echo "unknown mode $1" >&2; exit 2 ;;
    esac
}

# one_run NAME MODE: the mock with a fresh token log, one client run, the errors.
one_run() {
    local name=$1 mode=$2 log="$out/$1.tokens.jsonl"
    "${server_nice[@]}" taskset -c "$server_cpu" "$ringperf" mock-server --port 0 --threads 1 \
        --itl-ms "$itl_ms" --token-log "$log" >"$out/$name.mock.log" 2>&1 &
    server_pid=$!
    for _ in $(seq 100); do
        grep -qs listening "$out/$name.mock.log" && break
        sleep 0.1
    done
    local url
    url="$(sed -n 's|.*listening on http://||p' "$out/$name.mock.log")"
    [ -n "$url" ] || { echo "mock-server did not start" >&2; exit 1; }
    client_command "$mode"
    # --workers-max 1: one shard, on CPU 0, in every mode; the coordinator goes to CPU 1.
    timeout 120 "${prefix[@]}" "$ringperf" profile -m bench --url "$url" --endpoint-type chat --streaming \
        --concurrency "$streams" --request-count "$requests" --osl "$osl" --isl 6 --workers-max 1 \
        --random-seed 1 --export-level raw --ui-type none --artifact-dir "$out/$name" "${extra[@]}" \
        >"$out/$name.txt" 2>&1 || echo "warning: $name failed (see $out/$name.txt)" >&2
    stop_server
    "$py" "$root/bench/analyze.py" tokens --log "$log" --ringperf "$out/$name/profile_export_raw.jsonl" \
        >"$out/$name.accuracy.json" 2>/dev/null || echo '{}' >"$out/$name.accuracy.json"
    rm -f "$log" "$out/$name/profile_export_raw.jsonl"
}

{
    echo "# bench/precision.sh $repeats $streams"
    echo "# mock: ${server_nice[*]} taskset -c $server_cpu ringperf mock-server --port 0 --threads 1 --itl-ms $itl_ms --token-log FILE"
} >"$out/commands.txt"
for mode in $modes; do
    client_command "$mode"
    echo "# $mode: ${prefix[*]} ringperf profile -m bench --url URL --endpoint-type chat --streaming --concurrency $streams --request-count $requests --osl $osl --isl 6 --workers-max 1 --random-seed 1 --export-level raw ${extra[*]}" >>"$out/commands.txt"
done
for r in $(seq "$repeats"); do
    for mode in $modes; do
        echo "== $mode, run $r of $repeats" >&2
        one_run "s9.$mode.$r" "$mode"
    done
done
printf 's9\tstreams\t%s\ns9\tosl\t%s\ns9\titl_ms\t%s\ns9\trepeats\t%s\ns9\tmodes\t%s\n' \
    "$streams" "$osl" "$itl_ms" "$repeats" "${modes// /,}" >>"$results"
"$py" - "$out" "$repeats" "$modes" >>"$results" <<'PY'
import json, os, statistics, sys
out, repeats, modes = sys.argv[1], int(sys.argv[2]), sys.argv[3].split()
for mode in modes:
    runs = []
    for r in range(1, repeats + 1):
        try:
            runs.append(json.load(open(os.path.join(out, f"s9.{mode}.{r}.accuracy.json"))))
        except (OSError, ValueError):
            pass
    runs = [x for x in runs if x.get("tokens")]
    shared = []
    for r in range(1, repeats + 1):
        try:
            t = json.load(open(os.path.join(out, f"s9.{mode}.{r}", "profile_export_aiperf.json")))
            t = t["run_info"]["ringperf_timing"]
            shared.append(t["shared_read_events"])
            print(f"s9.{mode}\tmode_recorded\t{t['precision']['mode']}")
        except (OSError, ValueError, KeyError):
            pass
    if shared:
        print(f"s9.{mode}\tshared_read_events\t{statistics.median(shared):.0f}")
    for key in ("gap_p50_us", "gap_p99_us", "gap_max_us", "delivery_p99_us", "ttft_p99_us"):
        values = [x[key] for x in runs]
        if values:
            print(f"s9.{mode}\t{key}\t{statistics.median(values):.1f}")
            print(f"s9.{mode}\t{key}_runs\t{' '.join(f'{v:.1f}' for v in values)}")
    print(f"s9.{mode}\truns\t{len(runs)}")
PY
"$py" "$root/bench/analyze.py" precision "$results" "$out/commands.txt"
