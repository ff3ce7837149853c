/*
 * test_server_metrics_slices.c - the `timeslices` of server_metrics_export.json (--slice-duration)
 * from a scripted /metrics server: a slice far too short for the run makes more slices than
 * EXPORT_SLICES_MAX, and only the first ones are exported, as the request timeslices are.
 */
#include "export/export.h"
#include "tests/config/config_test_util.h"
#include "tests/scrape/script_server.h"

#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* gauge_slices writes the export of s with slices of slice_ns into dir and returns the gauge
 * g's timeslices (NULL: none), a new reference. */
static json_t *gauge_slices(const struct scrape *s, const char *dir, int64_t slice_ns)
{
    struct profile_config cfg;
    char err[512];
    cr_assert_eq(parse(W("--model", "m"), &cfg, err, sizeof(err)), 0, "%s", err);
    struct export_paths paths;
    cr_assert_eq(export_paths_init(&paths, dir, NULL), 0);
    struct export_server_metrics in = {
        .scrape = s, .cfg = &cfg, .artifact_dir = dir, .benchmark_id = "b", .slice_ns = slice_ns};
    const char *failed = NULL;
    cr_assert_eq(export_server_metrics_write(&paths, &in, &failed), 0, "%s", failed);
    config_free(&cfg);
    json_error_t jerr;
    json_t *root = json_load_file(paths.server_metrics_json, 0, &jerr);
    cr_assert_not_null(root, "%s", jerr.text);
    json_t *series = json_array_get(
        json_object_get(json_object_get(json_object_get(root, "metrics"), "g"), "series"), 0);
    cr_assert_not_null(series, "the gauge is exported");
    json_t *slices = json_incref(json_object_get(series, "timeslices"));
    json_decref(root);
    unlink(paths.server_metrics_json);
    unlink(paths.server_metrics_csv);
    return slices;
}

Test(server_metrics_slices, only_the_first_export_slices_max_are_exported, .timeout = 60)
{
    struct script sc = {.count = 3};
    sc.bodies[0] = "# TYPE g gauge\ng 1\n";
    sc.bodies[1] = "# TYPE g gauge\ng 2\n";
    sc.bodies[2] = "# TYPE g gauge\ng 7\n";
    script_start(&sc);
    struct scrape_endpoint e;
    endpoint_for(&sc, &e, false);
    struct scrape *s = script_scrape(&e);
    scrape_phase(s, SCRAPE_PHASE_PROFILING); /* g 2: the window's reference */
    scrape_stop(s);                          /* g 7: inside the window */
    struct scrape_window w = scrape_window_of(s, SCRAPE_PHASE_PROFILING);
    struct scrape_record last;
    scrape_record_at(s, 2, &last);
    int64_t d = last.timestamp_ns - w.start_ns; /* a loopback fetch: tens of microseconds */
    cr_assert_gt(d, 10000);
    char dir[] = "/tmp/ringperf-smslices-XXXXXX";
    cr_assert_not_null(mkdtemp(dir));

    /* The fetch falls in slice ~5000 of slices of d / 5000 ns: past the cap, so not exported. */
    int64_t tiny = d / 5000;
    cr_assert_gt((w.end_ns - w.start_ns) / tiny, EXPORT_SLICES_MAX);
    json_t *slices = gauge_slices(s, dir, tiny);
    cr_assert_null(slices, "%zu timeslices past the first %d", json_array_size(slices),
                   EXPORT_SLICES_MAX);

    /* Slices of d / 2000 ns: the fetch's slice is among the first, and is exported. */
    int64_t small = d / 2000 + 1;
    slices = gauge_slices(s, dir, small);
    cr_assert(json_array_size(slices) >= 1);
    int64_t first = json_integer_value(json_object_get(json_array_get(slices, 0), "start_ns"));
    cr_assert_eq(first, w.start_ns + (d - 1) / small * small);
    cr_assert_eq(json_real_value(json_object_get(json_array_get(slices, 0), "avg")), 7);
    size_t i;
    json_t *slice;
    json_array_foreach(slices, i, slice)
    {
        int64_t start = json_integer_value(json_object_get(slice, "start_ns"));
        cr_assert_lt((start - w.start_ns) / small, EXPORT_SLICES_MAX);
    }
    json_decref(slices);
    rmdir(dir);
    scrape_free(s);
    script_stop(&sc);
}
