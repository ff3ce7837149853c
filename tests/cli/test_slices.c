/*
 * test_slices.c - end to end: a --slice-duration far shorter than the run makes more windows
 * than EXPORT_SLICES_MAX; the request timeslices and the server metrics' keep the first ones,
 * and the run says what it left out.
 */
#include <criterion/criterion.h>

#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tests/cli/e2e.h"

#define RUN_FLAGS "--ui none --artifact-dir DIR"

/* max_slice_index is the highest grid index of any series' timeslices in the server metrics. */
static int64_t max_slice_index(json_t *sm, int64_t slice_ns)
{
    json_t *range = json_object_get(
        json_object_get(json_object_get(sm, "summary"), "phase_time_ranges"), "profiling");
    int64_t start = json_integer_value(json_object_get(range, "start_ns"));
    int64_t max = -1;
    const char *name;
    json_t *family;
    json_object_foreach(json_object_get(sm, "metrics"), name, family)
    {
        size_t i, j;
        json_t *series, *e;
        json_array_foreach(json_object_get(family, "series"), i, series)
        {
            json_array_foreach(json_object_get(series, "timeslices"), j, e)
            {
                int64_t k = (json_integer_value(json_object_get(e, "start_ns")) - start) / slice_ns;
                max = k > max ? k : max;
            }
        }
    }
    return max;
}

/* A --slice-duration far shorter than the run (100 us against 30 requests of 20 ms or more):
 * the request timeslices and the server metrics' stop at EXPORT_SLICES_MAX windows, and the
 * run says so for each. */
Test(slices_e2e, timeslices_past_the_limit_are_left_out_and_said, .timeout = 120)
{
    struct e2e w;
    e2e_start(&w, (char *const[]){"--ttft-ms", "20", NULL});
    char *out = NULL;
    int rc = run_ringperf(&w,
                          "profile -m m -u URL --concurrency 1 --request-count 30 "
                          "--slice-duration 0.0001 " RUN_FLAGS,
                          true, &out);
    cr_assert_eq(rc, 0, "%s", out);
    cr_assert_not_null(strstr(out, "started after the first 4096 windows of --slice-duration "
                                   "0.0001 s and are left out of the timeslices"),
                       "%s", out);
    cr_assert_not_null(strstr(out, "the server metrics' timeslices and counter rate statistics "
                                   "cover the first 4096 windows of --slice-duration 0.0001 s"),
                       "%s", out);
    free(out);
    json_t *ts = e2e_load_json(&w, "profile_export_aiperf_timeslices.json");
    size_t i;
    json_t *e;
    json_array_foreach(json_object_get(ts, "timeslices"), i, e)
    {
        cr_assert_lt(json_integer_value(json_object_get(e, "timeslice_index")), 4096);
    }
    json_decref(ts);
    json_t *sm = e2e_load_json(&w, "server_metrics_export.json");
    cr_assert_lt(max_slice_index(sm, 100 * 1000), 4096);
    json_decref(sm);
    e2e_finish(&w);
}

/* A --benchmark-duration that holds more --slice-duration windows than are kept is said before
 * the run, with the slice length that would cover it. */
Test(slices_e2e, a_duration_past_the_limit_is_said_before_the_run, .timeout = 120)
{
    struct e2e w;
    e2e_start(&w, NULL);
    char *out = NULL;
    int rc = run_ringperf(&w,
                          "profile -m m -u URL --concurrency 1 --benchmark-duration 1 "
                          "--slice-duration 0.0001 " RUN_FLAGS,
                          true, &out);
    cr_assert_eq(rc, 0, "%s", out);
    cr_assert_not_null(strstr(out, "warning: --slice-duration 0.0001 s cuts --benchmark-duration "
                                   "1 s into 10000 windows; the timeslices keep the first 4096. "
                                   "Give --slice-duration 0.000244141 or more to cover the run."),
                       "%s", out);
    free(out);
    e2e_finish(&w);
}
