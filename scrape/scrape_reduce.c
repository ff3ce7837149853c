/*
 * scrape_reduce.c - a window's series statistics, as AIPerf's server_metrics/export_stats.py
 * computes them: counters and histograms from the last sample before the window (the reference)
 * to the last one inside it, resets clamped at zero; gauges over the samples inside it, with
 * numpy's linear percentiles and a sample (ddof=1) standard deviation.
 */
#include "scrape/scrape_internal.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

const double scrape_percentiles[SCRAPE_PERCENTILE_COUNT] = {1, 5, 10, 25, 50, 75, 90, 95, 99};

/* A series' samples from its reference on: t[0] may lie before the window. */
struct acc {
    int64_t *t;
    double *v;
    size_t n, cap;
    bool has_ref; /* t[0] is before the window */
};

static int acc_push(struct acc *a, int64_t t, double v)
{
    if (a->n == a->cap) {
        size_t cap = a->cap ? a->cap * 2 : 16;
        int64_t *nt = realloc(a->t, cap * sizeof(*nt));
        if (nt == NULL) {
            return -ENOMEM;
        }
        a->t = nt;
        double *nv = realloc(a->v, cap * sizeof(*nv));
        if (nv == NULL) {
            return -ENOMEM;
        }
        a->v = nv;
        a->cap = cap;
    }
    a->t[a->n] = t;
    a->v[a->n] = v;
    a->n++;
    return 0;
}

static void accs_free(struct acc *accs, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        free(accs[i].t);
        free(accs[i].v);
    }
    free(accs);
}

/* feed adds record r's samples to their series' accs; a record before `start` replaces each
 * series' reference, as only the last sample before a window matters. */
static int feed(const struct scrape__store *st, size_t r, int64_t start, struct acc *accs)
{
    int64_t t = st->records[r].timestamp_ns;
    size_t end = r + 1 < st->record_count ? st->record_begin[r + 1] : st->log_len;
    for (size_t i = st->record_begin[r]; i < end; i++) {
        struct acc *a = &accs[st->log_series[i]];
        if (t < start) {
            a->n = 0;
            a->has_ref = true;
        }
        if (acc_push(a, t, st->log_value[i]) != 0) {
            return -ENOMEM;
        }
    }
    return 0;
}

