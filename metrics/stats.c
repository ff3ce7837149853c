/*
 * stats.c - AIPerf's per-metric statistics (spec 2.4), exactly from samples or
 * approximately from a histogram.
 */
#include "metrics/metrics.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The percentiles AIPerf reports, in the order of struct metrics_stats. */
static const double stats_percentiles[] = {1, 5, 10, 25, 50, 75, 90, 95, 99};
#define STATS_PERCENTILE_COUNT (sizeof(stats_percentiles) / sizeof(stats_percentiles[0]))

static double *stats_percentile_slot(struct metrics_stats *s, size_t i)
{
    double *slots[STATS_PERCENTILE_COUNT] = {&s->p1,  &s->p5,  &s->p10, &s->p25, &s->p50,
                                             &s->p75, &s->p90, &s->p95, &s->p99};
    return slots[i];
}

/* NumPy's _lerp: a + (b - a) * t, but computed from b when t >= 0.5 so that
 * the result is exact at both ends. Reproduced so percentiles match to the
 * last bit. */
static double numpy_lerp(double a, double b, double t)
{
    double diff_b_a = b - a;
    if (t >= 0.5) {
        return b - diff_b_a * (1.0 - t);
    }
    return a + diff_b_a * t;
}

/* NumPy's "linear" virtual index, (n - 1) * q / 100, split into the floor rank
 * and the fraction. Ranks at or past the end collapse onto the last value. */
static void numpy_rank(uint64_t n, double percentile, uint64_t *out_lo, uint64_t *out_hi,
                       double *out_gamma)
{
    double virtual_index = (double)(n - 1) * (percentile / 100.0);
    if (virtual_index >= (double)(n - 1)) {
        *out_lo = n - 1;
        *out_hi = n - 1;
        *out_gamma = 0.0;
        return;
    }
    double lo = floor(virtual_index);
    *out_lo = (uint64_t)lo;
    *out_hi = *out_lo + 1;
    *out_gamma = virtual_index - lo;
}

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a;
    double y = *(const double *)b;
    return (x > y) - (x < y);
}

/* sort_key maps a finite double onto a uint64_t that orders as the double
 * does: flip every bit of a negative, only the sign bit of a positive. -0.0
 * takes +0.0's key, as the comparison above holds them equal. */
static uint64_t sort_key(double v)
{
    uint64_t bits;
    memcpy(&bits, &v, sizeof(bits));
    if (bits == UINT64_C(1) << 63) {
        bits = 0;
    }
    return (bits >> 63) != 0 ? ~bits : bits | UINT64_C(1) << 63;
}

#define SORT_DIGIT_BITS 11
#define SORT_DIGITS ((64 + SORT_DIGIT_BITS - 1) / SORT_DIGIT_BITS)
#define SORT_RADIX (1u << SORT_DIGIT_BITS)
/* Below this many values a comparison sort is as fast and needs no buffer. */
#define SORT_RADIX_MIN 1024

/* sort_values sorts values ascending: a stable least-significant-digit radix
 * sort on sort_key, which at the end of a long run is several times faster
 * than qsort's comparisons through a function pointer. Falls back to qsort
 * for short arrays and when the scratch buffer cannot be allocated. */
static void sort_values(double *values, size_t n)
{
    double *scratch = n >= SORT_RADIX_MIN ? malloc(n * sizeof(*scratch)) : NULL;
    size_t(*counts)[SORT_RADIX] = scratch != NULL ? calloc(SORT_DIGITS, sizeof(*counts)) : NULL;
    if (counts == NULL) {
        free(scratch);
        qsort(values, n, sizeof(values[0]), compare_double);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        uint64_t key = sort_key(values[i]);
        for (int d = 0; d < SORT_DIGITS; d++) {
            counts[d][(key >> (d * SORT_DIGIT_BITS)) & (SORT_RADIX - 1)]++;
        }
    }
    double *from = values;
    double *to = scratch;
    for (int d = 0; d < SORT_DIGITS; d++) {
        size_t *count = counts[d];
        /* A digit every value shares moves nothing: skip its pass. */
        if (count[(sort_key(values[0]) >> (d * SORT_DIGIT_BITS)) & (SORT_RADIX - 1)] == n) {
            continue;
        }
        size_t offset = 0;
        for (uint32_t b = 0; b < SORT_RADIX; b++) {
            size_t c = count[b];
            count[b] = offset;
            offset += c;
        }
        for (size_t i = 0; i < n; i++) {
            uint64_t key = sort_key(from[i]);
            to[count[(key >> (d * SORT_DIGIT_BITS)) & (SORT_RADIX - 1)]++] = from[i];
        }
        double *swap = from;
        from = to;
        to = swap;
    }
    if (from != values) {
        memcpy(values, from, n * sizeof(*values));
    }
    free(counts);
    free(scratch);
}

