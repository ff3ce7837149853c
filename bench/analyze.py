#!/usr/bin/python3
"""Helpers of bench/suite.sh.

  tokens --log TOKENS.jsonl (--ringperf RAW.jsonl | --python PY.jsonl)
      Matches every token a client received against the mock's token log (same CLOCK_MONOTONIC)
      and prints JSON: the delivery error (arrival - send_ns), the TTFT error (the delivery error
      of each stream's first token: first-token arrival - the mock's send time of it) and the
      inter-token gap error (|measured gap - true gap|), p50/p99/max in microseconds, and the
      token count matched.
  report RESULTS.tsv MACHINE.txt COMMANDS.txt
      Renders bench/RESULTS.md (stdout) from the suite's results table.
  precision RESULTS.tsv COMMANDS.txt
      Renders bench/precision.sh's section (the s9 keys) alone, with its commands (stdout).
"""
import json
import sys
from collections import defaultdict


def pct(sorted_values, p):
    if not sorted_values:
        return float("nan")
    idx = min(len(sorted_values) - 1, max(0, int(p / 100.0 * len(sorted_values) + 0.5) - 1))
    return sorted_values[idx]


def load_token_log(path):
    sends = defaultdict(dict)
    with open(path) as f:
        for line in f:
            t = json.loads(line)
            sends[t["request_id"]][t["token"]] = t["send_ns"]
    return sends


def ringperf_arrivals(path):
    with open(path) as f:
        for line in f:
            rec = json.loads(line)
            rid = rec["metadata"]["x_request_id"]
            yield rid, [r["perf_ns"] for r in rec.get("responses") or [] if r.get("content")]


def python_arrivals(path):
    with open(path) as f:
        for line in f:
            rec = json.loads(line)
            yield rec["id"], rec["arrivals"]


def tokens(args):
    opts = dict(zip(args[0::2], args[1::2]))
    sends = load_token_log(opts["--log"])
    source = (ringperf_arrivals(opts["--ringperf"]) if "--ringperf" in opts
              else python_arrivals(opts["--python"]))
    delivery, gap, ttft = [], [], []
    for rid, arrivals in source:
        truth = sends.get(rid)
        if not truth:
            continue
        prev = None
        for k, arrival in enumerate(arrivals):
            if k not in truth:
                break
            delivery.append(arrival - truth[k])
            if k == 0:
                ttft.append(arrival - truth[0])
            if prev is not None:
                gap.append(abs((arrival - prev[0]) - (truth[k] - prev[1])))
            prev = (arrival, truth[k])
    delivery.sort()
    gap.sort()
    ttft.sort()
    # An arrival before the mock queued the token is impossible: it measures a wrong stamp.
    out = {"tokens": len(delivery), "before_send": sum(1 for d in delivery if d < 0)}
    for name, values in (("delivery", delivery), ("gap", gap), ("ttft", ttft)):
        for p in (50, 99):
            out[f"{name}_p{p}_us"] = pct(values, p) / 1e3
        out[f"{name}_max_us"] = (values[-1] / 1e3) if values else float("nan")
    json.dump(out, sys.stdout)
    sys.stdout.write("\n")


def fmt(v, digits=1):
    try:
        x = float(v)
    except (TypeError, ValueError):
        return str(v)
    if x != x:
        return "n/a"
    if abs(x) >= 1000:
        return f"{x:,.0f}"
    return f"{x:.{digits}f}"


def ratio(a, b):
    try:
        a, b = float(a), float(b)
        return f"{a / b:.2f}" if b != 0 else "n/a"
    except (TypeError, ValueError):
        return "n/a"


def read_results(path):
    res = {}
    with open(path) as f:
        for line in f:
            parts = line.rstrip("\n").split("\t")
            if len(parts) == 3:
                res[(parts[0], parts[1])] = parts[2]
    return res


def table(header, rows):
    lines = ["| " + " | ".join(header) + " |",
             "|" + "|".join(["---"] + ["---:"] * (len(header) - 1)) + "|"]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines)


