/*
 * spec_decode.c - vLLM's per-request speculative-decoding statistics
 * (metrics.speculative_decoding on a chat or completions body, or on a
 * stream's trailing chunk), read and checked as AIPerf's vLLM adapter and its
 * SpecDecodeAcceptanceRecord do: a payload that fails a check is kept as
 * present but not valid, so that it counts as a payload yet yields no
 * metrics, as AIPerf drops a record it cannot build.
 */
#include "response/response_json.h"

enum spec__key {
    SPEC_MEAN_ACCEPTANCE_LENGTH,
    SPEC_DRAFT_ACCEPTANCE_RATE,
    SPEC_HISTOGRAM,
    SPEC_ACCEPTED,
    SPEC_DRAFTED,
    SPEC_STEPS,
    SPEC_SPEC_TOKENS,
    SPEC_PER_STEP_ACCEPTED,
    SPEC_PER_STEP_DRAFTED,
    SPEC_KEY_COUNT,
};

static const struct response__key spec__keys[SPEC_KEY_COUNT] = {
    [SPEC_MEAN_ACCEPTANCE_LENGTH] = RESPONSE__KEY("mean_acceptance_length"),
    [SPEC_DRAFT_ACCEPTANCE_RATE] = RESPONSE__KEY("draft_acceptance_rate"),
    [SPEC_HISTOGRAM] = RESPONSE__KEY("acceptance_histogram"),
    [SPEC_ACCEPTED] = RESPONSE__KEY("num_accepted_draft_tokens"),
    [SPEC_DRAFTED] = RESPONSE__KEY("num_draft_tokens"),
    [SPEC_STEPS] = RESPONSE__KEY("num_spec_steps"),
    [SPEC_SPEC_TOKENS] = RESPONSE__KEY("num_spec_tokens"),
    [SPEC_PER_STEP_ACCEPTED] = RESPONSE__KEY("per_step_accepted"),
    [SPEC_PER_STEP_DRAFTED] = RESPONSE__KEY("per_step_drafted"),
};

/* spec__count_list reports whether token i is a list of non-negative integers (null or absent
 * when optional); `keep`, when not NULL, receives up to `cap` of them and *out_len their
 * number. */
static bool spec__count_list(const struct response__doc *d, int i, bool optional, int64_t *keep,
                             uint32_t cap, uint32_t *out_len)
{
    if (optional && (i < 0 || response__is_null(d, i))) {
        return true;
    }
    if (!response__is(d, i, JSMN_ARRAY) || (keep != NULL && d->tok[i].size > (int)cap)) {
        return false;
    }
    int j = i + 1;
    for (int k = 0; k < d->tok[i].size; k++) {
        int64_t v = 0;
        if (!response__count(d, j, &v)) {
            return false;
        }
        if (keep != NULL) {
            keep[k] = v;
        }
        j = response__skip(d, j);
    }
    if (out_len != NULL) {
        *out_len = (uint32_t)d->tok[i].size;
    }
    return true;
}

/* spec__read fills *s from the payload's members; false when one is missing or malformed. */
static bool spec__read(const struct response__doc *d, const int *m, struct record_spec_decode *s)
{
    /* The three keys AIPerf's vLLM adapter recognises a vLLM payload by. */
    if (m[SPEC_MEAN_ACCEPTANCE_LENGTH] < 0 || m[SPEC_STEPS] < 0 || m[SPEC_HISTOGRAM] < 0) {
        return false;
    }
    s->spec_tokens = RECORD_ABSENT;
    int k = m[SPEC_SPEC_TOKENS];
    if (k >= 0 && !response__is_null(d, k) &&
        (!response__count(d, k, &s->spec_tokens) || s->spec_tokens >= RECORD_SPEC_BUCKETS)) {
        return false;
    }
    if (!response__double(d, m[SPEC_MEAN_ACCEPTANCE_LENGTH], &s->mean_acceptance_length) ||
        !response__double(d, m[SPEC_DRAFT_ACCEPTANCE_RATE], &s->draft_acceptance_rate) ||
        !response__count(d, m[SPEC_ACCEPTED], &s->accepted_draft_tokens) ||
        !response__count(d, m[SPEC_DRAFTED], &s->draft_tokens) ||
        !response__count(d, m[SPEC_STEPS], &s->steps) ||
        !spec__count_list(d, m[SPEC_HISTOGRAM], false, s->histogram, RECORD_SPEC_BUCKETS,
                          &s->bucket_count) ||
        !spec__count_list(d, m[SPEC_PER_STEP_ACCEPTED], true, NULL, 0, NULL) ||
        !spec__count_list(d, m[SPEC_PER_STEP_DRAFTED], true, NULL, 0, NULL)) {
        return false;
    }
    /* One bucket per accepted count 0..k (more would be more accepted than drafted), and the
     * histogram adding up to the counts. */
    return record_spec_decode_consistent(s);
}

void response__spec_decode(const struct response__doc *d, int metrics, struct response_chunk *out)
{
    int stats = response__get(d, metrics, "speculative_decoding");
    /* AIPerf takes a payload only when it is a non-empty object. */
    if (!response__is(d, stats, JSMN_OBJECT) || d->tok[stats].size == 0) {
        return;
    }
    int member[SPEC_KEY_COUNT];
    response__members(d, stats, spec__keys, SPEC_KEY_COUNT, member);
    struct record_spec_decode *s = &out->spec_decode;
    *s = (struct record_spec_decode){.payloads = 1};
    s->valid = spec__read(d, member, s);
    out->spec_decode_present = true;
}
