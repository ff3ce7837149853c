#!/usr/bin/env python3
# bench/mock_body/ttft_big_prompts.py PORT N MB: N concurrent streaming chat requests, each with an
# MB-megabyte prompt, against a mock at 127.0.0.1:PORT; prints the median and largest time from the
# last request byte handed to the kernel to the first SSE event (compare with the mock's --ttft-ms).
import asyncio, sys, time, statistics
port = int(sys.argv[1]); n = int(sys.argv[2]); mb = float(sys.argv[3])
words = "lorem ipsum " * int(mb * 1e6 / 12)
body = ('{"stream":true,"max_tokens":4,"messages":[{"role":"user","content":"%s"}]}' % words).encode()
head = b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n" % len(body)
async def one():
    r, w = await asyncio.open_connection("127.0.0.1", port)
    w.write(head + body); await w.drain()
    t0 = time.perf_counter()
    buf = b""
    while b"data: " not in buf:
        chunk = await r.read(65536)
        if not chunk: return float("nan"), buf[:60]
        buf += chunk
    dt = (time.perf_counter() - t0) * 1e3
    w.close()
    return dt, buf[:12]
async def main():
    res = await asyncio.gather(*[one() for _ in range(n)])
    ts = [r[0] for r in res]
    print("status", res[0][1], "median %.1f ms max %.1f ms" % (statistics.median(ts), max(ts)))
asyncio.run(main())
