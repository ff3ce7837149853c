/*
 * metrics.h - latency histograms and AIPerf's summary statistics.
 *
 * Three parts:
 *
 *  - struct metrics_hist, an HdrHistogram (log-linear buckets with a fixed
 *    number of significant decimal digits). Each shard owns one histogram per
 *    metric; recording is a handful of integer instructions with no atomics and
 *    no allocation, and histograms with the same layout are merged exactly at
 *    the end of a run (shards, and later MPI ranks through the raw counts).
 *
 *  - struct metrics_stats, the statistics AIPerf reports for every record
 *    metric (avg, min, max, p1..p99, std, sum, count), filled either exactly
 *    from a sample array (NumPy semantics) or approximately from a histogram.
 *
 *  - AIPerf's metric set: per-request values from a struct metrics_request
 *    view (metrics_request_compute), --goodput SLOs, and struct metrics_run,
 *    which accumulates a run and summarises it (see the section below).
 *
 * Nothing here is thread-safe: a histogram is used by one thread at a time.
 * No function keeps a pointer to its arguments after it returns unless stated.
 */
#ifndef RINGPERF_METRICS_H
#define RINGPERF_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "metrics/metrics_sweep.h"
#include "record/record.h"

/* METRICS_HIST_SIGFIGS_MIN and METRICS_HIST_SIGFIGS_MAX bound the number of
 * significant decimal digits a histogram keeps. At 5 digits and a range of
 * [1, INT64_MAX] the counts array is about 50 MB, the largest possible. */
#define METRICS_HIST_SIGFIGS_MIN 1
#define METRICS_HIST_SIGFIGS_MAX 5

/* metrics_hist is an opaque HdrHistogram of non-negative int64 values. */
struct metrics_hist;

/* metrics_hist_layout describes the bucket layout of a histogram. Two
 * histograms can be merged exactly iff their layouts are equal; `counts_len` is
 * derived from the other three and is the length of metrics_hist_counts(). */
struct metrics_hist_layout {
    int64_t lowest_trackable;
    int64_t highest_trackable;
    int significant_figures;
    size_t counts_len;
};

/* metrics_hist_summary is everything a histogram holds besides its bucket
 * counts: totals and the exact extremes and sum of the recorded values. The
 * exact sum is the unsigned 128-bit number sum_hi * 2^64 + sum_lo. When
 * total_count is 0, min_value and max_value are 0. */
struct metrics_hist_summary {
    uint64_t total_count;
    uint64_t overflow_count;
    uint64_t underflow_count;
    int64_t min_value;
    int64_t max_value;
    uint64_t sum_hi;
    uint64_t sum_lo;
};

/* metrics_hist_iter walks the non-empty buckets of a histogram in increasing
 * value order. Caller-allocated; initialise with metrics_hist_iter_init. After
 * each successful metrics_hist_iter_next, `lowest_value`..`highest_value`
 * (inclusive) is the bucket's value range and `count` how many values fell in
 * it. The other fields are private. */
struct metrics_hist_iter {
    const struct metrics_hist *hist;
    size_t next_index;
    uint64_t seen; /* values in the buckets walked so far */
    int64_t lowest_value;
    int64_t highest_value;
    uint64_t count;
};

/* metrics_hist_new allocates an empty histogram tracking values in
 * [lowest_trackable, highest_trackable] to `significant_figures` decimal
 * digits (the width of the bucket holding v is at most v / 10^digits, rounded
 * down to a power of two; values below lowest_trackable share its resolution).
 * Requires lowest_trackable >= 1, highest_trackable >= 2 * lowest_trackable and
 * METRICS_HIST_SIGFIGS_MIN <= significant_figures <= METRICS_HIST_SIGFIGS_MAX.
 * Returns 0 and stores the histogram, owned by the caller (release with
 * metrics_hist_free), in `*out`; -EINVAL on bad arguments or -ENOMEM, leaving
 * `*out` untouched. */
int metrics_hist_new(int64_t lowest_trackable, int64_t highest_trackable, int significant_figures,
                     struct metrics_hist **out);

/* metrics_hist_free releases `h`. metrics_hist_free(NULL) is a no-op. */
void metrics_hist_free(struct metrics_hist *h);

/* metrics_hist_record adds one occurrence of `value`. A value above
 * highest_trackable is recorded as highest_trackable and counted in
 * overflow_count; a negative value is recorded as 0 and counted in
 * underflow_count. Nothing is ever dropped, and every statistic (min, max,
 * sum, percentiles) describes the values as recorded, i.e. after clamping.
 * O(1), no allocation, no atomics. */
void metrics_hist_record(struct metrics_hist *h, int64_t value);

/* metrics_hist_record_n is metrics_hist_record repeated `count` times.
 * count == 0 changes nothing. */
void metrics_hist_record_n(struct metrics_hist *h, int64_t value, uint64_t count);

/* metrics_hist_reset empties `h`, keeping its layout and memory. */
void metrics_hist_reset(struct metrics_hist *h);

/* metrics_hist_same_layout returns true iff `a` and `b` have the same
 * lowest_trackable, highest_trackable and significant_figures. */
bool metrics_hist_same_layout(const struct metrics_hist *a, const struct metrics_hist *b);

/* metrics_hist_merge adds every bucket count and the summary of `src` into
 * `dst`, so that dst then equals one histogram fed both inputs. `src` is not
 * modified (merging a histogram into itself doubles it). Returns 0, or -EINVAL
 * without touching `dst` when the layouts differ. */
int metrics_hist_merge(struct metrics_hist *dst, const struct metrics_hist *src);

/* metrics_hist_layout fills `*out` with the layout of `h`. */
void metrics_hist_layout(const struct metrics_hist *h, struct metrics_hist_layout *out);

