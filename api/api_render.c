/*
 * api_render.c - snapshot values: histogram views, the Prometheus text
 * exposition and the JSON bodies of /api/metrics, /api/progress and
 * /api/workers. Everything here is pure: no I/O, no locks.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "api/api_internal.h"

static const double latency_bounds_s[] = {0.001, 0.0025, 0.005, 0.01,  0.025, 0.05,
                                          0.1,   0.25,   0.5,   1.0,   2.5,   5.0,
                                          10.0,  25.0,   50.0,  100.0, 250.0, 600.0};
static const double itl_bounds_s[] = {0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05,
                                      0.1,    0.2,   0.5,   1.0,   2.0,  5.0};
static const double token_bounds[] = {1,     2,     4,     8,      16,     32,     64,
                                      128,   256,   512,   1024,   2048,   4096,   8192,
                                      16384, 32768, 65536, 131072, 262144, 524288, 1048576};

#define COUNT_OF(a) (sizeof(a) / sizeof((a)[0]))

static const struct api_metric_info metric_infos[API_METRIC_COUNT] = {
    [API_M_TTFT] = {"time_to_first_token", "ringperf_time_to_first_token_seconds", "seconds", 1e-9,
                    latency_bounds_s, COUNT_OF(latency_bounds_s), METRICS_TTFT},
    [API_M_ITL] = {"inter_token_latency", "ringperf_inter_token_latency_seconds", "seconds", 1e-9,
                   itl_bounds_s, COUNT_OF(itl_bounds_s), METRICS_ITL},
    [API_M_REQUEST_LATENCY] = {"request_latency", "ringperf_request_latency_seconds", "seconds",
                               1e-9, latency_bounds_s, COUNT_OF(latency_bounds_s),
                               METRICS_REQUEST_LATENCY},
    [API_M_OSL] = {"output_sequence_length", "ringperf_output_sequence_length_tokens", "tokens",
                   1.0, token_bounds, COUNT_OF(token_bounds), METRICS_OSL},
    [API_M_ISL] = {"input_sequence_length", "ringperf_input_sequence_length_tokens", "tokens", 1.0,
                   token_bounds, COUNT_OF(token_bounds), METRICS_ISL},
};

_Static_assert(COUNT_OF(latency_bounds_s) <= API_BUCKETS_MAX, "bucket table too long");
_Static_assert(COUNT_OF(token_bounds) <= API_BUCKETS_MAX, "bucket table too long");

const struct api_metric_info *api_metric_info_of(enum api_metric m)
{
    return (unsigned)m < API_METRIC_COUNT ? &metric_infos[m] : &metric_infos[0];
}

const char *api_state_name(enum api_state state)
{
    switch (state) {
    case API_STATE_STARTING:
        return "starting";
    case API_STATE_RUNNING:
        return "running";
    case API_STATE_COMPLETE:
        return "complete";
    case API_STATE_FAILED:
        return "failed";
    }
    return "unknown";
}

void api_hist_view_fill(enum api_metric m, const struct metrics_hist *h, struct api_hist_view *out)
{
    memset(out, 0, sizeof(*out));
    if (h == NULL || metrics_hist_count(h) == 0) {
        return;
    }
    const struct api_metric_info *info = api_metric_info_of(m);
    double f = info->base_per_hist_unit;
    out->present = true;
    out->count = metrics_hist_count(h);
    out->sum = metrics_hist_sum(h) * f;
    out->avg = metrics_hist_mean(h) * f;
    out->min = (double)metrics_hist_min(h) * f;
    out->max = (double)metrics_hist_max(h) * f;
    out->p50 = (double)metrics_hist_value_at_percentile(h, 50) * f;
    out->p90 = (double)metrics_hist_value_at_percentile(h, 90) * f;
    out->p99 = (double)metrics_hist_value_at_percentile(h, 99) * f;
    /* A bucket is placed by its lowest value: every value in it is >= that,
     * so a bucket straddling a bound counts below it by at most its width. */
    uint64_t per_bound[API_BUCKETS_MAX] = {0};
    struct metrics_hist_iter it;
    metrics_hist_iter_init(&it, h);
    while (metrics_hist_iter_next(&it)) {
        double v = (double)it.lowest_value * f;
        for (size_t i = 0; i < info->bucket_count; i++) {
            if (v <= info->bounds[i]) {
                per_bound[i] += it.count;
                break;
            }
        }
    }
    uint64_t running = 0;
    for (size_t i = 0; i < info->bucket_count; i++) {
        running += per_bound[i];
        out->bucket_le[i] = running;
    }
}

/* out is a bounded appender: the first overflow sticks. */
struct out {
    char *buf;
    size_t cap;
    size_t len;
    bool overflow;
};

