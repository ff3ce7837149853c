/*
 * test_run.c - a run's aggregates (spec §2.3) and statistics (§2.4) from
 * hand-made requests, exact and past the exact-sample cap.
 */
#include "metrics/metrics.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MS 1000000LL
#define WALL0 (1700000000LL * 1000 * MS)

static struct metrics_run *new_run(bool streaming, const struct metrics_goodput *g,
                                   size_t exact_max)
{
    struct metrics_run_config cfg = {
        .streaming = streaming, .goodput = g, .exact_samples_max = exact_max};
    struct metrics_run *run = NULL;
    cr_assert_eq(metrics_run_new(&cfg, &run), 0);
    return run;
}

/* add_request adds a streaming request that starts at `start_ms` (monotonic and
 * wall offset alike) with content at the given offsets from its start. */
static void add_request(struct metrics_run *run, int64_t start_ms, const int64_t *offsets_ms,
                        uint32_t n, int64_t osl, int64_t isl, bool failed)
{
    int64_t t[16];
    for (uint32_t i = 0; i < n; i++) {
        t[i] = (start_ms + offsets_ms[i]) * MS;
    }
    struct metrics_request req = {
        .failed = failed,
        .streaming = true,
        .start_ns = start_ms * MS,
        .start_wall_ns = WALL0 + start_ms * MS,
        .content_ns = t,
        .content_count = n,
        .first_output_index = 0,
        .tokens = {.input = isl, .output = osl, .reasoning = METRICS_ABSENT},
        .usage = RECORD_USAGE_NONE,
    };
    struct metrics_values v;
    metrics_request_compute(&req, &v);
    metrics_run_add(run, &req, &v);
}

Test(metrics_run, aggregates_follow_aiperf)
{
    struct metrics_goodput g;
    char err[128];
    cr_assert_eq(metrics_goodput_parse("time_to_first_token:15", &g, err, sizeof(err)), 0);
    struct metrics_run *run = new_run(true, &g, 0);
    const int64_t a[] = {10, 20, 40};
    const int64_t b[] = {20, 30};
    add_request(run, 0, a, 3, 5, 100, false);   /* ends at 40 ms */
    add_request(run, 1000, b, 2, 3, 50, false); /* ends at 1030 ms */
    add_request(run, 2000, b, 2, 3, 70, true);  /* failed: not in the window */
    struct metrics_summary s;
    cr_assert_eq(metrics_run_summarize(run, &s), 0);
    cr_assert(s.exact);
    cr_assert_eq(s.scalar[METRICS_S_REQUEST_COUNT], 2);
    cr_assert_eq(s.scalar[METRICS_S_ERROR_REQUEST_COUNT], 1);
    cr_assert_eq(s.scalar[METRICS_S_TOTAL_OSL], 8);
    cr_assert_eq(s.scalar[METRICS_S_TOTAL_ISL], 150);
    cr_assert_eq(s.scalar[METRICS_S_TOTAL_OUTPUT_TOKENS], 8);
    cr_assert_eq(s.scalar[METRICS_S_TOTAL_ERROR_ISL], 70);
    cr_assert(!s.scalar_present[METRICS_S_TOTAL_REASONING_TOKENS]);
    cr_assert_eq(s.scalar[METRICS_S_MIN_REQUEST_TIMESTAMP], (double)WALL0);
    cr_assert_eq(s.scalar[METRICS_S_MAX_RESPONSE_TIMESTAMP], (double)(WALL0 + 1030 * MS));
    cr_assert_float_eq(s.scalar[METRICS_S_BENCHMARK_DURATION], 1.03, 1e-12);
    cr_assert_float_eq(s.scalar[METRICS_S_REQUEST_THROUGHPUT], 2 / 1.03, 1e-12);
    cr_assert_float_eq(s.scalar[METRICS_S_OUTPUT_TOKEN_THROUGHPUT], 8 / 1.03, 1e-12);
    /* Only the first request has TTFT <= 15 ms. */
    cr_assert_eq(s.scalar[METRICS_S_GOOD_REQUEST_COUNT], 1);
    cr_assert_float_eq(s.scalar[METRICS_S_GOODPUT], 1 / 1.03, 1e-12);
    cr_assert_float_eq(s.scalar[METRICS_S_GOOD_REQUEST_FRACTION], 1.0 / 3, 1e-12);
    /* Statistics in display units. */
    cr_assert(s.record_present[METRICS_TTFT]);
    cr_assert_float_eq(s.record[METRICS_TTFT].avg, 15.0, 1e-9);
    cr_assert_float_eq(s.record[METRICS_TTFT].min, 10.0, 1e-9);
    cr_assert_eq(s.record[METRICS_TTFT].count, 2);
    cr_assert_float_eq(s.record[METRICS_REQUEST_LATENCY].max, 40.0, 1e-9);
    /* ICL pools every gap: 10, 20 and 10 ms. */
    cr_assert_eq(s.record[METRICS_ICL].count, 3);
    cr_assert_float_eq(s.record[METRICS_ICL].sum, 40.0, 1e-9);
    cr_assert_float_eq(s.record[METRICS_ICL].p50, 10.0, 1e-9);
    cr_assert_eq(s.record[METRICS_ERROR_ISL].count, 1);
    cr_assert(!s.record_present[METRICS_REASONING_TOKEN_COUNT]);
    metrics_run_free(run);
}

