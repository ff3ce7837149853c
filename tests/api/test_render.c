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
    cr_assert_eq(v.bucket_le[0], 0);
}

Test(api_hist_view, latencies_become_seconds_in_cumulative_buckets)
{
    struct metrics_hist *h = NULL;
    cr_assert_eq(metrics_hist_new(1, 3600LL * 1000 * 1000 * 1000, 3, &h), 0);
    metrics_hist_record(h, 500 * 1000);               /* 0.5 ms */
    metrics_hist_record(h, 20 * 1000 * 1000);         /* 20 ms */
    metrics_hist_record(h, 3LL * 1000 * 1000 * 1000); /* 3 s */
    struct api_hist_view v;
    api_hist_view_fill(API_M_TTFT, h, &v);
    const struct api_metric_info *info = api_metric_info_of(API_M_TTFT);
    cr_assert(v.present);
    cr_assert_eq(v.count, 3);
    cr_assert_float_eq(v.sum, 3.0205, 1e-3);
    cr_assert_float_eq(v.max, 3.0, 1e-2);
    for (size_t i = 0; i < info->bucket_count; i++) {
        uint64_t want = info->bounds[i] < 0.0005 ? 0
                        : info->bounds[i] < 0.02 ? 1
                        : info->bounds[i] < 3.0  ? 2
                                                 : 3;
        cr_assert_eq(v.bucket_le[i], want, "le=%g: %llu, want %llu", info->bounds[i],
                     (unsigned long long)v.bucket_le[i], (unsigned long long)want);
        if (i > 0) {
            cr_assert_geq(v.bucket_le[i], v.bucket_le[i - 1], "cumulative");
        }
    }
    metrics_hist_free(h);
}

Test(api_prometheus, exposition_has_counters_and_histograms_in_base_units)
{
    struct api_snapshot *snap = calloc(1, sizeof(*snap));
    snap->state = API_STATE_RUNNING;
    snap->phase = "profiling";
    snap->success = 7;
    snap->errors = 3;
    snap->cancelled = 1;
    snap->shard_count = 2;
    snap->shards[1].requests = 10;
    snap->hist[API_M_TTFT].count = 7;
    snap->hist[API_M_TTFT].sum = 0.25;
    char *buf = malloc(1 << 16);
    long n = api_prometheus_render(snap, buf, 1 << 16);
    cr_assert_gt(n, 0);
    cr_assert_eq((size_t)n, strlen(buf));
    cr_assert_not_null(strstr(buf, "# TYPE ringperf_requests_total counter\n"));
    cr_assert_not_null(
        strstr(buf, "ringperf_requests_total{phase=\"profiling\",result=\"success\"} 7\n"));
    cr_assert_not_null(
        strstr(buf, "ringperf_requests_total{phase=\"profiling\",result=\"error\"} 2\n"));
    cr_assert_not_null(strstr(buf, "ringperf_worker_requests_total{worker=\"1\"} 10\n"));
    cr_assert_not_null(strstr(buf, "# TYPE ringperf_time_to_first_token_seconds histogram\n"));
    cr_assert_not_null(strstr(buf, "ringperf_time_to_first_token_seconds_bucket{le=\"+Inf\"} 7\n"));
    cr_assert_not_null(strstr(buf, "ringperf_time_to_first_token_seconds_sum 0.25\n"));
    cr_assert_not_null(strstr(buf, "ringperf_time_to_first_token_seconds_count 7\n"));
    cr_assert_not_null(strstr(buf, "ringperf_benchmark_running 1\n"));
    cr_assert_eq(buf[n - 1], '\n');
    free(buf);
    free(snap);
}

Test(api_prometheus, too_small_buffer_is_enospc)
{
    struct api_snapshot *snap = calloc(1, sizeof(*snap));
    snap->phase = "profiling";
    char buf[64];
    cr_assert_eq(api_prometheus_render(snap, buf, sizeof(buf)), -ENOSPC);
    cr_assert_eq(buf[0], '\0');
    cr_assert_eq(api_prometheus_render(snap, buf, 0), -ENOSPC);
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