def section_rate(res, sc, clients, peers):
    """Rows of requests/s and CPU per request, with ringperf/peer ratios."""
    g = lambda c, m: res.get((f"{sc}.{c}", m), "n/a")
    rows = [[c, fmt(g(c, "rps"), 0), fmt(g(c, "cpu_us_per_req"), 2)] for c in clients]
    for peer in peers:
        rows.append([f"**ringperf / {peer}**", "**" + ratio(g("ringperf", "rps"), g(peer, "rps")) + "**",
                     "**" + ratio(g("ringperf", "cpu_us_per_req"), g(peer, "cpu_us_per_req")) + "**"])
    return table(["client", "requests/s", "client CPU µs / request"], rows)


def report(args):
    res = read_results(args[0])
    machine = open(args[1]).read().strip()
    commands = open(args[2]).read().strip()
    g = lambda k, m: res.get((k, m), "n/a")
    out = ["# ringperf benchmark results", "",
           "Produced by `bench/suite.sh`; do not edit by hand. Every scenario runs ringperf and its peer",
           "in the same run, on the same machine, with the same CPU pinning (client on CPU 0, server",
           "on CPU 1, at nice -10 when run as root). The machine is shared and noisy: read the ratios, not "
           "the absolute numbers.", "",
           "## Machine", "", "```", machine, "```", ""]
    if ("s1", "conns") in res:
        out += ["## 1. Non-streaming maximum rate, one client core", "",
            f"{g('s1', 'conns')} keep-alive connections, `POST /v1/chat/completions` (16 output tokens), "
            f"{g('s1', 'seconds')} s per client, one mock-server thread on CPU 1. "
            "ringperf runs with `--export-level summary` (no per-request files, as wrk and h2load) and "
            "with the default per-request records.", "",
            section_rate(res, "s1", ["wrk", "h2load", "ringperf", "ringperf-records"], ["wrk", "h2load"]),
            ""]
    if ("s2", "conns") in res:
        out += section2(res)
    if ("s3", "rates") in res:
        out += section3(res)
    if ("s4", "conns") in res:
        out += section4(res)
    if ("s5", "conns") in res:
        out += section5(res)
    if ("s6", "conns") in res:
        out += section6(res)
    if ("s7", "conns") in res:
        out += section7(res)
    if ("s8", "tokenizer_seconds") in res:
        out += section8(res)
    if ("s9", "modes") in res:
        out += section9(res)
    if ("s10.stream", "tokens_per_s") in res:
        out += section10(res)
    out += targets(res)
    out += ["## Commands", "", "```sh", commands, "```", ""]
    sys.stdout.write("\n".join(out))


def verdict(value, ok):
    try:
        v = float(value)
    except (TypeError, ValueError):
        return "not measured"
    if v != v:
        return "not measured"
    return "**met**" if ok(v) else "**not met**"


