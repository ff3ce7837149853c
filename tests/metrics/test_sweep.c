/*
 * test_sweep.c - the sweep-line metrics against step functions worked out by hand (times in
 * seconds, so that the rates read as tokens/sec).
 */
#include <criterion/criterion.h>

#include <math.h>
#include <string.h>

#include "metrics/metrics.h"
#include "metrics/metrics_sweep.h"

#define S 1000000000LL /* one second in ns */
#define NONE METRICS_SWEEP_NONE
#define NO_TOKENS METRICS_SWEEP_NO_TOKENS
#define EPS 1e-9

static struct metrics_sweep *new_sweep(size_t records_max, size_t gaps_max)
{
    struct metrics_sweep_config cfg = {records_max, gaps_max};
    struct metrics_sweep *s = NULL;
    cr_assert_eq(metrics_sweep_new(&cfg, &s), 0);
    return s;
}

static void add(struct metrics_sweep *s, int64_t start, int64_t first, int64_t end, double isl,
                double osl)
{
    struct metrics_sweep_request r = {start, first, end, isl, osl};
    metrics_sweep_add(s, &r, NULL, 0);
}

static const struct metrics_sweep_stats *stat(const struct metrics_sweep_summary *sum,
                                              enum metrics_sweep_id id)
{
    return &sum->stat[id];
}

static void expect_stats(const struct metrics_sweep_stats *st, double avg, double min, double max,
                         double p50, double p90, const char *what)
{
    cr_expect_float_eq(st->avg, avg, EPS, "%s avg %.12g", what, st->avg);
    cr_expect_float_eq(st->min, min, EPS, "%s min %.12g", what, st->min);
    cr_expect_float_eq(st->max, max, EPS, "%s max %.12g", what, st->max);
    cr_expect_float_eq(st->p50, p50, EPS, "%s p50 %.12g", what, st->p50);
    cr_expect_float_eq(st->p90, p90, EPS, "%s p90 %.12g", what, st->p90);
}

Test(sweep, infos_are_the_spec_tags)
{
    cr_expect_str_eq(metrics_sweep_info_of(METRICS_SW_CONCURRENCY)->tag, "effective_concurrency");
    cr_expect_str_eq(metrics_sweep_info_of(METRICS_SW_DECODE_CONCURRENCY)->tag,
                     "effective_decode_concurrency");
    cr_expect_str_eq(metrics_sweep_info_of(METRICS_SW_ACTIVE_TOTAL_THROUGHPUT)->tag,
                     "active_total_throughput");
    cr_expect_str_eq(metrics_sweep_info_of(METRICS_SW_PREFILL_PER_USER)->unit, "tokens/sec/user");
    cr_expect_str_eq(metrics_sweep_info_of(METRICS_SW_TOKENS_IN_FLIGHT)->unit, "tokens");
}

Test(sweep, empty_collector_has_no_metrics)
{
    struct metrics_sweep *s = new_sweep(0, 0);
    struct metrics_sweep_summary sum;
    cr_assert_eq(metrics_sweep_summarize(s, &sum), 0);
    cr_expect_not(sum.present);
    metrics_sweep_free(s);
    metrics_sweep_free(NULL);
}

/* two_failures sweeps two requests without a first token: [a0, a1) and [b0, b1), in seconds. */
static struct metrics_sweep_summary two_failures(int64_t a0, int64_t a1, int64_t b0, int64_t b1)
{
    struct metrics_sweep *s = new_sweep(0, 0);
    add(s, a0 * S, NONE, a1 * S, NO_TOKENS, NO_TOKENS);
    add(s, b0 * S, NONE, b1 * S, NO_TOKENS, NO_TOKENS);
    struct metrics_sweep_summary sum;
    cr_assert_eq(metrics_sweep_summarize(s, &sum), 0);
    cr_assert(sum.present);
    metrics_sweep_free(s);
    return sum;
}