/* metrics_hist_counts returns the bucket counts of `h` and stores their
 * number (layout.counts_len) in `*out_len`. The view is read-only, owned by
 * `h`, and valid until metrics_hist_free(h); it changes as values are
 * recorded. Meant for reducing counts across processes (element-wise sum). */
const uint64_t *metrics_hist_counts(const struct metrics_hist *h, size_t *out_len);

/* metrics_hist_summary fills `*out` with the totals, exact extremes and exact
 * sum of `h`. */
void metrics_hist_summary(const struct metrics_hist *h, struct metrics_hist_summary *out);

/* metrics_hist_summary_merge folds `src` into `dst` as if both described parts
 * of one histogram: counts and sums add, min/max combine (an empty side is
 * ignored). */
void metrics_hist_summary_merge(struct metrics_hist_summary *dst,
                                const struct metrics_hist_summary *src);

/* metrics_hist_add_raw adds bucket counts and a summary that came from
 * another histogram with layout `layout` (typically reduced across processes
 * with metrics_hist_counts, metrics_hist_summary and
 * metrics_hist_summary_merge) into `h`. Borrows `counts` (`counts_len`
 * entries). Returns 0; or -EINVAL, leaving `h` untouched, when the layout
 * differs from h's, counts_len != layout->counts_len, or summary->total_count
 * is not the sum of the counts. */
int metrics_hist_add_raw(struct metrics_hist *h, const struct metrics_hist_layout *layout,
                         const uint64_t *counts, size_t counts_len,
                         const struct metrics_hist_summary *summary);

/* metrics_hist_count returns the number of recorded values (including the
 * clamped ones). */
uint64_t metrics_hist_count(const struct metrics_hist *h);

/* metrics_hist_overflow_count returns how many recorded values were above
 * highest_trackable and were clamped to it. */
uint64_t metrics_hist_overflow_count(const struct metrics_hist *h);

/* metrics_hist_underflow_count returns how many recorded values were negative
 * and were clamped to 0. */
uint64_t metrics_hist_underflow_count(const struct metrics_hist *h);

/* metrics_hist_min returns the exact smallest recorded value (not its bucket's
 * bound), or 0 when the histogram is empty. */
int64_t metrics_hist_min(const struct metrics_hist *h);

/* metrics_hist_max returns the exact largest recorded value (not its bucket's
 * bound), or 0 when the histogram is empty. */
int64_t metrics_hist_max(const struct metrics_hist *h);

/* metrics_hist_exact_limit returns the bound below which every value has a
 * bucket of its own: recording a whole value in [0, limit) loses nothing.
 * 0 when lowest_trackable > 1 (every bucket is wider than one). */
int64_t metrics_hist_exact_limit(const struct metrics_hist *h);

/* metrics_hist_sum returns the exact sum of the recorded values, rounded to
 * the nearest double. 0 when empty. */
double metrics_hist_sum(const struct metrics_hist *h);

/* metrics_hist_mean returns the exact mean of the recorded values (exact sum /
 * count, rounded to double), or 0 when empty. */
double metrics_hist_mean(const struct metrics_hist *h);

/* metrics_hist_stddev returns the population standard deviation (ddof=0),
 * computed as HdrHistogram does from each bucket's midpoint (clamped to the
 * exact [min, max], so a constant input gives 0) around the exact mean.
 * 0 when empty. */
double metrics_hist_stddev(const struct metrics_hist *h);

/* metrics_hist_value_at_percentile returns the value at `percentile` (0..100;
 * values outside are clamped, NaN counts as 0) with HdrHistogram semantics: the
 * highest value equivalent to (in the same bucket as) the recorded value of
 * rank max(1, round(percentile/100 * count)); for percentile 0 the lowest
 * equivalent value instead. 0 when empty. */
int64_t metrics_hist_value_at_percentile(const struct metrics_hist *h, double percentile);

/* metrics_hist_iter_init prepares `it` to walk `h` from its lowest bucket.
 * `it` borrows `h`, which must outlive it and not be reset during the walk. */
void metrics_hist_iter_init(struct metrics_hist_iter *it, const struct metrics_hist *h);

/* metrics_hist_iter_next advances to the next bucket with a non-zero count
 * and fills it->lowest_value, it->highest_value and it->count. Returns false,
 * leaving those fields unspecified, when there are no more buckets. */
bool metrics_hist_iter_next(struct metrics_hist_iter *it);

/* metrics_stats holds AIPerf's statistics of one record metric (spec 2.4):
 * mean, extremes, NumPy-default percentiles, population std (ddof=0), sum and
 * number of values, all in the unit of the input values. */
struct metrics_stats {
    double avg, min, max;
    double p1, p5, p10, p25, p50, p75, p90, p95, p99;
    double std, sum;
    uint64_t count;
};

/* metrics_stats_exact computes `*out` from `n` samples. Sorts `values` in place
 * (ascending; the caller keeps ownership). Percentiles are NumPy's default
 * `np.percentile` (linear interpolation at index q/100 * (n - 1), with NumPy's
 * rounding of the lerp), std is `np.std` (ddof=0); sums are accumulated in long
 * double. Returns 0; -ENODATA when n == 0 (AIPerf omits empty distributions);
 * -EINVAL when a value is NaN or infinite. `*out` is only written on success. */
int metrics_stats_exact(double *values, size_t n, struct metrics_stats *out);

/* metrics_stats_from_hist computes `*out` from a histogram. count, sum, avg,
 * min and max are exact. Percentiles use the same linear interpolation between
 * ranks as metrics_stats_exact, where the value of a rank is estimated by
 * spreading its bucket's values evenly over the bucket's range (clamped to the
 * exact [min, max]). They equal NumPy's while every value sits in a one-value
 * bucket (lowest_trackable 1 and values below the power of two >= 2 *
 * 10^significant_figures, e.g. 2048 at 3 digits: token counts) and are
 * otherwise within one bucket width (at most value / 10^significant_figures,
 * or the unit below lowest_trackable). std is metrics_hist_stddev.
 * Returns 0, or -ENODATA (leaving `*out` untouched) when `h` is empty. */
