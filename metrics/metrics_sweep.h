/*
 * metrics_sweep.h - AIPerf's sweep-line metrics (appendix §1.10): the effective_*, active_* and
 * tokens_in_flight families, time-weighted statistics of step functions built from every
 * request's phases.
 *
 * A request is in prefill from its start to its first token and in decode from its first token
 * to its end. Sweeping the starts and ends of those intervals gives exact step functions of the
 * run: requests in flight (in each phase and in all), tokens per second being prefilled
 * (input tokens / prefill duration, spread over the prefill) and decoded ((output tokens - 1) /
 * decode duration over the decode, or, when the requests' inter-chunk gaps are known, each gap
 * carrying its share of the output tokens), their sum, the per-user rates (a rate divided by
 * that phase's concurrency, 0 where none), and the tokens held in flight (the input tokens from
 * the start, the output tokens from the first token or as each chunk arrives, freed at the end).
 * At equal times ends sort before starts. Each function is then reduced over the window to its
 * time-weighted avg, min, max, std (population) and p50/p90/p95/p99 (the value at which the
 * duration-weighted distribution first reaches the quantile); the active_* variants weigh only
 * the time when at least one request was in that phase.
 *
 * The collector keeps a compact tuple per request (and its inter-chunk gaps) in arrays that
 * double as they fill, up to the limits of struct metrics_sweep_config; the sweep itself runs
 * once, at the end, in O(n log n). Not thread-safe; no function keeps its arguments.
 */
#ifndef RINGPERF_METRICS_SWEEP_H
#define RINGPERF_METRICS_SWEEP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct metrics_info;

/* metrics_sweep_id lists the sweep-line metrics in AIPerf's order (its SWEEP_LINE_METRIC_SPECS,
 * then the active variants). */
enum metrics_sweep_id {
    METRICS_SW_CONCURRENCY,               /* effective_concurrency */
    METRICS_SW_DECODE_THROUGHPUT,         /* effective_decode_throughput */
    METRICS_SW_PREFILL_THROUGHPUT,        /* effective_prefill_throughput */
    METRICS_SW_DECODE_CONCURRENCY,        /* effective_decode_concurrency */
    METRICS_SW_PREFILL_CONCURRENCY,       /* effective_prefill_concurrency */
    METRICS_SW_TOTAL_THROUGHPUT,          /* effective_total_throughput */
    METRICS_SW_DECODE_PER_USER,           /* effective_decode_throughput_per_user */
    METRICS_SW_PREFILL_PER_USER,          /* effective_prefill_throughput_per_user */
    METRICS_SW_TOKENS_IN_FLIGHT,          /* tokens_in_flight */
    METRICS_SW_ACTIVE_DECODE_THROUGHPUT,  /* active_decode_throughput */
    METRICS_SW_ACTIVE_PREFILL_THROUGHPUT, /* active_prefill_throughput */
    METRICS_SW_ACTIVE_DECODE_PER_USER,    /* active_decode_throughput_per_user */
    METRICS_SW_ACTIVE_PREFILL_PER_USER,   /* active_prefill_throughput_per_user */
    METRICS_SW_ACTIVE_TOTAL_THROUGHPUT,   /* active_total_throughput */
    METRICS_SWEEP_COUNT
};

/* METRICS_SW_ACTIVE_FIRST is the first of the active_* variants (AIPerf's "Active" console
 * group); the ones before it are its "Effective" group. */
#define METRICS_SW_ACTIVE_FIRST METRICS_SW_ACTIVE_DECODE_THROUGHPUT

/* metrics_sweep_info_of returns AIPerf's tag, header and unit of sweep metric `id` (static;
 * display_per_base 1, no flags, display_order its position in the console group). */
const struct metrics_info *metrics_sweep_info_of(enum metrics_sweep_id id);

/* metrics_sweep_stats are the statistics AIPerf keeps of a sweep metric, in its display unit
 * (requests, tokens, tokens/sec, tokens/sec/user). All 0 when the function is empty. */
struct metrics_sweep_stats {
    double avg, min, max, p50, p90, p95, p99, std;
};

