/*
 * test_summary.c - profile_export_aiperf.json and .csv from a hand-made run.
 */
#include "export/export.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MS 1000000LL
#define WALL0 (1700000000LL * 1000 * MS)

/* summary_of_two_requests: two streaming requests with 3 and 2 content
 * chunks, and one failed request. */
static void summary_of_two_requests(struct metrics_summary *out)
{
    struct metrics_goodput g;
    char err[128];
    cr_assert_eq(metrics_goodput_parse("time_to_first_token:15", &g, err, sizeof(err)), 0);
    struct metrics_run_config cfg = {.streaming = true, .goodput = &g};
    struct metrics_run *run = NULL;
    cr_assert_eq(metrics_run_new(&cfg, &run), 0);
    const int64_t starts[3] = {0, 1000, 2000};
    const int64_t t[3][3] = {{10, 20, 40}, {1020, 1030, 0}, {2005, 0, 0}};
    const uint32_t n[3] = {3, 2, 1};
    for (int i = 0; i < 3; i++) {
        int64_t ns[3];
        for (uint32_t k = 0; k < n[i]; k++) {
            ns[k] = t[i][k] * MS;
        }
        struct metrics_request req = {
            .failed = i == 2,
            .streaming = true,
            .start_ns = starts[i] * MS,
            .start_wall_ns = WALL0 + starts[i] * MS,
            .content_ns = ns,
            .content_count = n[i],
            .tokens = {.input = 100 + i, .output = 5 - i, .reasoning = METRICS_ABSENT},
            .usage = RECORD_USAGE_NONE,
        };
        struct metrics_values v;
        metrics_request_compute(&req, &v);
        metrics_run_add(run, &req, &v);
    }
    cr_assert_eq(metrics_run_summarize(run, out), 0);
    metrics_run_free(run);
}

static struct export_run_info run_info(json_t *input_config)
{
    static const struct export_error_row errors[] = {
        {499, "RequestCancellationError", "Request was cancelled", 1}};
    return (struct export_run_info){
        .cli_command = "ringperf profile --model m --api-key '<redacted>'",
        .benchmark_id = "0123456789abcdef",
        .input_config = input_config,
        .was_cancelled = false,
        .start_wall_ns = WALL0,
        .end_wall_ns = WALL0 + 2 * 1000 * MS,
        .random_seed_set = true,
        .random_seed = 42,
        .errors = errors,
        .error_count = 1,
    };
}

Test(export_json, metrics_are_flat_keys_in_aiperf_order)
{
    struct metrics_summary s;
    summary_of_two_requests(&s);
    json_t *config = json_pack("{s:{s:s}}", "endpoint", "type", "chat");
    struct export_run_info info = run_info(config);
    json_t *root = export_summary_json(&s, &info);
    cr_assert_not_null(root);
    const char *expected_order[] = {
        "schema_version",          "aiperf_version",       "benchmark_id",
        "request_throughput",      "request_latency",      "request_count",
        "time_to_first_token",     "time_to_second_token", "inter_token_latency",
        "output_token_throughput",
    };
    const char *key;
    json_t *value;
    size_t i = 0;
    json_object_foreach(root, key, value)
    {
        if (i < sizeof(expected_order) / sizeof(expected_order[0])) {
            cr_assert_str_eq(key, expected_order[i], "key %zu", i);
        }
        i++;
    }
    cr_assert_str_eq(json_string_value(json_object_get(root, "schema_version")), "1.5");
    json_t *latency = json_object_get(root, "request_latency");
    cr_assert_str_eq(json_string_value(json_object_get(latency, "unit")), "ms");
    cr_assert_float_eq(json_real_value(json_object_get(latency, "avg")), 35.0, 1e-9);
    cr_assert_float_eq(json_real_value(json_object_get(latency, "min")), 30.0, 1e-9);
    cr_assert_float_eq(json_real_value(json_object_get(latency, "p50")), 35.0, 1e-9);
    cr_assert_eq(json_integer_value(json_object_get(latency, "count")), 2);
    cr_assert_float_eq(json_real_value(json_object_get(latency, "sum")), 70.0, 1e-9);
    static const char *const stat_keys[] = {"unit", "avg", "p1",    "p5",  "p10", "p25",
                                            "p50",  "p75", "p90",   "p95", "p99", "min",
                                            "max",  "std", "count", "sum"};
    i = 0;
    json_object_foreach(latency, key, value)
    {
        cr_assert_str_eq(key, stat_keys[i], "stat key %zu", i);
        i++;
    }
    cr_assert_eq(i, 16);
    json_t *count = json_object_get(root, "request_count");
    cr_assert_eq(json_object_size(count), 2, "scalars carry unit and avg only");
    cr_assert_float_eq(json_real_value(json_object_get(count, "avg")), 2.0, 1e-12);
    cr_assert_str_eq(json_string_value(json_object_get(count, "unit")), "requests");
    json_t *duration = json_object_get(root, "benchmark_duration");
    cr_assert_str_eq(json_string_value(json_object_get(duration, "unit")), "sec");
    cr_assert_float_eq(json_real_value(json_object_get(duration, "avg")), 1.03, 1e-12);
    cr_assert_float_eq(json_real_value(json_object_get(json_object_get(root, "goodput"), "avg")),
                       1 / 1.03, 1e-12);
    cr_assert_not_null(json_object_get(root, "error_isl"));
    cr_assert_not_null(json_object_get(root, "total_error_isl"));
    cr_assert_null(json_object_get(root, "reasoning_token_count"), "empty metrics are omitted");
    json_decref(root);
    json_decref(config);
}