int metrics_stats_from_hist(const struct metrics_hist *h, struct metrics_stats *out);

/* metrics_stats_exact_hist computes `*out` from a histogram whose values all
 * lie below metrics_hist_exact_limit (none clamped), and is then to the last
 * bit what metrics_stats_exact gives for the same values in any order: such a
 * histogram is the sorted values, run-length encoded. Returns 0; -ENODATA
 * when `h` is empty; -EINVAL when a value is not held exactly. `*out` is only
 * written on success. */
int metrics_stats_exact_hist(const struct metrics_hist *h, struct metrics_stats *out);

/* metrics_python_float writes `value` into `out` (cap bytes, always
 * NUL-terminated, truncated if short; 32 is enough) as Python's str(float)
 * does, which AIPerf's directory names and Prometheus values use: the
 * shortest text that reads back the same, fixed-point for exponents -4..15
 * with ".0" on whole numbers (10 -> "10.0", 0.125 -> "0.125"), scientific
 * otherwise (1e-05, 1.5e+16), and "nan", "inf", "-inf". */
void metrics_python_float(double value, char *out, size_t cap);

/* metrics_stats_scale multiplies every value field of `s` (avg, min, max,
 * percentiles, std, sum; not count) by `factor`, e.g. 1e-6 for ns -> ms. */
void metrics_stats_scale(struct metrics_stats *s, double factor);

/*
 * Per-request metrics and the run's aggregate (AIPerf spec §1.7, §2.2, §2.3).
 *
 * A finished request is described by struct metrics_request, a small view the
 * caller fills from whatever produced it (the engine's record, a test). It
 * keeps this module free of the engine: only the arrival times of the
 * *content responses* (AIPerf's content_responses: chunks that carried output,
 * reasoning or tool-call text) and the token counts matter. Token counts come
 * either from a tokenizer or from the server's usage (--use-server-token-count);
 * the caller decides and fills struct metrics_tokens accordingly.
 *
 * metrics_request_compute gives the per-request values (struct
 * metrics_values, base units: ns, tokens, tokens/sec). A struct metrics_run
 * accumulates them and summarises the run into a struct metrics_summary in
 * display units (ms, tokens, tokens/sec, sec), which the exporters print.
 */

/* metrics_id lists the record metrics (one value per request, or a list for
 * inter_chunk_latency), in AIPerf's console display order. */
