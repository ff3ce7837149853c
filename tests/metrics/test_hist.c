/*
 * test_hist.c - the HdrHistogram: layout, recording edges, merging, percentiles.
 */
#include "metrics/metrics.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))
#define HOUR_NS (INT64_C(3600) * 1000 * 1000 * 1000)

static struct metrics_hist *new_hist(int64_t lowest, int64_t highest, int sigfigs)
{
    struct metrics_hist *h = NULL;
    int rc = metrics_hist_new(lowest, highest, sigfigs, &h);
    cr_assert_eq(rc, 0, "metrics_hist_new(%lld, %lld, %d) = %d", (long long)lowest,
                 (long long)highest, sigfigs, rc);
    cr_assert_not_null(h);
    return h;
}

/* The bucket [lowest, highest] holding `value`, found through the iterator of
 * a histogram that holds only that value. */
static void bucket_of(int64_t lowest_trackable, int64_t highest_trackable, int sigfigs,
                      int64_t value, int64_t *out_lowest, int64_t *out_highest)
{
    struct metrics_hist *h = new_hist(lowest_trackable, highest_trackable, sigfigs);
    metrics_hist_record(h, value);
    struct metrics_hist_iter it;
    metrics_hist_iter_init(&it, h);
    cr_assert(metrics_hist_iter_next(&it));
    cr_assert_eq(it.count, 1);
    *out_lowest = it.lowest_value;
    *out_highest = it.highest_value;
    cr_assert_not(metrics_hist_iter_next(&it));
    metrics_hist_free(h);
}

static void assert_same_contents(const struct metrics_hist *a, const struct metrics_hist *b)
{
    size_t len_a;
    size_t len_b;
    const uint64_t *ca = metrics_hist_counts(a, &len_a);
    const uint64_t *cb = metrics_hist_counts(b, &len_b);
    cr_assert_eq(len_a, len_b);
    cr_assert(memcmp(ca, cb, len_a * sizeof(ca[0])) == 0, "bucket counts differ");
    struct metrics_hist_summary sa;
    struct metrics_hist_summary sb;
    metrics_hist_summary(a, &sa);
    metrics_hist_summary(b, &sb);
    cr_assert_eq(sa.total_count, sb.total_count);
    cr_assert_eq(sa.overflow_count, sb.overflow_count);
    cr_assert_eq(sa.underflow_count, sb.underflow_count);
    cr_assert_eq(sa.min_value, sb.min_value);
    cr_assert_eq(sa.max_value, sb.max_value);
    cr_assert_eq(sa.sum_hi, sb.sum_hi);
    cr_assert_eq(sa.sum_lo, sb.sum_lo);
}

Test(hist, new_rejects_bad_arguments)
{
    static const struct {
        int64_t lowest, highest;
        int sigfigs;
    } bad[] = {
        {0, 1000, 3},
        {-1, 1000, 3},
        {1, 1, 3},
        {10, 19, 3},
        {1, -5, 3},
        {1, 1000, 0},
        {1, 1000, 6},
        {1, 1000, -1},
        {INT64_MAX / 2 + 1, INT64_MAX, 3},
        {INT64_C(1) << 45, INT64_MAX, 5},
    };
    for (size_t i = 0; i < ARRAY_LEN(bad); i++) {
        struct metrics_hist *h = NULL;
        cr_assert_eq(metrics_hist_new(bad[i].lowest, bad[i].highest, bad[i].sigfigs, &h), -EINVAL,
                     "case %zu", i);
        cr_assert_null(h, "case %zu wrote *out", i);
    }
    cr_assert_eq(metrics_hist_new(1, 1000, 3, NULL), -EINVAL);
}

Test(hist, new_accepts_sigfig_and_range_bounds)
{
    static const struct {
        int64_t lowest, highest;
        int sigfigs;
    } good[] = {
        {1, 2, METRICS_HIST_SIGFIGS_MIN},
        {1, 2, METRICS_HIST_SIGFIGS_MAX},
        {10, 20, 3},
        {1, INT64_MAX, 1},
        {1, INT64_MAX, 3},
        {1000, INT64_MAX, 5},
        {INT64_C(1) << 40, INT64_MAX, 3},
    };
    for (size_t i = 0; i < ARRAY_LEN(good); i++) {
        struct metrics_hist *h = new_hist(good[i].lowest, good[i].highest, good[i].sigfigs);
        metrics_hist_record(h, good[i].highest);
        metrics_hist_record(h, INT64_MAX);
        cr_assert_eq(metrics_hist_max(h), good[i].highest, "case %zu", i);
        cr_assert_geq(metrics_hist_value_at_percentile(h, 100.0), good[i].highest, "case %zu", i);
        metrics_hist_free(h);
    }
}