/* gather fills one acc per series with its samples up to the window's end. */
static int gather(const struct scrape__store *st, struct scrape_window w, struct acc *accs)
{
    for (size_t r = 0; r < st->record_count && st->records[r].timestamp_ns <= w.end_ns; r++) {
        if (feed(st, r, w.start_ns, accs) != 0) {
            return -ENOMEM;
        }
    }
    return 0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a;
    double y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* percentile is numpy's default (linear) on sorted values. */
static double percentile(const double *sorted, size_t n, double p)
{
    double rank = p / 100.0 * (double)(n - 1);
    size_t lo = (size_t)floor(rank);
    size_t hi = lo + 1 < n ? lo + 1 : lo;
    return sorted[lo] + (sorted[hi] - sorted[lo]) * (rank - (double)lo);
}

static void mean_std(const double *v, size_t n, double *avg, double *std)
{
    double sum = 0;
    for (size_t i = 0; i < n; i++) {
        sum += v[i];
    }
    *avg = sum / (double)n;
    double sq = 0;
    for (size_t i = 0; i < n; i++) {
        sq += (v[i] - *avg) * (v[i] - *avg);
    }
    *std = n > 1 ? sqrt(sq / (double)(n - 1)) : 0.0;
}

void scrape__gauge_stats(double *v, size_t n, struct scrape_gauge_stats *g)
{
    mean_std(v, n, &g->avg, &g->std);
    qsort(v, n, sizeof(*v), cmp_double);
    g->min = v[0];
    g->max = v[n - 1];
    for (size_t i = 0; i < SCRAPE_PERCENTILE_COUNT; i++) {
        g->p[i] = percentile(v, n, scrape_percentiles[i]);
    }
}

static int gauge_stats(const struct acc *a, struct scrape_gauge_stats *g)
{
    size_t first = a->has_ref ? 1 : 0;
    size_t n = a->n - first;
    double *sorted = malloc(n * sizeof(*sorted));
    if (sorted == NULL) {
        return -ENOMEM;
    }
    memcpy(sorted, a->v + first, n * sizeof(*sorted));
    scrape__gauge_stats(sorted, n, g);
    free(sorted);
    return 0;
}

/* value_at returns the last value at or before t (the first when none is). */
static double value_at(const struct acc *a, int64_t t)
{
    size_t lo = 0;
    size_t hi = a->n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (a->t[mid] <= t) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return a->v[lo > 0 ? lo - 1 : 0];
}

/* rate_stats: rates of the complete slices of w, as AIPerf's counter timeslices, of the first
 * slices_max only (the timeslices the export keeps). */
static int rate_stats(const struct acc *a, struct scrape_window w, struct scrape_slicing sl,
                      struct scrape_counter_stats *c)
{
    int64_t slice_ns = sl.slice_ns;
    uint64_t complete = (uint64_t)((w.end_ns - w.start_ns) / slice_ns);
    size_t slices = complete < sl.slices_max ? (size_t)complete : sl.slices_max;
    if (slices == 0 || a->n < 2) {
        return 0;
    }
    double *rates = malloc(slices * sizeof(*rates));
    if (rates == NULL) {
        return -ENOMEM;
    }
    c->rate_min = INFINITY;
    c->rate_max = -INFINITY;
    for (size_t i = 0; i < slices; i++) {
        int64_t s0 = w.start_ns + (int64_t)i * slice_ns;
        double delta = value_at(a, s0 + slice_ns) - value_at(a, s0);
        rates[i] = (delta > 0 ? delta : 0) / ((double)slice_ns / 1e9);
        c->rate_min = fmin(c->rate_min, rates[i]);
        c->rate_max = fmax(c->rate_max, rates[i]);
    }
    mean_std(rates, slices, &c->rate_avg, &c->rate_std);
    c->has_rate_stats = true;
    free(rates);
    return 0;
}

static int counter_stats(const struct acc *a, struct scrape_window w, struct scrape_slicing sl,
                         struct scrape_counter_stats *c)
{
    double delta = a->v[a->n - 1] - a->v[0];
    int64_t duration_ns = a->t[a->n - 1] - a->t[0];
    c->total = delta > 0 ? delta : 0;
    c->rate = duration_ns > 0 ? c->total / ((double)duration_ns / 1e9) : 0;
    return sl.slice_ns > 0 ? rate_stats(a, w, sl, c) : 0;
}

/* A histogram series: its sum, count and buckets. */
struct hist_parts {
    size_t group;
    long sum, count;
    size_t *buckets;
    size_t bucket_count, bucket_cap;
};

static double acc_delta(const struct acc *a)
{
    return a->v[a->n - 1] - a->v[0];
}

static int cmp_le(const void *x, const void *y, void *ctx)
{
    const struct scrape__store *st = ctx;
    double a = st->series[*(const size_t *)x].le_value;
    double b = st->series[*(const size_t *)y].le_value;
    return a < b ? -1 : a > b;
}

/* estimate interpolates quantile q (0..1) inside the buckets, as Prometheus'
 * histogram_quantile does; the +Inf bucket answers with the highest finite bound. */
static double estimate(const double *le, const double *delta, size_t n, double q)
{
    double total = delta[n - 1];
    double rank = q * total;
    double lower = 0;
    double below = 0;
    for (size_t i = 0; i < n; i++) {
        if (delta[i] >= rank && delta[i] > below) {
            if (isinf(le[i])) {
                return lower;
            }
            double lo = i == 0 && le[i] > 0 ? 0 : lower;
            return lo + (le[i] - lo) * (rank - below) / (delta[i] - below);
        }
        lower = le[i];
        below = delta[i];
    }
    return lower;
}

static int histogram_buckets(const struct scrape__store *st, struct acc *accs, struct hist_parts *h,
                             struct scrape_histogram_stats *out)
{
    if (h->bucket_count > 0) {
        qsort_r(h->buckets, h->bucket_count, sizeof(size_t), cmp_le, (void *)st);
    }
    out->bucket_le = calloc(h->bucket_count + 1, sizeof(*out->bucket_le));
    out->bucket_delta = calloc(h->bucket_count + 1, sizeof(*out->bucket_delta));
    double *les = calloc(h->bucket_count + 1, sizeof(*les));
    if (out->bucket_le == NULL || out->bucket_delta == NULL || les == NULL) {
        free(les);
        return -ENOMEM;
    }
    out->has_buckets = true;
    for (size_t i = 0; i < h->bucket_count; i++) {
        const struct acc *a = &accs[h->buckets[i]];
        if (a->n == 0) {
            continue;
        }
        double d = acc_delta(a);
        out->has_buckets &= d >= 0;
        out->bucket_le[out->bucket_count] = st->series[h->buckets[i]].le;
        les[out->bucket_count] = st->series[h->buckets[i]].le_value;
        out->bucket_delta[out->bucket_count++] = d;
    }
    if (out->has_buckets && out->bucket_count > 0 && out->count > 0) {
        for (size_t i = 0; i < SCRAPE_PERCENTILE_COUNT; i++) {
            out->p_estimate[i] =
                estimate(les, out->bucket_delta, out->bucket_count, scrape_percentiles[i] / 100.0);
        }
        out->has_estimates = true;
    }
    free(les);
    return 0;
}

static int histogram_stats(const struct scrape__store *st, struct acc *accs, struct hist_parts *h,
                           struct scrape_histogram_stats *out)
{
    const struct acc *count = &accs[h->count];
    const struct acc *sum = &accs[h->sum];
    double dc = acc_delta(count);
    double ds = acc_delta(sum);
    out->count = dc > 0 ? dc : 0;
    out->sum = ds;
    int64_t duration_ns = count->t[count->n - 1] - count->t[0];
    if (out->count > 0) {
        out->avg = ds / dc;
        out->has_rates = duration_ns > 0;
        out->count_rate = out->has_rates ? dc / ((double)duration_ns / 1e9) : 0;
        out->sum_rate = out->has_rates ? ds / ((double)duration_ns / 1e9) : 0;
    }
    return histogram_buckets(st, accs, h, out);
}

/* in_window: the series has a sample inside the window. */
static bool in_window(const struct acc *a)
{
    return a->n > (a->has_ref ? 1u : 0u);
}

static const char *unit_of(const char *name)
{
    static const struct {
        const char *suffix, *unit;
    } units[] = {
        {"_seconds", "seconds"}, {"_milliseconds", "milliseconds"},
        {"_ms", "milliseconds"}, {"_bytes", "bytes"},
        {"_tokens", "tokens"},   {"_requests", "requests"},
        {"_perc", "ratio"},      {"_ratio", "ratio"},
        {"_percent", "percent"}, {"_celsius", "celsius"},
        {"_joules", "joules"},   {"_watts", "watts"},
    };
    size_t len = strlen(name);
    for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
        size_t n = strlen(units[i].suffix);
        if (len > n && strcmp(name + len - n, units[i].suffix) == 0) {
            return units[i].unit;
        }
    }
    return NULL;
}

