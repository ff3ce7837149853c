/*
 * hist.c - HdrHistogram: log-linear buckets, O(1) recording, exact merging.
 */
#include "metrics/metrics.h"

#include <assert.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/*
 * Bucket layout. With d significant digits we need every bucket to be at most
 * v / 10^d wide. So each power-of-two range [2^k, 2^(k+1)) is split into
 * half_count = 2^half_mag equal sub-buckets, with half_count the smallest
 * power of two >= 10^d (sub_count = 2 * half_count >= 2 * 10^d). Bucket 0
 * covers [0, sub_count << unit_mag) with all sub_count sub-buckets; every
 * further bucket b doubles the range and the sub-bucket width and only needs
 * its upper half (the lower half is the previous bucket's range), hence the
 * counts array of (bucket_count + 1) * half_count entries.
 *
 * Finding a value's bucket is one count-leading-zeros: OR-ing the mask keeps
 * the top set bit at position >= unit_mag + half_mag, so the bucket is how far
 * the value's top bit sits above that floor. Its sub-bucket is the value
 * shifted down by the bucket's width, which then lies in [half_count,
 * sub_count) (or [0, sub_count) in bucket 0).
 */
struct metrics_hist {
    int64_t lowest_trackable;
    int64_t highest_trackable;
    int significant_figures;
    int unit_mag;
    int half_mag;
    int leading_zero_count_base;
    uint64_t half_count;
    uint64_t sub_mask;
    size_t counts_len;
    uint64_t total_count;
    uint64_t overflow_count;
    uint64_t underflow_count;
    int64_t min_value; /* INT64_MAX while empty */
    int64_t max_value; /* 0 while empty */
    unsigned __int128 sum;
    size_t mapped_bytes; /* the histogram is a mapping of this size; 0: from calloc */
    /* Counts were added from outside (a merge, raw counts), so nonzero counts
     * may lie outside the buckets of [min_value, max_value]. */
    bool counts_from_outside;
    uint64_t counts[];
};

/* Histograms of at least this many bytes are mapped rather than calloc'ed: a
 * mapping's pages are zero until written, and a run's few dozen histograms
 * (hundreds of KiB each, mostly empty buckets) were otherwise cleared and
 * faulted in whole at start-up, several milliseconds of a short run. */
#define HIST_MAPPED_MIN_BYTES ((size_t)64 << 10)

static size_t counts_index(const struct metrics_hist *h, uint64_t value)
{
    int bucket = h->leading_zero_count_base - __builtin_clzll(value | h->sub_mask);
    uint64_t sub = value >> (bucket + h->unit_mag);
    return ((size_t)(bucket + 1) << h->half_mag) + (size_t)(sub - h->half_count);
}

/* Lowest value of the bucket at `index`, and via `out_width` its width. */
static uint64_t value_from_index(const struct metrics_hist *h, size_t index, uint64_t *out_width)
{
    int bucket = (int)(index >> h->half_mag) - 1;
    uint64_t sub = (index & (h->half_count - 1)) + h->half_count;
    if (bucket < 0) {
        sub -= h->half_count;
        bucket = 0;
    }
    *out_width = UINT64_C(1) << (bucket + h->unit_mag);
    return sub << (bucket + h->unit_mag);
}

static int ceil_log2(uint64_t v)
{
    int m = 0;
    while ((UINT64_C(1) << m) < v) {
        m++;
    }
    return m;
}

static size_t bucket_count_for(uint64_t sub_count, int unit_mag, int64_t highest)
{
    /* Each bucket doubles the range; stop once highest fits, without letting
     * the bound overflow past 2^63. */
    uint64_t smallest_untrackable = sub_count << unit_mag;
    size_t buckets = 1;
    while (smallest_untrackable <= (uint64_t)highest) {
        if (smallest_untrackable > (uint64_t)INT64_MAX / 2) {
            buckets++;
            break;
        }
        smallest_untrackable <<= 1;
        buckets++;
    }
    return buckets;
}