/* A request that starts when another ends: the end comes first, so concurrency stays 1. */
Test(sweep, an_end_and_a_start_at_one_time_do_not_overlap)
{
    struct metrics_sweep_summary sum = two_failures(0, 10, 10, 20);
    expect_stats(stat(&sum, METRICS_SW_CONCURRENCY), 1, 1, 1, 1, 1, "concurrency");
    cr_expect_float_eq(stat(&sum, METRICS_SW_CONCURRENCY)->std, 0, EPS);
    /* Failures (no first token) are in flight but in neither phase. */
    expect_stats(stat(&sum, METRICS_SW_DECODE_CONCURRENCY), 0, 0, 0, 0, 0, "decode");
    expect_stats(stat(&sum, METRICS_SW_TOKENS_IN_FLIGHT), 0, 0, 0, 0, 0, "tokens");
}

Test(sweep, overlap_weighs_by_time)
{
    struct metrics_sweep_summary sum = two_failures(0, 10, 5, 20);
    /* 1 for 15 s, 2 for 5 s: the median is 1, p90 needs the 2s. */
    const struct metrics_sweep_stats *c = stat(&sum, METRICS_SW_CONCURRENCY);
    expect_stats(c, 1.25, 1, 2, 1, 2, "concurrency");
    cr_expect_float_eq(c->p95, 2, EPS);
    cr_expect_float_eq(c->p99, 2, EPS);
    cr_expect_float_eq(c->std, sqrt(0.1875), EPS);
}

/* Two requests: A in prefill [0, 2) (100 tokens: 50/s), decode [2, 6) (41 tokens: 10/s);
 * B in prefill [4, 5) (30 tokens: 30/s), decode [5, 8) (31 tokens: 10/s). */
static struct metrics_sweep *two_requests(void)
{
    struct metrics_sweep *s = new_sweep(0, 0);
    add(s, 0, 2 * S, 6 * S, 100, 41);
    add(s, 4 * S, 5 * S, 8 * S, 30, 31);
    return s;
}

Test(sweep, phases_rates_and_tokens_of_two_requests)
{
    struct metrics_sweep *s = two_requests();
    struct metrics_sweep_summary sum;
    cr_assert_eq(metrics_sweep_summarize(s, &sum), 0);
    cr_expect_eq(sum.window_start_ns, 0);
    cr_expect_eq(sum.window_end_ns, 8 * S);
    cr_expect_not(sum.icl);
    expect_stats(stat(&sum, METRICS_SW_CONCURRENCY), 1.25, 1, 2, 1, 2, "concurrency");
    expect_stats(stat(&sum, METRICS_SW_PREFILL_CONCURRENCY), 0.375, 0, 1, 0, 1, "prefill conc");
    expect_stats(stat(&sum, METRICS_SW_DECODE_CONCURRENCY), 0.875, 0, 2, 1, 2, "decode conc");
    /* Averages over the window are the tokens over the window's length. */
    expect_stats(stat(&sum, METRICS_SW_PREFILL_THROUGHPUT), 16.25, 0, 50, 0, 50, "prefill");
    expect_stats(stat(&sum, METRICS_SW_DECODE_THROUGHPUT), 8.75, 0, 20, 10, 20, "decode");
    expect_stats(stat(&sum, METRICS_SW_TOTAL_THROUGHPUT), 25, 10, 50, 10, 50, "total");
    expect_stats(stat(&sum, METRICS_SW_DECODE_PER_USER), 7.5, 0, 10, 10, 10, "decode/user");
    expect_stats(stat(&sum, METRICS_SW_PREFILL_PER_USER), 16.25, 0, 50, 0, 50, "prefill/user");
    /* 100, 141, 171, 202, 61 tokens for 2, 2, 1, 1, 2 s: half the time at 100 or less. */
    expect_stats(stat(&sum, METRICS_SW_TOKENS_IN_FLIGHT), 122.125, 61, 202, 100, 202, "tokens");
    metrics_sweep_free(s);
}

