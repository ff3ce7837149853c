/*
 * spec_decode.c - AIPerf's speculative-decoding metrics: per request from the server's
 * statistics as reported, per run from the pooled histogram and the totals. A request whose
 * server reported no verify step has no per-request value (AIPerf's acceptance length of 1.0
 * and rate of 0% would drag the means down); it is counted apart.
 */
#include "metrics/spec_decode.h"

static void spec__set(struct metrics_values *out, enum metrics_id id, double v)
{
    out->has[id] = true;
    out->value[id] = v;
}

void metrics__spec_compute(const struct record_spec_decode *s, struct metrics_values *out)
{
    if (s == NULL || !record_spec_decode_usable(s)) {
        return;
    }
    double steps = (double)s->steps;
    double accepted = (double)s->accepted_draft_tokens;
    spec__set(out, METRICS_SPEC_ACCEPTANCE_LENGTH, s->mean_acceptance_length);
    spec__set(out, METRICS_SPEC_DRAFT_ACCEPTANCE_RATE, s->draft_acceptance_rate * 100.0);
    /* Every step emits one bonus token beyond its accepted drafts, and verifies one beyond its
     * drafts: (j + 1) / (l + 1). */
    spec__set(out, METRICS_SPEC_ACCEPTED_PER_VERIFIED,
              (accepted + steps) / ((double)s->draft_tokens + steps));
    spec__set(out, METRICS_SPEC_STEPS, steps);
    spec__set(out, METRICS_SPEC_ACCEPTED_DRAFT_TOKENS, accepted);
    spec__set(out, METRICS_SPEC_DRAFT_TOKENS, (double)s->draft_tokens);
}

void metrics__spec_add(struct metrics__spec_run *r, const struct record_spec_decode *s)
{
    if (s == NULL) {
        return;
    }
    if (record_spec_decode_zero_step(s)) {
        r->zero_steps++;
        return;
    }
    if (!record_spec_decode_usable(s)) {
        return;
    }
    r->usable++;
    for (uint32_t j = 0; j < s->bucket_count; j++) {
        r->steps[j] += (uint64_t)s->histogram[j];
    }
    if (s->bucket_count > r->bucket_count) {
        r->bucket_count = s->bucket_count;
    }
}

void metrics__spec_merge(struct metrics__spec_run *dst, const struct metrics__spec_run *src)
{
    dst->usable += src->usable;
    dst->zero_steps += src->zero_steps;
    for (uint32_t j = 0; j < src->bucket_count; j++) {
        dst->steps[j] += src->steps[j];
    }
    if (src->bucket_count > dst->bucket_count) {
        dst->bucket_count = src->bucket_count;
    }
}

static void spec__put(struct metrics_summary *out, enum metrics_scalar_id id, double v)
{
    out->scalar_present[id] = true;
    out->scalar[id] = v;
}

void metrics__spec_summarize(const struct metrics__spec_run *r, struct metrics_summary *out)
{
    if (r->zero_steps > 0) {
        spec__put(out, METRICS_S_SPEC_ZERO_STEP_REQUESTS, (double)r->zero_steps);
    }
    if (r->usable == 0) {
        return;
    }
    out->spec_present = true;
    out->spec_bucket_count = r->bucket_count;
    for (uint32_t j = 0; j < r->bucket_count; j++) {
        out->spec_steps[j] = r->steps[j];
    }
    double steps = out->scalar[METRICS_S_TOTAL_SPEC_DECODE_STEPS];
    double accepted = out->scalar[METRICS_S_TOTAL_ACCEPTED_DRAFT_TOKENS];
    double drafted = out->scalar[METRICS_S_TOTAL_DRAFT_TOKENS];
    if (out->scalar_present[METRICS_S_TOTAL_SPEC_DECODE_STEPS] && steps > 0) {
        spec__put(out, METRICS_S_SPEC_TOKEN_WEIGHTED_ACCEPTANCE_LENGTH, 1.0 + accepted / steps);
    }
    if (out->scalar_present[METRICS_S_TOTAL_DRAFT_TOKENS] && drafted > 0) {
        spec__put(out, METRICS_S_SPEC_OVERALL_DRAFT_ACCEPTANCE_RATE, accepted / drafted * 100.0);
    }
}