int metrics_hist_new(int64_t lowest_trackable, int64_t highest_trackable, int significant_figures,
                     struct metrics_hist **out)
{
    if (out == NULL || lowest_trackable < 1 || significant_figures < METRICS_HIST_SIGFIGS_MIN ||
        significant_figures > METRICS_HIST_SIGFIGS_MAX ||
        highest_trackable / 2 < lowest_trackable) {
        return -EINVAL;
    }
    uint64_t largest_single_unit = 2;
    for (int i = 0; i < significant_figures; i++) {
        largest_single_unit *= 10;
    }
    int sub_count_mag = ceil_log2(largest_single_unit);
    int half_mag = (sub_count_mag > 1 ? sub_count_mag : 1) - 1;
    int unit_mag = 63 - __builtin_clzll((uint64_t)lowest_trackable);
    if (unit_mag + half_mag > 61) {
        return -EINVAL;
    }
    uint64_t sub_count = UINT64_C(1) << (half_mag + 1);
    size_t buckets = bucket_count_for(sub_count, unit_mag, highest_trackable);
    size_t counts_len = (buckets + 1) * (sub_count / 2);

    size_t bytes = sizeof(struct metrics_hist) + counts_len * sizeof(uint64_t);
    struct metrics_hist *h = NULL;
    if (bytes >= HIST_MAPPED_MIN_BYTES) {
        void *map = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (map != MAP_FAILED) {
            h = map;
            h->mapped_bytes = bytes;
        }
    }
    if (h == NULL) {
        h = calloc(1, bytes);
    }
    if (h == NULL) {
        return -ENOMEM;
    }
    h->lowest_trackable = lowest_trackable;
    h->highest_trackable = highest_trackable;
    h->significant_figures = significant_figures;
    h->unit_mag = unit_mag;
    h->half_mag = half_mag;
    h->leading_zero_count_base = 64 - unit_mag - (half_mag + 1);
    h->half_count = sub_count / 2;
    h->sub_mask = (sub_count - 1) << unit_mag;
    h->counts_len = counts_len;
    h->min_value = INT64_MAX;
    *out = h;
    return 0;
}

void metrics_hist_free(struct metrics_hist *h)
{
    if (h != NULL && h->mapped_bytes > 0) {
        munmap(h, h->mapped_bytes);
    } else {
        free(h);
    }
}

void metrics_hist_record_n(struct metrics_hist *h, int64_t value, uint64_t count)
{
    if (count == 0) {
        return;
    }
    if (value < 0) {
        h->underflow_count += count;
        value = 0;
    } else if (value > h->highest_trackable) {
        h->overflow_count += count;
        value = h->highest_trackable;
    }
    size_t index = counts_index(h, (uint64_t)value);
    assert(index < h->counts_len);
    h->counts[index] += count;
    h->total_count += count;
    h->sum += (unsigned __int128)(uint64_t)value * count;
    if (value < h->min_value) {
        h->min_value = value;
    }
    if (value > h->max_value) {
        h->max_value = value;
    }
}

void metrics_hist_record(struct metrics_hist *h, int64_t value)
{
    metrics_hist_record_n(h, value, 1);
}

void metrics_hist_reset(struct metrics_hist *h)
{
    /* Recorded values lie between the exact extremes: clear only their
     * buckets (an interval's few KiB, not the whole array every interval). */
    if (h->counts_from_outside) {
        memset(h->counts, 0, h->counts_len * sizeof(h->counts[0]));
    } else if (h->total_count > 0) {
        size_t lo = counts_index(h, (uint64_t)h->min_value);
        size_t hi = counts_index(h, (uint64_t)h->max_value);
        memset(h->counts + lo, 0, (hi - lo + 1) * sizeof(h->counts[0]));
    }
    h->counts_from_outside = false;
    h->total_count = 0;
    h->overflow_count = 0;
    h->underflow_count = 0;
    h->min_value = INT64_MAX;
    h->max_value = 0;
    h->sum = 0;
}

bool metrics_hist_same_layout(const struct metrics_hist *a, const struct metrics_hist *b)
{
    return a->lowest_trackable == b->lowest_trackable &&
           a->highest_trackable == b->highest_trackable &&
           a->significant_figures == b->significant_figures;
}

void metrics_hist_layout(const struct metrics_hist *h, struct metrics_hist_layout *out)
{
    out->lowest_trackable = h->lowest_trackable;
    out->highest_trackable = h->highest_trackable;
    out->significant_figures = h->significant_figures;
    out->counts_len = h->counts_len;
}

const uint64_t *metrics_hist_counts(const struct metrics_hist *h, size_t *out_len)
{
    *out_len = h->counts_len;
    return h->counts;
}

