/*
 * api_live.c without sockets: the last interval's percentiles from two
 * copies of a histogram, the timeline's window, and the error rows.
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"

static struct metrics_hist *ttft_hist(void)
{
    struct metrics_hist *h = NULL;
    cr_assert_eq(metrics_record_hist_new(METRICS_TTFT, 3, &h), 0);
    return h;
}

Test(api_interval, percentiles_count_only_the_values_since_the_copy)
{
    struct metrics_hist *now = ttft_hist();
    struct metrics_hist *before = ttft_hist();
    /* Before the interval: 1000 values of 500 ms, which would dominate every percentile. */
    metrics_hist_record_n(now, 500LL * 1000 * 1000, 1000);
    cr_assert_eq(metrics_hist_merge(before, now), 0);
    /* In it: 1..100 ms, one each. */
    for (int ms = 1; ms <= 100; ms++) {
        metrics_hist_record(now, ms * 1000LL * 1000);
    }
    struct api_hist_view v;
    api_interval_fill(API_M_TTFT, now, before, &v);
    cr_assert(v.present);
    cr_assert_eq(v.count, 100);
    cr_assert_float_eq(v.p50, 50, 0.1);
    cr_assert_float_eq(v.p90, 90, 0.1);
    cr_assert_float_eq(v.p99, 99, 0.1);
    cr_assert_float_eq(v.sum, 5050, 1);
    metrics_hist_free(now);
    metrics_hist_free(before);
}

Test(api_interval, values_in_buckets_the_copy_also_holds_are_told_apart)
{
    struct metrics_hist *now = ttft_hist();
    struct metrics_hist *before = ttft_hist();
    metrics_hist_record_n(now, 10LL * 1000 * 1000, 5);
    metrics_hist_merge(before, now);
    metrics_hist_record_n(now, 10LL * 1000 * 1000, 3); /* the same bucket */
    metrics_hist_record(now, 40LL * 1000 * 1000);
    struct api_hist_view v;
    api_interval_fill(API_M_TTFT, now, before, &v);
    cr_assert_eq(v.count, 4);
    cr_assert_float_eq(v.p50, 10, 0.02);
    cr_assert_float_eq(v.p99, 40, 0.05);
    metrics_hist_free(now);
    metrics_hist_free(before);
}

Test(api_interval, nothing_new_or_no_histogram_is_absent)
{
    struct metrics_hist *now = ttft_hist();
    struct metrics_hist *before = ttft_hist();
    metrics_hist_record(now, 1000);
    metrics_hist_merge(before, now);
    struct api_hist_view v;
    api_interval_fill(API_M_TTFT, now, before, &v);
    cr_assert(!v.present);
    api_interval_fill(API_M_TTFT, NULL, before, &v);
    cr_assert(!v.present);
    api_interval_fill(API_M_TTFT, now, NULL, &v);
    cr_assert(!v.present);
    metrics_hist_free(now);
    metrics_hist_free(before);
}

Test(api_timeline, keeps_the_newest_points_and_their_rates)
{
    struct api_snapshot *snap = calloc(1, sizeof(*snap));
    for (int i = 1; i <= API_TIMELINE_MAX + 5; i++) {
        snap->elapsed_ns = (int64_t)i * 1000000000;
        snap->interval_s = 2.0;
        snap->finished = (uint64_t)i * 10;
        snap->interval[API_M_REQUEST_LATENCY] =
            (struct api_hist_view){.present = true, .count = 10};
        snap->interval[API_M_OSL] =
            (struct api_hist_view){.present = true, .count = 10, .sum = 160};
        snap->interval[API_M_TTFT] =
            (struct api_hist_view){.present = true, .p50 = i, .p99 = 2 * i};
        api_timeline_push(snap);
    }
    cr_assert_eq(snap->timeline_count, API_TIMELINE_MAX);
    cr_assert_float_eq(snap->timeline[0].elapsed_s, 6, 1e-9, "the 5 oldest dropped");
    const struct api_point *last = &snap->timeline[API_TIMELINE_MAX - 1];
    cr_assert_float_eq(last->elapsed_s, API_TIMELINE_MAX + 5, 1e-9);
    cr_assert_float_eq(last->request_throughput, 5, 1e-9, "10 records in 2 s");
    cr_assert_float_eq(last->output_token_throughput, 80, 1e-9, "160 tokens in 2 s");
    cr_assert_float_eq(last->ttft_p99_ms, 2.0 * (API_TIMELINE_MAX + 5), 1e-9);
    cr_assert_eq(last->finished, (uint64_t)(API_TIMELINE_MAX + 5) * 10);
    free(snap);
}

Test(api_errors, rows_are_the_most_frequent_kinds_and_the_rest_is_counted)
{
    struct metrics_error_kind kinds[API_ERROR_ROWS_MAX + 3];
    memset(kinds, 0, sizeof(kinds));
    for (int i = 0; i < API_ERROR_ROWS_MAX + 3; i++) {
        kinds[i].code = 400 + i;
        kinds[i].count = (uint64_t)i + 1;
        snprintf(kinds[i].type, sizeof(kinds[i].type), "type%d", i);
        memset(kinds[i].message, 'x', sizeof(kinds[i].message) - 1); /* longer than a row */
    }
    struct api_snapshot *snap = calloc(1, sizeof(*snap));
    api_error_rows_fill(snap, kinds, API_ERROR_ROWS_MAX + 3, 7);
    cr_assert_eq(snap->error_row_count, API_ERROR_ROWS_MAX);
    cr_assert_eq(snap->error_rows[0].count, API_ERROR_ROWS_MAX + 3);
    cr_assert_eq(snap->error_rows[0].code, 400 + API_ERROR_ROWS_MAX + 2);
    cr_assert_str_eq(snap->error_rows[0].type, "type18");
    cr_assert_eq(strlen(snap->error_rows[0].message), sizeof(snap->error_rows[0].message) - 1);
    cr_assert_eq(snap->error_rows_unlisted, 7 + 1 + 2 + 3, "the three rarest kinds and 7 more");
    free(snap);
}