Test(hist, free_null_is_noop)
{
    metrics_hist_free(NULL);
}

Test(hist, layout_matches_hdrhistogram_sizes)
{
    /* HdrHistogram's well-known size for 1 ns .. 1 h at 3 digits. */
    struct metrics_hist *h = new_hist(1, INT64_C(3600) * 1000 * 1000, 3);
    struct metrics_hist_layout layout;
    metrics_hist_layout(h, &layout);
    cr_assert_eq(layout.counts_len, 23552);
    cr_assert_eq(layout.lowest_trackable, 1);
    cr_assert_eq(layout.highest_trackable, INT64_C(3600) * 1000 * 1000);
    cr_assert_eq(layout.significant_figures, 3);
    size_t len = 0;
    cr_assert_not_null(metrics_hist_counts(h, &len));
    cr_assert_eq(len, layout.counts_len);
    metrics_hist_free(h);
}

Test(hist, empty_histogram_reports_zeros)
{
    struct metrics_hist *h = new_hist(1, HOUR_NS, 3);
    cr_assert_eq(metrics_hist_count(h), 0);
    cr_assert_eq(metrics_hist_min(h), 0);
    cr_assert_eq(metrics_hist_max(h), 0);
    cr_assert(metrics_hist_mean(h) == 0.0 && metrics_hist_stddev(h) == 0.0);
    cr_assert(metrics_hist_sum(h) == 0.0);
    cr_assert_eq(metrics_hist_value_at_percentile(h, 50.0), 0);
    struct metrics_hist_iter it;
    metrics_hist_iter_init(&it, h);
    cr_assert_not(metrics_hist_iter_next(&it));
    metrics_hist_free(h);
}

Test(hist, records_edge_values_without_dropping_any)
{
    const int64_t lowest = 1000;
    const int64_t highest = 10 * 1000 * 1000;
    struct metrics_hist *h = new_hist(lowest, highest, 3);
    const int64_t values[] = {0, 1, lowest, highest, highest + 1, INT64_MAX, -1, INT64_MIN};
    for (size_t i = 0; i < ARRAY_LEN(values); i++) {
        metrics_hist_record(h, values[i]);
    }
    cr_assert_eq(metrics_hist_count(h), ARRAY_LEN(values));
    cr_assert_eq(metrics_hist_overflow_count(h), 2);
    cr_assert_eq(metrics_hist_underflow_count(h), 2);
    cr_assert_eq(metrics_hist_min(h), 0);
    cr_assert_eq(metrics_hist_max(h), highest);

    uint64_t seen = 0;
    struct metrics_hist_iter it;
    metrics_hist_iter_init(&it, h);
    int64_t previous_highest = -1;
    while (metrics_hist_iter_next(&it)) {
        cr_assert_gt(it.lowest_value, previous_highest, "buckets out of order or overlapping");
        cr_assert_leq(it.lowest_value, it.highest_value);
        previous_highest = it.highest_value;
        seen += it.count;
    }
    cr_assert_eq(seen, ARRAY_LEN(values));
    /* 0, 1, -1 and INT64_MIN share the first bucket (below lowest: its resolution). */
    metrics_hist_iter_init(&it, h);
    cr_assert(metrics_hist_iter_next(&it));
    cr_assert_eq(it.lowest_value, 0);
    cr_assert_eq(it.count, 4);
    metrics_hist_free(h);
}

Test(hist, record_n_counts_and_zero_count_is_noop)
{
    struct metrics_hist *h = new_hist(1, HOUR_NS, 3);
    metrics_hist_record_n(h, 12345, 0);
    cr_assert_eq(metrics_hist_count(h), 0);
    cr_assert_eq(metrics_hist_min(h), 0);
    metrics_hist_record_n(h, 12345, 1000);
    metrics_hist_record_n(h, -7, 3);
    metrics_hist_record_n(h, HOUR_NS + 1, 5);
    cr_assert_eq(metrics_hist_count(h), 1008);
    cr_assert_eq(metrics_hist_underflow_count(h), 3);
    cr_assert_eq(metrics_hist_overflow_count(h), 5);
    cr_assert(metrics_hist_sum(h) == 12345.0 * 1000 + 5.0 * (double)HOUR_NS);
    metrics_hist_free(h);
}

