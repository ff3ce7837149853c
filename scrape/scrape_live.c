/*
 * scrape_live.c - the scraper's live picture: after every successful fetch, the fetching thread
 * reads the record it just kept (the store is its own) into the server figures and the GPUs'
 * latest fields, then copies the picture out under a mutex of its own, so that a reader never
 * waits for a fetch. The counters' figures are taken from the fetch before the current phase
 * began (the coordinator's boundary fetch) to the latest one, as AIPerf's realtime rows are.
 */
#include "scrape/scrape_internal.h"

#include <stdio.h>
#include <string.h>

static const struct scrape_live_figure_info FIGURES[SCRAPE_LIVE_FIGURE_COUNT] = {
    [SCRAPE_LIVE_NUM_RUNNING] = {"num_running", "Server Running Requests", "req"},
    [SCRAPE_LIVE_NUM_WAITING] = {"num_waiting", "Server Waiting Requests", "req"},
    [SCRAPE_LIVE_KV_CACHE_USAGE] = {"kv_cache_usage_pct", "KV Cache Usage", "%"},
    [SCRAPE_LIVE_CPU_KV_CACHE_USAGE] = {"cpu_kv_cache_usage_pct", "CPU KV Cache Usage", "%"},
    [SCRAPE_LIVE_PREFIX_CACHE_HIT_RATE] = {"prefix_cache_hit_rate", "Prefix Cache Hit Rate", "%"},
    [SCRAPE_LIVE_EXTERNAL_PREFIX_CACHE_HIT_RATE] = {"external_prefix_cache_hit_rate",
                                                    "External Prefix Cache Hit Rate", "%"},
    [SCRAPE_LIVE_UNIQUE_INPUT_TOKENS] = {"unique_input_tokens_srv", "Unique Input Tokens",
                                         "tokens"},
    [SCRAPE_LIVE_NUM_PREEMPTIONS] = {"num_preemptions", "Server Preemptions", "req"},
    [SCRAPE_LIVE_INPUT_TOKEN_THROUGHPUT] = {"input_token_throughput_srv", "Server Input Throughput",
                                            "tokens/s"},
    [SCRAPE_LIVE_OUTPUT_TOKEN_THROUGHPUT] = {"output_token_throughput_srv",
                                             "Server Output Throughput", "tokens/s"},
};

/* The servers' families for each figure (vLLM's, then SGLang's), and the scale to its unit. */
static const struct {
    const char *family;
    enum scrape_live_figure figure;
    double scale;
} SOURCES[] = {
    {"vllm:num_requests_running", SCRAPE_LIVE_NUM_RUNNING, 1},
    {"vllm:num_requests_waiting", SCRAPE_LIVE_NUM_WAITING, 1},
    {"vllm:kv_cache_usage_perc", SCRAPE_LIVE_KV_CACHE_USAGE, 100},
    {"vllm:gpu_cache_usage_perc", SCRAPE_LIVE_KV_CACHE_USAGE, 100},
    {"vllm:cpu_cache_usage_perc", SCRAPE_LIVE_CPU_KV_CACHE_USAGE, 100},
    {"sglang:num_running_reqs", SCRAPE_LIVE_NUM_RUNNING, 1},
    {"sglang:num_queue_reqs", SCRAPE_LIVE_NUM_WAITING, 1},
    {"sglang:token_usage", SCRAPE_LIVE_KV_CACHE_USAGE, 100},
};

/* The servers' counters (families as the parser names them, without _total) the other figures
 * are derived from. */
static const struct {
    const char *family;
    enum scrape__live_counter counter;
} COUNTERS[] = {
    {"vllm:prefix_cache_hits", SCRAPE__LC_PREFIX_HITS},
    {"vllm:prefix_cache_queries", SCRAPE__LC_PREFIX_QUERIES},
    {"sglang:cached_tokens", SCRAPE__LC_SGLANG_CACHED},
    {"sglang:prompt_tokens", SCRAPE__LC_SGLANG_PROMPT},
    {"vllm:external_prefix_cache_hits", SCRAPE__LC_EXTERNAL_HITS},
    {"vllm:external_prefix_cache_queries", SCRAPE__LC_EXTERNAL_QUERIES},
    {"vllm:num_preemptions", SCRAPE__LC_PREEMPTIONS},
    {"sglang:num_retracted_reqs", SCRAPE__LC_PREEMPTIONS},
    {"vllm:prompt_tokens", SCRAPE__LC_PROMPT_TOKENS},
    {"sglang:prompt_tokens", SCRAPE__LC_PROMPT_TOKENS},
    {"vllm:generation_tokens", SCRAPE__LC_GENERATION_TOKENS},
    {"sglang:generation_tokens", SCRAPE__LC_GENERATION_TOKENS},
};

const struct scrape_live_figure_info *scrape_live_figure_info_of(enum scrape_live_figure f)
{
    return &FIGURES[f];
}

/* endpoint_figures reads endpoint ep's figures from record r: counts summed over series, the
 * KV-cache usage averaged over them (one per engine or model). */
