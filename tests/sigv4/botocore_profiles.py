#!/usr/bin/python3
"""Generates AWS credentials and config files and resolves them with botocore, the oracle
for test_profiles.c.

usage: botocore_profiles.py DIR SEED CASES

For case i it writes DIR/i/credentials and DIR/i/config (either may be missing) and prints
one line, space-separated, each field hex-encoded ("-" for none):
  i profile default_region access_key secret_key token region
where profile is the one named (or "-" for botocore's default), default_region is the
AWS_DEFAULT_REGION the case sets, and the credentials or the region are "ERR" when botocore
finds none or raises.
"""
import os
import random
import sys

import botocore.exceptions
import botocore.session

NAMES = ["default", "x", "y"]


def hexf(s):
    return s.encode("utf-8").hex() if s else "-"


def keys(rng, name, partial):
    lines = []
    sep = rng.choice(["=", " = ", ": ", ":"])
    key_case = rng.choice([str.lower, str.upper, str.title])
    lines.append(f"{key_case('aws_access_key_id')}{sep}AK{name.upper()}{rng.randrange(1000)}")
    if not partial:
        lines.append(f"aws_secret_access_key{sep}secret/{name}+{rng.randrange(1000)}")
    if rng.random() < 0.4:
        lines.append(f"aws_session_token{sep}tok{rng.randrange(10**6)}==")
    return lines


def section(rng, header, with_keys, with_region):
    lines = [header]
    if rng.random() < 0.3:
        lines.append("; a comment")
    if with_keys:
        lines += keys(rng, header.strip("[]").split()[-1], rng.random() < 0.1)
    if with_region:
        lines.append(f"region = {rng.choice(['us', 'eu', 'ap'])}-{rng.choice(['east', 'west'])}-"
                     f"{rng.randrange(1, 4)}")
        if rng.random() < 0.3:
            lines.append("s3 =\n  region = nested-1")
    return lines


def credentials_file(rng):
    lines = []
    for name in NAMES:
        if rng.random() < 0.5:
            lines += section(rng, f"[{name}]", True, rng.random() < 0.2)
    return "\n".join(lines) + "\n"


def config_file(rng):
    lines = []
    headers = ["[default]", "[profile default]", "[profile x]", "[profile   y]", "[x]", "[y]"]
    rng.shuffle(headers)
    for header in headers[: rng.randrange(len(headers) + 1)]:
        lines += section(rng, header, rng.random() < 0.4, rng.random() < 0.7)
    return "\n".join(lines) + "\n"


def resolve(profile):
    try:
        session = botocore.session.Session(profile=profile)
    except botocore.exceptions.BotoCoreError:
        return "ERR", "ERR"
    try:
        region = session.get_config_variable("region")
        region = hexf(region) if region else "ERR"
    except botocore.exceptions.BotoCoreError:
        region = "ERR"
    try:
        creds = session.get_credentials()
        creds = (" ".join([hexf(creds.access_key), hexf(creds.secret_key), hexf(creds.token)])
                 if creds else "ERR ERR ERR")
    except botocore.exceptions.BotoCoreError:
        creds = "ERR ERR ERR"
    return creds, region


def main():
    out_dir, seed, cases = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    rng = random.Random(seed)
    os.environ["AWS_EC2_METADATA_DISABLED"] = "true"
    for var in ["AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN",
                "AWS_SECURITY_TOKEN", "AWS_PROFILE", "AWS_DEFAULT_REGION", "AWS_REGION",
                "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI", "AWS_CONTAINER_CREDENTIALS_FULL_URI",
                "AWS_WEB_IDENTITY_TOKEN_FILE", "AWS_ROLE_ARN"]:
        os.environ.pop(var, None)
    for i in range(cases):
        case_dir = os.path.join(out_dir, str(i))
        os.makedirs(case_dir, exist_ok=True)
        creds_path = os.path.join(case_dir, "credentials")
        config_path = os.path.join(case_dir, "config")
        if rng.random() < 0.85:
            with open(creds_path, "w") as f:
                f.write(credentials_file(rng))
        if rng.random() < 0.85:
            with open(config_path, "w") as f:
                f.write(config_file(rng))
        os.environ["AWS_SHARED_CREDENTIALS_FILE"] = creds_path
        os.environ["AWS_CONFIG_FILE"] = config_path
        region = rng.choice([None, None, None, "sa-east-1"])
        if region:
            os.environ["AWS_DEFAULT_REGION"] = region
        else:
            os.environ.pop("AWS_DEFAULT_REGION", None)
        profile = rng.choice([None, None, "x", "y"])
        creds, resolved = resolve(profile)
        print(i, hexf(profile), hexf(region), creds, resolved)


main()