Test(metrics_run, empty_run_reports_nothing)
{
    struct metrics_run *run = new_run(true, NULL, 0);
    struct metrics_summary s;
    cr_assert_eq(metrics_run_summarize(run, &s), 0);
    for (int id = 0; id < METRICS_ID_COUNT; id++) {
        cr_assert(!s.record_present[id]);
    }
    for (int id = 0; id < METRICS_SCALAR_COUNT; id++) {
        cr_assert(!s.scalar_present[id], "%s absent", metrics_scalar_info_of(id)->tag);
    }
    metrics_run_free(run);
}

Test(metrics_run, all_failed_reports_errors_only)
{
    struct metrics_run *run = new_run(true, NULL, 0);
    const int64_t a[] = {10};
    add_request(run, 0, a, 1, 5, 100, true);
    add_request(run, 10, a, 1, 5, METRICS_ABSENT, true);
    struct metrics_summary s;
    cr_assert_eq(metrics_run_summarize(run, &s), 0);
    cr_assert(!s.scalar_present[METRICS_S_REQUEST_COUNT]);
    cr_assert(!s.scalar_present[METRICS_S_BENCHMARK_DURATION]);
    cr_assert(!s.scalar_present[METRICS_S_REQUEST_THROUGHPUT]);
    cr_assert(!s.scalar_present[METRICS_S_GOODPUT], "goodput only when --goodput is given");
    cr_assert_eq(s.scalar[METRICS_S_ERROR_REQUEST_COUNT], 2);
    cr_assert_eq(s.record[METRICS_ERROR_ISL].count, 1);
    metrics_run_free(run);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double numpy_percentile(const double *sorted, size_t n, double q)
{
    double idx = q / 100.0 * (double)(n - 1);
    size_t lo = (size_t)floor(idx);
    size_t hi = lo + 1 < n ? lo + 1 : n - 1;
    return sorted[lo] + (sorted[hi] - sorted[lo]) * (idx - (double)lo);
}

Test(metrics_run, past_the_exact_cap_histograms_stay_within_a_tenth_of_a_percent)
{
    enum { N = 5000 };
    struct metrics_run *run = new_run(false, NULL, 100);
    static double latencies_ms[N];
    uint64_t x = 88172645463325252ULL;
    for (int i = 0; i < N; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        int64_t latency_ns = 1000000 + (int64_t)(x % 4000000000ULL);
        int64_t t = i * 10 * MS + latency_ns;
        struct metrics_request req = {
            .start_ns = i * 10 * MS,
            .start_wall_ns = WALL0 + i * 10 * MS,
            .content_ns = &t,
            .content_count = 1,
            .tokens = {METRICS_ABSENT, METRICS_ABSENT, METRICS_ABSENT},
            .usage = RECORD_USAGE_NONE,
        };
        struct metrics_values v;
        metrics_request_compute(&req, &v);
        metrics_run_add(run, &req, &v);
        latencies_ms[i] = (double)latency_ns / 1e6;
    }
    struct metrics_summary s;
    metrics_run_summarize(run, &s);
    cr_assert(!s.exact);
    qsort(latencies_ms, N, sizeof(double), cmp_double);
    const struct metrics_stats *st = &s.record[METRICS_REQUEST_LATENCY];
    const double q[] = {1, 5, 10, 25, 50, 75, 90, 95, 99};
    const double got[] = {st->p1,  st->p5,  st->p10, st->p25, st->p50,
                          st->p75, st->p90, st->p95, st->p99};
    for (size_t i = 0; i < 9; i++) {
        double want = numpy_percentile(latencies_ms, N, q[i]);
        cr_assert(fabs(got[i] - want) <= want * 1e-3, "p%g: %.6f vs %.6f", q[i], got[i], want);
    }
    cr_assert_eq(st->count, N);
    cr_assert_float_eq(st->min, latencies_ms[0], 1e-9);
    cr_assert_float_eq(st->max, latencies_ms[N - 1], 1e-9);
    metrics_run_free(run);
}

/* add_token_requests adds n requests whose output lengths are `osl(i)`, and
 * fills `out` with them as doubles. */
static void add_token_requests(struct metrics_run *run, int n, int64_t (*osl)(int), double *out)
{
    const int64_t offsets[] = {10, 20};
    for (int i = 0; i < n; i++) {
        add_request(run, i * 100, offsets, 2, osl(i), 6, false);
        out[i] = (double)osl(i);
    }
}

static int64_t osl_small(int i)
{
    return (int64_t)((i * 7919) % 1500) + 1;
}

static int64_t osl_one_large(int i)
{
    return i == 400 ? 100000 : osl_small(i);
}

/* assert_osl_is_exact adds 1000 requests with output lengths osl(i) to a run
 * with the given sample cap and checks that their statistics are exact. */
static void assert_osl_is_exact(size_t exact_max, int64_t (*osl)(int))
{
    enum { N = 1000 };
    static double values[N];
    struct metrics_run *run = new_run(true, NULL, exact_max);
    add_token_requests(run, N, osl, values);
    struct metrics_summary s;
    metrics_run_summarize(run, &s);
    struct metrics_stats want;
    cr_assert_eq(metrics_stats_exact(values, N, &want), 0);
    const struct metrics_stats *got = &s.record[METRICS_OSL];
    cr_assert(s.record_present[METRICS_OSL]);
    cr_assert(got->p1 == want.p1 && got->p25 == want.p25 && got->p50 == want.p50 &&
                  got->p90 == want.p90 && got->p99 == want.p99,
              "p50 %.17g vs %.17g", got->p50, want.p50);
    cr_assert(got->avg == want.avg && got->std == want.std, "std %.17g vs %.17g", got->std,
              want.std);
    cr_assert(got->min == want.min && got->max == want.max && got->sum == want.sum);
    cr_assert_eq(got->count, N);
    metrics_run_free(run);
}

Test(metrics_run, token_counts_stay_exact_past_the_sample_cap)
{
    /* Whole numbers below 2048 have buckets of their own, so the histogram
     * alone keeps them exactly, however many there are. */
    assert_osl_is_exact(100, osl_small);
}

Test(metrics_run, a_value_past_the_histograms_exact_limit_keeps_every_value)
{
    /* Value 400 does not fit a one-value bucket: the 400 before it are
     * unpacked from the histogram and the statistics stay exact. */
    assert_osl_is_exact(0, osl_one_large);
}

Test(metrics_run, rejects_bad_config)
{
    struct metrics_run *run = NULL;
    struct metrics_run_config cfg = {.significant_figures = 9};
    cr_assert_eq(metrics_run_new(&cfg, &run), -EINVAL);
    cr_assert_null(run);
    metrics_run_free(NULL);
}

Test(metrics_run, error_rate_and_token_throughputs)
{
    struct metrics_run *run = new_run(true, NULL, 0);
    const int64_t offsets[] = {100, 200, 1000};
    add_request(run, 0, offsets, 3, 10, 30, false);
    add_request(run, 500, offsets, 3, 20, 50, false);
    add_request(run, 600, offsets, 1, 0, 70, true);
    add_request(run, 700, offsets, 1, 0, 70, true);
    struct metrics_summary s;
    cr_assert_eq(metrics_run_summarize(run, &s), 0);
    /* Duration: first start 0 to last content at 1500 ms. */
    cr_assert_float_eq(s.scalar[METRICS_S_BENCHMARK_DURATION], 1.5, 1e-12);
    cr_assert(s.scalar_present[METRICS_S_REQUEST_ERROR_RATE]);
    cr_assert_float_eq(s.scalar[METRICS_S_REQUEST_ERROR_RATE], 50.0, 1e-12);
    cr_assert_float_eq(s.scalar[METRICS_S_COMPLETED_REQUEST_COUNT], 4, 1e-12);
    cr_assert_float_eq(s.scalar[METRICS_S_INPUT_TOKEN_THROUGHPUT], 80 / 1.5, 1e-9);
    cr_assert_float_eq(s.scalar[METRICS_S_OUTPUT_TOKEN_THROUGHPUT], 30 / 1.5, 1e-9);
    cr_assert_float_eq(s.scalar[METRICS_S_TOTAL_TOKEN_THROUGHPUT], 110 / 1.5, 1e-9);
    cr_assert(s.record_present[METRICS_DECODE_DURATION]);
    cr_assert_float_eq(s.record[METRICS_DECODE_DURATION].avg, 900.0, 1e-9);
    metrics_run_free(run);
}

Test(metrics_run, window_sets_the_rate_denominator)
{
    struct metrics_run *run = new_run(true, NULL, 0);
    const int64_t offsets[] = {100, 200};
    add_request(run, 0, offsets, 2, 10, 30, false);
    add_request(run, 100, offsets, 2, 10, 30, false);
    metrics_run_set_window(run, WALL0, WALL0 + 4000 * MS);
    metrics_run_set_window(run, WALL0, WALL0); /* empty windows are ignored */
    struct metrics_summary s;
    cr_assert_eq(metrics_run_summarize(run, &s), 0);
    cr_assert_float_eq(s.scalar[METRICS_S_BENCHMARK_DURATION], 4.0, 1e-12);
    cr_assert_float_eq(s.scalar[METRICS_S_REQUEST_THROUGHPUT], 0.5, 1e-12);
    cr_assert_float_eq(s.scalar[METRICS_S_OUTPUT_TOKEN_THROUGHPUT], 5.0, 1e-12);
    metrics_run_free(run);
}

Test(metrics_run, all_failed_has_no_error_rate)
{
    struct metrics_run *run = new_run(true, NULL, 0);
    const int64_t offsets[] = {100};
    add_request(run, 0, offsets, 1, 0, 70, true);
    struct metrics_summary s;
    cr_assert_eq(metrics_run_summarize(run, &s), 0);
    cr_assert(!s.scalar_present[METRICS_S_REQUEST_ERROR_RATE]);
    cr_assert(s.scalar_present[METRICS_S_COMPLETED_REQUEST_COUNT]);
    metrics_run_free(run);
}

Test(metrics_run, interval_histograms_match_the_run_layout)
{
    struct metrics_run *run = new_run(true, NULL, 0);
    for (int id = 0; id < METRICS_ID_COUNT; id++) {
        struct metrics_hist *h = NULL;
        cr_assert_eq(metrics_record_hist_new((enum metrics_id)id, 0, &h), 0);
        cr_assert(metrics_hist_same_layout(h, metrics_run_record_hist(run, (enum metrics_id)id)));
        metrics_hist_free(h);
    }
    struct metrics_hist *h = NULL;
    cr_assert_eq(metrics_record_hist_new(METRICS_ID_COUNT, 0, &h), -EINVAL);
    cr_assert_eq(metrics_record_hist_value(METRICS_OTPS_PER_USER, 12.3456), 12346);
    cr_assert_eq(metrics_record_hist_value(METRICS_TTFT, 5e6), 5000000);
    cr_assert_eq(metrics_record_hist_value(METRICS_TTFT, -1.0), -1);
    /* Rounding is llround()'s: halves away from zero, at every magnitude. */
    const double values[] = {0.0,
                             0.49999999999999994,
                             0.5,
                             1.5,
                             2.5,
                             1e15 + 0.5,
                             4503599627370495.5,
                             9007199254740993.0,
                             9.1e18};
    for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
        cr_assert_eq(metrics_record_hist_value(METRICS_ISL, values[i]), llround(values[i]), "%.17g",
                     values[i]);
    }
    cr_assert_eq(metrics_record_hist_value(METRICS_ISL, 1e19), INT64_MAX);
    cr_assert_float_eq(metrics_record_hist_per_display(METRICS_TTFT), 1e6, 1e-6);
    cr_assert_float_eq(metrics_record_hist_per_display(METRICS_OTPS_PER_USER), 1e3, 1e-9);
    cr_assert_float_eq(metrics_record_hist_per_display(METRICS_ISL), 1.0, 1e-12);
    metrics_run_free(run);
}

