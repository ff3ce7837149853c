/*
 * test_timeslices.c - profile_export_aiperf_timeslices.json and .csv from
 * hand-made per-window runs.
 */
#include "export/export.h"

#include <criterion/criterion.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MS 1000000LL
#define WALL0 (1700000000LL * 1000 * MS)

/* window_summary summarises `n` non-streaming requests started in window
 * [WALL0 + k s, WALL0 + (k + 1) s) with latencies lat_ms[i]. */
static void window_summary(int k, const int64_t *lat_ms, size_t n, struct metrics_summary *out)
{
    struct metrics_run_config cfg = {.streaming = false};
    struct metrics_run *run = NULL;
    cr_assert_eq(metrics_run_new(&cfg, &run), 0);
    int64_t start = WALL0 + k * 1000 * MS;
    metrics_run_set_window(run, start, start + 1000 * MS);
    for (size_t i = 0; i < n; i++) {
        int64_t end = (int64_t)(i * 10 + lat_ms[i]) * MS;
        struct metrics_request req = {
            .start_ns = (int64_t)i * 10 * MS,
            .start_wall_ns = start + (int64_t)i * 10 * MS,
            .content_ns = &end,
            .content_count = 1,
            .tokens = {.input = 10, .output = 4, .reasoning = METRICS_ABSENT},
            .usage = RECORD_USAGE_NONE,
        };
        struct metrics_values v;
        metrics_request_compute(&req, &v);
        metrics_run_add(run, &req, &v);
    }
    cr_assert_eq(metrics_run_summarize(run, out), 0);
    metrics_run_free(run);
}

static void two_slices(struct metrics_summary sums[2], struct export_timeslice slices[2])
{
    const int64_t a[] = {100, 200, 300};
    const int64_t b[] = {50};
    window_summary(0, a, 3, &sums[0]);
    window_summary(2, b, 1, &sums[1]);
    slices[0] = (struct export_timeslice){0, &sums[0]};
    slices[1] = (struct export_timeslice){2, &sums[1]};
}

Test(export_timeslices, json_has_each_window_with_reduced_stats)
{
    struct metrics_summary sums[2];
    struct export_timeslice slices[2];
    two_slices(sums, slices);
    json_t *config = json_pack("{s:s}", "model", "m");
    json_t *root = export_timeslices_json(slices, 2, config);
    cr_assert_not_null(root);
    json_t *list = json_object_get(root, "timeslices");
    cr_assert_eq(json_array_size(list), 2);
    json_t *first = json_array_get(list, 0);
    cr_assert_eq(json_integer_value(json_object_get(first, "timeslice_index")), 0);
    json_t *lat = json_object_get(first, "request_latency");
    cr_assert_str_eq(json_string_value(json_object_get(lat, "unit")), "ms");
    cr_assert_float_eq(json_real_value(json_object_get(lat, "avg")), 200.0, 1e-9);
    cr_assert_float_eq(json_real_value(json_object_get(lat, "p50")), 200.0, 1e-9);
    cr_assert_float_eq(json_real_value(json_object_get(lat, "max")), 300.0, 1e-9);
    cr_assert_null(json_object_get(lat, "p1"), "only AIPerf's timeslice stats");
    cr_assert_null(json_object_get(lat, "std"));
    /* Rates use the window (1 s), not the requests' span. */
    json_t *rps = json_object_get(first, "request_throughput");
    cr_assert_float_eq(json_real_value(json_object_get(rps, "avg")), 3.0, 1e-9);
    json_t *second = json_array_get(list, 1);
    cr_assert_eq(json_integer_value(json_object_get(second, "timeslice_index")), 2);
    cr_assert_str_eq(
        json_string_value(json_object_get(json_object_get(root, "input_config"), "model")), "m");
    json_decref(root);
    json_decref(config);
}

Test(export_timeslices, csv_is_long_form)
{
    struct metrics_summary sums[2];
    struct export_timeslice slices[2];
    two_slices(sums, slices);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    cr_assert_eq(export_timeslices_csv(f, slices, 2), 0);
    fclose(f);
    cr_assert_eq(strncmp(text, "Timeslice,Metric,Unit,Stat,Value\n", 33), 0);
    cr_assert_not_null(strstr(text, "\n0,Request Latency,ms,avg,200.00\n"));
    cr_assert_not_null(strstr(text, "\n0,Request Latency,ms,p90,280.00\n"));
    cr_assert_not_null(strstr(text, "\n0,Request Throughput,requests/sec,avg,3.00\n"));
    cr_assert_not_null(strstr(text, "\n0,Input Sequence Length,tokens,max,10\n"));
    cr_assert_not_null(strstr(text, "\n2,Request Latency,ms,min,50.00\n"));
    cr_assert_null(strstr(text, ",p1,"));
    free(text);
}

Test(export_timeslices, empty_list_still_has_header)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    cr_assert_eq(export_timeslices_csv(f, NULL, 0), 0);
    fclose(f);
    cr_assert_str_eq(text, "Timeslice,Metric,Unit,Stat,Value\n");
    free(text);
    json_t *root = export_timeslices_json(NULL, 0, NULL);
    cr_assert_eq(json_array_size(json_object_get(root, "timeslices")), 0);
    json_decref(root);
}
