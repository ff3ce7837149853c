/*
 * metrics.h - latency histograms and AIPerf's summary statistics.
 *
 * Two halves:
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
 * Nothing here is thread-safe: a histogram is used by one thread at a time.
 * No function keeps a pointer to its arguments after it returns unless stated.
 */
#ifndef RINGPERF_METRICS_H
#define RINGPERF_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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
 * `*out` untouched. This is the module's only allocation. */
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

/* metrics_stats_scale multiplies every value field of `s` (avg, min, max,
 * percentiles, std, sum; not count) by `factor`, e.g. 1e-6 for ns -> ms. */
void metrics_stats_scale(struct metrics_stats *s, double factor);

#endif