def targets(res):
    """Issue 8's targets, each checked against this run's numbers."""
    g = lambda k, m: res.get((k, m), "nan")
    f = lambda k, m: float(g(k, m)) if g(k, m) not in ("n/a", "None") else float("nan")
    rows = []
    rps = f("s1.ringperf", "rps") / f("s1.wrk", "rps")
    rows.append(["non-streaming requests/s ≥ wrk's on one core", f"ratio {rps:.2f}",
                 verdict(rps, lambda v: v >= 1)])
    cpu = f("s1.ringperf", "cpu_us_per_req") / f("s1.wrk", "cpu_us_per_req")
    rows.append(["client CPU per request ≤ wrk's (issue 2)", f"ratio {cpu:.2f}",
                 verdict(cpu, lambda v: v <= 1)])
    ev = f("s2.ringperf", "cpu_us_per_event")
    rows.append(["≤ 3 µs client CPU per streamed event", f"{ev:.2f} µs", verdict(ev, lambda v: v <= 3)])
    evr = f("s2.python", "cpu_us_per_event") / ev
    rows.append(["≥ 7× less CPU per event than the Python reference", f"{evr:.1f}×",
                 verdict(evr, lambda v: v >= 7)])
    n = "500" if "500" in g("s4", "conns").split(",") else g("s4", "conns").split(",")[-1]
    gap = f(f"s4.idle.{n}.ringperf-kernel", "gap_p99_us")
    rows.append([f"inter-token error p99 ≤ 25 µs at 500 streams (here {n}, CPU idle)",
                 f"{gap:.1f} µs", verdict(gap, lambda v: v <= 25)])
    gr = f(f"s4.idle.{n}.python", "gap_p99_us") / gap
    rows.append(["inter-token error p99 ≥ 30× better than the Python reference", f"{gr:.1f}×",
                 verdict(gr, lambda v: v >= 30)])
    if ("s7", "conns") in res:
        held = [n for n, _, ok in s7_steps(res) if ok]
        most = max(held) if held else 0
        rows.append(["≥ 10,000 open streams per core (timing within bounds)", f"{most:,}",
                     verdict(most if ("s7", "conns") in res else "nan", lambda v: v >= 10000)])
    lag = f("s3.10000.ringperf", "p99_us")
    rows.append(["dispatch lateness p99 ≤ 50 µs at 10,000 requests/s", f"{lag:.1f} µs",
                 verdict(lag, lambda v: v <= 50)])
    if ("s10rt.rate", "send_lag_p99_us") in res:
        rt = f("s10rt.rate", "send_lag_p99_us")
        rows.append(["the same, one shard core, `--realtime-priority 10` (section 10)",
                     f"{rt:.1f} µs", verdict(rt, lambda v: v <= 50)])
    out = ["## Issue 8 targets, checked against this run", "",
           table(["target", "this run", "verdict"], rows), "",
           "The machine is shared: a load average above the core count at start (see Machine) shows "
           "up as millisecond tails in every client's pacing figures, ringperf's included; the "
           "accuracy scenarios shield their clients with real-time priority where they can (see "
           "sections 4, 6 and 7).", ""]
    return out


def section2(res):
    g = lambda k, m: res.get((k, m), "n/a")
    out = []
    r, p = "s2.ringperf", "s2.python"
    rows = [[c, fmt(g(k, "events"), 0), fmt(g(k, "events_per_s"), 0), fmt(g(k, "cpu_us_per_event"), 2)]
            for c, k in (("ringperf", r), ("python aiohttp+uvloop", p))]
    rows.append(["**ratio**", "", "**" + ratio(g(r, "events_per_s"), g(p, "events_per_s"))
                 + "×** (ringperf / python)",
                 "**" + ratio(g(p, "cpu_us_per_event"), g(r, "cpu_us_per_event")) + "×** (python / ringperf)"])
    out += ["## 2. Streaming: client CPU per SSE event and events/s", "",
            f"{g('s2', 'conns')} concurrent streams of {g('s2', 'osl')} tokens (one SSE event each), "
            "mock with no delays (events/s is bounded by the one mock thread). The Python client "
            "stamps each chunk with `perf_counter_ns` and `json.loads` every event, like AIPerf's workers.",
            "", table(["client", "events", "events/s", "client CPU µs / event"], rows), ""]
    return out


