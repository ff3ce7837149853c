/*
 * fuzz_metrics_hist.c - random layouts and value streams against a reference.
 *
 * Input: 1 byte digits, 8+1 bytes lowest (value, shift), 8+1 bytes highest,
 * then ops of 10 bytes: opcode, 8-byte value, count. Every recorded value is
 * also kept (clamped) in a plain array; the histogram's count, extremes, sum,
 * bucket walk, HdrHistogram percentiles, AIPerf statistics, merges and raw
 * round trips are then checked against it.
 */
#include "metrics/metrics.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define FUZZ_VALUES_MAX 2048
#define FUZZ_COUNTS_LEN_MAX (1u << 18)

struct reference {
    int64_t lowest, highest;
    int digits;
    size_t n;
    uint64_t overflow, underflow;
    double values[FUZZ_VALUES_MAX];
};

static void check(int ok)
{
    if (!ok) {
        abort();
    }
}

static int64_t read_i64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++) {
        v = (v << 8) | p[i];
    }
    return (int64_t)v;
}

/* Largest bucket width the layout allows around v: the unit, or v / 10^digits. */
static double width_bound(const struct reference *r, double v)
{
    double unit = (double)r->lowest;
    double rel = v / pow(10.0, r->digits);
    return (unit > rel ? unit : rel) * (1.0 + 1e-9) + 1.0;
}

static void record(struct metrics_hist *h, struct reference *r, int64_t v, uint64_t count)
{
    metrics_hist_record_n(h, v, count);
    int64_t clamped = v < 0 ? 0 : (v > r->highest ? r->highest : v);
    r->underflow += v < 0 ? count : 0;
    r->overflow += v > r->highest ? count : 0;
    for (uint64_t i = 0; i < count && r->n < FUZZ_VALUES_MAX; i++) {
        r->values[r->n++] = (double)clamped;
    }
}

static void check_walk(const struct metrics_hist *h)
{
    struct metrics_hist_iter it;
    metrics_hist_iter_init(&it, h);
    uint64_t seen = 0;
    int64_t previous = -1;
    while (metrics_hist_iter_next(&it)) {
        check(it.lowest_value > previous && it.lowest_value <= it.highest_value && it.count > 0);
        previous = it.highest_value;
        seen += it.count;
    }
    check(seen == metrics_hist_count(h));
}

static void check_against(const struct metrics_hist *h, struct reference *r)
{
    check(metrics_hist_count(h) == r->n);
    check(metrics_hist_overflow_count(h) == r->overflow);
    check(metrics_hist_underflow_count(h) == r->underflow);
    check_walk(h);
    struct metrics_stats approx;
    if (r->n == 0) {
        check(metrics_stats_from_hist(h, &approx) == -ENODATA);
        return;
    }
    struct metrics_stats exact;
    check(metrics_stats_exact(r->values, r->n, &exact) == 0); /* sorts */
    check(metrics_stats_from_hist(h, &approx) == 0);
    check((double)metrics_hist_min(h) == exact.min && (double)metrics_hist_max(h) == exact.max);
    check(approx.min == exact.min && approx.max == exact.max && approx.count == exact.count);
    check(fabs(approx.sum - exact.sum) <= fabs(exact.sum) * 1e-12);
    const double e[9] = {exact.p1,  exact.p5,  exact.p10, exact.p25, exact.p50,
                         exact.p75, exact.p90, exact.p95, exact.p99};
    const double a[9] = {approx.p1,  approx.p5,  approx.p10, approx.p25, approx.p50,
                         approx.p75, approx.p90, approx.p95, approx.p99};
    /* Values all in one-value buckets: the histogram is the sorted values,
     * and metrics_stats_exact_hist must give metrics_stats_exact's bits. */
    struct metrics_stats held;
    bool all_held =
        r->overflow == 0 && r->underflow == 0 && exact.max < (double)metrics_hist_exact_limit(h);
    check((metrics_stats_exact_hist(h, &held) == 0) == all_held);
    const double hp[9] = {held.p1,  held.p5,  held.p10, held.p25, held.p50,
                          held.p75, held.p90, held.p95, held.p99};
    for (int i = 0; all_held && i < 9; i++) {
        check(hp[i] == e[i]);
    }
    check(!all_held ||
          (held.avg == exact.avg && held.std == exact.std && held.min == exact.min &&
           held.max == exact.max && held.sum == exact.sum && held.count == exact.count));
    for (int i = 0; i < 9; i++) {
        check(a[i] >= exact.min && a[i] <= exact.max);
        check(i == 0 || a[i] >= a[i - 1]);
        check(fabs(a[i] - e[i]) <= width_bound(r, exact.max));
    }
    /* HdrHistogram percentile: within one bucket above the value of its rank. */
    static const double pct[] = {0.0, 0.1, 33.3, 50.0, 99.9, 100.0};
    for (size_t i = 0; i < sizeof(pct) / sizeof(pct[0]); i++) {
        double wanted = pct[i] / 100.0 * (double)r->n + 0.5;
        size_t rank = wanted >= (double)r->n ? r->n : (size_t)wanted;
        double v = r->values[(rank > 0 ? rank : 1) - 1];
        double got = (double)metrics_hist_value_at_percentile(h, pct[i]);
        check(fabs(got - v) <= width_bound(r, v));
    }
}