Test(hist, unit_resolution_up_to_the_first_doubling)
{
    /* sub_count is the power of two >= 2 * 10^digits: 32, 256, 2048, 32768, 262144. */
    static const int64_t sub_count[] = {32, 256, 2048, 32768, 262144};
    for (int digits = 1; digits <= 5; digits++) {
        int64_t n = sub_count[digits - 1];
        int64_t lo;
        int64_t hi;
        const int64_t exact[] = {0, 1, n / 2, n - 1};
        for (size_t i = 0; i < ARRAY_LEN(exact); i++) {
            bucket_of(1, HOUR_NS, digits, exact[i], &lo, &hi);
            cr_assert(lo == exact[i] && hi == exact[i], "digits %d value %lld: [%lld, %lld]",
                      digits, (long long)exact[i], (long long)lo, (long long)hi);
        }
        /* First doubling: width 2, so n and n+1 share a bucket, n+2 starts the next. */
        bucket_of(1, HOUR_NS, digits, n + 1, &lo, &hi);
        cr_assert(lo == n && hi == n + 1, "digits %d", digits);
        bucket_of(1, HOUR_NS, digits, n + 2, &lo, &hi);
        cr_assert(lo == n + 2 && hi == n + 3, "digits %d", digits);
        /* Second doubling: width 4. */
        bucket_of(1, HOUR_NS, digits, 2 * n + 5, &lo, &hi);
        cr_assert(lo == 2 * n + 4 && hi == 2 * n + 7, "digits %d", digits);
    }
}

Test(hist, exact_limit_is_the_first_doubling_or_the_range)
{
    static const int64_t sub_count[] = {32, 256, 2048, 32768, 262144};
    for (int digits = 1; digits <= 5; digits++) {
        struct metrics_hist *h = NULL;
        cr_assert_eq(metrics_hist_new(1, HOUR_NS, digits, &h), 0);
        cr_assert_eq(metrics_hist_exact_limit(h), sub_count[digits - 1], "digits %d", digits);
        metrics_hist_free(h);
    }
    struct metrics_hist *h = NULL;
    /* A range that ends first bounds it: values above highest are clamped. */
    cr_assert_eq(metrics_hist_new(1, 1000, 3, &h), 0);
    cr_assert_eq(metrics_hist_exact_limit(h), 1001);
    metrics_hist_free(h);
    /* A unit above one: no bucket is one value wide. */
    cr_assert_eq(metrics_hist_new(2, HOUR_NS, 3, &h), 0);
    cr_assert_eq(metrics_hist_exact_limit(h), 0);
    metrics_hist_free(h);
}

Test(hist, bucket_width_bounded_by_significant_digits)
{
    static const int64_t pow10[] = {1, 10, 100, 1000, 10000, 100000};
    for (int digits = 1; digits <= 5; digits++) {
        for (int64_t v = 1; v < INT64_MAX / 3; v = v * 3 + 1) {
            int64_t lo;
            int64_t hi;
            bucket_of(1, INT64_MAX, digits, v, &lo, &hi);
            cr_assert(lo <= v && v <= hi, "digits %d: %lld not in [%lld, %lld]", digits,
                      (long long)v, (long long)lo, (long long)hi);
            int64_t width = hi - lo + 1;
            int64_t bound = v / pow10[digits];
            cr_assert(width <= (bound > 1 ? bound : 1), "digits %d value %lld width %lld", digits,
                      (long long)v, (long long)width);
        }
    }
}

Test(hist, lowest_trackable_sets_the_unit)
{
    /* lowest 1000 -> unit 512: values below 512 share bucket 0. */
    int64_t lo;
    int64_t hi;
    bucket_of(1000, HOUR_NS, 3, 0, &lo, &hi);
    cr_assert(lo == 0 && hi == 511);
    bucket_of(1000, HOUR_NS, 3, 511, &lo, &hi);
    cr_assert(lo == 0 && hi == 511);
    bucket_of(1000, HOUR_NS, 3, 1000, &lo, &hi);
    cr_assert(lo == 512 && hi == 1023);
}