static void endpoint_figures(struct scrape *s, size_t ep, size_t r)
{
    struct scrape__endpoint_state *e = &s->eps[ep];
    double sum[SCRAPE_LIVE_FIGURE_COUNT] = {0};
    size_t n[SCRAPE_LIVE_FIGURE_COUNT] = {0};
    struct scrape__live_counters now = {.valid = true};
    struct scrape_record rec;
    size_t samples = scrape_record_at(s, r, &rec);
    now.timestamp_ns = rec.timestamp_ns;
    for (size_t j = 0; j < samples; j++) {
        struct scrape_sample_view v;
        scrape_record_sample(s, r, j, &v);
        for (size_t k = 0; k < sizeof(SOURCES) / sizeof(SOURCES[0]); k++) {
            if ((v.type == PROM_GAUGE || v.type == PROM_UNTYPED) &&
                strcmp(v.family, SOURCES[k].family) == 0) {
                sum[SOURCES[k].figure] += v.value * SOURCES[k].scale;
                n[SOURCES[k].figure]++;
            }
        }
        for (size_t k = 0; v.type == PROM_COUNTER && v.suffix == PROM_SUFFIX_TOTAL &&
                           k < sizeof(COUNTERS) / sizeof(COUNTERS[0]);
             k++) {
            if (strcmp(v.family, COUNTERS[k].family) == 0) {
                now.value[COUNTERS[k].counter] += v.value;
                now.has[COUNTERS[k].counter] = true;
            }
        }
    }
    /* A new phase: its baseline is the fetch before this one, the boundary fetch. */
    int phase = atomic_load_explicit(&s->live_phase, memory_order_acquire);
    if (phase != e->live_phase || !e->live_base.valid) {
        e->live_base = e->live_latest.valid ? e->live_latest : now;
        e->live_phase = phase;
    }
    e->live_latest = now;
    for (int f = 0; f < SCRAPE_LIVE_GAUGES; f++) {
        e->live_has[f] = n[f] > 0;
        bool usage = f == SCRAPE_LIVE_KV_CACHE_USAGE || f == SCRAPE_LIVE_CPU_KV_CACHE_USAGE;
        e->live_value[f] = usage && n[f] > 0 ? sum[f] / (double)n[f] : sum[f];
    }
}

/* counter_sums adds each endpoint's counter increases since its baseline (resets clamped to 0)
 * into delta[], and their rates (per second of its own window) into rate[]. */
static void counter_sums(const struct scrape *s, double *delta, double *rate, bool *has)
{
    for (size_t ep = 0; ep < s->cfg.endpoint_count; ep++) {
        const struct scrape__endpoint_state *e = &s->eps[ep];
        const struct scrape__live_counters *a = &e->live_base;
        const struct scrape__live_counters *b = &e->live_latest;
        double seconds = (double)(b->timestamp_ns - a->timestamp_ns) / 1e9;
        for (int c = 0; a->valid && b->valid && c < SCRAPE__LC_COUNT; c++) {
            if (a->has[c] && b->has[c]) {
                double d = b->value[c] > a->value[c] ? b->value[c] - a->value[c] : 0;
                delta[c] += d;
                rate[c] += seconds > 0 ? d / seconds : 0;
                has[c] = has[c] || seconds > 0;
            }
        }
    }
}

static void set_figure(struct scrape_live *b, enum scrape_live_figure f, double v)
{
    b->present[f] = true;
    b->current[f] = v;
    b->avg[f] = v; /* already over the phase, as AIPerf's realtime rows */
}

/* hit_rate is AIPerf's: hits over queries in percent, hits capped at queries. */
static double hit_rate(double hits, double queries)
{
    return 100.0 * (hits < queries ? hits : queries) / queries;
}

