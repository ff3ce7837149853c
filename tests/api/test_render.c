/*
 * api/ without sockets: histogram views, the Prometheus exposition, the
 * JSON bodies' inputs, safe artifact names and the environment.
 */
#include <criterion/criterion.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"

Test(api_hist_view, empty_histogram_is_absent_and_zero)
{
    struct api_hist_view v;
    memset(&v, 0xab, sizeof(v));
    api_hist_view_fill(API_M_TTFT, NULL, &v);
    cr_assert(!v.present);
    cr_assert_eq(v.count, 0);
    cr_assert_eq(v.p50, 0);
}

Test(api_hist_view, latencies_are_in_milliseconds_as_aiperf_shows_them)
{
    struct metrics_hist *h = NULL;
    cr_assert_eq(metrics_record_hist_new(METRICS_TTFT, 3, &h), 0);
    metrics_hist_record(h, 500 * 1000);               /* 0.5 ms */
    metrics_hist_record(h, 20 * 1000 * 1000);         /* 20 ms */
    metrics_hist_record(h, 3LL * 1000 * 1000 * 1000); /* 3 s */
    struct api_hist_view v;
    api_hist_view_fill(API_M_TTFT, h, &v);
    cr_assert(v.present);
    cr_assert_eq(v.count, 3);
    cr_assert_float_eq(v.sum, 3020.5, 3.0);
    cr_assert_float_eq(v.min, 0.5, 1e-3);
    cr_assert_float_eq(v.max, 3000, 3.0);
    cr_assert_float_eq(v.p50, 20, 0.05);
    cr_assert(v.p1 <= v.p25 && v.p25 <= v.p50 && v.p50 <= v.p95 && v.p95 <= v.p99);
    metrics_hist_free(h);
}

static const struct api_labels labels = {
    .benchmark_id = "abc",
    .model = "m",
    .endpoint_type = "chat",
    .streaming = true,
    .concurrency = 8,
    .version = "0.8.0",
};

#define LABELS                                                                                     \
    "benchmark_id=\"abc\",model=\"m\",endpoint_type=\"chat\",streaming=\"true\",concurrency=\"8\""

/* AIPerf's /metrics (spec §4.2, §4.3): aiperf_info, then a summary and gauges per record metric,
 * named aiperf_<tag>[_<stat>]_<unit>, values as Python's str() writes them; no histograms. */
Test(api_prometheus, exposition_is_aiperfs_summaries_and_gauges)
{
    struct api_snapshot *snap = calloc(1, sizeof(*snap));
    snap->state = API_STATE_RUNNING;
    snap->phase = "profiling";
    snap->finished = 10;
    snap->success = 7;
    snap->errors = 3;
    snap->request_throughput = 2.5;
    snap->output_token_throughput = 100;
    struct api_hist_view *v = &snap->hist[API_M_REQUEST_LATENCY];
    *v = (struct api_hist_view){.present = true,
                                .count = 7,
                                .sum = 17.5,
                                .avg = 2.5,
                                .min = 1,
                                .max = 4,
                                .std = 0.5,
                                .p1 = 0.0025,
                                .p50 = 2.5,
                                .p99 = 4};
    char *buf = malloc(1 << 16);
    long n = api_prometheus_render(snap, &labels, buf, 1 << 16);
    cr_assert_gt(n, 0);
    cr_assert_eq((size_t)n, strlen(buf));
    const char *want[] = {
        "# HELP aiperf_info AIPerf benchmark information\n# TYPE aiperf_info gauge\n"
        "aiperf_info{" LABELS ",version=\"0.8.0\"} 1\n\n",
        "# HELP aiperf_request_latency_ms Request Latency (in ms)\n"
        "# TYPE aiperf_request_latency_ms summary\n"
        "aiperf_request_latency_ms{" LABELS ",quantile=\"0.01\"} 0.0025\n",
        "aiperf_request_latency_ms{" LABELS ",quantile=\"0.5\"} 2.5\n",
        "aiperf_request_latency_ms_sum{" LABELS "} 17.5\n",
        "aiperf_request_latency_ms_count{" LABELS "} 7\n",
        "# HELP aiperf_request_latency_avg_ms Request Latency average (in ms)\n"
        "# TYPE aiperf_request_latency_avg_ms gauge\n"
        "aiperf_request_latency_avg_ms{" LABELS "} 2.5\n",
        "aiperf_request_latency_std_ms{" LABELS "} 0.5\n",
        "aiperf_request_throughput_avg_requests_per_sec{" LABELS "} 2.5\n",
        "aiperf_request_throughput_count_requests_per_sec{" LABELS "} 1\n",
        "aiperf_output_token_throughput_avg_tps{" LABELS "} 100.0\n",
        "aiperf_request_count_avg_requests{" LABELS "} 7.0\n",
    };
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
        cr_assert_not_null(strstr(buf, want[i]), "missing:\n%s\nin:\n%s", want[i], buf);
    }
    cr_assert_eq(strncmp(buf, "# HELP aiperf_info ", 19), 0, "aiperf_info comes first");
    cr_assert_null(strstr(buf, "ringperf_"));
    cr_assert_null(strstr(buf, "_bucket"), "no histogram buckets");
    cr_assert_null(strstr(buf, "time_to_first_token"), "absent metrics are left out");
    cr_assert_eq(buf[n - 1], '\n');
    free(buf);
    free(snap);
}

