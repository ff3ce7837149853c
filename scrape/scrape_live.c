/*
 * scrape_live.c - the scraper's live picture: after every successful fetch, the fetching thread
 * reads the record it just kept (the store is its own) into the server figures and the GPUs'
 * latest fields, then copies the picture out under a mutex of its own, so that a reader never
 * waits for a fetch.
 */
#include "scrape/scrape_internal.h"

#include <stdio.h>
#include <string.h>

static const struct scrape_live_figure_info FIGURES[SCRAPE_LIVE_FIGURE_COUNT] = {
    [SCRAPE_LIVE_NUM_RUNNING] = {"num_running", "Server Running Requests", "req"},
    [SCRAPE_LIVE_NUM_WAITING] = {"num_waiting", "Server Waiting Requests", "req"},
    [SCRAPE_LIVE_KV_CACHE_USAGE] = {"kv_cache_usage_pct", "KV Cache Usage", "%"},
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
    {"sglang:num_running_reqs", SCRAPE_LIVE_NUM_RUNNING, 1},
    {"sglang:num_queue_reqs", SCRAPE_LIVE_NUM_WAITING, 1},
    {"sglang:token_usage", SCRAPE_LIVE_KV_CACHE_USAGE, 100},
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
    struct scrape_record rec;
    size_t samples = scrape_record_at(s, r, &rec);
    for (size_t j = 0; j < samples; j++) {
        struct scrape_sample_view v;
        scrape_record_sample(s, r, j, &v);
        for (size_t k = 0; k < sizeof(SOURCES) / sizeof(SOURCES[0]); k++) {
            if (strcmp(v.family, SOURCES[k].family) == 0) {
                sum[SOURCES[k].figure] += v.value * SOURCES[k].scale;
                n[SOURCES[k].figure]++;
            }
        }
    }
    for (int f = 0; f < SCRAPE_LIVE_FIGURE_COUNT; f++) {
        e->live_has[f] = n[f] > 0;
        e->live_value[f] =
            f == SCRAPE_LIVE_KV_CACHE_USAGE && n[f] > 0 ? sum[f] / (double)n[f] : sum[f];
    }
}

/* combine_figures sets the picture's current figures over every endpoint, and their means. */
static void combine_figures(struct scrape *s)
{
    struct scrape_live *b = &s->live_build;
    for (int f = 0; f < SCRAPE_LIVE_FIGURE_COUNT; f++) {
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
        b->current[f] = f == SCRAPE_LIVE_KV_CACHE_USAGE ? sum / (double)n : sum;
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
