/*
 * scrape_thread.c - the scraper's thread and the phase marks. The thread sleeps on a condition
 * variable between scrapes, so a phase mark wakes it at once; the coordinator only ever waits
 * for it between engine runs, never while a shard measures.
 */
#include "scrape/scrape_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* TRT-LLM serves its metrics here when /metrics is not found. */
#define FALLBACK_PATH "/prometheus/metrics"

static int64_t wall_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void announce(struct scrape *s, struct scrape__endpoint_state *e, const char *what)
{
    if (!s->cfg.quiet && !e->announced) {
        fprintf(stderr, "ringperf profile: %s: %s: %s; the run goes on%s\n",
                s->cfg.endpoints[e - s->eps].nvml ? "GPU telemetry" : "server metrics", e->url,
                what, e->disabled ? " without them" : " and keeps trying");
    }
    e->announced = true;
}

/* use_fallback points the default endpoint at TRT-LLM's path. */
static void use_fallback(struct scrape__endpoint_state *e)
{
    e->fallback_tried = true;
    engine_target_set_path(&e->target, FALLBACK_PATH);
    char *path = strstr(e->url, "://");
    path = path != NULL ? strchr(path + 3, '/') : NULL;
    if (path != NULL) {
        size_t room = sizeof(e->url) - (size_t)(path - e->url);
        snprintf(path, room, "%s", FALLBACK_PATH);
    }
}

static void keep(struct scrape *s, size_t ep, const struct scrape__fetch_result *r)
{
    struct scrape__endpoint_state *e = &s->eps[ep];
    struct scrape_record rec = {
        .endpoint = ep,
        .timestamp_ns = r->done_ns + s->mono_to_wall_ns,
        .request_sent_ns = r->sent_ns + s->mono_to_wall_ns,
        .first_byte_ns = r->first_byte_ns + s->mono_to_wall_ns,
        .latency_ns = r->done_ns - r->sent_ns,
    };
    uint64_t hash;
    int ret = scrape__store_commit(&s->store, &rec, &hash);
    if (ret != 0) {
        e->dropped++;
        return;
    }
    e->last_hash = hash;
    e->have_hash = true;
    scrape__live_update(s, ep);
}

static void scrape_endpoint(struct scrape *s, size_t ep)
{
    struct scrape__endpoint_state *e = &s->eps[ep];
    struct scrape__fetch_result r;
    scrape__fetch(s, ep, &r);
    if (!r.ok && r.not_found && s->cfg.endpoints[ep].is_default && !e->fallback_tried) {
        use_fallback(e);
        scrape__fetch(s, ep, &r);
    }
    if (r.ok) {
        e->tried = true;
        keep(s, ep, &r);
        return;
    }
    e->failures++;
    snprintf(e->last_error, sizeof(e->last_error), "%s", r.error);
    bool first = !e->tried;
    e->tried = true;
    if (first && s->cfg.endpoints[ep].optional) {
        e->disabled = true;
        snprintf(e->disabled_reason, sizeof(e->disabled_reason),
                 "not answering when the run started (probed quietly): %.200s", r.error);
        return;
    }
    if (r.json || r.unavailable) {
        e->disabled = true;
        snprintf(e->disabled_reason, sizeof(e->disabled_reason), "%s", r.error);
    }
    announce(s, e, r.error);
}

static void scrape_all(struct scrape *s)
{
    for (size_t i = 0; i < s->cfg.endpoint_count; i++) {
        if (!s->eps[i].disabled) {
            scrape_endpoint(s, i);
        }
    }
}

static struct timespec abs_time(int64_t mono_ns)
{
    return (struct timespec){.tv_sec = mono_ns / 1000000000LL, .tv_nsec = mono_ns % 1000000000LL};
}

static void *thread_main(void *arg)
{
    struct scrape *s = arg;
    int64_t next_ns = scrape__now_ns() + s->cfg.interval_ns;
    pthread_mutex_lock(&s->lock);
    for (;;) {
        while (!s->stop_requested && s->scrapes_asked == s->scrapes_done &&
               scrape__now_ns() < next_ns) {
            struct timespec until = abs_time(next_ns);
            pthread_cond_timedwait(&s->wake, &s->lock, &until);
        }
        if (s->stop_requested) {
            break;
        }
        uint64_t asked = s->scrapes_asked;
        pthread_mutex_unlock(&s->lock);
        next_ns = scrape__now_ns() + s->cfg.interval_ns;
        scrape_all(s);
        pthread_mutex_lock(&s->lock);
        s->scrapes_done = asked;
        pthread_cond_broadcast(&s->done);
    }
    pthread_mutex_unlock(&s->lock);
    return NULL;
}

static int init_sync(struct scrape *s)
{
    pthread_condattr_t attr;
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    int ret = pthread_mutex_init(&s->lock, NULL);
    ret = ret != 0 ? ret : pthread_mutex_init(&s->live_lock, NULL);
    ret = ret != 0 ? ret : pthread_cond_init(&s->wake, &attr);
    ret = ret != 0 ? ret : pthread_cond_init(&s->done, &attr);
    pthread_condattr_destroy(&attr);
    return -ret;
}