static struct scrape_series_stats *new_series(struct scrape_family_stats *f, size_t *cap)
{
    if (f->series_count == *cap) {
        size_t n = *cap ? *cap * 2 : 4;
        struct scrape_series_stats *p = realloc(f->series, n * sizeof(*p));
        if (p == NULL) {
            return NULL;
        }
        f->series = p;
        *cap = n;
    }
    struct scrape_series_stats *s = &f->series[f->series_count++];
    memset(s, 0, sizeof(*s));
    return s;
}

/* hist_part_of finds (or adds) the parts of series se's group among hs. */
static struct hist_parts *hist_part_of(struct hist_parts **hs, size_t *n, size_t group)
{
    for (size_t i = 0; i < *n; i++) {
        if ((*hs)[i].group == group) {
            return &(*hs)[i];
        }
    }
    struct hist_parts *p = realloc(*hs, (*n + 1) * sizeof(**hs));
    if (p == NULL) {
        return NULL;
    }
    *hs = p;
    p[*n] = (struct hist_parts){.group = group, .sum = -1, .count = -1};
    return &p[(*n)++];
}

static int add_bucket(struct hist_parts *h, size_t series)
{
    if (h->bucket_count == h->bucket_cap) {
        size_t n = h->bucket_cap ? h->bucket_cap * 2 : 16;
        size_t *p = realloc(h->buckets, n * sizeof(*p));
        if (p == NULL) {
            return -ENOMEM;
        }
        h->buckets = p;
        h->bucket_cap = n;
    }
    h->buckets[h->bucket_count++] = series;
    return 0;
}