Test(sweep, active_variants_weigh_only_the_time_a_phase_has_a_request)
{
    struct metrics_sweep *s = two_requests();
    struct metrics_sweep_summary sum;
    cr_assert_eq(metrics_sweep_summarize(s, &sum), 0);
    /* Prefill runs [0, 2) at 50 and [4, 5) at 30: 3 s. */
    expect_stats(stat(&sum, METRICS_SW_ACTIVE_PREFILL_THROUGHPUT), 130.0 / 3, 30, 50, 50, 50,
                 "active prefill");
    /* Decode runs [2, 8): 10 for 5 s, 20 for 1 s. */
    const struct metrics_sweep_stats *d = stat(&sum, METRICS_SW_ACTIVE_DECODE_THROUGHPUT);
    expect_stats(d, 70.0 / 6, 10, 20, 10, 20, "active decode");
    cr_expect_float_eq(d->std, sqrt((5 * pow(10 - 70.0 / 6, 2) + pow(20 - 70.0 / 6, 2)) / 6), EPS);
    const struct metrics_sweep_stats *u = stat(&sum, METRICS_SW_ACTIVE_DECODE_PER_USER);
    expect_stats(u, 10, 10, 10, 10, 10, "active decode/user");
    cr_expect_float_eq(u->std, 0, EPS);
    expect_stats(stat(&sum, METRICS_SW_ACTIVE_PREFILL_PER_USER), 130.0 / 3, 30, 50, 50, 50,
                 "active prefill/user");
    expect_stats(stat(&sum, METRICS_SW_ACTIVE_TOTAL_THROUGHPUT), 25, 10, 50, 10, 50,
                 "active total");
    metrics_sweep_free(s);
}

Test(sweep, the_window_clips_the_step_functions)
{
    struct metrics_sweep *s = two_requests();
    struct metrics_sweep_summary sum;
    cr_assert_eq(metrics_sweep_summarize_window(s, 1 * S, 7 * S, &sum), 0);
    expect_stats(stat(&sum, METRICS_SW_CONCURRENCY), 8.0 / 6, 1, 2, 1, 2, "concurrency");
    expect_stats(stat(&sum, METRICS_SW_PREFILL_THROUGHPUT), 80.0 / 6, 0, 50, 0, 50, "prefill");
    /* A window reaching before the first request sees concurrency 0 there. */
    cr_assert_eq(metrics_sweep_summarize_window(s, -2 * S, 8 * S, &sum), 0);
    expect_stats(stat(&sum, METRICS_SW_CONCURRENCY), 1.0, 0, 2, 1, 2, "wide concurrency");
    /* An empty window gives zeros. */
    cr_assert_eq(metrics_sweep_summarize_window(s, 3 * S, 3 * S, &sum), 0);
    cr_expect(sum.present);
    expect_stats(stat(&sum, METRICS_SW_CONCURRENCY), 0, 0, 0, 0, 0, "empty window");
    metrics_sweep_free(s);
}

Test(sweep, zero_length_phases_carry_no_rate)
{
    struct metrics_sweep *s = new_sweep(0, 0);
    add(s, 0, 0, 4 * S, 10, 9); /* first token at once: no prefill */
    struct metrics_sweep_summary sum;
    cr_assert_eq(metrics_sweep_summarize(s, &sum), 0);
    expect_stats(stat(&sum, METRICS_SW_PREFILL_CONCURRENCY), 0, 0, 0, 0, 0, "prefill conc");
    expect_stats(stat(&sum, METRICS_SW_PREFILL_THROUGHPUT), 0, 0, 0, 0, 0, "prefill");
    expect_stats(stat(&sum, METRICS_SW_ACTIVE_PREFILL_THROUGHPUT), 0, 0, 0, 0, 0, "active pf");
    expect_stats(stat(&sum, METRICS_SW_DECODE_THROUGHPUT), 2, 2, 2, 2, 2, "decode");
    /* Without a prefill AIPerf holds only the output tokens. */
    expect_stats(stat(&sum, METRICS_SW_TOKENS_IN_FLIGHT), 9, 9, 9, 9, 9, "tokens");
    metrics_sweep_free(s);

    s = new_sweep(0, 0);
    add(s, 0, 4 * S, 4 * S, 20, 1); /* one token at the end: no decode */
    cr_assert_eq(metrics_sweep_summarize(s, &sum), 0);
    expect_stats(stat(&sum, METRICS_SW_DECODE_CONCURRENCY), 0, 0, 0, 0, 0, "decode conc");
    expect_stats(stat(&sum, METRICS_SW_DECODE_THROUGHPUT), 0, 0, 0, 0, 0, "decode");
    expect_stats(stat(&sum, METRICS_SW_PREFILL_THROUGHPUT), 5, 5, 5, 5, 5, "prefill");
    expect_stats(stat(&sum, METRICS_SW_TOKENS_IN_FLIGHT), 20, 20, 20, 20, 20, "tokens");
    metrics_sweep_free(s);
}