/* osl_mismatch_*: the signed diff against the requested output length, and the requests off by
 * more than min(requested x 5%, 50) tokens; a request that asked for nothing has neither. */
Test(metrics_run, osl_mismatch_follows_aiperfs_threshold)
{
    static const struct {
        int64_t requested, osl;
        bool mismatch;
    } cases[] = {
        {20, 5, true},       {20, 20, false},    {100, 95, false},   {100, 94, true},
        {2000, 1951, false}, {2000, 1949, true}, {2000, 2051, true}, {0, 7, false},
    };
    struct metrics_run *run = new_run(false, NULL, 0);
    const int64_t t[1] = {10 * MS};
    double diff_sum = 0;
    uint64_t want = 0;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct metrics_request req = {
            .start_ns = 0,
            .content_ns = t,
            .content_count = 1,
            .tokens = {.input = 10, .output = cases[i].osl, .reasoning = METRICS_ABSENT},
            .usage = RECORD_USAGE_NONE,
            .requested_osl = cases[i].requested,
        };
        struct metrics_values v;
        metrics_request_compute(&req, &v);
        cr_assert_eq(v.has[METRICS_OSL_MISMATCH_DIFF_PCT], cases[i].requested > 0, "case %zu", i);
        if (cases[i].requested > 0) {
            double diff =
                100.0 * (double)(cases[i].osl - cases[i].requested) / (double)cases[i].requested;
            cr_assert_float_eq(v.value[METRICS_OSL_MISMATCH_DIFF_PCT], diff, 1e-9, "case %zu", i);
            diff_sum += diff;
        }
        want += cases[i].mismatch;
        metrics_run_add(run, &req, &v);
    }
    struct metrics_summary s;
    cr_assert_eq(metrics_run_summarize(run, &s), 0);
    cr_assert(s.scalar_present[METRICS_S_OSL_MISMATCH_COUNT]);
    cr_assert_float_eq(s.scalar[METRICS_S_OSL_MISMATCH_COUNT], (double)want, 1e-9);
    cr_assert(s.record_present[METRICS_OSL_MISMATCH_DIFF_PCT]);
    cr_assert_float_eq(s.record[METRICS_OSL_MISMATCH_DIFF_PCT].avg, diff_sum / 7, 1e-9,
                       "signed values, exactly");
    cr_assert_float_eq(s.record[METRICS_OSL_MISMATCH_DIFF_PCT].min, -75.0, 1e-9);
    metrics_run_free(run);

    run = new_run(false, NULL, 0);
    add_request(run, 0, (const int64_t[]){5}, 1, 4, 10, false);
    cr_assert_eq(metrics_run_summarize(run, &s), 0);
    cr_assert(!s.scalar_present[METRICS_S_OSL_MISMATCH_COUNT], "no request asked for a length");
    metrics_run_free(run);
}

