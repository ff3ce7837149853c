#!/usr/bin/env python3
"""Parses a Prometheus exposition with prometheus_client, the parser AIPerf itself uses, for
tests/cli/test_server_metrics.c: fetches URL once, writes the body to BODY and one line per
sample to PARSED: family, type, sample name, labels (sorted name=value, comma-joined), value.

Usage: reference_parse.py URL BODY PARSED
"""
import sys
import urllib.request

from prometheus_client.parser import text_string_to_metric_families

url, body_path, parsed_path = sys.argv[1:4]
body = urllib.request.urlopen(url, timeout=10).read()
with open(body_path, "wb") as f:
    f.write(body)
lines = []
for family in text_string_to_metric_families(body.decode("utf-8")):
    kind = "unknown" if family.type in ("untyped", "unknown") else family.type
    for s in family.samples:
        labels = ",".join(f"{k}={v}" for k, v in sorted(s.labels.items()))
        lines.append(f"{family.name}\t{kind}\t{s.name}\t{labels}\t{float(s.value)!r}")
with open(parsed_path, "w") as f:
    f.write("\n".join(sorted(lines)) + "\n")