int metrics_stats_exact(double *values, size_t n, struct metrics_stats *out)
{
    if (n == 0) {
        return -ENODATA;
    }
    if (values == NULL) {
        return -EINVAL;
    }
    long double sum = 0.0L;
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(values[i])) {
            return -EINVAL;
        }
        sum += values[i];
    }
    sort_values(values, n);

    long double mean = sum / (long double)n;
    long double squares = 0.0L;
    for (size_t i = 0; i < n; i++) {
        long double dev = (long double)values[i] - mean;
        squares += dev * dev;
    }
    for (size_t i = 0; i < STATS_PERCENTILE_COUNT; i++) {
        uint64_t lo;
        uint64_t hi;
        double gamma;
        numpy_rank(n, stats_percentiles[i], &lo, &hi, &gamma);
        *stats_percentile_slot(out, i) = numpy_lerp(values[lo], values[hi], gamma);
    }
    out->avg = (double)mean;
    out->min = values[0];
    out->max = values[n - 1];
    out->std = (double)sqrtl(squares / (long double)n);
    out->sum = (double)sum;
    out->count = n;
    return 0;
}

/*
 * Walks a histogram's ranks in non-decreasing order. The value of a rank is
 * estimated by spreading the bucket's count evenly over the bucket's range,
 * narrowed to the exact [min, max]; the first and last ranks are the exact min
 * and max.
 */
struct rank_cursor {
    struct metrics_hist_iter it;
    uint64_t before; /* ranks in buckets before the current one */
    uint64_t total;
    int64_t min_value;
    int64_t max_value;
};

static double rank_cursor_value(struct rank_cursor *c, uint64_t rank)
{
    if (rank == 0) {
        return (double)c->min_value;
    }
    if (rank >= c->total - 1) {
        return (double)c->max_value;
    }
    /* rank < total, and the bucket counts add up to total, so this ends. */
    while (rank - c->before >= c->it.count) {
        c->before += c->it.count;
        if (!metrics_hist_iter_next(&c->it)) {
            return (double)c->max_value;
        }
    }
    int64_t lo = c->it.lowest_value > c->min_value ? c->it.lowest_value : c->min_value;
    int64_t hi = c->it.highest_value < c->max_value ? c->it.highest_value : c->max_value;
    long double position = ((long double)(rank - c->before) + 0.5L) / (long double)c->it.count;
    return (double)((long double)lo + (long double)(hi - lo) * position);
}

int metrics_stats_from_hist(const struct metrics_hist *h, struct metrics_stats *out)
{
    struct metrics_hist_summary s;
    metrics_hist_summary(h, &s);
    if (s.total_count == 0) {
        return -ENODATA;
    }
    struct rank_cursor c = {
        .before = 0, .total = s.total_count, .min_value = s.min_value, .max_value = s.max_value};
    metrics_hist_iter_init(&c.it, h);
    (void)metrics_hist_iter_next(&c.it); /* non-empty, so there is a first bucket */

    for (size_t i = 0; i < STATS_PERCENTILE_COUNT; i++) {
        uint64_t lo;
        uint64_t hi;
        double gamma;
        numpy_rank(s.total_count, stats_percentiles[i], &lo, &hi, &gamma);
        double v_lo = rank_cursor_value(&c, lo);
        double v_hi = rank_cursor_value(&c, hi);
        *stats_percentile_slot(out, i) = numpy_lerp(v_lo, v_hi, gamma);
    }
    long double sum = (long double)s.sum_hi * 18446744073709551616.0L + (long double)s.sum_lo;
    out->avg = (double)(sum / (long double)s.total_count);
    out->min = (double)s.min_value;
    out->max = (double)s.max_value;
    out->std = metrics_hist_stddev(h);
    out->sum = (double)sum;
    out->count = s.total_count;
    return 0;
}

