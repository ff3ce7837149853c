#!/usr/bin/python3
"""Reference Python client for bench/suite.sh: the peer ringperf is measured against.

It reads streams the way AIPerf's workers and vLLM's benchmark_serving do: aiohttp on an asyncio
event loop (uvloop), each network chunk stamped with time.perf_counter_ns() (CLOCK_MONOTONIC on
Linux, the same clock as the mock's token log and ringperf's perf_ns), split into SSE messages,
and every message's data parsed with json.loads. Open-loop pacing is AIPerf's: sleep on the event
loop until the request's due time, then start it as a task.

Modes (all loopback, all bounded in time):
  stream  --url URL --concurrency N --requests K --osl T [--tokens-out FILE]
          K streaming chat completions, N in flight. With --tokens-out, writes one JSON line per
          request: {"id": X-Request-ID, "arrivals": [perf_counter_ns of each content event]}.
  rate    --url URL --rate R --duration S --concurrency N
          open loop, non-streaming: request k is due at start + k / R for S seconds; reports the
          lag of each send start behind its due time.
Prints one JSON summary line on stdout.
"""
import argparse
import asyncio
import json
import sys
import time
import uuid

import aiohttp
import uvloop

WAIT_AFTER_S = 30.0  # longest wait for in-flight requests after the last one was started
RATE_GRACE_S = 5.0  # rate mode: requests not started this long after the window are abandoned


def payload(osl, stream):
    return {
        "model": "bench",
        "messages": [{"role": "user", "content": "tell me about rivers and mountains"}],
        "max_completion_tokens": osl,
        "stream": stream,
    }


def percentile(sorted_values, p):
    if not sorted_values:
        return None
    idx = min(len(sorted_values) - 1, max(0, int(round(p / 100.0 * len(sorted_values) + 0.5)) - 1))
    return sorted_values[idx]


async def read_stream(resp):
    """Returns the perf_counter_ns arrival of every content event, as AIPerf stamps them."""
    arrivals = []
    pending = b""
    async for chunk in resp.content.iter_any():
        now_ns = time.perf_counter_ns()
        pending += chunk
        while True:
            end = pending.find(b"\n\n")
            if end < 0:
                break
            message, pending = pending[:end], pending[end + 2:]
            for line in message.split(b"\n"):
                if not line.startswith(b"data:"):
                    continue
                data = line[5:].strip()
                if data == b"[DONE]":
                    continue
                obj = json.loads(data)
                choices = obj.get("choices") or []
                if choices and (choices[0].get("delta") or {}).get("content"):
                    arrivals.append(now_ns)
    return arrivals


async def one_stream(session, url, body, tokens, counters):
    rid = str(uuid.uuid4())
    headers = {"X-Request-ID": rid, "Accept": "text/event-stream"}
    async with session.post(url, json=body, headers=headers) as resp:
        if resp.status != 200:
            counters["errors"] += 1
            await resp.read()
            return
        arrivals = await read_stream(resp)
    counters["events"] += len(arrivals)
    counters["ok"] += 1
    if tokens is not None:
        tokens.append({"id": rid, "arrivals": arrivals})


async def run_stream(args):
    url = args.url.rstrip("/") + "/v1/chat/completions"
    body = payload(args.osl, True)
    counters = {"ok": 0, "errors": 0, "events": 0}
    tokens = [] if args.tokens_out else None
    next_index = 0

    async def worker(session):
        nonlocal next_index
        while next_index < args.requests:
            next_index += 1
            try:
                await one_stream(session, url, body, tokens, counters)
            except (aiohttp.ClientError, asyncio.TimeoutError, ValueError):
                counters["errors"] += 1

    connector = aiohttp.TCPConnector(limit=args.concurrency)
    timeout = aiohttp.ClientTimeout(total=WAIT_AFTER_S)
    start = time.perf_counter_ns()
    async with aiohttp.ClientSession(connector=connector, timeout=timeout) as session:
        await asyncio.gather(*(worker(session) for _ in range(args.concurrency)))
    elapsed_s = (time.perf_counter_ns() - start) / 1e9
    if tokens is not None:
        with open(args.tokens_out, "w") as f:
            for t in tokens:
                f.write(json.dumps(t) + "\n")
    counters["elapsed_s"] = elapsed_s
    counters["events_per_s"] = counters["events"] / elapsed_s if elapsed_s > 0 else 0
    return counters


async def run_rate(args):
    url = args.url.rstrip("/") + "/v1/chat/completions"
    body = payload(args.osl, False)
    counters = {"ok": 0, "errors": 0}
    lags_ns = []
    tasks = set()

    # A request leaves when a connection is free, as in ringperf: its lag is measured then.
    free = asyncio.Semaphore(args.concurrency)

    async def send(due_ns):
        async with free:
            lags_ns.append(time.perf_counter_ns() - due_ns)
            try:
                async with session.post(url, json=body) as resp:
                    await resp.read()
                    counters["ok" if resp.status == 200 else "errors"] += 1
            except (aiohttp.ClientError, asyncio.TimeoutError):
                counters["errors"] += 1

    connector = aiohttp.TCPConnector(limit=args.concurrency)
    timeout = aiohttp.ClientTimeout(total=WAIT_AFTER_S)
    async with aiohttp.ClientSession(connector=connector, timeout=timeout) as session:
        start_ns = time.perf_counter_ns()
        end_ns = start_ns + int(args.duration * 1e9)
        period_ns = 1e9 / args.rate
        give_up_ns = end_ns + int(RATE_GRACE_S * 1e9)
        k = 0
        while True:
            due_ns = start_ns + int(k * period_ns)
            if due_ns >= end_ns or time.perf_counter_ns() >= give_up_ns:
                break
            wait_ns = due_ns - time.perf_counter_ns()
            # A late pacer still yields, so that started requests make progress.
            await asyncio.sleep(max(wait_ns, 0) / 1e9)
            task = asyncio.ensure_future(send(due_ns))
            tasks.add(task)
            task.add_done_callback(tasks.discard)
            k += 1
        if tasks:
            await asyncio.wait(tasks, timeout=RATE_GRACE_S)
            for task in list(tasks):
                task.cancel()
    lags_ns.sort()
    counters["scheduled"] = int(args.duration * args.rate)
    counters["sent"] = len(lags_ns)
    counters["lag_us"] = {
        "p50": percentile(lags_ns, 50) / 1e3 if lags_ns else None,
        "p99": percentile(lags_ns, 99) / 1e3 if lags_ns else None,
        "max": lags_ns[-1] / 1e3 if lags_ns else None,
    }
    return counters


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("mode", choices=["stream", "rate"])
    parser.add_argument("--url", required=True, help="http://HOST:PORT")
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--requests", type=int, default=100)
    parser.add_argument("--osl", type=int, default=16)
    parser.add_argument("--tokens-out")
    parser.add_argument("--rate", type=float, default=1000.0)
    parser.add_argument("--duration", type=float, default=5.0)
    args = parser.parse_args()
    if not args.url.startswith("http"):
        args.url = "http://" + args.url
    uvloop.install()
    result = asyncio.run(run_stream(args) if args.mode == "stream" else run_rate(args))
    json.dump(result, sys.stdout)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