/* counter_figures derives the cache, preemption and token-rate figures from the counters. */
static void counter_figures(struct scrape *s)
{
    struct scrape_live *b = &s->live_build;
    double d[SCRAPE__LC_COUNT] = {0};
    double rate[SCRAPE__LC_COUNT] = {0};
    bool has[SCRAPE__LC_COUNT] = {0};
    counter_sums(s, d, rate, has);
    for (int f = SCRAPE_LIVE_GAUGES; f < SCRAPE_LIVE_FIGURE_COUNT; f++) {
        b->present[f] = false;
    }
    if (has[SCRAPE__LC_PREFIX_HITS] && has[SCRAPE__LC_PREFIX_QUERIES] &&
        d[SCRAPE__LC_PREFIX_QUERIES] > 0) {
        double hits = d[SCRAPE__LC_PREFIX_HITS], queries = d[SCRAPE__LC_PREFIX_QUERIES];
        set_figure(b, SCRAPE_LIVE_PREFIX_CACHE_HIT_RATE, hit_rate(hits, queries));
        set_figure(b, SCRAPE_LIVE_UNIQUE_INPUT_TOKENS, queries > hits ? queries - hits : 0);
    } else if (has[SCRAPE__LC_SGLANG_CACHED] && has[SCRAPE__LC_SGLANG_PROMPT] &&
               d[SCRAPE__LC_SGLANG_PROMPT] > 0) {
        double hits = d[SCRAPE__LC_SGLANG_CACHED], prompt = d[SCRAPE__LC_SGLANG_PROMPT];
        set_figure(b, SCRAPE_LIVE_PREFIX_CACHE_HIT_RATE, hit_rate(hits, prompt));
        set_figure(b, SCRAPE_LIVE_UNIQUE_INPUT_TOKENS, prompt > hits ? prompt - hits : 0);
    }
    if (has[SCRAPE__LC_EXTERNAL_HITS] && has[SCRAPE__LC_EXTERNAL_QUERIES] &&
        d[SCRAPE__LC_EXTERNAL_QUERIES] > 0) {
        set_figure(b, SCRAPE_LIVE_EXTERNAL_PREFIX_CACHE_HIT_RATE,
                   hit_rate(d[SCRAPE__LC_EXTERNAL_HITS], d[SCRAPE__LC_EXTERNAL_QUERIES]));
    }
    if (has[SCRAPE__LC_PREEMPTIONS]) {
        set_figure(b, SCRAPE_LIVE_NUM_PREEMPTIONS, d[SCRAPE__LC_PREEMPTIONS]);
    }
    if (has[SCRAPE__LC_PROMPT_TOKENS]) {
        set_figure(b, SCRAPE_LIVE_INPUT_TOKEN_THROUGHPUT, rate[SCRAPE__LC_PROMPT_TOKENS]);
    }
    if (has[SCRAPE__LC_GENERATION_TOKENS]) {
        set_figure(b, SCRAPE_LIVE_OUTPUT_TOKEN_THROUGHPUT, rate[SCRAPE__LC_GENERATION_TOKENS]);
    }
}

/* combine_figures sets the picture's current gauge figures over every endpoint, and their
 * means. */
static void combine_figures(struct scrape *s)
{
    struct scrape_live *b = &s->live_build;
    for (int f = 0; f < SCRAPE_LIVE_GAUGES; f++) {
        double sum = 0;
        size_t n = 0;
        for (size_t ep = 0; ep < s->cfg.endpoint_count; ep++) {
            if (s->eps[ep].live_has[f]) {
                sum += s->eps[ep].live_value[f];
                n++;
            }
        }
        b->present[f] = n > 0;
        if (n == 0) {
            continue;
        }
        bool usage = f == SCRAPE_LIVE_KV_CACHE_USAGE || f == SCRAPE_LIVE_CPU_KV_CACHE_USAGE;
        b->current[f] = usage ? sum / (double)n : sum;
        s->live_sum[f] += b->current[f];
        s->live_count[f]++;
        b->avg[f] = s->live_sum[f] / (double)s->live_count[f];
    }
}

/* gpu_slot finds endpoint ep's GPU `index` in the picture, or adds it; NULL when full. */
static struct scrape_live_gpu *gpu_slot(struct scrape_live *b, size_t ep, const char *index)
{
    for (size_t i = 0; i < b->gpu_count; i++) {
        if (b->gpus[i].endpoint == ep && strcmp(b->gpus[i].index, index) == 0) {
            return &b->gpus[i];
        }
    }
    if (b->gpu_count == SCRAPE_LIVE_GPUS_MAX) {
        return NULL;
    }
    struct scrape_live_gpu *g = &b->gpus[b->gpu_count++];
    memset(g, 0, sizeof(*g));
    g->endpoint = ep;
    snprintf(g->index, sizeof(g->index), "%s", index);
    return g;
}

static void gpu_fields(struct scrape *s, size_t ep, size_t r)
{
    struct scrape_gpu_sample gpus[SCRAPE_GPUS_MAX];
    size_t n = scrape_gpu_samples(s, r, gpus);
    for (size_t i = 0; i < n; i++) {
        struct scrape_live_gpu *g = gpu_slot(&s->live_build, ep, gpus[i].id.index);
        if (g == NULL) {
            return;
        }
        snprintf(g->uuid, sizeof(g->uuid), "%s", gpus[i].id.uuid);
        snprintf(g->model, sizeof(g->model), "%s", gpus[i].id.model);
        memcpy(g->present, gpus[i].present, sizeof(g->present));
        memcpy(g->value, gpus[i].value, sizeof(g->value));
    }
}

void scrape__live_update(struct scrape *s, size_t ep)
{
    size_t r = scrape_record_count(s);
    if (r == 0) {
        return;
    }
    endpoint_figures(s, ep, r - 1);
    combine_figures(s);
    counter_figures(s);
    gpu_fields(s, ep, r - 1);
    s->live_build.fetches++;
    pthread_mutex_lock(&s->live_lock);
    s->live = s->live_build;
    pthread_mutex_unlock(&s->live_lock);
}

void scrape_live_read(struct scrape *s, struct scrape_live *out)
{
    if (s == NULL) {
        memset(out, 0, sizeof(*out));
        return;
    }
    pthread_mutex_lock(&s->live_lock);
    *out = s->live;
    pthread_mutex_unlock(&s->live_lock);
}
