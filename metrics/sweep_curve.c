/*
 * sweep_curve.c - step functions from sorted events, and their time-weighted statistics
 * (AIPerf's analysis/sweepline_stats.py, appendix §1.10).
 */
#include "metrics/sweep_curve.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>

/* At equal times an end (a delta that is not positive) comes before a start, so that a request
 * that starts when another ends does not count both at once. */
static int compare_events(const void *a, const void *b)
{
    const struct metrics__sweep_event *x = a;
    const struct metrics__sweep_event *y = b;
    if (x->t != y->t) {
        return x->t < y->t ? -1 : 1;
    }
    return (x->delta > 0) - (y->delta > 0);
}

void metrics__curve_free(struct metrics__sweep_curve *c)
{
    free(c->ts);
    free(c->val);
    *c = (struct metrics__sweep_curve){0};
}

static int curve_alloc(struct metrics__sweep_curve *c, size_t n)
{
    *c = (struct metrics__sweep_curve){0};
    if (n == 0) {
        return 0;
    }
    c->ts = malloc(n * sizeof(*c->ts));
    c->val = malloc(n * sizeof(*c->val));
    if (c->ts == NULL || c->val == NULL) {
        metrics__curve_free(c);
        return -ENOMEM;
    }
    return 0;
}

int metrics__curve_from_events(struct metrics__sweep_event *ev, size_t n,
                               struct metrics__sweep_curve *out)
{
    if (curve_alloc(out, n) != 0) {
        return -ENOMEM;
    }
    qsort(ev, n, sizeof(*ev), compare_events);
    /* The running sum goes in place of the deltas; its largest magnitude sets the round-off
     * that is snapped to 0 (large +/- pairs rarely cancel exactly). */
    double sum = 0.0;
    double max_abs = 0.0;
    for (size_t i = 0; i < n; i++) {
        sum += ev[i].delta;
        ev[i].delta = sum;
        max_abs = fabs(sum) > max_abs ? fabs(sum) : max_abs;
    }
    for (size_t i = 0; i < n; i++) {
        double v = fabs(ev[i].delta) < 1e-9 * max_abs ? 0.0 : ev[i].delta;
        /* Only the value after the last event at a time lasts. */
        if (out->n > 0 && out->ts[out->n - 1] == ev[i].t) {
            out->val[out->n - 1] = v;
        } else {
            out->ts[out->n] = ev[i].t;
            out->val[out->n++] = v;
        }
    }
    return 0;
}

/* cursor walks a curve forward in time: value() is its value at the last time advanced to. */
struct cursor {
    const struct metrics__sweep_curve *c;
    size_t next; /* the first event after the current time */
};

static void cursor_advance(struct cursor *k, int64_t t)
{
    while (k->next < k->c->n && k->c->ts[k->next] <= t) {
        k->next++;
    }
}

static double cursor_value(const struct cursor *k)
{
    return k->next == 0 ? 0.0 : k->c->val[k->next - 1];
}

static int64_t cursor_next_time(const struct cursor *k, int64_t limit)
{
    return k->next < k->c->n && k->c->ts[k->next] < limit ? k->c->ts[k->next] : limit;
}

int metrics__curve_divide(const struct metrics__sweep_curve *num,
                          const struct metrics__sweep_curve *den, struct metrics__sweep_curve *out)
{
    if (num->n == 0 || den->n == 0) {
        *out = (struct metrics__sweep_curve){0};
        return 0;
    }
    if (curve_alloc(out, num->n + den->n) != 0) {
        return -ENOMEM;
    }
    struct cursor a = {num, 0};
    struct cursor b = {den, 0};
    int64_t t = num->ts[0] < den->ts[0] ? num->ts[0] : den->ts[0];
    for (;;) {
        cursor_advance(&a, t);
        cursor_advance(&b, t);
        double d = cursor_value(&b);
        out->ts[out->n] = t;
        out->val[out->n++] = d > 0 ? cursor_value(&a) / d : 0.0;
        if (a.next == num->n && b.next == den->n) {
            return 0;
        }
        t = cursor_next_time(&b, cursor_next_time(&a, INT64_MAX));
    }
}

/* segment is one stretch of constant value. */
struct segment {
    double v;
    double d; /* its duration, ns */
};

static int compare_segments(const void *a, const void *b)
{
    double x = ((const struct segment *)a)->v;
    double y = ((const struct segment *)b)->v;
    return (x > y) - (x < y);
}

/* segment_stats weighs `n` segments (at least one) by their durations, `total` in all.
 * Percentiles: the least value whose share of the time at or below it reaches the quantile. */
static void segment_stats(struct segment *seg, size_t n, double total,
                          struct metrics_sweep_stats *out)
{
    double weighted = 0.0;
    double lo = seg[0].v;
    double hi = seg[0].v;
    for (size_t i = 0; i < n; i++) {
        weighted += seg[i].v * seg[i].d;
        lo = seg[i].v < lo ? seg[i].v : lo;
        hi = seg[i].v > hi ? seg[i].v : hi;
    }
    double avg = weighted / total;
    double spread = 0.0;
    for (size_t i = 0; i < n; i++) {
        spread += seg[i].d * (seg[i].v - avg) * (seg[i].v - avg);
    }
    *out =
        (struct metrics_sweep_stats){.avg = avg, .min = lo, .max = hi, .std = sqrt(spread / total)};
    qsort(seg, n, sizeof(*seg), compare_segments);
    double sorted_total = 0.0;
    for (size_t i = 0; i < n; i++) {
        sorted_total += seg[i].d;
    }
    static const double q[4] = {0.50, 0.90, 0.95, 0.99};
    double *slot[4] = {&out->p50, &out->p90, &out->p95, &out->p99};
    double cum = 0.0;
    size_t k = 0;
    for (size_t i = 0; i < n && k < 4; i++) {
        cum += seg[i].d;
        while (k < 4 && cum / sorted_total >= q[k]) {
            *slot[k++] = seg[i].v;
        }
    }
    while (k < 4) { /* round-off left the last fraction a hair below 1 */
        *slot[k++] = seg[n - 1].v;
    }
}

static void scale_stats(struct metrics_sweep_stats *s, double scale)
{
    double *f[] = {&s->avg, &s->min, &s->max, &s->p50, &s->p90, &s->p95, &s->p99, &s->std};
    for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
        *f[i] *= scale;
    }
}

int metrics__curve_stats(const struct metrics__sweep_curve *c,
                         const struct metrics__sweep_curve *mask, int64_t ws, int64_t we,
                         double scale, struct metrics_sweep_stats *out)
{
    *out = (struct metrics_sweep_stats){0};
    if (c->n == 0 || we <= ws) {
        return 0;
    }
    struct metrics__sweep_curve none = {0};
    size_t cap = c->n + (mask != NULL ? mask->n : 0) + 1;
    struct segment *seg = malloc(cap * sizeof(*seg));
    if (seg == NULL) {
        return -ENOMEM;
    }
    struct cursor rate = {c, 0};
    struct cursor on = {mask != NULL ? mask : &none, 0};
    size_t n = 0;
    double active = 0.0;
    for (int64_t t = ws; t < we;) {
        cursor_advance(&rate, t);
        cursor_advance(&on, t);
        int64_t next = cursor_next_time(&on, cursor_next_time(&rate, we));
        if (mask == NULL || cursor_value(&on) > 0) {
            seg[n++] = (struct segment){cursor_value(&rate), (double)(next - t)};
            active += (double)(next - t);
        }
        t = next;
    }
    if (n > 0) {
        segment_stats(seg, n, active, out);
        scale_stats(out, scale);
    }
    free(seg);
    return 0;
}