Test(api_prometheus, labels_are_escaped_and_rate_runs_carry_their_rate)
{
    struct api_snapshot *snap = calloc(1, sizeof(*snap));
    snap->phase = "profiling";
    snap->finished = 1;
    struct api_labels rate = {.benchmark_id = "b",
                              .model = "a\"b\\c\nd",
                              .endpoint_type = "chat",
                              .request_rate = 10,
                              .version = "v"};
    char *buf = malloc(1 << 16);
    cr_assert_gt(api_prometheus_render(snap, &rate, buf, 1 << 16), 0);
    cr_assert_not_null(strstr(buf, "aiperf_info{benchmark_id=\"b\",model=\"a\\\"b\\\\c\\nd\","
                                   "endpoint_type=\"chat\",streaming=\"false\","
                                   "request_rate=\"10.0\",version=\"v\"} 1\n"),
                       "%s", buf);
    free(buf);
    free(snap);
}

Test(api_prometheus, nothing_to_report_is_an_empty_body)
{
    struct api_snapshot *snap = calloc(1, sizeof(*snap));
    snap->phase = "profiling";
    char buf[64];
    cr_assert_eq(api_prometheus_render(snap, &labels, buf, sizeof(buf)), 0);
    cr_assert_str_eq(buf, "");
    free(snap);
}

Test(api_prometheus, too_small_buffer_is_enospc)
{
    struct api_snapshot *snap = calloc(1, sizeof(*snap));
    snap->phase = "profiling";
    snap->finished = 1;
    char buf[64];
    cr_assert_eq(api_prometheus_render(snap, &labels, buf, sizeof(buf)), -ENOSPC);
    cr_assert_eq(buf[0], '\0');
    cr_assert_eq(api_prometheus_render(snap, &labels, buf, 0), -ENOSPC);
    free(snap);
}

struct name_case {
    const char *name;
    bool safe;
};

static const struct name_case name_cases[] = {
    {"profile_export_aiperf.json", true},
    {"logs/aiperf.log", true},
    {"a.b/c..d/...", true},
    {"", false},
    {"/etc/passwd", false},
    {"..", false},
    {"../x", false},
    {"logs/../../x", false},
    {"logs/..", false},
    {"./x", false},
    {"logs/./x", false},
    {"logs//x", false},
    {"logs/", false},
    {"a\\..\\b", false},
    {"a\nb", false},
    {"a\x7f", false},
};

Test(api_filename, traversal_and_odd_names_are_refused)
{
    for (size_t i = 0; i < sizeof(name_cases) / sizeof(name_cases[0]); i++) {
        const struct name_case *c = &name_cases[i];
        cr_assert_eq(api_filename_is_safe(c->name, strlen(c->name)), c->safe, "'%s'", c->name);
    }
    cr_assert(!api_filename_is_safe("a\0b", 3), "embedded NUL");
    char *long_name = malloc(API_FILENAME_BYTES_MAX + 2);
    memset(long_name, 'a', API_FILENAME_BYTES_MAX + 1);
    cr_assert(api_filename_is_safe(long_name, API_FILENAME_BYTES_MAX));
    cr_assert(!api_filename_is_safe(long_name, API_FILENAME_BYTES_MAX + 1));
    free(long_name);
}