def section3(res):
    g = lambda k, m: res.get((k, m), "n/a")
    out = []
    rows = []
    for rate in g("s3", "rates").split(","):
        for c in ("ringperf", "python"):
            k = f"s3.{rate}.{c}"
            rows.append([f"{int(rate):,}", c, fmt(g(k, "p50_us")), fmt(g(k, "p99_us")),
                         fmt(g(k, "max_us")), f"{fmt(g(k, 'sent'), 0)} / {fmt(g(k, 'scheduled'), 0)}"])
    out += ["## 3. Open-loop pacing: send lag (send start − due time)", "",
            "Non-streaming requests (1 output token) at a fixed rate for "
            f"{g('s3', 'seconds')} s each; ringperf's figures are its own `Send Lag` line, the Python "
            "client sleeps on the event loop until each due time (AIPerf's pacer) and starts the "
            "request when a connection is free. Connections: "
            f"{g('s3', 'conns')}. The last column is requests sent (ringperf: completed) / due in the window; the Python pacer gives up 5 s after the window ends. Where that ratio falls well below 1, the client or the server (one mock thread on one core) could not keep up, and the lag is mostly time spent waiting for a free connection.", "",
            table(["rate /s", "client", "p50 µs", "p99 µs", "max µs", "sent / due"], rows), ""]
    return out


def section4(res):
    g = lambda k, m: res.get((k, m), "n/a")
    counts = g("s4", "conns").split(",")
    rows = []
    for hog in ("idle", "hog"):
        for n in counts:
            for c in ("ringperf-kernel", "ringperf-user", "python"):
                k = f"s4.{hog}.{n}.{c}"
                rows.append([hog, n, c, fmt(g(k, "tokens"), 0), fmt(g(k, "shared_read_events"), 0),
                             fmt(g(k, "before_send"), 0),
                             fmt(g(k, "delivery_p50_us")), fmt(g(k, "delivery_p99_us")),
                             fmt(g(k, "delivery_max_us")), fmt(g(k, "gap_p50_us")),
                             fmt(g(k, "gap_p99_us")), fmt(g(k, "gap_max_us")),
                             fmt(g(k, "ttft_p99_us")), fmt(g(k, "ttft_max_us"))])
    out = ["## 4. Timing accuracy under load", "",
           f"The mock (CPU 1, `--itl-ms {g('s4', 'itl_ms')} --token-log`) logs each token's "
           "CLOCK_MONOTONIC send time, read just before the send carrying its bytes is handed to the "
           "kernel (on loopback the client's receive timestamp is taken inside that send); every "
           "client's per-token arrival is compared with it. "
           f"Streams of {g('s4', 'osl')} tokens, {', '.join(counts)} at a time, 8 rounds each. "
           f"`idle`: no deliberate load; the clients run at `{g('s4', 'client_priority')}` priority, so the "
           "machine's other tenants do not take CPU 0 from them. "
           "`hog`: a `stress-ng --cpu 1` pinned to the client's core for the whole run, client and hog "
           "at normal priority. TTFT error = delivery error of each stream's first token. Delivery = "
           "arrival − send_ns (includes the loopback transit, a few µs to tens of µs); gap error = "
           "|measured inter-token gap − true gap|. ringperf-kernel uses SO_TIMESTAMPING receive "
           "timestamps, ringperf-user stamps on completion (`RINGPERF_USER_TIMESTAMPS=1`). "
           "`before send` counts tokens whose measured arrival precedes the mock's send time: "
           "impossible, so each is a wrong stamp. Tokens that reach the client in one read share one "
           "arrival time (the kernel reports one receive timestamp per read, and TCP merges queued "
           "segments), so when the client reads late the earlier tokens of a read are stamped late by "
           "up to an inter-token gap. `in shared reads` is ringperf's count of tokens that arrived in "
           "the same read as the event before them (`run_info.ringperf_timing.shared_read_events`); "
           "it includes tokens the mock itself sent together when it ran behind, which share their "
           "send time too and carry no error. With kernel timestamps, reads that the client made "
           "late are the whole of the millisecond tails: at 500 streams every 5 ms (100,000 events/s) the "
           "client's shard and its coordinator thread share CPU 0, and when all 500 streams end and "
           "restart together the coordinator's burst of record handling can hold the shard off the "
           "core for a few ms (seen with `perf sched`), long enough for a second token to queue.", "",
           table(["CPU", "streams", "client", "tokens", "in shared reads", "before send", "delivery p50 µs", "p99 µs",
                  "max µs", "gap err p50 µs", "p99 µs", "max µs", "TTFT err p99 µs", "max µs"], rows), "",
           "Gap-error p99 ratios:", ""]
    for hog in ("idle", "hog"):
        for n in counts:
            k = f"s4.{hog}.{n}"
            out.append(f"- {hog}, {n} streams: python / ringperf-kernel = **"
                       + ratio(g(f"{k}.python", "gap_p99_us"), g(f"{k}.ringperf-kernel", "gap_p99_us"))
                       + "×**; ringperf-user / ringperf-kernel = **"
                       + ratio(g(f"{k}.ringperf-user", "gap_p99_us"),
                               g(f"{k}.ringperf-kernel", "gap_p99_us")) + "×**")
    out.append("")
    return out