void metrics_hist_summary(const struct metrics_hist *h, struct metrics_hist_summary *out)
{
    bool empty = h->total_count == 0;
    out->total_count = h->total_count;
    out->overflow_count = h->overflow_count;
    out->underflow_count = h->underflow_count;
    out->min_value = empty ? 0 : h->min_value;
    out->max_value = empty ? 0 : h->max_value;
    out->sum_hi = (uint64_t)(h->sum >> 64);
    out->sum_lo = (uint64_t)h->sum;
}

void metrics_hist_summary_merge(struct metrics_hist_summary *dst,
                                const struct metrics_hist_summary *src)
{
    if (src->total_count == 0) {
        return;
    }
    if (dst->total_count == 0 || src->min_value < dst->min_value) {
        dst->min_value = src->min_value;
    }
    if (dst->total_count == 0 || src->max_value > dst->max_value) {
        dst->max_value = src->max_value;
    }
    unsigned __int128 sum = ((unsigned __int128)dst->sum_hi << 64) | dst->sum_lo;
    sum += ((unsigned __int128)src->sum_hi << 64) | src->sum_lo;
    dst->sum_hi = (uint64_t)(sum >> 64);
    dst->sum_lo = (uint64_t)sum;
    dst->total_count += src->total_count;
    dst->overflow_count += src->overflow_count;
    dst->underflow_count += src->underflow_count;
}

/* Folds a summary already known to be consistent with h's layout into h. */
static void apply_summary(struct metrics_hist *h, const struct metrics_hist_summary *s)
{
    if (s->total_count == 0) {
        return;
    }
    h->total_count += s->total_count;
    h->overflow_count += s->overflow_count;
    h->underflow_count += s->underflow_count;
    h->sum += ((unsigned __int128)s->sum_hi << 64) | s->sum_lo;
    if (s->min_value < h->min_value) {
        h->min_value = s->min_value;
    }
    if (s->max_value > h->max_value) {
        h->max_value = s->max_value;
    }
}

int metrics_hist_merge(struct metrics_hist *dst, const struct metrics_hist *src)
{
    if (!metrics_hist_same_layout(dst, src)) {
        return -EINVAL;
    }
    /* Take the summary first: src may be dst. */
    struct metrics_hist_summary s;
    metrics_hist_summary(src, &s);
    if (s.total_count == 0) {
        return 0;
    }
    /* A histogram filled by recording has counts only between its exact extremes: add those
     * buckets alone (a shard's interval touches a few KiB of a large array), and dst's extremes
     * then still bound its counts. */
    size_t lo = 0;
    size_t hi = dst->counts_len - 1;
    if (src->counts_from_outside) {
        dst->counts_from_outside = true;
    } else {
        lo = counts_index(src, (uint64_t)s.min_value);
        hi = counts_index(src, (uint64_t)s.max_value);
    }
    for (size_t i = lo; i <= hi; i++) {
        dst->counts[i] += src->counts[i];
    }
    apply_summary(dst, &s);
    return 0;
}

/* A summary from elsewhere must describe values this histogram could hold. */
static bool summary_plausible(const struct metrics_hist *h, const struct metrics_hist_summary *s)
{
    if (s->total_count == 0) {
        return s->overflow_count == 0 && s->underflow_count == 0 && s->sum_hi == 0 &&
               s->sum_lo == 0;
    }
    return s->min_value >= 0 && s->min_value <= s->max_value &&
           s->max_value <= h->highest_trackable && s->overflow_count <= s->total_count &&
           s->underflow_count <= s->total_count - s->overflow_count;
}

int metrics_hist_add_raw(struct metrics_hist *h, const struct metrics_hist_layout *layout,
                         const uint64_t *counts, size_t counts_len,
                         const struct metrics_hist_summary *summary)
{
    if (layout->lowest_trackable != h->lowest_trackable ||
        layout->highest_trackable != h->highest_trackable ||
        layout->significant_figures != h->significant_figures ||
        layout->counts_len != h->counts_len || counts_len != h->counts_len ||
        (counts == NULL && counts_len > 0) || !summary_plausible(h, summary)) {
        return -EINVAL;
    }
    uint64_t total = 0;
    for (size_t i = 0; i < counts_len; i++) {
        if (__builtin_add_overflow(total, counts[i], &total)) {
            return -EINVAL;
        }
    }
    if (total != summary->total_count) {
        return -EINVAL;
    }
    for (size_t i = 0; i < counts_len; i++) {
        h->counts[i] += counts[i];
    }
    h->counts_from_outside = true;
    apply_summary(h, summary);
    return 0;
}