/* A merge with itself and a raw round trip must both give the doubled
 * histogram, bucket for bucket. */
static void check_merges(struct metrics_hist *h)
{
    struct metrics_hist_layout layout;
    metrics_hist_layout(h, &layout);
    struct metrics_hist *copy = NULL;
    check(metrics_hist_new(layout.lowest_trackable, layout.highest_trackable,
                           layout.significant_figures, &copy) == 0);
    check(metrics_hist_same_layout(h, copy));
    size_t len;
    const uint64_t *counts = metrics_hist_counts(h, &len);
    struct metrics_hist_summary s;
    metrics_hist_summary(h, &s);
    check(metrics_hist_add_raw(copy, &layout, counts, len, &s) == 0);
    check(metrics_hist_merge(copy, h) == 0);
    check(metrics_hist_merge(h, h) == 0);
    size_t copy_len;
    const uint64_t *copy_counts = metrics_hist_counts(copy, &copy_len);
    check(copy_len == len && memcmp(copy_counts, counts, len * sizeof(counts[0])) == 0);
    struct metrics_hist_summary a;
    struct metrics_hist_summary b;
    metrics_hist_summary(h, &a);
    metrics_hist_summary(copy, &b);
    check(memcmp(&a, &b, sizeof(a)) == 0);
    metrics_hist_reset(copy);
    check(metrics_hist_count(copy) == 0 && metrics_hist_max(copy) == 0);
    metrics_hist_free(copy);
}

/* The one valid-looking layout metrics_hist_new refuses: a unit so large that
 * unit * sub-bucket count would pass 2^62 (half_mag = log2 of the half count). */
static int unit_too_large(int64_t lowest, int digits)
{
    static const int half_mag[6] = {0, 4, 7, 10, 14, 17};
    int unit_mag = 63 - __builtin_clzll((uint64_t)lowest);
    return unit_mag + half_mag[digits] > 61;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 19) {
        return 0;
    }
    struct reference r = {0};
    r.digits = data[0] % 7; /* 0 and 6 are invalid on purpose */
    r.lowest = read_i64(data + 1) >> (data[9] & 63);
    r.highest = read_i64(data + 10) >> (data[18] & 63);
    struct metrics_hist *h = NULL;
    int rc = metrics_hist_new(r.lowest, r.highest, r.digits, &h);
    int valid = r.lowest >= 1 && r.highest / 2 >= r.lowest && r.digits >= 1 && r.digits <= 5;
    if (rc != 0) {
        check(h == NULL && (rc == -EINVAL || rc == -ENOMEM));
        check(!valid || rc == -ENOMEM || unit_too_large(r.lowest, r.digits));
        return 0;
    }
    check(valid && !unit_too_large(r.lowest, r.digits));
    struct metrics_hist_layout layout;
    metrics_hist_layout(h, &layout);
    if (layout.counts_len > FUZZ_COUNTS_LEN_MAX) {
        metrics_hist_free(h); /* valid but too slow to walk on every input */
        return 0;
    }
    for (size_t off = 19; off + 10 <= size && r.n + 4 <= FUZZ_VALUES_MAX; off += 10) {
        int64_t v = read_i64(data + off + 1);
        uint8_t op = data[off];
        if (op & 1) {
            v >>= (op >> 1) & 63; /* bias towards smaller magnitudes */
        }
        record(h, &r, v, data[off + 9] % 4);
    }
    check_against(h, &r);
    check_merges(h);
    metrics_hist_free(h);
    return 0;
}