/* reduce_histograms adds family f's histogram series (sum and count with data in the window). */
static int reduce_histograms(const struct scrape__store *st, struct acc *accs, uint32_t fam,
                             struct scrape_family_stats *f, size_t *cap)
{
    struct hist_parts *hs = NULL;
    size_t n = 0;
    int ret = 0;
    for (size_t i = 0; i < st->series_count && ret == 0; i++) {
        const struct scrape__series *se = &st->series[i];
        if (se->family != fam || se->suffix == PROM_SUFFIX_NONE) {
            continue;
        }
        struct hist_parts *h = hist_part_of(&hs, &n, se->group);
        if (h == NULL) {
            ret = -ENOMEM;
        } else if (se->suffix == PROM_SUFFIX_SUM) {
            h->sum = (long)i;
        } else if (se->suffix == PROM_SUFFIX_COUNT) {
            h->count = (long)i;
        } else {
            ret = add_bucket(h, i);
        }
    }
    for (size_t i = 0; i < n && ret == 0; i++) {
        struct hist_parts *h = &hs[i];
        if (h->sum < 0 || h->count < 0 || !in_window(&accs[h->count]) ||
            !in_window(&accs[h->sum])) {
            continue;
        }
        struct scrape_series_stats *s = new_series(f, cap);
        if (s == NULL) {
            ret = -ENOMEM;
            break;
        }
        const struct scrape__series *se = &st->series[h->count];
        *s = (struct scrape_series_stats){.endpoint = se->endpoint,
                                          .labels = se->labels,
                                          .label_count = se->label_count,
                                          .type = PROM_HISTOGRAM};
        ret = histogram_stats(st, accs, h, &s->histogram);
    }
    for (size_t i = 0; i < n; i++) {
        free(hs[i].buckets);
    }
    free(hs);
    return ret;
}

static int reduce_scalars(const struct scrape__store *st, struct acc *accs, uint32_t fam,
                          struct scrape_window w, struct scrape_slicing sl,
                          struct scrape_family_stats *f, size_t *cap)
{
    for (size_t i = 0; i < st->series_count; i++) {
        const struct scrape__series *se = &st->series[i];
        if (se->family != fam || !in_window(&accs[i])) {
            continue;
        }
        struct scrape_series_stats *s = new_series(f, cap);
        if (s == NULL) {
            return -ENOMEM;
        }
        *s = (struct scrape_series_stats){.endpoint = se->endpoint,
                                          .labels = se->labels,
                                          .label_count = se->label_count,
                                          .type = f->type};
        int ret = f->type == PROM_COUNTER ? counter_stats(&accs[i], w, sl, &s->counter)
                                          : gauge_stats(&accs[i], &s->gauge);
        if (ret != 0) {
            return ret;
        }
    }
    return 0;
}