enum metrics_id {
    METRICS_TTFT,                  /* time_to_first_token */
    METRICS_TTST,                  /* time_to_second_token */
    METRICS_TTFO,                  /* time_to_first_output_token */
    METRICS_REQUEST_LATENCY,       /* request_latency */
    METRICS_DECODE_DURATION,       /* decode_duration: request_latency - TTFT */
    METRICS_ITL,                   /* inter_token_latency */
    METRICS_ICL,                   /* inter_chunk_latency (a list per request) */
    METRICS_OTPS_PER_USER,         /* output_token_throughput_per_user */
    METRICS_PREFILL_TPS_PER_USER,  /* prefill_throughput_per_user */
    METRICS_OSL,                   /* output_sequence_length */
    METRICS_ISL,                   /* input_sequence_length */
    METRICS_OUTPUT_TOKEN_COUNT,    /* output_token_count */
    METRICS_REASONING_TOKEN_COUNT, /* reasoning_token_count */
    METRICS_USAGE_PROMPT_TOKENS,
    METRICS_USAGE_COMPLETION_TOKENS,
    METRICS_USAGE_TOTAL_TOKENS,
    METRICS_USAGE_REASONING_TOKENS,
    METRICS_USAGE_PROMPT_CACHE_READ_TOKENS,
    METRICS_USAGE_PROMPT_CACHE_WRITE_TOKENS,
    METRICS_USAGE_PROMPT_CACHE_MISS_TOKENS,
    METRICS_USAGE_PROMPT_AUDIO_TOKENS,
    METRICS_USAGE_COMPLETION_AUDIO_TOKENS,
    METRICS_USAGE_PROMPT_AUDIO_SECONDS, /* seconds, not tokens */
    METRICS_USAGE_TOOL_USE_PROMPT_TOKENS,
    METRICS_USAGE_ACCEPTED_PREDICTION_TOKENS,
    METRICS_USAGE_REJECTED_PREDICTION_TOKENS,
    /* Server usage against the client's own token counts, in percent:
     * abs((usage - client) / client) * 100 (see metrics_request_compute). */
    METRICS_USAGE_PROMPT_TOKENS_DIFF_PCT,
    METRICS_USAGE_COMPLETION_TOKENS_DIFF_PCT,
    METRICS_USAGE_REASONING_TOKENS_DIFF_PCT,
    METRICS_ERROR_ISL, /* error_isl: ISL of failed requests */
    /* Coordinated-omission aware (open loop only): measured from the time the
     * schedule said the request was due, not from when it actually left. */
    METRICS_TTFT_FROM_SCHEDULE,            /* time_to_first_token_from_schedule */
    METRICS_REQUEST_LATENCY_FROM_SCHEDULE, /* request_latency_from_schedule */
    /* AIPerf's HTTP trace (k6/HAR style), from the engine's own timestamps and counts
     * (struct metrics_http): ns, bytes, counts and a 0/1 reuse flag. */
    METRICS_HTTP_BLOCKED,             /* http_req_blocked: waiting for a connection */
    METRICS_HTTP_DNS_LOOKUP,          /* http_req_dns_lookup: 0, resolved before the run */
    METRICS_HTTP_CONNECTING,          /* http_req_connecting: TCP and TLS; 0 when reused */
    METRICS_HTTP_SENDING,             /* http_req_sending */
    METRICS_HTTP_WAITING,             /* http_req_waiting: TTFB after the request was sent */
    METRICS_HTTP_RECEIVING,           /* http_req_receiving: first to last response read */
    METRICS_HTTP_CONNECTION_REUSED,   /* http_req_connection_reused */
    METRICS_HTTP_DATA_SENT,           /* http_req_data_sent, bytes */
    METRICS_HTTP_CHUNKS_SENT,         /* http_req_chunks_sent */
    METRICS_HTTP_DATA_RECEIVED,       /* http_req_data_received, bytes */
    METRICS_HTTP_CHUNKS_RECEIVED,     /* http_req_chunks_received */
    METRICS_HTTP_CONNECTION_OVERHEAD, /* http_req_connection_overhead */
    METRICS_HTTP_DURATION,            /* http_req_duration: send start to last byte */
    METRICS_HTTP_TOTAL,               /* http_req_total: the six phases added */
    METRICS_E2E_OUTPUT_TPS,           /* e2e_output_token_throughput: OSL / request latency */
    /* AIPerf's derived latencies from when the request was issued (its credit): the due time
     * in an open loop, when a connection was free in a closed one; not on fixed schedules. */
    METRICS_EFFECTIVE_LATENCY,       /* effective_latency: issued to the response's end */
    METRICS_CREDIT_TO_START_LATENCY, /* credit_to_start_latency: issued to sent */
    /* With a network round trip (--network-latency-mean): AIPerf's network-adjusted blocks,
     * every statistic of the metric less the round trip, at least 0. Summary only. */
    METRICS_NET_ADJ_REQUEST_LATENCY, /* network_adjusted_request_latency */
    METRICS_NET_ADJ_TTFT,            /* network_adjusted_time_to_first_token */
    METRICS_NET_ADJ_TTFO,            /* network_adjusted_time_to_first_output_token */
    /* osl_mismatch_diff_pct: 100 * (OSL - requested) / requested, signed, for
     * requests that asked for an output length (max_tokens). */
    METRICS_OSL_MISMATCH_DIFF_PCT,
    /* AIPerf's image metrics (SUPPORTS_IMAGE_ONLY: endpoints that carry input images): the
     * request's input images, num_images / latency (images/sec) and latency / num_images. */
    METRICS_NUM_IMAGES,       /* num_images */
    METRICS_IMAGE_THROUGHPUT, /* image_throughput, images/sec */
    METRICS_IMAGE_LATENCY,    /* image_latency, ns per image (ms/image displayed) */
    /* AIPerf's audio metrics (SUPPORTS_AUDIO_ONLY): the input audio's length (s), and the
     * inverse real-time factor audio_duration / request latency (s). */
    METRICS_AUDIO_DURATION, /* audio_duration, seconds */
    METRICS_RTFX,           /* rtfx, ratio */
    /* AIPerf's video metrics (PRODUCES_VIDEO_ONLY): what the server reported when the job
     * completed (SGLang's inference_time_s and peak_memory_mb). */
    METRICS_VIDEO_INFERENCE_TIME, /* video_inference_time, ns (ms displayed) */
    METRICS_VIDEO_PEAK_MEMORY,    /* video_peak_memory, MB */
    /* AIPerf's speculative-decoding metrics, from the server's per-request statistics
     * (struct record_spec_decode) of a request that ran at least one verify step. */
    METRICS_SPEC_ACCEPTANCE_LENGTH,     /* spec_decode_acceptance_length: as reported */
    METRICS_SPEC_DRAFT_ACCEPTANCE_RATE, /* spec_decode_draft_acceptance_rate, % */
    METRICS_SPEC_ACCEPTED_PER_VERIFIED, /* (accepted + steps) / (drafted + steps) */
    METRICS_SPEC_STEPS,                 /* spec_decode_steps */
    METRICS_SPEC_ACCEPTED_DRAFT_TOKENS, /* spec_decode_accepted_draft_tokens */
    METRICS_SPEC_DRAFT_TOKENS,          /* spec_decode_draft_tokens */
    METRICS_ID_COUNT
};

/* metrics_scalar_id lists the aggregate and derived metrics of a run: one
 * value each. */
