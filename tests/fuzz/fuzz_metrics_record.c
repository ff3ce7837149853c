/*
 * fuzz_metrics_record.c - --goodput parsing and the per-request metrics on
 * arbitrary input.
 *
 * The first byte picks the mode. Goodput mode parses the rest as SLO text and
 * checks the invariants of a successful parse. Request mode reads a request
 * (flags, token counts, content times) from the bytes, computes its metrics,
 * folds it into a run and summarises it: no crash, no sanitizer report, and
 * every value the formulas promise to be finite is finite.
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "metrics/metrics.h"

#define CONTENT_MAX 64

static void check_goodput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (text == NULL) {
        return;
    }
    memcpy(text, data, size);
    text[size] = '\0';
    struct metrics_goodput g;
    char err[128];
    if (metrics_goodput_parse(text, &g, err, sizeof(err)) == 0) {
        if (g.count == 0 || g.count > METRICS_SLO_MAX) {
            abort();
        }
        for (size_t i = 0; i < g.count; i++) {
            if (!isfinite(g.threshold_base[i]) || g.threshold_base[i] < 0) {
                abort();
            }
        }
    } else if (strlen(err) == 0) {
        abort(); /* a failure always explains itself */
    }
    free(text);
}

static int64_t take_i64(const uint8_t **p, const uint8_t *end)
{
    int64_t v = 0;
    for (int i = 0; i < 8 && *p < end; i++, (*p)++) {
        v = (int64_t)((uint64_t)v << 8 | **p);
    }
    return v;
}

static void check_request(struct metrics_run *run, const uint8_t *data, size_t size)
{
    const uint8_t *p = data;
    const uint8_t *end = data + size;
    uint8_t flags = p < end ? *p++ : 0;
    struct metrics_request req = {
        .failed = (flags & 1) != 0,
        .streaming = (flags & 2) != 0,
        .start_ns = (take_i64(&p, end) & 0xffffffffffffLL),
        .start_wall_ns = 1700000000LL * 1000000000LL,
    };
    req.tokens.input = take_i64(&p, end) % 100000;
    req.tokens.output = take_i64(&p, end) % 100000;
    req.tokens.reasoning = take_i64(&p, end) % 100000;
    req.usage = RECORD_USAGE_NONE;
    req.usage.prompt_tokens = take_i64(&p, end) % 100000;
    req.usage.completion_tokens = take_i64(&p, end) % 100000;
    req.usage.reasoning_tokens = take_i64(&p, end) % 100000;
    req.usage.prompt_cache_read_tokens = take_i64(&p, end) % 100000;
    req.usage.prompt_audio_seconds = (double)(take_i64(&p, end) % 100000) / 8.0;
    req.client_tokens = (flags & 0x80) != 0;
    int64_t content[CONTENT_MAX];
    uint32_t n = 0;
    int64_t t = req.start_ns;
    while (p < end && n < CONTENT_MAX) {
        t += *p++ * 1000LL; /* non-decreasing, as the contract requires */
        content[n++] = t;
    }
    req.content_ns = n > 0 ? content : NULL;
    req.content_count = n;
    req.first_output_index = (flags >> 2) % (n + 1);
    struct metrics_values v;
    metrics_request_compute(&req, &v);
    for (int id = 0; id < METRICS_ID_COUNT; id++) {
        if (v.has[id] && id != METRICS_ICL && !isfinite(v.value[id])) {
            abort();
        }
    }
    metrics_run_add(run, &req, &v);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0) {
        return 0;
    }
    if (data[0] & 1) {
        check_goodput(data + 1, size - 1);
        return 0;
    }
    struct metrics_goodput g;
    char err[64];
    metrics_goodput_parse("time_to_first_token:1 output_token_throughput_per_user:5", &g, err,
                          sizeof(err));
    struct metrics_run_config cfg = {.streaming = true, .goodput = &g, .exact_samples_max = 8};
    struct metrics_run *run = NULL;
    if (metrics_run_new(&cfg, &run) != 0) {
        return 0;
    }
    /* Several requests from one input, so that the exact cap is crossed. */
    size_t chunk = size / 4 + 1;
    for (size_t off = 1; off < size; off += chunk) {
        check_request(run, data + off, off + chunk <= size ? chunk : size - off);
    }
    struct metrics_summary s;
    metrics_run_summarize(run, &s);
    for (int id = 0; id < METRICS_SCALAR_COUNT; id++) {
        if (s.scalar_present[id] && !isfinite(s.scalar[id])) {
            abort();
        }
    }
    metrics_run_free(run);
    return 0;
}