static int reduce_families(const struct scrape__store *st, struct acc *accs, struct scrape_window w,
                           struct scrape_slicing sl, struct scrape_report *out)
{
    out->families = calloc(st->family_count ? st->family_count : 1, sizeof(*out->families));
    if (out->families == NULL) {
        return -ENOMEM;
    }
    for (uint32_t i = 0; i < st->family_count; i++) {
        const struct scrape__family *fam = &st->families[i];
        struct scrape_family_stats *f = &out->families[out->family_count];
        *f = (struct scrape_family_stats){.name = fam->name,
                                          .type = fam->type,
                                          .help = fam->help != NULL ? fam->help : "",
                                          .unit = unit_of(fam->name)};
        size_t cap = 0;
        int ret = fam->type == PROM_HISTOGRAM ? reduce_histograms(st, accs, i, f, &cap)
                                              : reduce_scalars(st, accs, i, w, sl, f, &cap);
        if (ret != 0) {
            out->family_count++;
            return ret;
        }
        if (f->series_count > 0) {
            out->family_count++;
        } else {
            free(f->series);
        }
    }
    return 0;
}

int scrape_reduce(const struct scrape *s, struct scrape_window w, struct scrape_slicing sl,
                  struct scrape_report *out)
{
    memset(out, 0, sizeof(*out));
    const struct scrape__store *st = &s->store;
    if (w.start_ns == 0 || st->series_count == 0) {
        return 0;
    }
    struct acc *accs = calloc(st->series_count, sizeof(*accs));
    if (accs == NULL) {
        return -ENOMEM;
    }
    int ret = gather(st, w, accs);
    if (ret == 0) {
        ret = reduce_families(st, accs, w, sl, out);
    }
    accs_free(accs, st->series_count);
    return ret;
}

/* rebase turns the accs into ones for a window from `start`: of each series' samples, the last
 * one before start becomes its reference and those from start on stay. */
static void rebase(struct acc *accs, size_t count, int64_t start)
{
    for (size_t i = 0; i < count; i++) {
        struct acc *a = &accs[i];
        size_t before = a->n;
        while (before > 0 && a->t[before - 1] >= start) {
            before--;
        }
        if (before == 0) {
            continue;
        }
        size_t from = before - 1;
        memmove(a->t, a->t + from, (a->n - from) * sizeof(*a->t));
        memmove(a->v, a->v + from, (a->n - from) * sizeof(*a->v));
        a->n -= from;
        a->has_ref = true;
    }
}

/* A pass over the samples cut into slices: the slice whose samples the accs hold. */
struct slicer {
    const struct scrape__store *st;
    struct acc *accs;
    struct scrape_window w;
    struct scrape_slicing sl;
    uint64_t slice_count; /* of the whole window, the last one partial */
    uint64_t index;       /* the current slice */
    bool has_data;        /* a record fell in it */
    int64_t last_ns;      /* the time of the last record fed */
    int (*on_slice)(void *ctx, struct scrape_window slice, const struct scrape_report *r);
    void *ctx;
};

static struct scrape_window slice_of(const struct slicer *p, uint64_t k)
{
    int64_t start = p->w.start_ns + (int64_t)k * p->sl.slice_ns;
    int64_t end = k + 1 < p->slice_count ? start + p->sl.slice_ns : p->w.end_ns;
    return (struct scrape_window){start, end};
}

/* index_of is the first slice holding time t (w.start <= t <= w.end): a slice ends at its end
 * inclusive, as scrape_reduce's windows do, so a record on a boundary is in both slices. */