enum metrics_scalar_id {
    METRICS_S_OUTPUT_TOKEN_THROUGHPUT, /* total_osl / duration */
    METRICS_S_REQUEST_THROUGHPUT,      /* request_count / duration */
    METRICS_S_GOODPUT,                 /* good_request_count / duration */
    METRICS_S_REQUEST_COUNT,           /* valid (successful) requests */
    METRICS_S_GOOD_REQUEST_COUNT,
    METRICS_S_GOOD_REQUEST_FRACTION, /* good / (valid + errors) */
    METRICS_S_ERROR_REQUEST_COUNT,   /* failed requests, cancellations included */
    METRICS_S_MIN_REQUEST_TIMESTAMP, /* wall-clock ns */
    METRICS_S_MAX_RESPONSE_TIMESTAMP,
    METRICS_S_BENCHMARK_DURATION, /* sec */
    METRICS_S_TOTAL_OUTPUT_TOKENS,
    METRICS_S_TOTAL_REASONING_TOKENS,
    METRICS_S_TOTAL_ISL,
    METRICS_S_TOTAL_OSL,
    METRICS_S_TOTAL_ERROR_ISL,
    METRICS_S_TOTAL_USAGE_PROMPT_TOKENS,
    METRICS_S_TOTAL_USAGE_COMPLETION_TOKENS,
    METRICS_S_TOTAL_USAGE_TOTAL_TOKENS,
    METRICS_S_TOTAL_USAGE_REASONING_TOKENS,
    METRICS_S_TOTAL_USAGE_PROMPT_CACHE_READ_TOKENS,
    METRICS_S_TOTAL_USAGE_PROMPT_CACHE_WRITE_TOKENS,
    METRICS_S_TOTAL_USAGE_PROMPT_CACHE_MISS_TOKENS,
    METRICS_S_TOTAL_USAGE_PROMPT_AUDIO_TOKENS,
    METRICS_S_TOTAL_USAGE_COMPLETION_AUDIO_TOKENS,
    METRICS_S_TOTAL_USAGE_PROMPT_AUDIO_SECONDS,
    METRICS_S_TOTAL_USAGE_TOOL_USE_PROMPT_TOKENS,
    METRICS_S_TOTAL_USAGE_ACCEPTED_PREDICTION_TOKENS,
    METRICS_S_TOTAL_USAGE_REJECTED_PREDICTION_TOKENS,
    /* total cache read / total usage prompt tokens * 100 */
    METRICS_S_OVERALL_USAGE_PROMPT_CACHE_READ_PCT,
    /* valid requests where some usage diff % exceeds METRICS_USAGE_DIFF_PCT_THRESHOLD */
    METRICS_S_USAGE_DISCREPANCY_COUNT,
    METRICS_S_INPUT_TOKEN_THROUGHPUT,  /* total_isl / duration */
    METRICS_S_TOTAL_TOKEN_THROUGHPUT,  /* (total_isl + total_osl) / duration */
    METRICS_S_COMPLETED_REQUEST_COUNT, /* valid + errors */
    METRICS_S_REQUEST_ERROR_RATE,      /* 100 * errors / (valid + errors), percent */
    /* Fixed schedules only, set by the caller from the send lags: percentiles
     * of (lag - min lag) in ms, and 1 when p99 exceeds 500 ms. */
    METRICS_S_REPLAY_SCHED_LAG_P50,
    METRICS_S_REPLAY_SCHED_LAG_P90,
    METRICS_S_REPLAY_SCHED_LAG_P99,
    METRICS_S_REPLAY_SCHED_DEGRADED,
    METRICS_S_NETWORK_RTT, /* network_rtt: the round trip the network-adjusted blocks take off */
    /* valid requests whose OSL is off the requested one by more than
     * min(requested x METRICS_OSL_MISMATCH_PCT_THRESHOLD %, METRICS_OSL_MISMATCH_TOKENS_MAX) */
    METRICS_S_OSL_MISMATCH_COUNT,
    /* The speculative-decoding totals and AIPerf's run-level ratios of them. */
    METRICS_S_TOTAL_SPEC_DECODE_STEPS,
    METRICS_S_TOTAL_ACCEPTED_DRAFT_TOKENS,
    METRICS_S_TOTAL_DRAFT_TOKENS,
    METRICS_S_SPEC_TOKEN_WEIGHTED_ACCEPTANCE_LENGTH, /* 1 + total accepted / total steps */
    METRICS_S_SPEC_OVERALL_DRAFT_ACCEPTANCE_RATE,    /* 100 * total accepted / total drafted */
    /* valid requests whose server reported statistics but no verify step */
    METRICS_S_SPEC_ZERO_STEP_REQUESTS,
    METRICS_SCALAR_COUNT
};

/* metrics_flags are AIPerf's metric flags that decide where a metric shows. */
enum metrics_flags {
    METRICS_F_STREAMING = 1u << 0,        /* only computed on streaming runs */
    METRICS_F_NO_CONSOLE = 1u << 1,       /* exported, not in the console table */
    METRICS_F_ERROR_ONLY = 1u << 2,       /* computed on failed requests only */
    METRICS_F_LARGER_IS_BETTER = 1u << 3, /* goodput: value >= threshold passes */
    METRICS_F_LIST = 1u << 4,             /* several values per request */
    METRICS_F_INTEGER = 1u << 5,          /* integral values (CSV prints no decimals) */
    METRICS_F_USAGE = 1u << 6,            /* AIPerf's "Usage" console group */
    METRICS_F_HTTP_TRACE = 1u << 7,       /* AIPerf's HTTP_TRACE_ONLY: the trace timing table */
    METRICS_F_SPEC_DECODE = 1u << 8,      /* AIPerf's "Spec Decode" console group */
};

/* metrics_info describes one metric: AIPerf's tag and console header, the
 * display unit, the factor from base to display unit (1e-6 for ns -> ms),
 * flags (enum metrics_flags) and AIPerf's display_order (console row order;
 * 0 for metrics that are never in the console). Static, never freed. */
struct metrics_info {
    const char *tag;
    const char *header;
    const char *unit;
    double display_per_base;
    unsigned flags;
    int display_order;
};

/* metrics_info_of returns the description of record metric `id` (static). */
const struct metrics_info *metrics_info_of(enum metrics_id id);

/* metrics_scalar_info_of returns the description of scalar metric `id`
 * (static). Scalar values are stored in display units already, so its
 * display_per_base is 1. */
const struct metrics_info *metrics_scalar_info_of(enum metrics_scalar_id id);

/* metrics_format_grouped writes v as Python's f"{v:,.{decimals}f}" (decimals 0 to
 * METRICS_FORMAT_DECIMALS_MAX): rounded to `decimals` places, a comma between each three
 * digits of the whole part, and a "-" for any negative v, "-0.00" included (not for -0.0).
 * Python's f"{int(round(v)):,}" is metrics_format_grouped(nearbyint(v), 0). Writes into out
 * (cap bytes, always NUL-terminated when cap > 0; cut short when it does not fit). */
