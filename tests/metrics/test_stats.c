/*
 * test_stats.c - AIPerf statistics: exact (NumPy) and from a histogram.
 */
#include "metrics/metrics.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))
#define SAMPLES_PER_DISTRIBUTION 1000000

static void assert_rel(double actual, double expected, double rel, const char *what)
{
    double tolerance = fabs(expected) * rel;
    cr_assert(fabs(actual - expected) <= tolerance, "%s: got %.17g, expected %.17g (rel %g)", what,
              actual, expected, rel);
}

static void percentile_fields(const struct metrics_stats *s, double out[9])
{
    double v[9] = {s->p1, s->p5, s->p10, s->p25, s->p50, s->p75, s->p90, s->p95, s->p99};
    memcpy(out, v, sizeof(v));
}

/* Expected values computed with NumPy 1.24.2: np.percentile(a, [1,5,10,25,50,75,90,95,99]),
 * np.mean, np.std (ddof=0), np.sum. */
struct numpy_case {
    const char *name;
    double values[20];
    size_t n;
    double avg, min, max, std, sum;
    double p[9];
};

static const struct numpy_case numpy_cases[] = {
    {"five",
     {3, 1, 4, 5, 2},
     5,
     3.0,
     1.0,
     5.0,
     1.4142135623730951,
     15.0,
     {1.04, 1.2, 1.4, 2.0, 3.0, 4.0, 4.6, 4.8, 4.96}},
    {"single",
     {42.5},
     1,
     42.5,
     42.5,
     42.5,
     0.0,
     42.5,
     {42.5, 42.5, 42.5, 42.5, 42.5, 42.5, 42.5, 42.5, 42.5}},
    {"two",
     {20.0, 10.0},
     2,
     15.0,
     10.0,
     20.0,
     5.0,
     30.0,
     {10.1, 10.5, 11.0, 12.5, 15.0, 17.5, 19.0, 19.5, 19.9}},
    {"dups",
     {7, 7, 7, 1, 1, 9, 100, 7, 3, 3, 3},
     11,
     13.454545454545455,
     1.0,
     100.0,
     27.493350059981072,
     148.0,
     {1.0, 1.0, 1.0, 3.0, 7.0, 7.0, 9.0, 54.5, 90.90000000000003}},
    {"negative",
     {-5.5, 2.25, -1.0, 0.0, 8.125, -3.75},
     6,
     0.020833333333333332,
     -5.5,
     8.125,
     4.404316459136675,
     0.125,
     {-5.4125, -5.0625, -4.625, -3.0625, -0.5, 1.6875, 5.1875, 6.65625, 7.831250000000001}},
    {"latency_ms",
     {2145.06, 2568.73, 3411.10, 2201.0, 2400.2, 2801.9,  3100.4, 3250.8, 2170.3, 2150.1,
      2333.3,  2999.9,  2650.65, 2480.0, 2222.2, 3371.24, 2610.5, 2705.0, 2300.0, 2999.0},
     20,
     2643.569,
     2145.06,
     3411.1,
     410.76990952235053,
     52871.38,
     {2146.0176, 2149.848, 2168.28, 2280.55, 2589.615, 2999.225, 3262.8440000000005,
      3373.2329999999997, 3403.5265999999997}},
};

Test(stats_exact, matches_numpy_hand_computed_values)
{
    for (size_t c = 0; c < ARRAY_LEN(numpy_cases); c++) {
        const struct numpy_case *tc = &numpy_cases[c];
        double values[20];
        memcpy(values, tc->values, sizeof(values));
        struct metrics_stats s;
        cr_assert_eq(metrics_stats_exact(values, tc->n, &s), 0, "%s", tc->name);
        double got[9];
        percentile_fields(&s, got);
        for (size_t i = 0; i < 9; i++) {
            /* Same formula and rounding as NumPy: bit-for-bit. */
            cr_assert(got[i] == tc->p[i], "%s p[%zu]: got %.17g, expected %.17g", tc->name, i,
                      got[i], tc->p[i]);
        }
        cr_assert_eq(s.count, tc->n, "%s", tc->name);
        cr_assert(s.min == tc->min && s.max == tc->max, "%s min/max", tc->name);
        assert_rel(s.avg, tc->avg, 1e-15, tc->name);
        assert_rel(s.std, tc->std, 1e-14, tc->name);
        assert_rel(s.sum, tc->sum, 1e-15, tc->name);
    }
}

