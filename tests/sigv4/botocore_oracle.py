#!/usr/bin/python3
"""Generates requests and signs them with botocore's SigV4Auth, the oracle for test_sign.c.

usage: botocore_oracle.py SEED GROUPS CASES_PER_GROUP

One line per case, every field hex-encoded ("-" for empty), space-separated:
  method target body access_key secret token region service unix_s header_count
  [name value]... amz_date content_sha256 authorization
The cases of a group share credentials, region and service (one signer in the test), with
signing times that cross days, so that the signer's per-day key cache is exercised.
"""
import datetime
import random
import sys

import botocore.auth
from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials

UNRESERVED = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.~"
PATH_ODD = "!$&'()*+,;=:@%"
TOKEN_CHARS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789!#$%&'*+-.^_`|~"
OWNED = {"x-amz-date", "x-amz-content-sha256", "x-amz-security-token", "authorization",
         "host", "user-agent", "expect", "x-amzn-trace-id"}


def hexf(s):
    b = s.encode("utf-8") if isinstance(s, str) else s
    return b.hex() if b else "-"


def rand_segment(rng):
    kind = rng.random()
    if kind < 0.08:
        return rng.choice([".", "..", ""])
    pool = UNRESERVED * 3 + PATH_ODD + "é漢"
    seg = "".join(rng.choice(pool) for _ in range(rng.randint(1, 12)))
    if rng.random() < 0.2:
        seg += "%%%02X" % rng.randint(0, 255)
    return seg


def rand_path(rng):
    segs = [rand_segment(rng) for _ in range(rng.randint(0, 6))]
    path = "/" + "/".join(segs)
    if rng.random() < 0.2:
        path += "/"
    return path


def encode_canonical(raw):
    out = []
    for byte in raw.encode("utf-8"):
        c = chr(byte)
        out.append(c if c in UNRESERVED else "%%%02X" % byte)
    return "".join(out)


def rand_query(rng):
    if rng.random() < 0.35:
        return ""
    pool = UNRESERVED + " /=&+?%é,"
    pairs = []
    for _ in range(rng.randint(1, 6)):
        key = "".join(rng.choice(pool) for _ in range(rng.randint(1, 6)))
        if pairs and rng.random() < 0.2:
            key = pairs[-1][0]  # a repeated name, sorted by value
        value = "".join(rng.choice(pool) for _ in range(rng.randint(0, 8)))
        pairs.append((key, value))
    parts = []
    for key, value in pairs:
        part = encode_canonical(key)
        if value or rng.random() < 0.5:
            part += "=" + encode_canonical(value)
        parts.append(part)
    return "?" + "&".join(parts)


def rand_value(rng):
    pool = UNRESERVED + "  \t,;:/=\"" + "é"
    v = "".join(rng.choice(pool) for _ in range(rng.randint(0, 24)))
    return v


def rand_headers(rng, host):
    headers = [("Host", host)]
    for _ in range(rng.randint(0, 6)):
        if len(headers) > 1 and rng.random() < 0.2:
            name = headers[-1][0].swapcase()  # the same name again, in another case
        else:
            name = "".join(rng.choice(TOKEN_CHARS) for _ in range(rng.randint(1, 16)))
            if name.lower() in OWNED:
                continue
        headers.append((name, rand_value(rng)))
    if rng.random() < 0.5:
        headers.append(("Content-Type", "application/json"))
    rng.shuffle(headers)
    return headers


class FixedClock(datetime.datetime):
    now_value = None

    @classmethod
    def utcnow(cls):
        return cls.now_value


def sign(method, url, headers, body, creds, service, region, unix_s):
    request = AWSRequest(method=method, url=url, data=body)
    for name, value in headers:
        request.headers[name] = value
    auth = SigV4Auth(creds, service, region)
    request.headers["X-Amz-Content-SHA256"] = auth.payload(request)
    FixedClock.now_value = datetime.datetime.utcfromtimestamp(unix_s)
    auth.add_auth(request)
    return (request.headers["X-Amz-Date"], request.headers["X-Amz-Content-SHA256"],
            request.headers["Authorization"])


def main():
    seed, groups, per_group = (int(a) for a in sys.argv[1:4])
    rng = random.Random(seed)
    botocore.auth.datetime.datetime = FixedClock
    for g in range(groups):
        akid = "AKIA" + "".join(rng.choice(UNRESERVED[:36]) for _ in range(16))
        secret = "".join(rng.choice(UNRESERVED + "+/") for _ in range(40))
        token = "" if g % 2 == 0 else "".join(rng.choice(UNRESERVED + "+/=") for _ in range(300))
        region = rng.choice(["us-east-1", "eu-west-3", "ap-southeast-2", "us-gov-west-1"])
        service = rng.choice(["sagemaker", "execute-api", "bedrock", "s3-outposts"])
        creds = Credentials(akid, secret, token or None)
        unix_s = rng.randint(946684800, 4102444800)
        for _ in range(per_group):
            unix_s += rng.choice([0, 1, 3600, 86399, 86400 * rng.randint(1, 400)])
            method = rng.choice(["GET", "POST", "PUT", "PATCH", "DELETE", "post"])
            host = rng.choice(["runtime.sagemaker.%s.amazonaws.com" % region, "127.0.0.1:8080",
                               "[::1]:9000", "Example.COM"])
            target = rand_path(rng) + rand_query(rng)
            body = bytes(rng.getrandbits(8) for _ in range(rng.choice([0, 0, 1, 17, 300])))
            headers = rand_headers(rng, host)
            url = "http://" + host + target
            date, sha, authorization = sign(method, url, headers, body, creds, service, region,
                                            unix_s)
            fields = [hexf(method), hexf(target), hexf(body), hexf(akid), hexf(secret),
                      hexf(token), hexf(region), hexf(service), str(unix_s), str(len(headers))]
            for name, value in headers:
                fields += [hexf(name), hexf(value)]
            fields += [hexf(date), hexf(sha), hexf(authorization)]
            print(" ".join(fields))


if __name__ == "__main__":
    main()