/* Pydantic's order (spec §1.2): the declared metric slots, the provenance, then every other
 * metric as an extra key. */
Test(export_json, provenance_follows_the_declared_metrics)
{
    struct metrics_summary s;
    summary_of_two_requests(&s);
    json_t *config = json_pack("{s:{s:s}}", "endpoint", "type", "chat");
    struct export_run_info info = run_info(config);
    json_t *root = export_summary_json(&s, &info);
    const char *provenance[] = {"input_config",  "run_info",   "was_cancelled",
                                "error_summary", "start_time", "end_time"};
    size_t at = 0;
    bool extra_after = false;
    const char *key;
    json_t *value;
    json_object_foreach(root, key, value)
    {
        if (at > 0 && at < 6) {
            cr_assert_str_eq(key, provenance[at], "provenance key %zu", at);
            at++;
        } else if (at == 0 && strcmp(key, "input_config") == 0) {
            at = 1;
        } else if (at == 6) {
            extra_after |= strcmp(key, "time_to_first_output_token") == 0;
        }
        cr_assert(at > 0 || strcmp(key, "time_to_first_output_token") != 0,
                  "an extra metric before the provenance");
    }
    cr_assert_eq(at, 6, "the six provenance keys, in order");
    cr_assert(extra_after, "extra metrics follow the provenance");
    json_t *run = json_object_get(root, "run_info");
    cr_assert_str_eq(json_string_value(json_object_get(run, "cli_command")), info.cli_command);
    cr_assert_eq(json_integer_value(json_object_get(run, "random_seed")), 42);
    cr_assert(json_is_false(json_object_get(root, "was_cancelled")));
    json_t *err = json_array_get(json_object_get(root, "error_summary"), 0);
    cr_assert_eq(json_integer_value(json_object_get(err, "count")), 1);
    json_t *details = json_object_get(err, "error_details");
    cr_assert_eq(json_integer_value(json_object_get(details, "code")), 499);
    cr_assert_str_eq(json_string_value(json_object_get(details, "type")),
                     "RequestCancellationError");
    const char *start = json_string_value(json_object_get(root, "start_time"));
    cr_assert_not_null(start);
    cr_assert_eq(strlen(start), 26, "%s", start);
    cr_assert_eq(start[10], 'T');
    cr_assert_eq(start[19], '.');
    json_decref(root);
    json_decref(config);
}

Test(export_json, iso_time_rejects_bad_input)
{
    char text[64];
    cr_assert_eq(export_iso_time(WALL0 + 123456789, text, sizeof(text)), 0);
    cr_assert_str_eq(text + 19, ".123456");
    cr_assert_eq(export_iso_time(WALL0, text, 10), -EINVAL);
    cr_assert_eq(export_iso_time(-5, text, sizeof(text)), -EINVAL);
}

static char *csv_text(const struct metrics_summary *s)
{
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    cr_assert_not_null(out);
    cr_assert_eq(export_summary_csv(out, s), 0);
    fclose(out);
    return text;
}