Test(stats_exact, sorts_values_in_place)
{
    double values[] = {5, -1, 3, 3, 0.5};
    struct metrics_stats s;
    cr_assert_eq(metrics_stats_exact(values, ARRAY_LEN(values), &s), 0);
    for (size_t i = 1; i < ARRAY_LEN(values); i++) {
        cr_assert(values[i - 1] <= values[i]);
    }
}

Test(stats_exact, empty_input_is_no_data_and_leaves_output_alone)
{
    struct metrics_stats s = {.avg = 7.0, .count = 3};
    double values[1] = {1.0};
    cr_assert_eq(metrics_stats_exact(values, 0, &s), -ENODATA);
    cr_assert_eq(metrics_stats_exact(NULL, 0, &s), -ENODATA);
    cr_assert_eq(metrics_stats_exact(NULL, 4, &s), -EINVAL);
    cr_assert(s.avg == 7.0 && s.count == 3);
}

Test(stats_exact, rejects_nan_and_infinity)
{
    const double bad[] = {NAN, INFINITY, -INFINITY};
    for (size_t i = 0; i < ARRAY_LEN(bad); i++) {
        double values[] = {1.0, bad[i], 2.0};
        struct metrics_stats s = {.count = 99};
        cr_assert_eq(metrics_stats_exact(values, ARRAY_LEN(values), &s), -EINVAL);
        cr_assert_eq(s.count, 99);
    }
}

Test(stats_scale, multiplies_every_value_but_count)
{
    double values[] = {1e6, 2e6, 3e6, 4e6};
    struct metrics_stats s;
    cr_assert_eq(metrics_stats_exact(values, ARRAY_LEN(values), &s), 0);
    metrics_stats_scale(&s, 1e-6);
    cr_assert_eq(s.count, 4);
    assert_rel(s.avg, 2.5, 1e-15, "avg");
    assert_rel(s.min, 1.0, 1e-15, "min");
    assert_rel(s.max, 4.0, 1e-15, "max");
    assert_rel(s.p50, 2.5, 1e-15, "p50");
    assert_rel(s.p99, 3.97, 1e-15, "p99");
    assert_rel(s.sum, 10.0, 1e-15, "sum");
    assert_rel(s.std, sqrt(1.25), 1e-15, "std");
}

Test(stats_from_hist, empty_histogram_is_no_data)
{
    struct metrics_hist *h = NULL;
    cr_assert_eq(metrics_hist_new(1, 1000000, 3, &h), 0);
    struct metrics_stats s = {.count = 5};
    cr_assert_eq(metrics_stats_from_hist(h, &s), -ENODATA);
    cr_assert_eq(s.count, 5);
    metrics_hist_free(h);
}

