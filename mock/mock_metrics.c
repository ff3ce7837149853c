/*
 * mock_metrics.c - the mock's vLLM-shaped GET /metrics: requests running and waiting, KV-cache
 * usage, prompt and generation token counters, finished requests, and TTFT and end-to-end
 * latency histograms. Every worker adds to one server-wide set with relaxed atomics (a scrape
 * needs no snapshot consistency across counters), so the counters agree with what was served.
 */
#include "mock/mock_worker.h"

#include <stdio.h>

/* vLLM's TTFT buckets (seconds) and its e2e latency buckets, shortened. */
static const double TTFT_LE[MOCK__METRICS_BUCKETS] = {0.001, 0.005, 0.01, 0.02, 0.04, 0.06,
                                                      0.08,  0.1,   0.25, 0.5,  1.0,  2.5};
static const double E2E_LE[MOCK__METRICS_BUCKETS] = {0.01, 0.025, 0.05, 0.1,  0.25, 0.5,
                                                     1.0,  2.5,   5.0,  10.0, 30.0, 60.0};

/* A pretend KV-cache capacity in requests: usage is running / capacity, at most 1. */
#define KV_CACHE_REQUESTS 64

static void add(uint64_t *v, uint64_t n)
{
    __atomic_fetch_add(v, n, __ATOMIC_RELAXED);
}

static uint64_t get(const uint64_t *v)
{
    return __atomic_load_n(v, __ATOMIC_RELAXED);
}

void mock__metrics_started(struct mock__metrics *m)
{
    add(&m->running, 1);
}

static void observe(struct mock__metrics_hist *h, const double *le, uint64_t ns)
{
    double s = (double)ns / 1e9;
    for (size_t i = 0; i < MOCK__METRICS_BUCKETS; i++) {
        if (s <= le[i]) {
            add(&h->buckets[i], 1);
        }
    }
    add(&h->count, 1);
    add(&h->sum_ns, ns);
}

void mock__metrics_finished(struct mock__metrics *m, const struct mock__job *job, bool served,
                            uint64_t ttft_ns, uint64_t e2e_ns)
{
    __atomic_fetch_sub(&m->running, 1, __ATOMIC_RELAXED);
    if (!served) {
        return; /* a faulted answer: vLLM would not count it as finished either */
    }
    add(&m->prompt_tokens, job->prompt_tokens);
    add(&m->generation_tokens, job->output_tokens);
    add(&m->prefix_cache_hits, job->cached_tokens);
    add(job->limit_given ? &m->finished_length : &m->finished_stop, 1);
    observe(&m->ttft, TTFT_LE, ttft_ns);
    observe(&m->e2e, E2E_LE, e2e_ns);
}

static void put_double(struct mock__buf *b, double v)
{
    char num[40];
    int n = snprintf(num, sizeof(num), "%.17g", v);
    mock__buf_put(b, num, (size_t)n);
}

static void put_family(struct mock__buf *b, const char *name, const char *type, const char *help)
{
    mock__buf_str(b, "# HELP ");
    mock__buf_str(b, name);
    mock__buf_put(b, " ", 1);
    mock__buf_str(b, help);
    mock__buf_str(b, "\n# TYPE ");
    mock__buf_str(b, name);
    mock__buf_put(b, " ", 1);
    mock__buf_str(b, type);
    mock__buf_put(b, "\n", 1);
}

static void put_sample(struct mock__buf *b, const char *name, const char *labels, double v)
{
    mock__buf_str(b, name);
    mock__buf_str(b, "{model_name=\"mock\"");
    mock__buf_str(b, labels);
    mock__buf_str(b, "} ");
    put_double(b, v);
    mock__buf_put(b, "\n", 1);
}

static void put_hist(struct mock__buf *b, const char *name, const char *help,
                     const struct mock__metrics_hist *h, const double *le)
{
    char sample[160];
    put_family(b, name, "histogram", help);
    for (size_t i = 0; i <= MOCK__METRICS_BUCKETS; i++) {
        char label[64];
        if (i < MOCK__METRICS_BUCKETS) {
            snprintf(label, sizeof(label), ",le=\"%g\"", le[i]);
        } else {
            snprintf(label, sizeof(label), ",le=\"+Inf\"");
        }
        snprintf(sample, sizeof(sample), "%s_bucket", name);
        const uint64_t *count = i < MOCK__METRICS_BUCKETS ? &h->buckets[i] : &h->count;
        put_sample(b, sample, label, (double)get(count));
    }
    snprintf(sample, sizeof(sample), "%s_sum", name);
    put_sample(b, sample, "", (double)get(&h->sum_ns) / 1e9);
    snprintf(sample, sizeof(sample), "%s_count", name);
    put_sample(b, sample, "", (double)get(&h->count));
}