def accuracy_row(g, k, label):
    return [label, fmt(g(k, "tokens"), 0), fmt(g(k, "shared_read_events"), 0), fmt(g(k, "before_send"), 0),
            fmt(g(k, "gap_p50_us")), fmt(g(k, "gap_p99_us")), fmt(g(k, "gap_max_us")),
            fmt(g(k, "ttft_p50_us")), fmt(g(k, "ttft_p99_us")), fmt(g(k, "ttft_max_us")),
            fmt(g(k, "delivery_p99_us"))]


def section6(res):
    g = lambda k, m: res.get((k, m), "n/a")
    counts = g("s6", "conns").split(",")
    rows = []
    for n in counts:
        for c in ("ringperf-kernel", "ringperf-user", "python"):
            k = f"s6.{n}.{c}"
            label = f"{int(n):,} streams, {c}"
            if g(k, "streams") not in ("n/a", n):
                label = f"{int(n):,} streams, {c} (capped at {int(g(k, 'streams')):,})"
            rows.append(accuracy_row(g, k, label))
    itls = ", ".join(f"{int(n):,} streams every {g(f's6.{n}', 'itl_ms')} ms" for n in counts)
    out = ["## 6. Timing accuracy at 1,000 and 10,000 streams, and TTFT error", "",
           f"As section 4 (token log, CPU 1 mock, client on CPU 0 at `{g('s6', 'client_priority')}` "
           f"priority), with streams of {g('s6', 'osl')} tokens paced so that all streams together "
           f"emit {fmt(g('s6', 'events_per_s'), 0)} events/s: {itls}. TTFT error = first-token "
           "arrival − the mock's send time of that token (the TTFT a client reports is off by this "
           f"much). The Python client is capped at {fmt(g('s6', 'python_cap'), 0)} streams: asyncio "
           "with aiohttp cannot open and feed 10,000 streams from one core in bounded time (it "
           "falls behind already at 1,000, see its errors), so its 10,000 row is 1,000 streams at "
           "the same pacing.", "",
           table(["run", "tokens", "in shared reads", "before send", "gap err p50 µs", "p99 µs", "max µs",
                  "TTFT err p50 µs", "p99 µs", "max µs", "delivery p99 µs"], rows), "",
           "Gap-error p99 ratios:", ""]
    for n in counts:
        k = f"s6.{n}"
        out.append(f"- {int(n):,} streams: python / ringperf-kernel = **"
                   + ratio(g(f"{k}.python", "gap_p99_us"), g(f"{k}.ringperf-kernel", "gap_p99_us"))
                   + "×**; ringperf-user / ringperf-kernel = **"
                   + ratio(g(f"{k}.ringperf-user", "gap_p99_us"), g(f"{k}.ringperf-kernel", "gap_p99_us"))
                   + "×**")
    out.append("")
    return out


def s7_steps(res):
    """(streams, key, within bounds) of scenario 7, in order."""
    g = lambda k, m: res.get((k, m), "n/a")
    bound = float(g("s7", "bound_us"))
    steps = []
    for n in g("s7", "conns").split(","):
        k = f"s7.{n}.ringperf-kernel"
        try:
            ok = (float(g(k, "gap_p99_us")) <= bound and float(g(k, "delivery_p99_us")) <= bound
                  and float(g(k, "completed")) >= float(n))
        except ValueError:
            ok = False
        steps.append((int(n), k, ok))
    return steps