Test(stats_from_hist, unit_width_buckets_match_numpy_exactly)
{
    /* Token counts: small integers land in one-value buckets, so every rank's
     * value is known and the interpolation is NumPy's to the bit. */
    struct metrics_hist *h = NULL;
    cr_assert_eq(metrics_hist_new(1, 1000000, 3, &h), 0);
    enum { N = 997 };
    double *values = malloc(N * sizeof(double));
    cr_assert_not_null(values);
    for (size_t i = 0; i < N; i++) {
        int64_t v = (int64_t)((i * 7919) % 2000) + 1;
        values[i] = (double)v;
        metrics_hist_record(h, v);
    }
    struct metrics_stats exact;
    struct metrics_stats approx;
    cr_assert_eq(metrics_stats_exact(values, N, &exact), 0);
    cr_assert_eq(metrics_stats_from_hist(h, &approx), 0);
    double e[9];
    double a[9];
    percentile_fields(&exact, e);
    percentile_fields(&approx, a);
    for (size_t i = 0; i < 9; i++) {
        cr_assert(a[i] == e[i], "p[%zu]: hist %.17g exact %.17g", i, a[i], e[i]);
    }
    cr_assert(approx.min == exact.min && approx.max == exact.max && approx.sum == exact.sum);
    cr_assert_eq(approx.count, exact.count);
    assert_rel(approx.avg, exact.avg, 1e-15, "avg");
    assert_rel(approx.std, exact.std, 1e-12, "std");
    free(values);
    metrics_hist_free(h);
}

Test(stats_from_hist, clamped_values_are_reported_as_recorded)
{
    struct metrics_hist *h = NULL;
    cr_assert_eq(metrics_hist_new(1, 1000, 3, &h), 0);
    metrics_hist_record(h, -50);
    metrics_hist_record(h, 500);
    metrics_hist_record(h, 5000);
    struct metrics_stats s;
    cr_assert_eq(metrics_stats_from_hist(h, &s), 0);
    cr_assert(s.min == 0.0 && s.max == 1000.0 && s.sum == 1500.0 && s.count == 3);
    cr_assert_eq(metrics_hist_overflow_count(h), 1);
    cr_assert_eq(metrics_hist_underflow_count(h), 1);
    metrics_hist_free(h);
}

