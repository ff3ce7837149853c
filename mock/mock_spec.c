/*
 * mock_spec.c - the mock's simulated speculative decoding (--spec-decode-tokens): a fixed
 * acceptance pattern, so that a test can work out what every answer reported from its output
 * length alone, written as vLLM's per-request metrics.speculative_decoding object.
 */
#include "mock/mock_internal.h"

#include <stdio.h>

/* mock__spec is what one answer's verify steps did. */
struct mock__spec {
    uint64_t steps;
    uint64_t accepted;
    uint64_t histogram[MOCK_SPEC_DECODE_TOKENS_MAX + 1];
};

/* spec_step runs verify step s with `left` tokens to emit: it accepts min(s mod (k + 1),
 * left - 1) drafts and emits them and one token more. Returns the tokens emitted. */
static uint64_t spec_step(uint32_t k, uint64_t s, uint64_t left, struct mock__spec *out)
{
    uint64_t accepted = s % (k + 1);
    accepted = accepted < left - 1 ? accepted : left - 1;
    out->steps++;
    out->accepted += accepted;
    out->histogram[accepted]++;
    return accepted + 1;
}

/* spec_count simulates the answer of `tokens` output tokens, the first from the prefill. Whole
 * cycles of k + 1 steps (accepting 0..k) are counted at once: an answer may be long. */
static void spec_count(uint32_t k, uint64_t tokens, struct mock__spec *out)
{
    *out = (struct mock__spec){0};
    uint64_t left = tokens > 0 ? tokens - 1 : 0;
    uint64_t cycle_tokens = (uint64_t)(k + 1) * (k + 2) / 2;
    /* A whole cycle is never capped: its last step emits k + 1 tokens of the at least k + 1 left.
     */
    uint64_t cycles = left / cycle_tokens;
    out->steps = cycles * (k + 1);
    out->accepted = cycles * ((uint64_t)k * (k + 1) / 2);
    for (uint32_t j = 0; j <= k; j++) {
        out->histogram[j] = cycles;
    }
    left -= cycles * cycle_tokens;
    for (uint64_t s = 0; left > 0; s++) {
        left -= spec_step(k, s, left, out);
    }
}

static void put_double(struct mock__buf *b, double v)
{
    char text[32];
    int n = snprintf(text, sizeof(text), "%.17g", v);
    mock__buf_put(b, text, (size_t)n);
    if (v == (double)(int64_t)v) {
        mock__buf_str(b, ".0"); /* a float, as vLLM sends it */
    }
}

void mock__fmt_spec_decode(struct mock__buf *b, const struct mock__job *job)
{
    uint32_t k = job->spec_tokens;
    if (k == 0) {
        return;
    }
    struct mock__spec sp;
    spec_count(k, job->output_tokens, &sp);
    uint64_t drafted = sp.steps * k;
    mock__buf_str(b, ",\"metrics\":{\"speculative_decoding\":{\"mean_acceptance_length\":");
    put_double(b, sp.steps > 0 ? 1.0 + (double)sp.accepted / (double)sp.steps : 1.0);
    mock__buf_str(b, ",\"draft_acceptance_rate\":");
    put_double(b, drafted > 0 ? (double)sp.accepted / (double)drafted : 0.0);
    mock__buf_str(b, ",\"acceptance_histogram\":[");
    for (uint32_t j = 0; j <= k; j++) {
        if (j > 0) {
            mock__buf_put(b, ",", 1);
        }
        mock__buf_u64(b, sp.histogram[j]);
    }
    mock__buf_str(b, "],\"num_accepted_draft_tokens\":");
    mock__buf_u64(b, sp.accepted);
    mock__buf_str(b, ",\"num_draft_tokens\":");
    mock__buf_u64(b, drafted);
    mock__buf_str(b, ",\"num_spec_steps\":");
    mock__buf_u64(b, sp.steps);
    mock__buf_str(b, ",\"num_spec_tokens\":");
    mock__buf_u64(b, k);
    mock__buf_str(b, "}}");
}
