/*
 * api_live.c - the parts of a snapshot that describe the run over time: the
 * last interval's percentiles, the timeline the charts draw, and the error
 * kinds. Pure: no I/O, no locks; the coordinator calls these while it fills
 * a snapshot.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/api_internal.h"

/* bucket_walk steps through a histogram's non-empty buckets, one at a time. */
struct bucket_walk {
    struct metrics_hist_iter it;
    bool more;
};

static void walk_start(struct bucket_walk *w, const struct metrics_hist *h)
{
    metrics_hist_iter_init(&w->it, h);
    w->more = metrics_hist_iter_next(&w->it);
}

/* taken_from returns how many values of `before` lie in the bucket starting
 * at lowest: buckets come in increasing order in both walks, so `before`'s
 * walk only ever moves forward. */
static uint64_t taken_from(struct bucket_walk *before, int64_t lowest)
{
    while (before->more && before->it.lowest_value < lowest) {
        before->more = metrics_hist_iter_next(&before->it);
    }
    if (before->more && before->it.lowest_value == lowest) {
        uint64_t n = before->it.count;
        before->more = metrics_hist_iter_next(&before->it);
        return n;
    }
    return 0;
}

void api_interval_fill(enum api_metric m, const struct metrics_hist *now,
                       const struct metrics_hist *before, struct api_hist_view *out)
{
    memset(out, 0, sizeof(*out));
    if (now == NULL || before == NULL || metrics_hist_count(now) <= metrics_hist_count(before)) {
        return;
    }
    uint64_t total = metrics_hist_count(now) - metrics_hist_count(before);
    double per_display = metrics_record_hist_per_display(api_metric_info_of(m)->source);
    static const double pcts[] = {50, 90, 99};
    double *slots[] = {&out->p50, &out->p90, &out->p99};
    size_t next = 0;
    uint64_t seen = 0;
    struct bucket_walk cur;
    struct bucket_walk old;
    walk_start(&cur, now);
    walk_start(&old, before);
    for (; cur.more && next < 3; cur.more = metrics_hist_iter_next(&cur.it)) {
        uint64_t n = cur.it.count - taken_from(&old, cur.it.lowest_value);
        seen += n;
        /* The rank rounds up as HdrHistogram's value_at_percentile does. */
        while (next < 3 && n > 0 && (double)seen >= pcts[next] / 100.0 * (double)total) {
            *slots[next++] = (double)cur.it.highest_value / per_display;
        }
    }
    out->present = true;
    out->count = total;
    out->sum = (metrics_hist_sum(now) - metrics_hist_sum(before)) / per_display;
}

void api_timeline_push(struct api_snapshot *snap)
{
    if (snap->timeline_count == API_TIMELINE_MAX) {
        memmove(&snap->timeline[0], &snap->timeline[1],
                (API_TIMELINE_MAX - 1) * sizeof(snap->timeline[0]));
        snap->timeline_count--;
    }
    const struct api_hist_view *iv = snap->interval;
    double tokens = iv[API_M_OSL].present ? iv[API_M_OSL].sum : 0;
    uint64_t records = iv[API_M_REQUEST_LATENCY].count;
    snap->timeline[snap->timeline_count++] = (struct api_point){
        .elapsed_s = (double)snap->elapsed_ns / 1e9,
        .request_throughput = snap->interval_s > 0 ? (double)records / snap->interval_s : 0,
        .output_token_throughput = snap->interval_s > 0 ? tokens / snap->interval_s : 0,
        .ttft_p50_ms = iv[API_M_TTFT].p50,
        .ttft_p99_ms = iv[API_M_TTFT].p99,
        .itl_p50_ms = iv[API_M_ITL].p50,
        .latency_p50_ms = iv[API_M_REQUEST_LATENCY].p50,
        .latency_p99_ms = iv[API_M_REQUEST_LATENCY].p99,
        .finished = snap->finished,
        .errors = snap->errors,
    };
}

static int by_count_desc(const void *a, const void *b)
{
    const struct metrics_error_kind *x = *(const struct metrics_error_kind *const *)a;
    const struct metrics_error_kind *y = *(const struct metrics_error_kind *const *)b;
    return x->count < y->count ? 1 : x->count > y->count ? -1 : 0;
}

void api_error_rows_fill(struct api_snapshot *snap, const struct metrics_error_kind *kinds,
                         size_t count, uint64_t unlisted)
{
    const struct metrics_error_kind *order[METRICS_ERROR_KINDS_MAX];
    size_t n = count < METRICS_ERROR_KINDS_MAX ? count : METRICS_ERROR_KINDS_MAX;
    for (size_t i = 0; i < n; i++) {
        order[i] = &kinds[i];
    }
    qsort(order, n, sizeof(order[0]), by_count_desc);
    snap->error_row_count = 0;
    snap->error_rows_unlisted = unlisted;
    for (size_t i = 0; i < n; i++) {
        if (i >= API_ERROR_ROWS_MAX) {
            snap->error_rows_unlisted += order[i]->count;
            continue;
        }
        struct api_error_row *row = &snap->error_rows[snap->error_row_count++];
        row->code = order[i]->code;
        row->count = order[i]->count;
        /* Cut to the row's size: the full texts are in the exports' error summary. */
        snprintf(row->type, sizeof(row->type), "%.*s", (int)sizeof(row->type) - 1, order[i]->type);
        snprintf(row->message, sizeof(row->message), "%.*s", (int)sizeof(row->message) - 1,
                 order[i]->message);
    }
}