uint64_t metrics_hist_count(const struct metrics_hist *h)
{
    return h->total_count;
}

uint64_t metrics_hist_overflow_count(const struct metrics_hist *h)
{
    return h->overflow_count;
}

uint64_t metrics_hist_underflow_count(const struct metrics_hist *h)
{
    return h->underflow_count;
}

int64_t metrics_hist_min(const struct metrics_hist *h)
{
    return h->total_count == 0 ? 0 : h->min_value;
}

int64_t metrics_hist_max(const struct metrics_hist *h)
{
    return h->total_count == 0 ? 0 : h->max_value;
}

int64_t metrics_hist_exact_limit(const struct metrics_hist *h)
{
    if (h->unit_mag != 0) {
        return 0;
    }
    /* Bucket 0 is [0, 2 * half_count) in steps of one; bucket 1 steps by two. */
    int64_t limit = (int64_t)(2 * h->half_count);
    return limit <= h->highest_trackable ? limit : h->highest_trackable + 1;
}

double metrics_hist_sum(const struct metrics_hist *h)
{
    return (double)(long double)h->sum;
}

static long double exact_mean(const struct metrics_hist *h)
{
    return (long double)h->sum / (long double)h->total_count;
}

double metrics_hist_mean(const struct metrics_hist *h)
{
    if (h->total_count == 0) {
        return 0.0;
    }
    return (double)exact_mean(h);
}

double metrics_hist_stddev(const struct metrics_hist *h)
{
    if (h->total_count == 0) {
        return 0.0;
    }
    long double mean = exact_mean(h);
    long double acc = 0.0L;
    for (size_t i = 0; i < h->counts_len; i++) {
        if (h->counts[i] == 0) {
            continue;
        }
        uint64_t width;
        uint64_t mid = value_from_index(h, i, &width) + (width >> 1);
        if (mid < (uint64_t)h->min_value) {
            mid = (uint64_t)h->min_value;
        } else if (mid > (uint64_t)h->max_value) {
            mid = (uint64_t)h->max_value;
        }
        long double dev = (long double)mid - mean;
        acc += dev * dev * (long double)h->counts[i];
    }
    return (double)sqrtl(acc / (long double)h->total_count);
}

int64_t metrics_hist_value_at_percentile(const struct metrics_hist *h, double percentile)
{
    if (h->total_count == 0) {
        return 0;
    }
    double p = percentile > 0.0 ? percentile : 0.0; /* also maps NaN to 0 */
    p = p < 100.0 ? p : 100.0;
    double wanted = p / 100.0 * (double)h->total_count + 0.5;
    uint64_t rank = wanted >= (double)h->total_count ? h->total_count : (uint64_t)wanted;
    rank = rank > 0 ? rank : 1;

    uint64_t seen = 0;
    size_t i = 0;
    for (; i < h->counts_len - 1; i++) {
        seen += h->counts[i];
        if (seen >= rank) {
            break;
        }
    }
    uint64_t width;
    uint64_t lowest = value_from_index(h, i, &width);
    if (p == 0.0) {
        return (int64_t)lowest;
    }
    return (int64_t)(lowest + (width - 1));
}

void metrics_hist_iter_init(struct metrics_hist_iter *it, const struct metrics_hist *h)
{
    it->hist = h;
    it->next_index = 0;
    it->seen = 0;
    it->lowest_value = 0;
    it->highest_value = 0;
    it->count = 0;
}

bool metrics_hist_iter_next(struct metrics_hist_iter *it)
{
    const struct metrics_hist *h = it->hist;
    /* Past the last value the counts array runs on empty, for tens of
     * thousands of buckets in a latency's histogram: stop there. */
    if (it->seen >= h->total_count) {
        return false;
    }
    while (it->next_index < h->counts_len && h->counts[it->next_index] == 0) {
        it->next_index++;
    }
    if (it->next_index >= h->counts_len) {
        return false;
    }
    uint64_t width;
    uint64_t lowest = value_from_index(h, it->next_index, &width);
    it->lowest_value = (int64_t)lowest;
    it->highest_value = (int64_t)(lowest + (width - 1));
    it->count = h->counts[it->next_index];
    it->seen += it->count;
    it->next_index++;
    return true;
}
