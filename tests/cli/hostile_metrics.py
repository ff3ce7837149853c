#!/usr/bin/env python3
"""A /metrics endpoint that misbehaves on purpose, for tests/cli/test_server_metrics.c.

Usage: hostile_metrics.py MODE. Binds 127.0.0.1 on a free port, prints "port N" and serves
GET /metrics until killed:
  garbage  200 text/plain, bytes that are no exposition
  huge     200 text/plain, a 10 MB exposition (more than the scraper keeps)
  cut      200 text/plain, an exposition cut off mid-line (Content-Length matches)
  json     200 application/json (collection must turn off)
  slow     a valid exposition, each answer 1 s late
"""
import http.server
import socketserver
import sys
import time

MODE = sys.argv[1]
VALID = b"# TYPE hostile_up gauge\nhostile_up 1\n"


def body():
    if MODE == "garbage":
        return b"\x00\x01\x02 this is { not an exposition\n" * 10, "text/plain"
    if MODE == "huge":
        line = b"hostile_filler{n=\"" + b"x" * 80 + b"\"} 1\n"
        return line * (10 * 1024 * 1024 // len(line) + 1), "text/plain"
    if MODE == "cut":
        return VALID + b"hostile_cut{a=\"1\"} 4", "text/plain"
    if MODE == "json":
        return b'{"metrics": []}', "application/json"
    return VALID, "text/plain; version=0.0.4"


class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        if MODE == "slow":
            time.sleep(1)
        data, ctype = body()
        self.send_response(200)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        try:
            self.wfile.write(data)
        except OSError:
            pass

    def log_message(self, *args):
        pass


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True


srv = Server(("127.0.0.1", 0), Handler)
print("port", srv.server_address[1], flush=True)
srv.serve_forever()