/* metrics_sweep_summary is the run's sweep metrics. `present` is false when no request was
 * collected, or when the run had more requests than the collector keeps (AIPerf then reports
 * none rather than describe part of the run). `icl` says the decode throughput and tokens in
 * flight followed the inter-chunk gaps. The window is [window_start_ns, window_end_ns] on the
 * collected requests' clock. */
struct metrics_sweep_summary {
    bool present;
    bool icl;
    int64_t window_start_ns;
    int64_t window_end_ns;
    struct metrics_sweep_stats stat[METRICS_SWEEP_COUNT];
};

/* METRICS_SWEEP_NONE marks a request without a first token (a failure, or a non-streaming
 * response); METRICS_SWEEP_NO_TOKENS a token count that is not known. */
#define METRICS_SWEEP_NONE INT64_MIN
#define METRICS_SWEEP_NO_TOKENS (-1.0)

/* metrics_sweep_request is one finished request: start, first token and end on one clock in ns
 * (first_ns METRICS_SWEEP_NONE when there is none), and its input and output (OSL) token
 * counts (METRICS_SWEEP_NO_TOKENS when unknown). */
struct metrics_sweep_request {
    int64_t start_ns;
    int64_t first_ns;
    int64_t end_ns;
    double input_tokens;
    double output_tokens;
};

/* metrics_sweep_config bounds a collector: at most `records_max` requests (0 =
 * METRICS_SWEEP_RECORDS_DEFAULT) and `gaps_max` inter-chunk gaps in all (0 =
 * METRICS_SWEEP_GAPS_DEFAULT). Past records_max the summary has no sweep metrics; past
 * gaps_max (or when the gaps cannot be kept) the whole run uses the uniform decode rate, as
 * AIPerf does when its records keep no per-chunk timing. */
struct metrics_sweep_config {
    size_t records_max;
    size_t gaps_max;
};

#define METRICS_SWEEP_RECORDS_DEFAULT ((size_t)1 << 22)
#define METRICS_SWEEP_GAPS_DEFAULT ((size_t)1 << 25)

/* metrics_sweep is an opaque collector of requests. */
struct metrics_sweep;

/* metrics_sweep_new allocates an empty collector (nothing is kept until the first request).
 * Returns 0 and the collector, owned by the caller (release with metrics_sweep_free), in
 * `*out`; or -ENOMEM. `config` NULL means the defaults. */
int metrics_sweep_new(const struct metrics_sweep_config *config, struct metrics_sweep **out);

/* metrics_sweep_free releases `s`; metrics_sweep_free(NULL) is a no-op. */
void metrics_sweep_free(struct metrics_sweep *s);

/* metrics_sweep_add keeps one request and, for AIPerf's inter-chunk-aware variants, the arrival
 * times of its `chunk_count` content responses (`chunk_ns`, borrowed for the call, on any one
 * clock: only the gaps between them are kept; the first is the first token). A request whose end
 * is before its start, or whose first token is outside [start, end], is ignored. Past the
 * limits see struct metrics_sweep_config; a failed allocation counts as the limit. */
void metrics_sweep_add(struct metrics_sweep *s, const struct metrics_sweep_request *req,
                       const int64_t *chunk_ns, uint32_t chunk_count);

/* metrics_sweep_count returns how many requests `s` kept. */
size_t metrics_sweep_count(const struct metrics_sweep *s);

/* metrics_sweep_truncated returns true when `s` met records_max and dropped requests. */
bool metrics_sweep_truncated(const struct metrics_sweep *s);

/* metrics_sweep_summarize sweeps the kept requests over the window from the earliest start to
 * the latest end and fills `*out`. The requests stay kept; it may be called again. Returns 0;
 * or -ENOMEM, with out->present false. */
int metrics_sweep_summarize(const struct metrics_sweep *s, struct metrics_sweep_summary *out);

/* metrics_sweep_summarize_window is metrics_sweep_summarize over [window_start_ns,
 * window_end_ns] (the step functions clipped to it); an empty window gives zeros. */
int metrics_sweep_summarize_window(const struct metrics_sweep *s, int64_t window_start_ns,
                                   int64_t window_end_ns, struct metrics_sweep_summary *out);

#endif
