/*
 * spec_decode.h - AIPerf's speculative-decoding metrics (spec_decode_metrics.py), private to
 * metrics/: the per-request values of a request's statistics, and the run's part, which pools
 * every request's accepted-draft histogram and counts the requests that ran no verify step.
 */
#ifndef RINGPERF_METRICS_SPEC_DECODE_H
#define RINGPERF_METRICS_SPEC_DECODE_H

#include <stdint.h>

#include "metrics/metrics.h"

/* metrics__spec_run is a run's speculative-decoding part, embedded in struct metrics_run;
 * zeroed is empty. */
struct metrics__spec_run {
    uint64_t usable;     /* valid requests with statistics of at least one verify step */
    uint64_t zero_steps; /* valid requests with statistics of none */
    uint32_t bucket_count;
    uint64_t steps[RECORD_SPEC_BUCKETS];
};

/* metrics__spec_compute sets the spec_decode_* record metrics of a request's statistics `s`
 * (NULL: none) when they are usable: acceptance length as reported, acceptance rate in percent,
 * accepted per verified, steps, accepted and drafted tokens. */
void metrics__spec_compute(const struct record_spec_decode *s, struct metrics_values *out);

/* metrics__spec_add counts a valid request's statistics `s` (NULL: none) into r. */
void metrics__spec_add(struct metrics__spec_run *r, const struct record_spec_decode *s);

/* metrics__spec_merge adds src into dst. */
void metrics__spec_merge(struct metrics__spec_run *dst, const struct metrics__spec_run *src);

/* metrics__spec_summarize writes the pooled histogram and the zero-step count into out, and
 * the run-level ratios of the totals out already holds (summarize them first). */
void metrics__spec_summarize(const struct metrics__spec_run *r, struct metrics_summary *out);

#endif