/* AIPerf's adj_* blocks: eight successes of 10..80 ms and two failures are ten values, the two
 * last +Inf; NumPy's nearest rank of p50 is 4.5 -> 4 (half to even), of p75 6.75 -> 7, of p90
 * 8.1 -> 8, a failure. Only with an error, and only for the metrics whose percentiles include
 * failed requests. */
Test(metrics_run, error_adjusted_blocks_count_failures_as_infinite)
{
    for (int pass = 0; pass < 2; pass++) {
        /* Exact, and past the exact-sample cap (from the histogram's one-value buckets). */
        struct metrics_run *run = new_run(true, NULL, pass == 0 ? 0 : 2);
        for (int i = 1; i <= 8; i++) {
            const int64_t offsets[] = {i * 5, i * 10};
            add_request(run, i * 1000, offsets, 2, 4, 10, false);
        }
        const int64_t none[] = {0};
        add_request(run, 20000, none, 0, 0, 10, true);
        add_request(run, 21000, none, 0, 0, 10, true);
        struct metrics_summary s;
        cr_assert_eq(metrics_run_summarize(run, &s), 0);
        cr_assert(s.adj_present[METRICS_REQUEST_LATENCY]);
        cr_assert(s.adj_present[METRICS_TTFT]);
        cr_assert_not(s.adj_present[METRICS_TTST], "TTST's percentiles leave failures out");
        const struct metrics_adj *a = &s.adj[METRICS_REQUEST_LATENCY];
        cr_assert_eq(a->count, 10);
        cr_assert_float_eq(a->min, 10.0, 0.02);
        cr_assert(a->finite[4] && fabs(a->percentile[4] - 50.0) < 0.05, "p50 %g", a->percentile[4]);
        cr_assert(a->finite[5] && fabs(a->percentile[5] - 80.0) < 0.1, "p75 %g", a->percentile[5]);
        cr_assert_not(a->finite[6], "p90 falls on a failure");
        cr_assert_not(a->finite[8]);
        cr_assert(a->finite[0] && fabs(a->percentile[0] - 10.0) < 0.02);
        metrics_run_free(run);
    }
    struct metrics_run *clean = new_run(true, NULL, 0);
    const int64_t offsets[] = {5, 10};
    add_request(clean, 1000, offsets, 2, 4, 10, false);
    struct metrics_summary s;
    metrics_run_summarize(clean, &s);
    cr_assert_not(s.adj_present[METRICS_REQUEST_LATENCY], "no error, no adj_ block");
    metrics_run_free(clean);
}