/* splitmix64: a deterministic generator so failures reproduce. */
static uint64_t next_random(uint64_t *state)
{
    uint64_t z = (*state += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

/* Uniform in [0, 1). */
static double next_unit(uint64_t *state)
{
    return (double)(next_random(state) >> 11) * 0x1.0p-53;
}

static double next_normal(uint64_t *state, double mean, double sd)
{
    double u1 = 1.0 - next_unit(state);
    double u2 = next_unit(state);
    return mean + sd * sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
}

enum distribution {
    DIST_UNIFORM,
    DIST_EXPONENTIAL,
    DIST_BIMODAL,
    DIST_CONSTANT,
    DIST_SINGLE,
    DIST_LOG_UNIFORM_1US_100S,
};

static int64_t sample_ns(enum distribution d, uint64_t *state)
{
    double v = 0.0;
    switch (d) {
    case DIST_UNIFORM:
        v = 1e6 + next_unit(state) * (1e9 - 1e6);
        break;
    case DIST_EXPONENTIAL:
        v = -5e6 * log(1.0 - next_unit(state));
        break;
    case DIST_BIMODAL:
        /* 70/30 so that no reported percentile sits on the gap between modes. */
        v = next_unit(state) < 0.7 ? next_normal(state, 20e6, 1e6) : next_normal(state, 200e6, 1e7);
        break;
    case DIST_CONSTANT:
        v = 123456789.0;
        break;
    case DIST_SINGLE:
        v = 987654321.0;
        break;
    case DIST_LOG_UNIFORM_1US_100S:
        v = exp(log(1e3) + next_unit(state) * (log(1e11) - log(1e3)));
        break;
    }
    return v < 1.0 ? 1 : (int64_t)v;
}

static void check_distribution(enum distribution d, size_t n)
{
    struct metrics_hist *h = NULL;
    cr_assert_eq(metrics_hist_new(1, INT64_C(3600) * 1000 * 1000 * 1000, 3, &h), 0);
    double *values = malloc(n * sizeof(double));
    cr_assert_not_null(values);
    uint64_t state = 0x5EED0000u + (uint64_t)d;
    for (size_t i = 0; i < n; i++) {
        int64_t v = sample_ns(d, &state);
        values[i] = (double)v;
        metrics_hist_record(h, v);
    }
    struct metrics_stats exact;
    struct metrics_stats approx;
    cr_assert_eq(metrics_stats_exact(values, n, &exact), 0);
    cr_assert_eq(metrics_stats_from_hist(h, &approx), 0);

    static const double pct[9] = {1, 5, 10, 25, 50, 75, 90, 95, 99};
    double e[9];
    double a[9];
    percentile_fields(&exact, e);
    percentile_fields(&approx, a);
    for (size_t i = 0; i < 9; i++) {
        char what[64];
        snprintf(what, sizeof(what), "dist %d p%g stats_from_hist", (int)d, pct[i]);
        assert_rel(a[i], e[i], 1e-3, what);
        snprintf(what, sizeof(what), "dist %d p%g value_at_percentile", (int)d, pct[i]);
        assert_rel((double)metrics_hist_value_at_percentile(h, pct[i]), e[i], 1e-3, what);
    }
    cr_assert_eq(approx.count, n);
    cr_assert(approx.min == exact.min && approx.max == exact.max, "dist %d min/max", (int)d);
    assert_rel(approx.sum, exact.sum, 1e-15, "sum");
    assert_rel(approx.avg, exact.avg, 1e-15, "avg");
    if (exact.std == 0.0) {
        cr_assert(approx.std == 0.0, "dist %d std %.17g", (int)d, approx.std);
    } else {
        assert_rel(approx.std, exact.std, 1e-3, "std");
    }
    free(values);
    metrics_hist_free(h);
}

Test(stats_from_hist, uniform_percentiles_within_0_1_percent)
{
    check_distribution(DIST_UNIFORM, SAMPLES_PER_DISTRIBUTION);
}

Test(stats_from_hist, exponential_percentiles_within_0_1_percent)
{
    check_distribution(DIST_EXPONENTIAL, SAMPLES_PER_DISTRIBUTION);
}

Test(stats_from_hist, bimodal_percentiles_within_0_1_percent)
{
    check_distribution(DIST_BIMODAL, SAMPLES_PER_DISTRIBUTION);
}

Test(stats_from_hist, constant_percentiles_within_0_1_percent)
{
    check_distribution(DIST_CONSTANT, SAMPLES_PER_DISTRIBUTION);
}

Test(stats_from_hist, single_value_percentiles_within_0_1_percent)
{
    check_distribution(DIST_SINGLE, 1);
}

Test(stats_from_hist, latencies_1us_to_100s_percentiles_within_0_1_percent)
{
    check_distribution(DIST_LOG_UNIFORM_1US_100S, SAMPLES_PER_DISTRIBUTION);
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a;
    double y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Long arrays take the radix sort: it must order exactly as a comparison sort
 * does, across signs, zeros, subnormals, huge values and runs of duplicates. */
/* assert_same_bits fails unless every field of a and b is the same double. */
static void assert_same_bits(const struct metrics_stats *a, const struct metrics_stats *b)
{
    double fa[9];
    double fb[9];
    percentile_fields(a, fa);
    percentile_fields(b, fb);
    for (size_t i = 0; i < 9; i++) {
        cr_assert(fa[i] == fb[i], "p[%zu]: %.17g vs %.17g", i, fa[i], fb[i]);
    }
    cr_assert(a->avg == b->avg, "avg %.17g vs %.17g", a->avg, b->avg);
    cr_assert(a->std == b->std, "std %.17g vs %.17g", a->std, b->std);
    cr_assert(a->min == b->min && a->max == b->max && a->sum == b->sum);
    cr_assert_eq(a->count, b->count);
}

Test(stats_exact_hist, equals_the_exact_statistics_to_the_bit)
{
    /* Skewed, repeated and single values, as token counts come. */
    enum { N = 5003 };
    double *values = malloc(N * sizeof(double));
    cr_assert_not_null(values);
    struct metrics_hist *h = NULL;
    cr_assert_eq(metrics_hist_new(1, 1000000000, 3, &h), 0);
    uint64_t state = 7;
    for (size_t i = 0; i < N; i++) {
        int64_t v = (int64_t)(next_unit(&state) * next_unit(&state) * 2047.0);
        values[i] = (double)v;
        metrics_hist_record(h, v);
    }
    struct metrics_stats exact;
    struct metrics_stats from_hist;
    cr_assert_eq(metrics_stats_exact(values, N, &exact), 0);
    cr_assert_eq(metrics_stats_exact_hist(h, &from_hist), 0);
    assert_same_bits(&from_hist, &exact);

    /* One value: no spread. */
    metrics_hist_reset(h);
    metrics_hist_record(h, 16);
    values[0] = 16;
    cr_assert_eq(metrics_stats_exact(values, 1, &exact), 0);
    cr_assert_eq(metrics_stats_exact_hist(h, &from_hist), 0);
    assert_same_bits(&from_hist, &exact);
    free(values);
    metrics_hist_free(h);
}

Test(stats_exact_hist, refuses_values_it_does_not_hold_exactly)
{
    struct metrics_hist *h = NULL;
    cr_assert_eq(metrics_hist_new(1, 1000000000, 3, &h), 0);
    struct metrics_stats out = {.count = 99};
    cr_assert_eq(metrics_stats_exact_hist(h, &out), -ENODATA);
    metrics_hist_record(h, 5);
    metrics_hist_record(h, 2048); /* the first two-value bucket */
    cr_assert_eq(metrics_stats_exact_hist(h, &out), -EINVAL);
    metrics_hist_reset(h);
    metrics_hist_record(h, -1); /* clamped to 0 */
    cr_assert_eq(metrics_stats_exact_hist(h, &out), -EINVAL);
    cr_assert_eq(out.count, 99);
    metrics_hist_free(h);
}

Test(stats_exact, long_arrays_sort_as_a_comparison_sort)
{
    enum { N = 5000 };
    static const double specials[] = {0.0, -0.0, 1e-310, -1e-310,  1e300,      -1e300,
                                      1.0, -1.0, 0.5,    4.9e-324, 123456789.0};
    double *values = malloc(N * sizeof(double));
    double *expected = malloc(N * sizeof(double));
    cr_assert(values != NULL && expected != NULL);
    uint64_t state = 42;
    for (size_t i = 0; i < N; i++) {
        uint64_t r = next_random(&state);
        if (i % 7 == 0) {
            values[i] = specials[r % (sizeof(specials) / sizeof(specials[0]))];
        } else if (i % 3 == 0) {
            values[i] = (double)(r % 50); /* duplicates */
        } else {
            values[i] = ((double)(r >> 11) / 9007199254740992.0 - 0.5) * 1e6;
        }
    }
    memcpy(expected, values, N * sizeof(double));
    qsort(expected, N, sizeof(double), compare_doubles);
    struct metrics_stats s;
    cr_assert_eq(metrics_stats_exact(values, N, &s), 0);
    for (size_t i = 0; i < N; i++) {
        cr_assert(values[i] == expected[i], "value %zu: got %.17g, expected %.17g", i, values[i],
                  expected[i]);
    }
    cr_assert(s.min == expected[0] && s.max == expected[N - 1]);
    free(values);
    free(expected);
}

Test(python_float, writes_numbers_as_python_str_does)
{
    static const struct {
        double value;
        const char *want;
    } cases[] = {
        {10, "10.0"},
        {2.5, "2.5"},
        {0.125, "0.125"},
        {0.0025, "0.0025"},
        {100000, "100000.0"},
        {0.1, "0.1"},
        {1.0 / 3, "0.3333333333333333"},
        {-7, "-7.0"},
        {0, "0.0"},
        {1e-05, "1e-05"},
        {1.5e16, "1.5e+16"},
        {1e15, "1000000000000000.0"},
        {NAN, "nan"},
        {-INFINITY, "-inf"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char out[40];
        metrics_python_float(cases[i].value, out, sizeof(out));
        cr_assert_str_eq(out, cases[i].want, "case %zu", i);
    }
}