__attribute__((format(printf, 2, 3))) static void put(struct out *o, const char *fmt, ...)
{
    if (o->overflow) {
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(o->buf + o->len, o->cap - o->len, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= o->cap - o->len) {
        o->overflow = true;
        return;
    }
    o->len += (size_t)n;
}

static void put_family(struct out *o, const char *name, const char *type, const char *help)
{
    put(o, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static void put_histogram(struct out *o, enum api_metric m, const struct api_hist_view *v)
{
    const struct api_metric_info *info = api_metric_info_of(m);
    char help[128];
    snprintf(help, sizeof(help), "AIPerf %s of successful requests, in %s.", info->tag, info->unit);
    put_family(o, info->prom_name, "histogram", help);
    for (size_t i = 0; i < info->bucket_count; i++) {
        put(o, "%s_bucket{le=\"%.17g\"} %llu\n", info->prom_name, info->bounds[i],
            (unsigned long long)v->bucket_le[i]);
    }
    put(o, "%s_bucket{le=\"+Inf\"} %llu\n", info->prom_name, (unsigned long long)v->count);
    put(o, "%s_sum %.17g\n%s_count %llu\n", info->prom_name, v->sum, info->prom_name,
        (unsigned long long)v->count);
}

static void put_counters(struct out *o, const struct api_snapshot *snap)
{
    put_family(o, "ringperf_requests_total", "counter",
               "Requests finished in the current phase, by result.");
    put(o, "ringperf_requests_total{phase=\"%s\",result=\"success\"} %llu\n", snap->phase,
        (unsigned long long)snap->success);
    put(o, "ringperf_requests_total{phase=\"%s\",result=\"error\"} %llu\n", snap->phase,
        (unsigned long long)(snap->errors - snap->cancelled));
    put(o, "ringperf_requests_total{phase=\"%s\",result=\"cancelled\"} %llu\n", snap->phase,
        (unsigned long long)snap->cancelled);
    put_family(o, "ringperf_output_tokens_total", "counter",
               "Output tokens (reasoning included) of successful requests.");
    put(o, "ringperf_output_tokens_total %.17g\n", snap->hist[API_M_OSL].sum);
    put_family(o, "ringperf_input_tokens_total", "counter", "Input tokens of successful requests.");
    put(o, "ringperf_input_tokens_total %.17g\n", snap->hist[API_M_ISL].sum);
    put_family(o, "ringperf_worker_requests_total", "counter",
               "Requests finished per worker (engine shard).");
    for (uint32_t i = 0; i < snap->shard_count && i < API_SHARDS_MAX; i++) {
        put(o, "ringperf_worker_requests_total{worker=\"%u\"} %llu\n", i,
            (unsigned long long)snap->shards[i].requests);
    }
    put_family(o, "ringperf_worker_errors_total", "counter",
               "Failed requests per worker (engine shard).");
    for (uint32_t i = 0; i < snap->shard_count && i < API_SHARDS_MAX; i++) {
        put(o, "ringperf_worker_errors_total{worker=\"%u\"} %llu\n", i,
            (unsigned long long)snap->shards[i].errors);
    }
}

static void put_gauges(struct out *o, const struct api_snapshot *snap)
{
    put_family(o, "ringperf_benchmark_running", "gauge", "1 while the benchmark is running.");
    put(o, "ringperf_benchmark_running %d\n", snap->state == API_STATE_RUNNING);
    put_family(o, "ringperf_benchmark_elapsed_seconds", "gauge",
               "Seconds since the current phase started.");
    put(o, "ringperf_benchmark_elapsed_seconds %.17g\n", (double)snap->elapsed_ns / 1e9);
    put_family(o, "ringperf_requests_expected", "gauge",
               "Requests the phase will send; 0 when it is limited by duration.");
    put(o, "ringperf_requests_expected %llu\n", (unsigned long long)snap->total);
    put_family(o, "ringperf_request_throughput_per_second", "gauge",
               "Successful requests per second so far.");
    put(o, "ringperf_request_throughput_per_second %.17g\n", snap->request_throughput);
    put_family(o, "ringperf_output_token_throughput_per_second", "gauge",
               "Output tokens per second so far.");
    put(o, "ringperf_output_token_throughput_per_second %.17g\n", snap->output_token_throughput);
}

long api_prometheus_render(const struct api_snapshot *snap, char *buf, size_t cap)
{
    struct out o = {.buf = buf, .cap = cap};
    if (cap == 0) {
        return -ENOSPC;
    }
    buf[0] = '\0';
    put_counters(&o, snap);
    put_gauges(&o, snap);
    for (int m = 0; m < API_METRIC_COUNT; m++) {
        put_histogram(&o, (enum api_metric)m, &snap->hist[m]);
    }
    if (o.overflow) {
        buf[0] = '\0';
        return -ENOSPC;
    }
    return (long)o.len;
}

/* metric_json is AIPerf's metric shape: unit and statistics in display
 * units (ms for latencies, as profile_export_aiperf.json). */
static json_t *metric_json(enum api_metric m, const struct api_hist_view *v)
{
    const struct api_metric_info *info = api_metric_info_of(m);
    bool seconds = strcmp(info->unit, "seconds") == 0;
    double k = seconds ? 1e3 : 1.0;
    return json_pack("{s:s, s:f, s:f, s:f, s:f, s:f, s:f, s:I}", "unit", seconds ? "ms" : "tokens",
                     "avg", v->avg * k, "min", v->min * k, "max", v->max * k, "p50", v->p50 * k,
                     "p90", v->p90 * k, "p99", v->p99 * k, "count", (json_int_t)v->count);
}

json_t *api__metrics_json(const struct api_snapshot *snap)
{
    json_t *metrics = json_object();
    json_t *root =
        json_pack("{s:s, s:s, s:f, s:o}", "state", api_state_name(snap->state), "phase",
                  snap->phase, "elapsed_sec", (double)snap->elapsed_ns / 1e9, "metrics", metrics);
    if (root == NULL) {
        return NULL;
    }
    for (int m = 0; m < API_METRIC_COUNT; m++) {
        if (snap->hist[m].present) {
            json_object_set_new(metrics, api_metric_info_of((enum api_metric)m)->tag,
                                metric_json((enum api_metric)m, &snap->hist[m]));
        }
    }
    json_object_set_new(
        metrics, "request_count",
        json_pack("{s:s, s:I}", "unit", "requests", "avg", (json_int_t)snap->success));
    json_object_set_new(
        metrics, "error_request_count",
        json_pack("{s:s, s:I}", "unit", "requests", "avg", (json_int_t)snap->errors));
    json_object_set_new(
        metrics, "request_throughput",
        json_pack("{s:s, s:f}", "unit", "requests/sec", "avg", snap->request_throughput));
    json_object_set_new(
        metrics, "output_token_throughput",
        json_pack("{s:s, s:f}", "unit", "tokens/sec", "avg", snap->output_token_throughput));
    return root;
}

json_t *api__progress_json(const struct api_snapshot *snap)
{
    double elapsed_s = (double)snap->elapsed_ns / 1e9;
    double percent = 0;
    if (snap->total > 0) {
        percent = 100.0 * (double)snap->finished / (double)snap->total;
    } else if (snap->duration_target_s > 0) {
        percent = 100.0 * elapsed_s / snap->duration_target_s;
    }
    if (percent > 100.0) {
        percent = 100.0;
    }
    json_t *phase = json_pack(
        "{s:s, s:I, s:I, s:I, s:I, s:I, s:f, s:f, s:f, s:b}", "phase", snap->phase,
        "requests_total", (json_int_t)snap->total, "requests_completed", (json_int_t)snap->finished,
        "requests_success", (json_int_t)snap->success, "requests_error", (json_int_t)snap->errors,
        "requests_cancelled", (json_int_t)snap->cancelled, "percent_complete", percent,
        "elapsed_sec", elapsed_s, "requests_per_sec",
        elapsed_s > 0 ? (double)snap->finished / elapsed_s : 0.0, "is_complete",
        snap->state == API_STATE_COMPLETE || snap->state == API_STATE_FAILED);
    if (phase == NULL) {
        return NULL;
    }
    json_t *phases = json_object();
    json_object_set_new(phases, snap->phase, phase);
    return json_pack("{s:s, s:o}", "state", api_state_name(snap->state), "phases", phases);
}

json_t *api__workers_json(const struct api_snapshot *snap)
{
    json_t *workers = json_object();
    if (workers == NULL) {
        return NULL;
    }
    const char *state = snap->state == API_STATE_RUNNING    ? "running"
                        : snap->state == API_STATE_STARTING ? "starting"
                                                            : "stopped";
    for (uint32_t i = 0; i < snap->shard_count && i < API_SHARDS_MAX; i++) {
        char id[32];
        snprintf(id, sizeof(id), "worker_%u", i);
        json_object_set_new(
            workers, id,
            json_pack("{s:s, s:I, s:I, s:I, s:s}", "worker_id", id, "requests_completed",
                      (json_int_t)snap->shards[i].requests, "requests_success",
                      (json_int_t)(snap->shards[i].requests - snap->shards[i].errors),
                      "requests_error", (json_int_t)snap->shards[i].errors, "state", state));
    }
    return json_pack("{s:I, s:o}", "worker_count", (json_int_t)snap->shard_count, "workers",
                     workers);
}