#define METRICS_FORMAT_DECIMALS_MAX 17
void metrics_format_grouped(char *out, size_t cap, double v, int decimals);

/* METRICS_ABSENT marks a token count that is not known: the records' own
 * RECORD_ABSENT, so that a usage count goes from the response reader to the
 * exports without a conversion. */
#define METRICS_ABSENT RECORD_ABSENT

/* metrics_tokens are a request's token counts, METRICS_ABSENT when unknown.
 * `output` excludes reasoning (AIPerf's output_token_count); OSL is output +
 * reasoning. With server counts, output = completion_tokens - reasoning. As in
 * AIPerf, an output or reasoning count of 0 counts as absent; an input count
 * of 0 is a value. */
struct metrics_tokens {
    int64_t input;
    int64_t output;
    int64_t reasoning;
};

/* The server-reported usage of a request is a struct record_usage
 * (record/record.h): each count RECORD_ABSENT when the server did not report
 * it (start from RECORD_USAGE_NONE); the cache, audio, tool-use and
 * prediction counts are the vendors' usage details; prompt_audio_seconds is
 * in seconds. */

/* METRICS_USAGE_DIFF_PCT_THRESHOLD is AIPerf's default
 * AIPERF_METRICS_USAGE_PCT_DIFF_THRESHOLD: a request whose usage differs
 * from the client's count by more than this many percent is a discrepancy. */
#define METRICS_USAGE_DIFF_PCT_THRESHOLD 10.0

/* METRICS_OSL_MISMATCH_PCT_THRESHOLD and METRICS_OSL_MISMATCH_TOKENS_MAX are
 * AIPerf's default AIPERF_METRICS_OSL_MISMATCH_PCT_THRESHOLD and
 * AIPERF_METRICS_OSL_MISMATCH_MAX_TOKEN_THRESHOLD: an OSL more than
 * min(requested x 5%, 50) tokens off the requested one is a mismatch. */
#define METRICS_OSL_MISMATCH_PCT_THRESHOLD 5.0
#define METRICS_OSL_MISMATCH_TOKENS_MAX 50.0

/* metrics_request is the caller's view of one finished request. Timestamps
 * are one monotonic clock in ns; `start_wall_ns` is the wall clock at
 * `start_ns` (for min_request_timestamp and the per-request exports).
 * `content_ns` (borrowed, `content_count` entries, non-decreasing) holds the
 * arrival time of every content response; a non-streaming response is one
 * content response when its body carried text. `first_output_index` is the
 * index of the first content response with non-reasoning output
 * (content_count when there is none). `scheduled_ns` is, in open-loop runs,
 * when the request was due to be sent on the same clock as start_ns (the
 * *_from_schedule metrics measure from it); 0 in closed-loop runs.
 * `client_tokens` says `tokens` were counted by the client (a tokenizer)
 * rather than taken from `usage`; only then are the usage diff metrics
 * computed (comparing the server with itself would always give 0). */
/* metrics_http is a request's HTTP exchange for the http_req_* metrics: monotonic ns on the
 * request's clock (0 = did not happen) and counts. `present` is false where it is not known
 * (a merged records file written before it carried them). */
struct metrics_http {
    bool present;
    bool reused;           /* sent on a kept-alive connection */
    int64_t blocked_ns;    /* from when it was due to when a connection took it */
    int64_t connect_ns;    /* a new connection's TCP and TLS handshakes; 0 when reused */
    int64_t send_start_ns; /* the request's first byte left ... */
    int64_t send_end_ns;   /* ... and its last */
    int64_t first_byte_ns; /* the response's first read ... */
    int64_t end_ns;        /* ... and its end */
    uint64_t bytes_sent;
    uint64_t bytes_received;
    uint32_t sends;
    uint32_t reads;
};

struct metrics_request {
    bool failed; /* any error, cancellation included: only error_isl applies */
    struct metrics_http http;
    bool streaming;
    int64_t start_ns;
    int64_t scheduled_ns;
    int64_t start_wall_ns;
    const int64_t *content_ns;
    uint32_t content_count;
    uint32_t first_output_index;
    struct metrics_tokens tokens;
    struct record_usage usage;
    bool client_tokens;
    /* When the request was issued (AIPerf's credit): scheduled or a connection free, on
     * start_ns's clock; 0 on fixed schedules, which issue no credits ahead. */
    int64_t credit_issued_ns;
    /* With --per-chunk-usage: the completion_tokens the server reported with
     * the first content chunk, which ITL's divisor leaves out instead of 1
     * (when 0 < it < OSL); 0 = not in use. */
    int64_t first_chunk_tokens;
    /* The output length the request asked for (its max_tokens); 0 = none. */
    int64_t requested_osl;
    /* The input images the request carried, on endpoints that carry images; 0 = none
     * (AIPerf's num_images then has no value). */
    int64_t images;
    /* The length of the input audio in seconds; <= 0 = unknown (no audio_duration, rtfx). */
    double audio_seconds;
    /* A video job's server-reported inference time (s) and peak memory (MB), each only when
     * its has_ flag is set (video_inference_time, video_peak_memory). */
    bool has_video_inference;
    double video_inference_s;
    bool has_video_peak_memory;
    double video_peak_memory_mb;
    /* The server's speculative-decoding statistics, borrowed (the record's), or NULL. */
    const struct record_spec_decode *spec_decode;
};

/* metrics_values are one request's record metrics in base units (ns, tokens,
 * tokens/sec); value[id] is meaningful only when has[id]. For METRICS_ICL,
 * has[] says the request has at least one gap and value[] is unused: the
 * gaps are metrics_request_icl_ns(). */
struct metrics_values {
    bool has[METRICS_ID_COUNT];
    double value[METRICS_ID_COUNT];
};