def section7(res):
    g = lambda k, m: res.get((k, m), "n/a")
    steps = s7_steps(res)
    rows = []
    base = None
    for n, k, ok in steps:
        rss_mib = float(g(k, "rss_kib")) / 1024 if g(k, "rss_kib") != "n/a" else float("nan")
        per_stream = rss_mib * 1024 / n
        marginal = "n/a"
        if base is not None and rss_mib == rss_mib:
            marginal = fmt((rss_mib - base[1]) * 1024 / (n - base[0]), 1)
        if base is None and rss_mib == rss_mib:
            base = (n, rss_mib)
        rows.append([f"{n:,}", g(k, "itl_ms"), f"{fmt(g(k, 'completed'), 0)}", fmt(g(k, "gap_p99_us")),
                     fmt(g(k, "gap_max_us")), fmt(g(k, "delivery_p99_us")), fmt(g(k, "ttft_p99_us")),
                     fmt(rss_mib, 0), fmt(per_stream, 1), marginal, "yes" if ok else "**no**"])
    held = [n for n, _, ok in steps if ok]
    best = f"{max(held):,}" if held else "none"
    out = ["## 7. Concurrent streams on one client core", "",
           f"Each step opens N streams at once against one mock thread (CPU 1); streams of "
           f"{g('s7', 'osl')} tokens paced so that all together emit {fmt(g('s7', 'events_per_s'), 0)} "
           f"events/s. ringperf (one shard, CPU 0, `{g('s7', 'client_priority')}` priority, kernel "
           "timestamps, raw export). Within bounds: every request completed and gap-error p99 and "
           f"delivery p99 ≤ {g('s7', 'bound_us')} µs. Memory is the client's peak RSS (GNU time), "
           "per stream and per added stream over the first step. The largest N tried is bounded "
           f"by the descriptor limit (`ulimit -Hn` = {g('s7', 'fd_limit')} per process, which root "
           "cannot raise in this container), which binds before loopback ports do (28,000+ "
           "ephemeral ports per source address), so one source address suffices here.", "",
           table(["streams", "ITL ms", "completed", "gap err p99 µs", "max µs", "delivery p99 µs",
                  "TTFT err p99 µs", "peak RSS MiB", "KiB / stream", "KiB / added stream",
                  "within bounds"], rows), "",
           f"Most open streams held within bounds on one core: **{best}**.", ""]
    return out


MOCK_BODY_CASES = [("chat_4k", "chat, a 550-word prompt (4 KiB)"),
                   ("chat_1m", "chat, a 1 MiB prompt"),
                   ("chat_16m", "chat, a 16 MiB prompt"),
                   ("lines_1m", "chat, 1 MiB of 80-byte lines (`\\n`)"),
                   ("escapes_1m", "chat, 1 MiB, a `\\n` after every word")]


def section8_mock_body(res):
    if ("s8.mock_body.chat_4k", "in_place_mb_per_s") not in res:
        return []
    g = lambda k, m: res.get((k, m), "n/a")
    rows = []
    for key, name in MOCK_BODY_CASES:
        fast = g(f"s8.mock_body.{key}", "in_place_mb_per_s")
        slow = g(f"s8.mock_body.{key}", "jansson_mb_per_s")
        rows.append([name, fmt(fast, 0), fmt(slow, 1), ratio(fast, slow) + "×"])
    return ["`bench/mock_body/run.sh`: the mock server reading request bodies on one core "
            "(`mock__api_parse`: check, find the route's fields, count the prompt's words), the "
            "in-place reader beside the jansson reader it replaced (`tests/mock/api_jansson.c`), "
            "taking turns on the same bodies.", "",
            table(["body", "in-place MB/s", "jansson MB/s", "ratio"], rows), ""]