/* E: prefill [0, 1) with 10 tokens, then chunks at 1, 2, 2 and 4 s (gaps 1, 0 and 2 s), 7
 * tokens, end at 5 s. */
static void add_chunked(struct metrics_sweep *s)
{
    static const int64_t chunks[] = {1 * S, 2 * S, 2 * S, 4 * S};
    struct metrics_sweep_request r = {0, 1 * S, 5 * S, 10, 7};
    metrics_sweep_add(s, &r, chunks, 4);
}

Test(sweep, chunk_gaps_shape_decode_and_tokens)
{
    struct metrics_sweep *s = new_sweep(0, 0);
    add_chunked(s);
    struct metrics_sweep_summary sum;
    cr_assert_eq(metrics_sweep_summarize(s, &sum), 0);
    cr_expect(sum.icl);
    /* Two timed gaps share 6 tokens: 3/s over [1, 2), 1.5/s over [2, 4), 0 elsewhere. */
    expect_stats(stat(&sum, METRICS_SW_DECODE_THROUGHPUT), 1.2, 0, 3, 1.5, 3, "decode");
    /* The total keeps the uniform decode rate (6 tokens over 4 s), as AIPerf's does. */
    expect_stats(stat(&sum, METRICS_SW_TOTAL_THROUGHPUT), 3.2, 1.5, 10, 1.5, 10, "total");
    /* 10, then 11 at the first token, 15 after the two chunks at 2 s, 17 at 4 s. */
    expect_stats(stat(&sum, METRICS_SW_TOKENS_IN_FLIGHT), 13.6, 10, 17, 15, 17, "tokens");
    metrics_sweep_free(s);
}

Test(sweep, past_the_gap_limit_the_uniform_rate_is_used)
{
    struct metrics_sweep *s = new_sweep(0, 2);
    add_chunked(s); /* three gaps: more than two */
    struct metrics_sweep_summary sum;
    cr_assert_eq(metrics_sweep_summarize(s, &sum), 0);
    cr_expect_not(sum.icl);
    expect_stats(stat(&sum, METRICS_SW_DECODE_THROUGHPUT), 1.2, 0, 1.5, 1.5, 1.5, "decode");
    metrics_sweep_free(s);
}

Test(sweep, past_the_record_limit_there_are_no_metrics)
{
    struct metrics_sweep *s = new_sweep(2, 0);
    for (int i = 0; i < 3; i++) {
        add(s, i * S, NONE, (i + 1) * S, NO_TOKENS, NO_TOKENS);
    }
    cr_expect_eq(metrics_sweep_count(s), 2);
    cr_expect(metrics_sweep_truncated(s));
    struct metrics_sweep_summary sum;
    cr_assert_eq(metrics_sweep_summarize(s, &sum), 0);
    cr_expect_not(sum.present);
    metrics_sweep_free(s);
}

Test(sweep, inconsistent_requests_are_ignored)
{
    struct metrics_sweep *s = new_sweep(0, 0);
    add(s, 5 * S, NONE, 4 * S, NO_TOKENS, NO_TOKENS); /* ends before it starts */
    add(s, 0, 6 * S, 5 * S, 1, 1);                    /* first token after the end */
    add(s, 2 * S, 1 * S, 5 * S, 1, 1);                /* first token before the start */
    cr_expect_eq(metrics_sweep_count(s), 0);
    metrics_sweep_free(s);
}