/* --network-latency-mean: network_rtt, and the latency blocks less it, never below 0. */
Test(metrics_run, network_adjusted_blocks_take_the_round_trip_off)
{
    struct metrics_run_config cfg = {
        .streaming = true, .network_rtt_given = true, .network_rtt_ns = 15 * MS};
    struct metrics_run *run = NULL;
    cr_assert_eq(metrics_run_new(&cfg, &run), 0);
    const int64_t fast[] = {10, 20};
    const int64_t slow[] = {30, 50};
    add_request(run, 1000, fast, 2, 4, 10, false);
    add_request(run, 2000, slow, 2, 4, 10, false);
    struct metrics_summary s;
    cr_assert_eq(metrics_run_summarize(run, &s), 0);
    cr_assert(s.scalar_present[METRICS_S_NETWORK_RTT]);
    cr_assert_float_eq(s.scalar[METRICS_S_NETWORK_RTT], 15.0, 1e-9);
    const struct metrics_stats *adj = &s.record[METRICS_NET_ADJ_REQUEST_LATENCY];
    cr_assert(s.record_present[METRICS_NET_ADJ_REQUEST_LATENCY]);
    cr_assert_float_eq(adj->min, 5.0, 1e-9);
    cr_assert_float_eq(adj->max, 35.0, 1e-9);
    cr_assert_float_eq(adj->sum, 40.0, 1e-9);
    cr_assert_float_eq(s.record[METRICS_NET_ADJ_TTFT].min, 0.0, 1e-9, "10 ms less 15 is 0");
    cr_assert_float_eq(s.record[METRICS_NET_ADJ_TTFT].max, 15.0, 1e-9);
    metrics_run_free(run);
    struct metrics_run *plain = new_run(true, NULL, 0);
    add_request(plain, 1000, fast, 2, 4, 10, false);
    metrics_run_summarize(plain, &s);
    cr_assert_not(s.scalar_present[METRICS_S_NETWORK_RTT]);
    cr_assert_not(s.record_present[METRICS_NET_ADJ_REQUEST_LATENCY]);
    metrics_run_free(plain);
}
