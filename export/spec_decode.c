/*
 * spec_decode.c - the speculative-decoding parts of the exports that are not metric rows: a
 * record's spec_decode_acceptance object (AIPerf's SpecDecodeAcceptanceRecord, spec §2.5), the
 * summary's pooled_spec_decode_acceptance_histogram (§1.2) and the console's one-line pooled
 * histogram under the Spec Decode table (console_spec_decode_exporter.py).
 */
#include "export/export_internal.h"

#include <stdio.h>

/* SPEC_CONSOLE_BUCKETS is AIPerf's SPEC_DECODE_HISTOGRAM_CONSOLE_CAP: buckets at or above it
 * fold into one ">=8" bucket, so the line stays one line whatever the drafter's block size. */
#define SPEC_CONSOLE_BUCKETS 8

/* put_histogram writes the sparse {"j": steps} map of a dense histogram: zero buckets are left
 * out, as AIPerf's adapter drops them. */
static void put_histogram(struct export_jsonw *w, const struct record_spec_decode *s)
{
    bool first = true;
    export_jsonw_raw(w, "{", 1);
    for (uint32_t j = 0; j < s->bucket_count; j++) {
        if (s->histogram[j] == 0) {
            continue;
        }
        char key[16];
        snprintf(key, sizeof(key), "%u", j);
        export_jsonw_key(w, &first, key);
        export_jsonw_int(w, s->histogram[j]);
    }
    export_jsonw_raw(w, "}", 1);
}

void export__spec_decode(struct export_jsonw *w, const struct metrics_request *req)
{
    const struct record_spec_decode *s = req->spec_decode;
    if (s == NULL || !record_spec_decode_usable(s)) {
        return;
    }
    bool first = false; /* engine leads */
    export_jsonw_lit(w, ",\"spec_decode_acceptance\":{\"engine\":\"vllm\"");
    export_jsonw_key(w, &first, "mean_acceptance_length");
    export_jsonw_double(w, s->mean_acceptance_length);
    export_jsonw_key(w, &first, "draft_acceptance_rate");
    export_jsonw_double(w, s->draft_acceptance_rate);
    export_jsonw_key(w, &first, "acceptance_histogram");
    put_histogram(w, s);
    export_jsonw_key(w, &first, "num_accepted_draft_tokens");
    export_jsonw_int(w, s->accepted_draft_tokens);
    export_jsonw_key(w, &first, "num_draft_tokens");
    export_jsonw_int(w, s->draft_tokens);
    export_jsonw_key(w, &first, "num_spec_steps");
    export_jsonw_int(w, s->steps);
    if (s->spec_tokens != RECORD_ABSENT) {
        export_jsonw_key(w, &first, "num_spec_tokens");
        export_jsonw_int(w, s->spec_tokens);
    }
    if (req->usage.completion_tokens != RECORD_ABSENT) {
        export_jsonw_key(w, &first, "completion_tokens");
        export_jsonw_int(w, req->usage.completion_tokens);
    }
    export_jsonw_raw(w, "}", 1);
}

json_t *export__spec_histogram_json(const struct metrics_summary *s)
{
    if (!s->spec_present) {
        return NULL;
    }
    json_t *o = json_object();
    for (uint32_t j = 0; o != NULL && j < s->spec_bucket_count; j++) {
        char key[16];
        snprintf(key, sizeof(key), "%u", j);
        if (s->spec_steps[j] > 0 &&
            json_object_set_new(o, key, json_integer((json_int_t)s->spec_steps[j])) != 0) {
            json_decref(o);
            return NULL;
        }
    }
    return o;
}

/* put_share appends "<label>: <pct>%" to out at *len, three spaces before all but the first. */
static void put_share(char *out, size_t cap, size_t *len, const char *label, double pct)
{
    if (*len >= cap) {
        return;
    }
    int n = snprintf(out + *len, cap - *len, "%s%s: %.0f%%", *len > 0 ? "   " : "", label, pct);
    *len = n > 0 ? *len + (size_t)n : *len;
}

size_t export__spec_histogram_line(const struct metrics_summary *s, char *out, size_t cap)
{
    uint64_t total = 0;
    uint32_t top = 0;
    for (uint32_t j = 0; s->spec_present && j < s->spec_bucket_count; j++) {
        total += s->spec_steps[j];
        top = s->spec_steps[j] > 0 ? j : top;
    }
    if (total == 0 || cap == 0) {
        return 0;
    }
    bool fold = top >= SPEC_CONSOLE_BUCKETS;
    uint32_t shown = fold ? SPEC_CONSOLE_BUCKETS - 1 : top;
    size_t len = 0;
    for (uint32_t j = 0; j <= shown; j++) {
        char label[16];
        snprintf(label, sizeof(label), "%u", j);
        put_share(out, cap, &len, label, (double)s->spec_steps[j] / (double)total * 100.0);
    }
    if (fold) {
        uint64_t folded = 0;
        for (uint32_t j = SPEC_CONSOLE_BUCKETS; j < s->spec_bucket_count; j++) {
            folded += s->spec_steps[j];
        }
        char label[16];
        snprintf(label, sizeof(label), ">=%d", SPEC_CONSOLE_BUCKETS);
        put_share(out, cap, &len, label, (double)folded / (double)total * 100.0);
    }
    return len < cap ? len : cap - 1;
}