def section8(res):
    g = lambda k, m: res.get((k, m), "n/a")
    rows = [["ringperf (C)", fmt(g("s8.tokenizer.ringperf", "mb_per_s"), 2)],
            ["reference (JS, @lenml/tokenizers)", fmt(g("s8.tokenizer.reference", "mb_per_s"), 2)],
            ["**ratio**", "**" + ratio(g("s8.tokenizer.ringperf", "mb_per_s"),
                                       g("s8.tokenizer.reference", "mb_per_s")) + "×**"]]
    out = ["## 8. Tokenizer encode speed, the mock's body reading and dataset load time", "",
           f"`bench/tokenizer/run.sh {g('s8', 'tokenizer_seconds')}`: the Qwen3 tokenizer.json, the "
           "tests' varied corpus (code, CJK, emoji, whitespace runs), one core each, single-threaded.",
           "", table(["encoder", "encode MB/s"], rows), ""]
    out += section8_mock_body(res)
    if ("s8.dataset", "lines") in res:
        load = "n/a"
        try:
            load = f"{float(g('s8.dataset', 'big_s')) - float(g('s8.dataset', 'small_s')):.2f}"
        except ValueError:
            pass
        out += ["`RINGPERF_BENCH_SAMPLING=shuffle bench/dataset_load.sh`: a short run (1,000 requests) "
                f"on a {fmt(g('s8.dataset', 'lines'), 0)}-line single_turn JSONL file "
                f"({g('s8.dataset', 'file_mib')} MiB) against the same run on a 1,000-line file, "
                "`--dataset-sampling-strategy shuffle` (draws from the whole file). \"load\" is what "
                "the big file adds to the run's wall time; a run reads only the entries it sends, so "
                "this is the cost of opening and indexing the file, not of parsing every line "
                "(history and the other strategies in bench/DATASETS.md).", "",
                table(["lines", "wall s (1k lines)", "wall s (big)", "load s", "peak RSS MiB (big)"],
                      [[fmt(g("s8.dataset", "lines"), 0), g("s8.dataset", "small_s"),
                        g("s8.dataset", "big_s"), load, g("s8.dataset", "big_rss_mib")]]), ""]
    return out


def section5(res):
    g = lambda k, m: res.get((k, m), "n/a")
    out = []
    out += ["## 5. TLS vs plaintext through nginx", "",
            f"nginx (one worker, CPU 1) answers `POST /v1/chat/completions` itself with a fixed chat "
            f"completion, on a plaintext and a TLS port (TLS 1.3, P-256 certificate). "
            f"{g('s5', 'conns')} keep-alive connections, {g('s5', 'seconds')} s per client.", ""]
    for scheme in ("http", "https"):
        out += [f"### {scheme}", "",
                section_rate(res, f"s5.{scheme}", ["wrk", "h2load", "ringperf"], ["wrk", "h2load"]), ""]
    rows = [[c, ratio(g(f"s5.https.{c}", "rps"), g(f"s5.http.{c}", "rps")),
             ratio(g(f"s5.https.{c}", "cpu_us_per_req"), g(f"s5.http.{c}", "cpu_us_per_req"))]
            for c in ("wrk", "h2load", "ringperf")]
    out += ["TLS / plaintext, per client:", "",
            table(["client", "requests/s ratio", "CPU per request ratio"], rows), ""]
    return out


PRECISION_MODES = {
    "plain": "normal process",
    "chrt": "`chrt -f 10` (whole process)",
    "realtime": "`--realtime-priority 10`",
}