/* metrics_request_compute fills `*out` with the record metrics of `req`
 * following AIPerf's formulas (spec §2.2): TTFT/TTST/TTFO/ICL, decode
 * duration and the per-user throughputs only when streaming; request latency
 * ends at the last content response; ITL = (latency - TTFT) / (OSL - 1), only
 * when OSL >= 2 (OSL - first_chunk_tokens instead when 0 < that < OSL); with a scheduled_ns,
 * request latency and TTFT measured from it as well (clamped at the plain value when the request
 * left early); a failed request gets error_isl only. Every usage field reported becomes its usage_*
 * metric. With client_tokens, the usage diff metrics compare usage.prompt_tokens with tokens.input,
 * usage.completion_tokens with the OSL and usage.reasoning_tokens with tokens.reasoning, each only
 * when both sides are present and the client's count is positive. With a requested_osl and an
 * OSL, osl_mismatch_diff_pct. With images and a request latency, num_images, image_throughput
 * and image_latency; with audio_seconds, audio_duration and (with a latency) rtfx; a video job's
 * server figures as video_inference_time and video_peak_memory. With speculative-decoding
 * statistics of at least one verify step (record_spec_decode_usable), the spec_decode_*
 * metrics. Metrics that cannot be computed are absent. */
void metrics_request_compute(const struct metrics_request *req, struct metrics_values *out);

/* metrics_request_icl_count returns how many inter-chunk gaps `req` has
 * (content_count - 1 for a successful streaming request, else 0). */
uint32_t metrics_request_icl_count(const struct metrics_request *req);

/* metrics_request_icl_ns returns gap i (< metrics_request_icl_count) in ns. */
int64_t metrics_request_icl_ns(const struct metrics_request *req, uint32_t i);

/* METRICS_SLO_MAX bounds the number of --goodput thresholds. */
#define METRICS_SLO_MAX 16

/* metrics_goodput holds parsed --goodput SLOs: thresholds in base units. */
struct metrics_goodput {
    size_t count;
    enum metrics_id id[METRICS_SLO_MAX];
    double threshold_base[METRICS_SLO_MAX];
};

/* metrics_goodput_parse parses `text` ("tag:value tag:value ...", separated
 * by blanks; values in display units, e.g. ms for latencies) into `*out`.
 * Tags are single-valued record metrics that are not error-only. Returns 0;
 * or -EINVAL with a message naming the bad part in errbuf (always
 * NUL-terminated when errcap > 0) for an unknown tag, a malformed or negative
 * value, a repeated tag, more than METRICS_SLO_MAX thresholds or none. */
int metrics_goodput_parse(const char *text, struct metrics_goodput *out, char *errbuf,
                          size_t errcap);

/* metrics_goodput_is_good reports whether a successful request with values
 * `v` meets every SLO (value >= threshold for larger-is-better metrics, <=
 * otherwise; a missing value fails). With no SLOs every request is good. */
bool metrics_goodput_is_good(const struct metrics_goodput *g, const struct metrics_values *v);

/* metrics_run is an opaque accumulator of a run's requests. */
struct metrics_run;

/* metrics_run_config sizes a run. `exact_samples_max` bounds how many values
 * per record metric are kept for exact (NumPy) statistics; past it the
 * statistics come from the metric's histogram (0 = METRICS_RUN_EXACT_DEFAULT).
 * `goodput` is copied; NULL or zero SLOs means goodput is not reported. */
struct metrics_run_config {
    bool streaming;
    int significant_figures; /* histograms; 0 = 3 */
    size_t exact_samples_max;
    const struct metrics_goodput *goodput;
    /* --network-latency-mean: the summary adds network_rtt and the network-adjusted blocks. */
    bool network_rtt_given;
    int64_t network_rtt_ns;
};

#define METRICS_RUN_EXACT_DEFAULT ((size_t)1 << 22)

/* metrics_run_set_network_rtt sets the round trip the summary's network_rtt and
 * network_adjusted_* blocks take off (rtt_ns >= 0), when it is measured during the run
 * (--network-latency-automatic) rather than given. */
void metrics_run_set_network_rtt(struct metrics_run *run, int64_t rtt_ns);

/* metrics_run_new allocates an empty run. Returns 0 and the run (owned by the
 * caller, release with metrics_run_free) in `*out`, or -EINVAL / -ENOMEM. */
int metrics_run_new(const struct metrics_run_config *config, struct metrics_run **out);

/* metrics_run_free releases `run`; metrics_run_free(NULL) is a no-op. */
void metrics_run_free(struct metrics_run *run);

/* metrics_run_add folds one request and its values (from
 * metrics_request_compute) into the run. Borrows both for the call only.
 * Exact samples are kept in arrays that double as they fill, up to
 * exact_samples_max; when an allocation fails the run falls back to the
 * histograms for that metric (metrics_summary.exact turns false). */
void metrics_run_add(struct metrics_run *run, const struct metrics_request *req,
                     const struct metrics_values *values);

/* metrics_run_merge adds every request src holds into dst, as if dst had been
 * given them with metrics_run_add (statistics and totals the same; the sum of
 * a non-integer total may differ in its last bits, added in another order).
 * Both runs must have the same configuration (metrics_run_new). src is not
 * changed. Returns 0, or -EINVAL, changing nothing, when their histograms
 * differ in layout. Exact samples past dst's cap fall back to the histogram as
 * metrics_run_add's do. */
int metrics_run_merge(struct metrics_run *dst, const struct metrics_run *src);

/* metrics_run_reset empties `run` of its requests, keeping its configuration
 * and its memory (sample arrays, histograms) for the next ones. */
void metrics_run_reset(struct metrics_run *run);

/* metrics_run_record_hist returns the histogram of record metric `id`
 * (values in base units; rates in milli-tokens/sec), owned by the run. */