Test(hist, exact_min_max_not_bucket_bounds)
{
    struct metrics_hist *h = new_hist(1, HOUR_NS, 3);
    metrics_hist_record(h, 1000003);
    metrics_hist_record(h, 5000001);
    cr_assert_eq(metrics_hist_min(h), 1000003);
    cr_assert_eq(metrics_hist_max(h), 5000001);
    cr_assert_neq(metrics_hist_value_at_percentile(h, 100.0), 5000001);
    metrics_hist_free(h);
}

Test(hist, value_at_percentile_has_hdrhistogram_semantics)
{
    struct metrics_hist *h = new_hist(1, HOUR_NS, 3);
    for (int64_t v = 1; v <= 100; v++) {
        metrics_hist_record(h, v);
    }
    static const struct {
        double percentile;
        int64_t value;
    } cases[] = {
        {0.0, 1},    {-5.0, 1},    {NAN, 1},     {0.4, 1},        {1.0, 1},
        {1.5, 2},    {50.0, 50},   {50.4, 50},   {50.5, 51},      {99.0, 99},
        {99.5, 100}, {100.0, 100}, {150.0, 100}, {INFINITY, 100},
    };
    for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
        cr_assert_eq(metrics_hist_value_at_percentile(h, cases[i].percentile), cases[i].value,
                     "p%g", cases[i].percentile);
    }
    metrics_hist_reset(h);
    /* 10000 sits in a bucket of width 8 at 3 digits: [10000, 10007]. */
    metrics_hist_record(h, 10003);
    cr_assert_eq(metrics_hist_value_at_percentile(h, 50.0), 10007);
    cr_assert_eq(metrics_hist_value_at_percentile(h, 0.0), 10000);
    metrics_hist_free(h);
}

Test(hist, mean_exact_and_stddev_population)
{
    struct metrics_hist *h = new_hist(1, HOUR_NS, 3);
    const int64_t values[] = {1, 2, 3, 4};
    for (size_t i = 0; i < ARRAY_LEN(values); i++) {
        metrics_hist_record(h, values[i]);
    }
    cr_assert(metrics_hist_mean(h) == 2.5);
    cr_assert_float_eq(metrics_hist_stddev(h), sqrt(1.25), 1e-15);
    metrics_hist_reset(h);
    metrics_hist_record_n(h, 1000000007, 1000);
    cr_assert(metrics_hist_mean(h) == 1000000007.0);
    cr_assert(metrics_hist_stddev(h) == 0.0, "constant input has std %g", metrics_hist_stddev(h));
    /* Mean is exact even where buckets are wide: 3 values in one bucket. */
    metrics_hist_reset(h);
    metrics_hist_record(h, 1000000001);
    metrics_hist_record(h, 1000000002);
    metrics_hist_record(h, 1000000006);
    cr_assert(metrics_hist_mean(h) == 1000000003.0);
    metrics_hist_free(h);
}

Test(hist, sum_is_exact_beyond_64_bits)
{
    struct metrics_hist *h = new_hist(1, INT64_MAX, 2);
    metrics_hist_record_n(h, INT64_MAX, 4);
    struct metrics_hist_summary s;
    metrics_hist_summary(h, &s);
    /* 4 * (2^63 - 1) = 2^65 - 4 */
    cr_assert_eq(s.sum_hi, 1);
    cr_assert_eq(s.sum_lo, UINT64_MAX - 3);
    cr_assert(metrics_hist_mean(h) == (double)INT64_MAX);
    metrics_hist_free(h);
}

Test(hist, reset_empties_and_keeps_layout)
{
    struct metrics_hist *h = new_hist(1, HOUR_NS, 3);
    struct metrics_hist *fresh = new_hist(1, HOUR_NS, 3);
    for (int64_t v = -3; v < 100000; v += 7) {
        metrics_hist_record(h, v * 1000);
    }
    metrics_hist_record(h, HOUR_NS * 3); /* over the top: kept in the last bucket */
    metrics_hist_reset(h);
    assert_same_contents(h, fresh);
    cr_assert(metrics_hist_same_layout(h, fresh));
    /* Counts merged in from elsewhere are cleared too, wherever they lie. */
    struct metrics_hist *other = new_hist(1, HOUR_NS, 3);
    metrics_hist_record(other, 5);
    metrics_hist_record(other, HOUR_NS / 2);
    cr_assert_eq(metrics_hist_merge(h, other), 0);
    metrics_hist_reset(h);
    assert_same_contents(h, fresh);
    /* Raw counts need not lie where their summary's extremes say. */
    struct metrics_hist_layout layout;
    metrics_hist_layout(h, &layout);
    uint64_t *raw = calloc(layout.counts_len, sizeof(*raw));
    cr_assert_not_null(raw);
    raw[layout.counts_len - 1] = 1;
    struct metrics_hist_summary one = {
        .total_count = 1, .min_value = 5, .max_value = 5, .sum_lo = 5};
    cr_assert_eq(metrics_hist_add_raw(h, &layout, raw, layout.counts_len, &one), 0);
    metrics_hist_reset(h);
    assert_same_contents(h, fresh);
    free(raw);
    metrics_hist_free(other);
    metrics_hist_free(fresh);
    metrics_hist_free(h);
}