def section9(res):
    g = lambda k, m: res.get((k, m), "n/a")
    rows = []
    for mode in g("s9", "modes").split(","):
        k = f"s9.{mode}"
        rows.append([PRECISION_MODES.get(mode, mode), g(k, "mode_recorded"), g(k, "runs"),
                     fmt(g(k, "gap_p50_us")), fmt(g(k, "gap_p99_us")), g(k, "gap_p99_us_runs"),
                     fmt(g(k, "gap_max_us")), fmt(g(k, "ttft_p99_us")), fmt(g(k, "delivery_p99_us")),
                     fmt(g(k, "shared_read_events"), 0)])
    return ["## 9. Precision per mode: inter-token gap error", "",
            f"`bench/precision.sh`: {g('s9', 'streams')} streams of {g('s9', 'osl')} tokens, a token "
            f"every {g('s9', 'itl_ms')} ms, 8 rounds, against the mock's `--token-log` (CPU 1); ringperf "
            "beside it with `--workers-max 1` (its shard pinned to CPU 0, the coordinator on CPU 1), "
            "kernel receive timestamps. Gap error = |measured inter-token gap − true gap|. Each mode "
            f"ran {g('s9', 'repeats')} times, interleaved with the others; the figures are the "
            "medians of the runs (each run's gap p99 listed). `recorded` is "
            "`run_info.ringperf_timing.precision.mode` of the last run.", "",
            table(["mode", "recorded", "runs", "gap err p50 µs", "p99 µs", "p99 of each run µs",
                   "max µs", "TTFT err p99 µs", "delivery p99 µs", "in shared reads"], rows), ""]


def section10(res):
    g = lambda k, m: res.get((k, m), "n/a")
    rows = [["output tokens/s, one client core", fmt(g("s10.stream", "tokens_per_s"), 0),
             fmt(g("s10.stream_tok", "tokens_per_s"), 0),
             fmt(g("s10.stream_tok", "ratio_paired"), 3)],
            ["coordinator's share of the client's CPU", fmt(g("s10.stream", "coordinator_share"), 3),
             fmt(g("s10.stream_tok", "coordinator_share"), 3), ""],
            ["shard waits for a free record (median per run)", fmt(g("s10.stream", "record_waits"), 0),
             fmt(g("s10.stream_tok", "record_waits"), 0), ""]]
    return ["## 10. Per-record work on the shards (issue 20)", "",
            "`bench/shard_metrics.sh 3`: 2,000 streamed chat requests of 256 tokens on 64 connections, "
            "`--workers-max 1`, the whole client pinned to CPU 0 (shard and coordinator share it) and "
            "the mock on CPU 1, `--export-level summary`, without a tokenizer (the server's usage "
            "counts) and with the Qwen3 `tokenizer.json` (every response BPE-counted on its shard); "
            "three interleaved rounds, medians, the ratio paired round by round. Tokens/s is the "
            "summary's output_token_throughput; the coordinator's share is "
            "`run_info.ringperf_timing.coordinator_cpu_share` (its thread's CPU over its own and the "
            "shards' loops'); waits are `record_waits`.", "",
            table(["measure", "without tokenizer", "with tokenizer", "with / without"], rows), "",
            f"Send lag p99 at 10,000 requests/s (1 output token, 256 connections, 5 s, same pinning): "
            f"median **{fmt(g('s10.rate', 'send_lag_p99_us'))} µs** (rounds: "
            f"{g('s10.rate', 'send_lag_p99_us_rounds')}). With `--realtime-priority 10` "
            f"(`SM_RT=flag`: the mock under `chrt -f 10`, the shard at SCHED_FIFO preempting the "
            f"coordinator on their CPU): median **{fmt(g('s10rt.rate', 'send_lag_p99_us'))} µs** "
            f"(rounds: {g('s10rt.rate', 'send_lag_p99_us_rounds')}).", ""]


def precision(args):
    res = read_results(args[0])
    commands = open(args[1]).read().strip()
    sys.stdout.write("\n".join(section9(res) + ["```sh", commands, "```", ""]))


def main():
    commands = {"tokens": tokens, "report": report, "precision": precision}
    if len(sys.argv) < 2 or sys.argv[1] not in commands:
        sys.stderr.write(__doc__)
        return 2
    commands[sys.argv[1]](sys.argv[2:])
    return 0


if __name__ == "__main__":
    sys.exit(main())
