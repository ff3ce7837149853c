/*
 * merge_spec.c - a request's speculative-decoding statistics on its records line, as one array:
 * [payloads, valid, mean acceptance length, draft acceptance rate, accepted, drafted, steps,
 * spec tokens (-1: not sent), [histogram...]]. The two rates travel as "%.17g" strings so that
 * a merge reads back the very doubles the share computed with.
 */
#include "cluster/merge_spec.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

enum {
    SPEC_PAYLOADS,
    SPEC_VALID,
    SPEC_MEAN,
    SPEC_RATE,
    SPEC_ACCEPTED,
    SPEC_DRAFTED,
    SPEC_STEPS,
    SPEC_SPEC_TOKENS,
    SPEC_HISTOGRAM,
    SPEC_FIELDS,
};

void cluster__put_exact(struct export_jsonw *w, double v)
{
    char text[40];
    int n = snprintf(text, sizeof(text), "%.17g", v);
    export_jsonw_string(w, text, (size_t)n);
}

void cluster__spec_put(struct export_jsonw *w, bool *first, const struct record_spec_decode *s)
{
    if (s == NULL) {
        return;
    }
    export_jsonw_key(w, first, "spec_decode");
    export_jsonw_raw(w, "[", 1);
    export_jsonw_int(w, s->payloads);
    export_jsonw_lit(w, s->valid ? ",true," : ",false,");
    cluster__put_exact(w, s->mean_acceptance_length);
    export_jsonw_raw(w, ",", 1);
    cluster__put_exact(w, s->draft_acceptance_rate);
    const int64_t counts[] = {s->accepted_draft_tokens, s->draft_tokens, s->steps, s->spec_tokens};
    for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); i++) {
        export_jsonw_raw(w, ",", 1);
        export_jsonw_int(w, counts[i]);
    }
    export_jsonw_raw(w, ",[", 2);
    for (uint32_t j = 0; j < s->bucket_count; j++) {
        if (j > 0) {
            export_jsonw_raw(w, ",", 1);
        }
        export_jsonw_int(w, s->histogram[j]);
    }
    export_jsonw_lit(w, "]]");
}

/* read_double reads a "%.17g" string back; false for anything else. */
static bool read_double(const json_t *v, double *out)
{
    const char *text = json_string_value(v);
    char *end = NULL;
    if (text == NULL || *text == '\0') {
        return false;
    }
    *out = strtod(text, &end);
    return *end == '\0';
}

/* read_histogram reads the dense histogram; false when it is not a list of at most
 * RECORD_SPEC_BUCKETS integers. */
static bool read_histogram(const json_t *list, struct record_spec_decode *out)
{
    size_t n = json_array_size(list);
    if (!json_is_array(list) || n > RECORD_SPEC_BUCKETS) {
        return false;
    }
    for (size_t j = 0; j < n; j++) {
        const json_t *c = json_array_get(list, j);
        if (!json_is_integer(c)) {
            return false;
        }
        out->histogram[j] = json_integer_value(c);
    }
    out->bucket_count = (uint32_t)n;
    return true;
}

int cluster__spec_read(const json_t *rec, struct record_spec_decode *out)
{
    const json_t *a = json_object_get(rec, "spec_decode");
    if (a == NULL) {
        return 0;
    }
    *out = (struct record_spec_decode){0};
    if (json_array_size(a) != SPEC_FIELDS || !json_is_boolean(json_array_get(a, SPEC_VALID)) ||
        !read_double(json_array_get(a, SPEC_MEAN), &out->mean_acceptance_length) ||
        !read_double(json_array_get(a, SPEC_RATE), &out->draft_acceptance_rate) ||
        !read_histogram(json_array_get(a, SPEC_HISTOGRAM), out)) {
        return -EPROTO;
    }
    int64_t *counts[] = {&out->accepted_draft_tokens, &out->draft_tokens, &out->steps,
                         &out->spec_tokens};
    for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); i++) {
        const json_t *c = json_array_get(a, SPEC_ACCEPTED + i);
        if (!json_is_integer(c)) {
            return -EPROTO;
        }
        *counts[i] = json_integer_value(c);
    }
    json_int_t payloads = json_integer_value(json_array_get(a, SPEC_PAYLOADS));
    out->payloads = payloads > 0 && payloads <= UINT32_MAX ? (uint32_t)payloads : 0;
    out->valid = json_is_true(json_array_get(a, SPEC_VALID));
    if (out->payloads == 0 || (out->valid && !record_spec_decode_consistent(out))) {
        return -EPROTO;
    }
    return 1;
}