static uint64_t index_of(const struct slicer *p, int64_t t)
{
    uint64_t k =
        t == p->w.start_ns ? 0 : (uint64_t)(t - p->w.start_ns - 1) / (uint64_t)p->sl.slice_ns;
    return k < p->slice_count ? k : p->slice_count - 1;
}

/* emit reduces the current slice, when it has data, and hands it to on_slice. */
static int emit(struct slicer *p)
{
    if (!p->has_data || p->index >= p->sl.slices_max) {
        return 0;
    }
    struct scrape_window slice = slice_of(p, p->index);
    struct scrape_report r = {0};
    struct scrape_slicing none = {0};
    int ret = reduce_families(p->st, p->accs, slice, none, &r);
    if (ret == 0) {
        ret = p->on_slice(p->ctx, slice, &r);
    }
    scrape_report_free(&r);
    return ret;
}

/* advance ends the current slice and moves to slice k (> the current one). A record on the
 * current slice's end is also the start of the next slice, which is emitted on the way when k
 * is further on. */
static int advance(struct slicer *p, uint64_t k)
{
    int ret = emit(p);
    bool boundary =
        p->has_data && p->last_ns == slice_of(p, p->index).end_ns && p->index + 1 < p->slice_count;
    p->index++;
    rebase(p->accs, p->st->series_count, slice_of(p, p->index).start_ns);
    p->has_data = boundary;
    if (ret == 0 && p->index < k) {
        ret = emit(p);
        p->index = k;
        rebase(p->accs, p->st->series_count, slice_of(p, k).start_ns);
        p->has_data = false;
    }
    return ret;
}

static int slice_pass(struct slicer *p)
{
    const struct scrape__store *st = p->st;
    int ret = 0;
    for (size_t r = 0; ret == 0 && r < st->record_count; r++) {
        int64_t t = st->records[r].timestamp_ns;
        if (t > p->w.end_ns) {
            break;
        }
        if (t >= p->w.start_ns) {
            uint64_t k = index_of(p, t);
            ret = k > p->index ? advance(p, k) : 0;
            if (ret != 0 || p->index >= p->sl.slices_max) {
                return ret; /* past the slices kept: nothing more to reduce */
            }
            p->has_data = true;
            p->last_ns = t;
        }
        ret = feed(st, r, slice_of(p, p->index).start_ns, p->accs);
    }
    ret = ret == 0 ? advance(p, p->index + 1) : ret;
    return ret == 0 ? emit(p) : ret;
}

int scrape_reduce_slices(const struct scrape *s, struct scrape_window w, struct scrape_slicing sl,
                         int (*on_slice)(void *ctx, struct scrape_window slice,
                                         const struct scrape_report *r),
                         void *ctx)
{
    const struct scrape__store *st = &s->store;
    if (w.start_ns == 0 || st->series_count == 0 || sl.slice_ns <= 0 || sl.slices_max == 0 ||
        w.end_ns <= w.start_ns) {
        return 0;
    }
    uint64_t span = (uint64_t)(w.end_ns - w.start_ns);
    uint64_t slice = (uint64_t)sl.slice_ns;
    struct slicer p = {.st = st,
                       .w = w,
                       .sl = sl,
                       .slice_count = span / slice + (span % slice != 0),
                       .on_slice = on_slice,
                       .ctx = ctx};
    p.accs = calloc(st->series_count, sizeof(*p.accs));
    if (p.accs == NULL) {
        return -ENOMEM;
    }
    int ret = slice_pass(&p);
    accs_free(p.accs, st->series_count);
    return ret;
}

void scrape_report_free(struct scrape_report *r)
{
    for (size_t i = 0; i < r->family_count; i++) {
        struct scrape_family_stats *f = &r->families[i];
        for (size_t j = 0; j < f->series_count; j++) {
            free(f->series[j].histogram.bucket_le);
            free(f->series[j].histogram.bucket_delta);
        }
        free(f->series);
    }
    free(r->families);
    memset(r, 0, sizeof(*r));
}