const struct metrics_hist *metrics_run_record_hist(const struct metrics_run *run,
                                                   enum metrics_id id);

/* metrics_run_set_window makes the run's rates (throughputs, goodput) use
 * the wall-clock window [start_wall_ns, end_wall_ns) as their duration, as
 * AIPerf does for a timeslice, instead of max_response - min_request. The
 * benchmark_duration reported is then the window's. Ignored unless end >
 * start. */
void metrics_run_set_window(struct metrics_run *run, int64_t start_wall_ns, int64_t end_wall_ns);

/* metrics_record_hist_new allocates an empty histogram with the layout a
 * metrics_run uses for record metric `id` at `significant_figures` (0 = 3),
 * e.g. for per-interval copies that merge with the run's. Returns 0 and the
 * histogram (owned by the caller) in `*out`, or -EINVAL / -ENOMEM. */
int metrics_record_hist_new(enum metrics_id id, int significant_figures, struct metrics_hist **out);

/* metrics_record_hist_value returns the integer a run's histogram records
 * for base-unit `value` of record metric `id`: nanoseconds and tokens as
 * they are, per-user rates in milli-tokens/sec, usage diffs in
 * milli-percent and audio in milliseconds (rounded), negative values as -1
 * (counted as underflow). */
int64_t metrics_record_hist_value(enum metrics_id id, double value);

/* metrics_record_hist_per_display returns how many histogram units make one
 * display unit of record metric `id` (1e6 for ns shown in ms, 1000 for
 * milli-tokens/sec shown in tokens/sec, 1 for tokens). */
double metrics_record_hist_per_display(enum metrics_id id);

/* metrics_summary is a run's results in display units. record[id] is absent
 * (present false) for an empty distribution; scalar[id] for a value that does
 * not apply (AIPerf omits both). `exact` is false when some statistics came
 * from histograms. */
/* METRICS_ADJ_PERCENTILES are the percentiles of an error-adjusted block: p1 p5 p10 p25 p50
 * p75 p90 p95 p99. */
#define METRICS_ADJ_PERCENTILES 9

/* metrics_adj is AIPerf's error-adjusted block (adj_<tag>) of a metric whose percentiles count
 * failed requests (request_latency, TTFT, ITL, decode_duration): every failed request is one
 * more value of +Inf, percentiles take the nearest rank, and a percentile that falls on a
 * failure is not finite (null in the JSON), as are avg, max and sum. In display units. */
struct metrics_adj {
    double percentile[METRICS_ADJ_PERCENTILES];
    bool finite[METRICS_ADJ_PERCENTILES];
    double min; /* the least value of a successful request */
    bool has_min;
    uint64_t count; /* values and failures */
};

struct metrics_summary {
    bool record_present[METRICS_ID_COUNT];
    struct metrics_stats record[METRICS_ID_COUNT];
    /* Only when the run had an error: adj_present[id] for the four metrics above. */
    bool adj_present[METRICS_ID_COUNT];
    struct metrics_adj adj[METRICS_ID_COUNT];
    bool scalar_present[METRICS_SCALAR_COUNT];
    double scalar[METRICS_SCALAR_COUNT];
    /* The sweep-line metrics (metrics_sweep.h): not present from metrics_run_summarize, which
     * keeps no per-request timeline; metrics_results_summarize adds them. */
    struct metrics_sweep_summary sweep;
    /* AIPerf's pooled_spec_decode_acceptance_histogram: over the requests with statistics,
     * spec_steps[j] verify steps accepted j drafts (j < spec_bucket_count). */
    bool spec_present;
    uint32_t spec_bucket_count;
    uint64_t spec_steps[RECORD_SPEC_BUCKETS];
    bool streaming;
    bool exact;
};

/* metrics_run_summarize computes `*out` (spec §2.3, §2.4). It may reorder the
 * run's kept samples but changes no result; it can be called again after
 * more metrics_run_add calls. Returns 0. */
int metrics_run_summarize(struct metrics_run *run, struct metrics_summary *out);

/* metrics_confidence is the spread of one statistic over repeated runs, as
 * AIPerf's multi-run aggregate reports it (spec §5.3): the mean, the sample
 * std (ddof=1), the extremes, cv = std / mean (+Inf when the mean is 0),
 * se = std / sqrt(n), and mean -/+ t_critical * se with t_critical the
 * Student-t quantile at 1 - (1 - level) / 2 with n - 1 degrees of freedom.
 * One value: std, cv and se are 0, the interval is [mean, mean] and
 * t_critical is NaN (AIPerf's single-run shape). */
struct metrics_confidence {
    size_t n; /* finite values used */
    double mean, std, min, max, cv, se, ci_low, ci_high, t_critical;
};

/* metrics_confidence_compute fills `*out` from the finite ones of `n` values
 * (NaN and infinities are skipped, as AIPerf skips them) at confidence
 * `level`. Returns 0; -EINVAL when level is not inside (0, 1); -ENODATA when
 * no value is finite. `*out` is only written on success. */
int metrics_confidence_compute(const double *values, size_t n, double level,
                               struct metrics_confidence *out);

/* metrics_t_upper_quantile returns t with P(T > t) = q for Student's t with
 * df > 0 degrees of freedom (df may be fractional or +Inf, the normal), to
 * about 1e-13 relative: scipy's t.ppf(1 - q, df). NaN when q is not inside
 * (0, 1) or df is not positive. */
double metrics_t_upper_quantile(double q, double df);

/* metrics_t_cdf returns P(T <= t) for Student's t with df > 0 degrees of
 * freedom (the normal's beyond 1e7), or NaN for a NaN t or a df that is
 * not positive. */
double metrics_t_cdf(double t, double df);

#endif