Test(export_csv, two_sections_sorted_by_tag)
{
    struct metrics_summary s;
    summary_of_two_requests(&s);
    char *text = csv_text(&s);
    char *blank = strstr(text, "\n\n");
    cr_assert_not_null(blank, "a blank line separates the sections");
    static const char head[] = "Metric,avg,min,max,sum,p1,p5,p10,p25,p50,p75,p90,p95,p99,std\n";
    cr_assert(strncmp(text, head, strlen(head)) == 0);
    cr_assert(strncmp(blank + 2, "Metric,Value\n", 13) == 0);
    /* Sorted by tag: inter_chunk_latency before request_latency. */
    char *icl = strstr(text, "\nInter Chunk Latency (ms),");
    char *latency = strstr(text, "\nRequest Latency (ms),35.00,30.00,40.00,70.00,");
    cr_assert_not_null(icl);
    cr_assert_not_null(latency, "%s", text);
    cr_assert_lt(icl, latency);
    cr_assert_lt(latency, blank);
    /* Integer metrics keep integral values as integers. */
    cr_assert_not_null(strstr(text, "\nOutput Sequence Length (tokens),4.50,4,5,9,"), "%s", text);
    /* Scalars: counts have no unit suffix and no decimals. */
    cr_assert_not_null(strstr(blank, "\nRequest Count,2\n"), "%s", blank);
    cr_assert_not_null(strstr(blank, "\nBenchmark Duration (sec),1.03\n"), "%s", blank);
    cr_assert_not_null(strstr(blank, "\nTotal Output Sequence Length (tokens),9\n"), "%s", blank);
    free(text);
}

Test(export_csv, labels_and_quoting)
{
    char label[64];
    export_metric_label(metrics_scalar_info_of(METRICS_S_REQUEST_THROUGHPUT), label, sizeof(label));
    cr_assert_str_eq(label, "Request Throughput (requests/sec)");
    export_metric_label(metrics_scalar_info_of(METRICS_S_ERROR_REQUEST_COUNT), label,
                        sizeof(label));
    cr_assert_str_eq(label, "Error Request Count");
    export_metric_label(metrics_info_of(METRICS_TTFT), label, 8);
    cr_assert_eq(strlen(label), 7, "truncated, NUL-terminated");
}

Test(export_csv, empty_summary_has_both_headers)
{
    struct metrics_summary s = {0};
    char *text = csv_text(&s);
    cr_assert_str_eq(text, "Metric,avg,min,max,sum,p1,p5,p10,p25,p50,p75,p90,p95,p99,std\n\n"
                           "Metric,Value\n");
    free(text);
}

Test(export_files, write_to_paths_and_report_errors)
{
    struct metrics_summary s;
    summary_of_two_requests(&s);
    struct export_run_info info = run_info(NULL);
    char dir[] = "/tmp/ringperf-export-XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char json_path[128], csv_path[128];
    snprintf(json_path, sizeof(json_path), "%s/a.json", dir);
    snprintf(csv_path, sizeof(csv_path), "%s/a.csv", dir);
    cr_assert_eq(export_summary_json_write(json_path, &s, &info), 0);
    cr_assert_eq(export_summary_csv_write(csv_path, &s, NULL), 0);
    json_error_t error;
    json_t *root = json_load_file(json_path, 0, &error);
    cr_assert_not_null(root, "%s", error.text);
    cr_assert(json_is_object(json_object_get(root, "input_config")));
    json_decref(root);
    cr_assert_neq(export_summary_csv_write("/nonexistent/dir/a.csv", &s, NULL), 0);
    cr_assert_eq(export_summary_json_write("/nonexistent/dir/a.json", &s, &info), -ENOENT,
                 "the reason the file could not be written");
    remove(json_path);
    remove(csv_path);
    rmdir(dir);
}

/* error_summary adds up to error_request_count: kinds past the listed ones are one "Other"
 * row with their count. */
Test(export_json, errors_past_the_listed_kinds_are_one_other_row)
{
    struct metrics_summary s;
    summary_of_two_requests(&s);
    struct export_run_info info = run_info(json_object());
    info.errors_unlisted = 7;
    json_t *root = export_summary_json(&s, &info);
    cr_assert_not_null(root);
    json_t *rows = json_object_get(root, "error_summary");
    cr_assert_eq(json_array_size(rows), 2);
    json_t *other = json_array_get(rows, 1);
    cr_assert_str_eq(
        json_string_value(json_object_get(json_object_get(other, "error_details"), "type")),
        "Other");
    cr_assert_eq(json_integer_value(json_object_get(other, "count")), 7);
    json_decref(root);
    json_decref(info.input_config);
}