int metrics_stats_exact_hist(const struct metrics_hist *h, struct metrics_stats *out)
{
    struct metrics_hist_summary s;
    metrics_hist_summary(h, &s);
    if (s.total_count == 0) {
        return -ENODATA;
    }
    if (s.overflow_count > 0 || s.underflow_count > 0 ||
        s.max_value >= metrics_hist_exact_limit(h)) {
        return -EINVAL;
    }
    /* The two ranks each percentile interpolates between: each of the two
     * sequences ascends with the percentiles (one may not ascend across
     * the other), so each has its own cursor in the walk below. */
    uint64_t rank[2][STATS_PERCENTILE_COUNT];
    double value[2][STATS_PERCENTILE_COUNT];
    double gamma[STATS_PERCENTILE_COUNT];
    for (size_t i = 0; i < STATS_PERCENTILE_COUNT; i++) {
        numpy_rank(s.total_count, stats_percentiles[i], &rank[0][i], &rank[1][i], &gamma[i]);
    }
    long double sum = (long double)s.sum_hi * 18446744073709551616.0L + (long double)s.sum_lo;
    long double mean = sum / (long double)s.total_count;
    /* One walk over the buckets: the sorted values, run-length encoded. std
     * as metrics_stats_exact accumulates it, one addition per value, so
     * that the rounding is the same too. */
    long double squares = 0.0L;
    uint64_t before = 0;
    size_t next[2] = {0, 0};
    struct metrics_hist_iter it;
    metrics_hist_iter_init(&it, h);
    while (metrics_hist_iter_next(&it)) {
        long double dev = (long double)it.lowest_value - mean;
        long double square = dev * dev;
        for (uint64_t i = 0; i < it.count; i++) {
            squares += square;
        }
        before += it.count;
        for (int k = 0; k < 2; k++) {
            while (next[k] < STATS_PERCENTILE_COUNT && rank[k][next[k]] < before) {
                value[k][next[k]++] = (double)it.lowest_value;
            }
        }
    }
    for (size_t i = 0; i < STATS_PERCENTILE_COUNT; i++) {
        *stats_percentile_slot(out, i) = numpy_lerp(value[0][i], value[1][i], gamma[i]);
    }
    out->avg = (double)mean;
    out->min = (double)s.min_value;
    out->max = (double)s.max_value;
    out->std = (double)sqrtl(squares / (long double)s.total_count);
    out->sum = (double)sum;
    out->count = s.total_count;
    return 0;
}

void metrics_stats_scale(struct metrics_stats *s, double factor)
{
    s->avg *= factor;
    s->min *= factor;
    s->max *= factor;
    for (size_t i = 0; i < STATS_PERCENTILE_COUNT; i++) {
        *stats_percentile_slot(s, i) *= factor;
    }
    s->std *= factor;
    s->sum *= factor;
}

void metrics_python_float(double value, char *out, size_t cap)
{
    if (cap == 0) {
        return;
    }
    if (!isfinite(value)) {
        snprintf(out, cap, "%s", isnan(value) ? "nan" : value > 0 ? "inf" : "-inf");
        return;
    }
    int precision = 1;
    char sci[40];
    for (; precision < 17; precision++) {
        snprintf(sci, sizeof(sci), "%.*e", precision - 1, value);
        if (strtod(sci, NULL) == value) {
            break;
        }
    }
    snprintf(sci, sizeof(sci), "%.*e", precision - 1, value);
    const char *e = strchr(sci, 'e');
    long exponent = e != NULL ? strtol(e + 1, NULL, 10) : 0;
    if (exponent < -4 || exponent >= 16) {
        snprintf(out, cap, "%s", sci); /* Python: 1e-05, 1.5e+16 */
        return;
    }
    int decimals = precision - 1 - (int)exponent;
    snprintf(out, cap, "%.*f", decimals > 1 ? decimals : 1, value);
}