static int alloc_state(struct scrape *s)
{
    s->eps = calloc(s->cfg.endpoint_count, sizeof(*s->eps));
    s->recv_cap = 65536;
    s->recv_buf = malloc(s->recv_cap);
    s->line_buf = malloc(SCRAPE_LINE_BYTES_MAX);
    s->header_buf = malloc(16384);
    if (s->eps == NULL || s->recv_buf == NULL || s->line_buf == NULL || s->header_buf == NULL) {
        return -ENOMEM;
    }
    for (size_t i = 0; i < s->cfg.endpoint_count; i++) {
        s->eps[i].target = s->cfg.endpoints[i].target;
        snprintf(s->eps[i].url, sizeof(s->eps[i].url), "%s", s->cfg.endpoints[i].url);
        s->eps[i].live_phase = -1;
    }
    return scrape__store_init(&s->store, s->cfg.samples_max);
}

int scrape_start(const struct scrape_config *cfg, struct scrape **out, char *errbuf, size_t errcap)
{
    *out = NULL;
    if (cfg->endpoint_count == 0 || cfg->interval_ns <= 0 || cfg->timeout_ns <= 0) {
        snprintf(errbuf, errcap, "server metrics: no endpoint, or a bad interval or timeout");
        return -EINVAL;
    }
    struct scrape *s = calloc(1, sizeof(*s));
    if (s == NULL) {
        return -ENOMEM;
    }
    s->cfg = *cfg;
    s->cfg.body_bytes_max =
        cfg->body_bytes_max ? cfg->body_bytes_max : SCRAPE_BODY_BYTES_MAX_DEFAULT;
    s->cfg.samples_max = cfg->samples_max ? cfg->samples_max : SCRAPE_SAMPLES_MAX_DEFAULT;
    s->current_phase = -1;
    atomic_init(&s->live_phase, -1);
    s->mono_to_wall_ns = wall_now_ns() - scrape__now_ns();
    int ret = init_sync(s);
    ret = ret != 0 ? ret : alloc_state(s);
    if (ret == 0) {
        scrape_all(s); /* the reference before anything is sent */
        ret = -pthread_create(&s->thread, NULL, thread_main, s);
        s->thread_started = ret == 0;
    }
    if (ret != 0) {
        snprintf(errbuf, errcap, "server metrics: cannot start the scraper: %s", strerror(-ret));
        s->stopped = true;
        scrape_free(s);
        return ret;
    }
    *out = s;
    return 0;
}

void scrape_phase(struct scrape *s, enum scrape_phase_kind phase)
{
    if (s == NULL || s->stopped) {
        return;
    }
    pthread_mutex_lock(&s->lock);
    uint64_t target = ++s->scrapes_asked;
    pthread_cond_signal(&s->wake);
    int64_t until_ns = scrape__now_ns() + 2 * s->cfg.timeout_ns + 1000000000LL;
    struct timespec until = abs_time(until_ns);
    while (s->scrapes_done < target && scrape__now_ns() < until_ns) {
        pthread_cond_timedwait(&s->done, &s->lock, &until);
    }
    pthread_mutex_unlock(&s->lock);
    int64_t now = wall_now_ns();
    if (s->current_phase >= 0) {
        s->windows[s->current_phase].end_ns = now;
    }
    s->windows[phase].start_ns = now;
    s->current_phase = (int)phase;
    /* The fetch just made is the live counters' baseline for the phase. */
    atomic_store_explicit(&s->live_phase, (int)phase, memory_order_release);
}

void scrape_stop(struct scrape *s)
{
    if (s == NULL || s->stopped) {
        return;
    }
    s->stopped = true;
    if (s->thread_started) {
        pthread_mutex_lock(&s->lock);
        s->stop_requested = true;
        pthread_cond_signal(&s->wake);
        pthread_mutex_unlock(&s->lock);
        pthread_join(s->thread, NULL);
        s->thread_started = false;
    }
    scrape_all(s); /* after the last response: the window's end */
    if (s->current_phase >= 0) {
        s->windows[s->current_phase].end_ns = wall_now_ns();
    }
}

void scrape_free(struct scrape *s)
{
    if (s == NULL) {
        return;
    }
    if (!s->stopped) {
        scrape_stop(s);
    }
    scrape__store_free(&s->store);
    scrape__nvml_free(s);
    free(s->eps);
    free(s->recv_buf);
    free(s->line_buf);
    free(s->header_buf);
    pthread_mutex_destroy(&s->lock);
    pthread_mutex_destroy(&s->live_lock);
    pthread_cond_destroy(&s->wake);
    pthread_cond_destroy(&s->done);
    free(s);
}

struct scrape_window scrape_window_of(const struct scrape *s, enum scrape_phase_kind phase)
{
    return s->windows[phase];
}

size_t scrape_endpoint_count(const struct scrape *s)
{
    return s->cfg.endpoint_count;
}