void mock__metrics_fmt(const struct mock__metrics *m, struct mock__buf *b)
{
    double running = (double)(int64_t)get(&m->running);
    put_family(b, "vllm:num_requests_running", "gauge", "Number of requests in model execution.");
    put_sample(b, "vllm:num_requests_running", "", running);
    put_family(b, "vllm:num_requests_waiting", "gauge", "Number of requests waiting.");
    put_sample(b, "vllm:num_requests_waiting", "", 0);
    put_family(b, "vllm:kv_cache_usage_perc", "gauge", "KV-cache usage. 1 means 100 percent.");
    double usage = running / KV_CACHE_REQUESTS;
    put_sample(b, "vllm:kv_cache_usage_perc", "", usage < 1 ? usage : 1);
    put_family(b, "vllm:prompt_tokens_total", "counter", "Number of prefill tokens processed.");
    put_sample(b, "vllm:prompt_tokens_total", "", (double)get(&m->prompt_tokens));
    put_family(b, "vllm:generation_tokens_total", "counter",
               "Number of generation tokens processed.");
    put_sample(b, "vllm:generation_tokens_total", "", (double)get(&m->generation_tokens));
    /* vLLM counts prefix-cache queries and hits in tokens: every prompt token is a query. */
    put_family(b, "vllm:prefix_cache_queries_total", "counter",
               "Prefix cache queries, in terms of number of queried tokens.");
    put_sample(b, "vllm:prefix_cache_queries_total", "", (double)get(&m->prompt_tokens));
    put_family(b, "vllm:prefix_cache_hits_total", "counter",
               "Prefix cache hits, in terms of number of cached tokens.");
    put_sample(b, "vllm:prefix_cache_hits_total", "", (double)get(&m->prefix_cache_hits));
    put_family(b, "vllm:request_success_total", "counter",
               "Count of successfully processed requests.");
    put_sample(b, "vllm:request_success_total", ",finished_reason=\"stop\"",
               (double)get(&m->finished_stop));
    put_sample(b, "vllm:request_success_total", ",finished_reason=\"length\"",
               (double)get(&m->finished_length));
    put_hist(b, "vllm:time_to_first_token_seconds", "Histogram of time to first token in seconds.",
             &m->ttft, TTFT_LE);
    put_hist(b, "vllm:e2e_request_latency_seconds",
             "Histogram of end to end request latency in seconds.", &m->e2e, E2E_LE);
}

/* The mock's two pretend GPUs: constant power, so that energy follows a known line. */
static const struct {
    const char *uuid;
    double watts;
    double util;
} GPUS[] = {{"GPU-mock-0", 250.0, 50.0}, {"GPU-mock-1", 150.0, 30.0}};

static void put_dcgm(struct mock__buf *b, const char *name, const char *type, size_t gpu, double v)
{
    if (gpu == 0) {
        put_family(b, name, type, "DCGM field.");
    }
    char labels[256];
    int n =
        snprintf(labels, sizeof(labels),
                 "{gpu=\"%zu\",UUID=\"%s\",pci_bus_id=\"00000000:%02zX:00.0\",device=\"nvidia%zu\","
                 "modelName=\"Mock GPU\",Hostname=\"mock\"} ",
                 gpu, GPUS[gpu].uuid, gpu + 1, gpu);
    mock__buf_str(b, name);
    mock__buf_put(b, labels, (size_t)n);
    put_double(b, v);
    mock__buf_put(b, "\n", 1);
}

void mock__metrics_fmt_dcgm(struct mock__buf *b, uint64_t now_ns)
{
    size_t count = sizeof(GPUS) / sizeof(GPUS[0]);
    double seconds = (double)now_ns / 1e9;
    for (size_t g = 0; g < count; g++) {
        put_dcgm(b, "DCGM_FI_DEV_POWER_USAGE", "gauge", g, GPUS[g].watts);
    }
    for (size_t g = 0; g < count; g++) {
        /* mJ since the clock's start: what matters is the slope, watts x 1000 per second. */
        put_dcgm(b, "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", "counter", g,
                 GPUS[g].watts * seconds * 1e3);
    }
    for (size_t g = 0; g < count; g++) {
        put_dcgm(b, "DCGM_FI_DEV_GPU_UTIL", "gauge", g, GPUS[g].util);
    }
    for (size_t g = 0; g < count; g++) {
        put_dcgm(b, "DCGM_FI_DEV_FB_USED", "gauge", g, 2048);
    }
    for (size_t g = 0; g < count; g++) {
        put_dcgm(b, "DCGM_FI_PROF_SM_ACTIVE", "gauge", g, 0.5);
    }
}