Test(api_env, port_and_grace_from_the_environment)
{
    char *env_ok[] = {"X=1", "AIPERF_API_SERVER_PORT=9097",
                      "AIPERF_API_SERVER_POST_COMPLETE_GRACE=1.5", NULL};
    char *env_bad[] = {"AIPERF_API_SERVER_PORT=70000", "AIPERF_API_SERVER_POST_COMPLETE_GRACE=x",
                       NULL};
    char *env_none[] = {NULL};
    uint16_t port = 1;
    cr_assert(api_port_from_env(env_ok, &port));
    cr_assert_eq(port, 9097);
    cr_assert_eq(api_grace_ms_from_env(env_ok), 1500);
    cr_assert(!api_port_from_env(env_bad, &port));
    cr_assert_eq(api_grace_ms_from_env(env_bad), API_DEFAULT_GRACE_MS);
    cr_assert(!api_port_from_env(env_none, &port));
    cr_assert_eq(api_grace_ms_from_env(env_none), API_DEFAULT_GRACE_MS);
}

Test(api_state, names)
{
    cr_assert_str_eq(api_state_name(API_STATE_RUNNING), "running");
    cr_assert_str_eq(api_state_name(API_STATE_COMPLETE), "complete");
}

/* The injected sweep-line metrics (spec §4.2): a summary of quantiles 0.5..0.99 only, without
 * _sum and _count, then the avg/min/max/std gauges; only once the run's sweep is known. */
Test(api_prometheus, sweep_metrics_once_known)
{
    struct api_snapshot *snap = calloc(1, sizeof(*snap));
    snap->phase = "profiling";
    snap->finished = 4;
    snap->success = 4;
    char *buf = malloc(1 << 20);
    cr_assert_gt(api_prometheus_render(snap, &labels, buf, 1 << 20), 0);
    cr_assert_null(strstr(buf, "effective_concurrency"));
    snap->sweep.present = true;
    snap->sweep.stat[METRICS_SW_CONCURRENCY] = (struct metrics_sweep_stats){
        .avg = 3.5, .min = 0, .max = 4, .p50 = 4, .p90 = 4, .p95 = 4, .p99 = 4, .std = 0.25};
    cr_assert_gt(api_prometheus_render(snap, &labels, buf, 1 << 20), 0);
    cr_expect_not_null(strstr(buf, "# TYPE aiperf_effective_concurrency_requests summary\n"));
    cr_expect_not_null(
        strstr(buf, "aiperf_effective_concurrency_requests{" LABELS ",quantile=\"0.5\"} 4.0\n"));
    cr_expect_not_null(
        strstr(buf, "aiperf_effective_concurrency_requests{" LABELS ",quantile=\"0.99\"} 4.0\n"));
    cr_expect_null(
        strstr(buf, "aiperf_effective_concurrency_requests{" LABELS ",quantile=\"0.01\"}"));
    cr_expect_null(strstr(buf, "aiperf_effective_concurrency_requests_sum"));
    cr_expect_null(strstr(buf, "aiperf_effective_concurrency_requests_count"));
    cr_expect_not_null(strstr(buf, "aiperf_effective_concurrency_avg_requests{" LABELS "} 3.5\n"));
    cr_expect_not_null(strstr(buf, "aiperf_effective_concurrency_std_requests{" LABELS "} 0.25\n"));
    cr_expect_not_null(strstr(buf, "aiperf_tokens_in_flight_max_tokens{"));
    cr_expect_not_null(strstr(buf, "aiperf_active_decode_throughput_per_user_tps_per_user{"));
    cr_expect_not_null(strstr(buf, "aiperf_effective_total_throughput_min_tps{"));
    free(buf);
    free(snap);
}