/* splitmix64, deterministic. */
static uint64_t next_random(uint64_t *state)
{
    uint64_t z = (*state += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

Test(hist_merge, separate_histograms_merge_to_one_built_from_all_values)
{
    enum { SHARDS = 4, VALUES = 200000 };
    struct metrics_hist *all = new_hist(1, HOUR_NS, 3);
    struct metrics_hist *shard[SHARDS];
    for (int i = 0; i < SHARDS; i++) {
        shard[i] = new_hist(1, HOUR_NS, 3);
    }
    uint64_t state = 42;
    for (int i = 0; i < VALUES; i++) {
        uint64_t r = next_random(&state);
        /* Spread over the whole range, with some out-of-range values on both sides. */
        int64_t v = (int64_t)(r >> 1 >> (r & 63)) - 1000;
        metrics_hist_record(all, v);
        metrics_hist_record(shard[r % SHARDS], v);
    }
    struct metrics_hist *merged = new_hist(1, HOUR_NS, 3);
    for (int i = 0; i < SHARDS; i++) {
        cr_assert_eq(metrics_hist_merge(merged, shard[i]), 0);
    }
    assert_same_contents(merged, all);
    cr_assert_gt(metrics_hist_overflow_count(merged), 0);
    cr_assert_gt(metrics_hist_underflow_count(merged), 0);
    cr_assert(metrics_hist_stddev(merged) == metrics_hist_stddev(all));
    for (int i = 0; i < SHARDS; i++) {
        metrics_hist_free(shard[i]);
    }
    metrics_hist_free(merged);
    metrics_hist_free(all);
}

Test(hist_merge, into_itself_doubles)
{
    struct metrics_hist *h = new_hist(1, HOUR_NS, 3);
    struct metrics_hist *twice = new_hist(1, HOUR_NS, 3);
    const int64_t values[] = {5, 77, 123456, 99999999, -1, HOUR_NS * 2};
    for (size_t i = 0; i < ARRAY_LEN(values); i++) {
        metrics_hist_record(h, values[i]);
        metrics_hist_record_n(twice, values[i], 2);
    }
    cr_assert_eq(metrics_hist_merge(h, h), 0);
    assert_same_contents(h, twice);
    metrics_hist_free(twice);
    metrics_hist_free(h);
}

Test(hist_merge, different_layout_is_refused_and_dst_untouched)
{
    struct metrics_hist *dst = new_hist(1, HOUR_NS, 3);
    struct metrics_hist *copy = new_hist(1, HOUR_NS, 3);
    metrics_hist_record(dst, 1234);
    metrics_hist_record(copy, 1234);
    struct metrics_hist *others[] = {new_hist(2, HOUR_NS, 3), new_hist(1, HOUR_NS - 1, 3),
                                     new_hist(1, HOUR_NS, 2)};
    for (size_t i = 0; i < ARRAY_LEN(others); i++) {
        metrics_hist_record(others[i], 99);
        cr_assert_not(metrics_hist_same_layout(dst, others[i]));
        cr_assert_eq(metrics_hist_merge(dst, others[i]), -EINVAL, "case %zu", i);
        metrics_hist_free(others[i]);
    }
    assert_same_contents(dst, copy);
    cr_assert(metrics_hist_same_layout(dst, copy));
    metrics_hist_free(copy);
    metrics_hist_free(dst);
}

Test(hist_merge, empty_sides_do_not_disturb_min_max)
{
    struct metrics_hist *a = new_hist(1, HOUR_NS, 3);
    struct metrics_hist *empty = new_hist(1, HOUR_NS, 3);
    metrics_hist_record(a, 500);
    cr_assert_eq(metrics_hist_merge(a, empty), 0);
    cr_assert(metrics_hist_min(a) == 500 && metrics_hist_max(a) == 500);
    cr_assert_eq(metrics_hist_merge(empty, a), 0);
    cr_assert(metrics_hist_min(empty) == 500 && metrics_hist_max(empty) == 500);
    metrics_hist_free(empty);
    metrics_hist_free(a);
}

Test(hist_raw, counts_and_summaries_reduce_like_a_merge)
{
    /* What the MPI layer does: sum counts element-wise, fold the summaries. */
    struct metrics_hist *rank[3];
    struct metrics_hist *expected = new_hist(10, HOUR_NS, 4);
    for (int r = 0; r < 3; r++) {
        rank[r] = new_hist(10, HOUR_NS, 4);
        for (int64_t v = r; v < 5000000; v += 997 * (r + 1)) {
            metrics_hist_record(rank[r], v * 7);
        }
        cr_assert_eq(metrics_hist_merge(expected, rank[r]), 0);
    }
    struct metrics_hist_layout layout;
    metrics_hist_layout(rank[0], &layout);
    uint64_t *reduced = calloc(layout.counts_len, sizeof(uint64_t));
    cr_assert_not_null(reduced);
    struct metrics_hist_summary summary = {0};
    for (int r = 0; r < 3; r++) {
        size_t len;
        const uint64_t *counts = metrics_hist_counts(rank[r], &len);
        for (size_t i = 0; i < len; i++) {
            reduced[i] += counts[i];
        }
        struct metrics_hist_summary s;
        metrics_hist_summary(rank[r], &s);
        metrics_hist_summary_merge(&summary, &s);
    }
    struct metrics_hist *root = new_hist(10, HOUR_NS, 4);
    cr_assert_eq(metrics_hist_add_raw(root, &layout, reduced, layout.counts_len, &summary), 0);
    assert_same_contents(root, expected);
    free(reduced);
    metrics_hist_free(root);
    metrics_hist_free(expected);
    for (int r = 0; r < 3; r++) {
        metrics_hist_free(rank[r]);
    }
}

Test(hist_raw, add_raw_rejects_inconsistent_input)
{
    struct metrics_hist *src = new_hist(1, 1000000, 3);
    metrics_hist_record(src, 10);
    metrics_hist_record(src, 20000);
    struct metrics_hist_layout layout;
    metrics_hist_layout(src, &layout);
    size_t len;
    const uint64_t *counts = metrics_hist_counts(src, &len);
    struct metrics_hist_summary good;
    metrics_hist_summary(src, &good);

    struct metrics_hist *dst = new_hist(1, 1000000, 3);
    struct metrics_hist *untouched = new_hist(1, 1000000, 3);
    struct metrics_hist_layout bad_layout = layout;
    bad_layout.significant_figures = 2;
    cr_assert_eq(metrics_hist_add_raw(dst, &bad_layout, counts, len, &good), -EINVAL);
    bad_layout = layout;
    bad_layout.counts_len--;
    cr_assert_eq(metrics_hist_add_raw(dst, &bad_layout, counts, len - 1, &good), -EINVAL);
    cr_assert_eq(metrics_hist_add_raw(dst, &layout, counts, len - 1, &good), -EINVAL);
    cr_assert_eq(metrics_hist_add_raw(dst, &layout, NULL, len, &good), -EINVAL);

    struct metrics_hist_summary bad = good;
    bad.total_count++;
    cr_assert_eq(metrics_hist_add_raw(dst, &layout, counts, len, &bad), -EINVAL);
    bad = good;
    bad.min_value = bad.max_value + 1;
    cr_assert_eq(metrics_hist_add_raw(dst, &layout, counts, len, &bad), -EINVAL);
    bad = good;
    bad.max_value = 1000001;
    cr_assert_eq(metrics_hist_add_raw(dst, &layout, counts, len, &bad), -EINVAL);
    bad = good;
    bad.overflow_count = 2;
    bad.underflow_count = 1;
    cr_assert_eq(metrics_hist_add_raw(dst, &layout, counts, len, &bad), -EINVAL);
    assert_same_contents(dst, untouched);

    cr_assert_eq(metrics_hist_add_raw(dst, &layout, counts, len, &good), 0);
    assert_same_contents(dst, src);
    metrics_hist_free(untouched);
    metrics_hist_free(dst);
    metrics_hist_free(src);
}
