/*
 * sweep.c - the sweep-line metrics (metrics_sweep.h): the requests kept, and the step functions
 * AIPerf builds from them (analysis/sweepline.py, sweepline_kv_cache.py, sweepline_curves.py).
 */
#include "metrics/metrics_sweep.h"

#include <errno.h>
#include <stdlib.h>

#include "metrics/metrics.h"
#include "metrics/sweep_curve.h"

#define NS_PER_SEC 1e9
#define INITIAL_RECORDS 1024

/* sweep_rec is one kept request; its gaps are gaps[gap_off .. gap_off + gap_n). */
struct sweep_rec {
    int64_t start, first, end;
    double isl, osl;
    size_t gap_off;
    uint32_t gap_n;
};

struct metrics_sweep {
    struct metrics_sweep_config config;
    struct sweep_rec *recs;
    size_t n, cap;
    int64_t *gaps;
    size_t gaps_n, gaps_cap;
    bool truncated;
    bool gaps_lost; /* some gaps were not kept: no request's are used */
};

static const struct metrics_info sweep_infos[METRICS_SWEEP_COUNT] = {
    {"effective_concurrency", "Effective Concurrency", "requests", 1, 0, 1},
    {"effective_decode_throughput", "Effective Decode Throughput", "tokens/sec", 1, 0, 2},
    {"effective_prefill_throughput", "Effective Prefill Throughput", "tokens/sec", 1, 0, 3},
    {"effective_decode_concurrency", "Effective Decode Concurrency", "requests", 1, 0, 4},
    {"effective_prefill_concurrency", "Effective Prefill Concurrency", "requests", 1, 0, 5},
    {"effective_total_throughput", "Effective Total Throughput", "tokens/sec", 1, 0, 6},
    {"effective_decode_throughput_per_user", "Effective Decode Throughput Per User",
     "tokens/sec/user", 1, 0, 7},
    {"effective_prefill_throughput_per_user", "Effective Prefill Throughput Per User",
     "tokens/sec/user", 1, 0, 8},
    {"tokens_in_flight", "Tokens In Flight", "tokens", 1, 0, 9},
    {"active_decode_throughput", "Active Decode Throughput", "tokens/sec", 1, 0, 1},
    {"active_prefill_throughput", "Active Prefill Throughput", "tokens/sec", 1, 0, 2},
    {"active_decode_throughput_per_user", "Active Decode Throughput Per User", "tokens/sec/user", 1,
     0, 3},
    {"active_prefill_throughput_per_user", "Active Prefill Throughput Per User", "tokens/sec/user",
     1, 0, 4},
    {"active_total_throughput", "Active Total Throughput", "tokens/sec", 1, 0, 5},
};

const struct metrics_info *metrics_sweep_info_of(enum metrics_sweep_id id)
{
    return &sweep_infos[id];
}

int metrics_sweep_new(const struct metrics_sweep_config *config, struct metrics_sweep **out)
{
    struct metrics_sweep *s = calloc(1, sizeof(*s));
    if (s == NULL) {
        return -ENOMEM;
    }
    s->config = config != NULL ? *config : (struct metrics_sweep_config){0};
    if (s->config.records_max == 0) {
        s->config.records_max = METRICS_SWEEP_RECORDS_DEFAULT;
    }
    if (s->config.gaps_max == 0) {
        s->config.gaps_max = METRICS_SWEEP_GAPS_DEFAULT;
    }
    *out = s;
    return 0;
}

void metrics_sweep_free(struct metrics_sweep *s)
{
    if (s == NULL) {
        return;
    }
    free(s->recs);
    free(s->gaps);
    free(s);
}

size_t metrics_sweep_count(const struct metrics_sweep *s)
{
    return s->n;
}

bool metrics_sweep_truncated(const struct metrics_sweep *s)
{
    return s->truncated;
}

/* grow doubles an array of `size`-byte items to hold `need` (at most `max`); false when it
 * cannot. */
static bool grow(void **items, size_t *cap, size_t need, size_t max, size_t size)
{
    if (need <= *cap) {
        return true;
    }
    if (need > max) {
        return false;
    }
    size_t next = *cap > 0 ? *cap : INITIAL_RECORDS;
    while (next < need) {
        next *= 2;
    }
    next = next < max ? next : max;
    void *bigger = realloc(*items, next * size);
    if (bigger == NULL) {
        return false;
    }
    *items = bigger;
    *cap = next;
    return true;
}

static void keep_gaps(struct metrics_sweep *s, struct sweep_rec *r, const int64_t *chunk_ns,
                      uint32_t chunk_count)
{
    uint32_t gap_count = chunk_count > 1 ? chunk_count - 1 : 0;
    if (gap_count == 0 || s->gaps_lost) {
        return;
    }
    if (!grow((void **)&s->gaps, &s->gaps_cap, s->gaps_n + gap_count, s->config.gaps_max,
              sizeof(*s->gaps))) {
        s->gaps_lost = true;
        return;
    }
    r->gap_off = s->gaps_n;
    r->gap_n = gap_count;
    for (uint32_t i = 0; i < gap_count; i++) {
        s->gaps[s->gaps_n++] = chunk_ns[i + 1] - chunk_ns[i];
    }
}

void metrics_sweep_add(struct metrics_sweep *s, const struct metrics_sweep_request *req,
                       const int64_t *chunk_ns, uint32_t chunk_count)
{
    bool has_first = req->first_ns != METRICS_SWEEP_NONE;
    if (req->end_ns < req->start_ns ||
        (has_first && (req->first_ns < req->start_ns || req->first_ns > req->end_ns))) {
        return;
    }
    if (!grow((void **)&s->recs, &s->cap, s->n + 1, s->config.records_max, sizeof(*s->recs))) {
        s->truncated = true;
        return;
    }
    struct sweep_rec *r = &s->recs[s->n++];
    *r = (struct sweep_rec){
        req->start_ns, req->first_ns, req->end_ns, req->input_tokens, req->output_tokens, 0, 0};
    if (has_first) {
        keep_gaps(s, r, chunk_ns, chunk_count);
    }
}

/*
 * The events of each step function. Every builder writes into `ev` (room for 4 per request,
 * plus 2 per gap) and returns how many it wrote.
 */

static bool has_first(const struct sweep_rec *r)
{
    return r->first != METRICS_SWEEP_NONE;
}

static bool known(double tokens)
{
    return tokens >= 0;
}

static size_t interval(struct metrics__sweep_event *ev, size_t k, int64_t from, int64_t to,
                       double rate)
{
    ev[k] = (struct metrics__sweep_event){from, rate};
    ev[k + 1] = (struct metrics__sweep_event){to, -rate};
    return k + 2;
}

enum phase { PHASE_ALL, PHASE_PREFILL, PHASE_DECODE };

/* concurrency_events: +1 at the phase's start, -1 at its end, for every request in it. */
static size_t concurrency_events(const struct metrics_sweep *s, enum phase p,
                                 struct metrics__sweep_event *ev)
{
    size_t k = 0;
    for (size_t i = 0; i < s->n; i++) {
        const struct sweep_rec *r = &s->recs[i];
        if (p == PHASE_ALL) {
            k = interval(ev, k, r->start, r->end, 1.0);
        } else if (has_first(r)) {
            k = p == PHASE_PREFILL ? interval(ev, k, r->start, r->first, 1.0)
                                   : interval(ev, k, r->first, r->end, 1.0);
        }
    }
    return k;
}

/* prefill_events: input tokens / prefill duration (tokens/ns) over the prefill. */
static size_t prefill_events(const struct metrics_sweep *s, struct metrics__sweep_event *ev,
                             size_t k)
{
    for (size_t i = 0; i < s->n; i++) {
        const struct sweep_rec *r = &s->recs[i];
        if (has_first(r) && known(r->isl) && r->first > r->start) {
            k = interval(ev, k, r->start, r->first, r->isl / (double)(r->first - r->start));
        }
    }
    return k;
}

/* decode_events: (output tokens - 1) / decode duration over the decode, the first token having
 * come with the first chunk. */
static size_t decode_events(const struct metrics_sweep *s, struct metrics__sweep_event *ev,
                            size_t k)
{
    for (size_t i = 0; i < s->n; i++) {
        const struct sweep_rec *r = &s->recs[i];
        if (has_first(r) && known(r->osl) && r->end > r->first) {
            k = interval(ev, k, r->first, r->end, (r->osl - 1.0) / (double)(r->end - r->first));
        }
    }
    return k;
}

/* decode_icl_events: each gap that is not 0 carries (output tokens - 1) / (such gaps) tokens,
 * over that gap. */
static size_t decode_icl_events(const struct metrics_sweep *s, struct metrics__sweep_event *ev)
{
    size_t k = 0;
    for (size_t i = 0; i < s->n; i++) {
        const struct sweep_rec *r = &s->recs[i];
        const int64_t *gap = s->gaps + r->gap_off;
        uint32_t timed = 0;
        for (uint32_t g = 0; g < r->gap_n; g++) {
            timed += gap[g] > 0;
        }
        if (!has_first(r) || !(r->osl >= 1) || timed == 0) {
            continue;
        }
        double tokens = (r->osl - 1.0) / timed;
        int64_t at = r->first;
        for (uint32_t g = 0; g < r->gap_n; g++) {
            if (gap[g] > 0) {
                k = interval(ev, k, at, at + gap[g], tokens / (double)gap[g]);
            }
            at += gap[g];
        }
    }
    return k;
}

/* tokens_events: the tokens a request holds: its input from the start (when it has a prefill),
 * its output from the first token (or, with the gaps, one token then (output - 1) / gaps as each
 * chunk arrives, kept before the end), all freed at the end. */
static size_t tokens_events(const struct metrics_sweep *s, bool icl,
                            struct metrics__sweep_event *ev)
{
    size_t k = 0;
    for (size_t i = 0; i < s->n; i++) {
        const struct sweep_rec *r = &s->recs[i];
        bool prefill = has_first(r) && known(r->isl) && r->first > r->start;
        bool output = icl ? has_first(r) && r->gap_n > 0 && known(r->osl)
                          : has_first(r) && known(r->osl) && r->end > r->first;
        if (prefill) {
            ev[k++] = (struct metrics__sweep_event){r->start, r->isl};
        }
        if (output && !icl) {
            ev[k++] = (struct metrics__sweep_event){r->first, r->osl};
        } else if (output) {
            ev[k++] = (struct metrics__sweep_event){r->first, 1.0};
            double per_chunk = (r->osl - 1.0) / r->gap_n;
            int64_t at = r->first;
            for (uint32_t g = 0; g < r->gap_n; g++) {
                at += s->gaps[r->gap_off + g];
                int64_t when = at < r->end ? at : r->end - 1;
                ev[k++] = (struct metrics__sweep_event){when, per_chunk};
            }
        }
        if (prefill || output) {
            double held = (prefill ? r->isl : 0.0) + (output ? r->osl : 0.0);
            ev[k++] = (struct metrics__sweep_event){r->end, -held};
        }
    }
    return k;
}

enum curve_kind {
    CURVE_CONCURRENCY,
    CURVE_PREFILL_CONCURRENCY,
    CURVE_DECODE_CONCURRENCY,
    CURVE_PREFILL,
    CURVE_DECODE,
    CURVE_TOTAL,
    CURVE_TOKENS,
};

/* sweep_job is one summarize call: the kept requests, an events buffer, the window. */
struct sweep_job {
    const struct metrics_sweep *s;
    bool icl;
    struct metrics__sweep_event *ev;
    int64_t ws, we;
    struct metrics_sweep_summary *out;
};

static int build(const struct sweep_job *j, enum curve_kind kind, struct metrics__sweep_curve *c)
{
    size_t n = 0;
    switch (kind) {
    case CURVE_CONCURRENCY:
        n = concurrency_events(j->s, PHASE_ALL, j->ev);
        break;
    case CURVE_PREFILL_CONCURRENCY:
        n = concurrency_events(j->s, PHASE_PREFILL, j->ev);
        break;
    case CURVE_DECODE_CONCURRENCY:
        n = concurrency_events(j->s, PHASE_DECODE, j->ev);
        break;
    case CURVE_PREFILL:
        n = prefill_events(j->s, j->ev, 0);
        break;
    case CURVE_DECODE:
        n = j->icl ? decode_icl_events(j->s, j->ev) : decode_events(j->s, j->ev, 0);
        break;
    case CURVE_TOTAL: /* AIPerf adds the uniform decode rate here, with or without the gaps */
        n = decode_events(j->s, j->ev, prefill_events(j->s, j->ev, 0));
        break;
    case CURVE_TOKENS:
        n = tokens_events(j->s, j->icl, j->ev);
        break;
    }
    return metrics__curve_from_events(j->ev, n, c);
}

/* stat reduces `c` into metric `id`: rates are tokens/ns, shown per second. */
static int stat(const struct sweep_job *j, enum metrics_sweep_id id,
                const struct metrics__sweep_curve *c, const struct metrics__sweep_curve *mask)
{
    bool rate = id != METRICS_SW_CONCURRENCY && id != METRICS_SW_DECODE_CONCURRENCY &&
                id != METRICS_SW_PREFILL_CONCURRENCY && id != METRICS_SW_TOKENS_IN_FLIGHT;
    return metrics__curve_stats(c, mask, j->ws, j->we, rate ? NS_PER_SEC : 1.0, &j->out->stat[id]);
}

/* phase_metrics: a phase's concurrency, throughput and per-user throughput, each over the
 * window and (the rates) while the phase had a request. */
static int phase_metrics(const struct sweep_job *j, bool decode)
{
    struct metrics__sweep_curve conc = {0}, tput = {0}, per_user = {0};
    int ret = build(j, decode ? CURVE_DECODE_CONCURRENCY : CURVE_PREFILL_CONCURRENCY, &conc);
    ret = ret != 0 ? ret : build(j, decode ? CURVE_DECODE : CURVE_PREFILL, &tput);
    ret = ret != 0 ? ret : metrics__curve_divide(&tput, &conc, &per_user);
    if (ret == 0) {
        ret |= stat(j, decode ? METRICS_SW_DECODE_CONCURRENCY : METRICS_SW_PREFILL_CONCURRENCY,
                    &conc, NULL);
        ret |= stat(j, decode ? METRICS_SW_DECODE_THROUGHPUT : METRICS_SW_PREFILL_THROUGHPUT, &tput,
                    NULL);
        ret |= stat(j, decode ? METRICS_SW_DECODE_PER_USER : METRICS_SW_PREFILL_PER_USER, &per_user,
                    NULL);
        ret |= stat(
            j, decode ? METRICS_SW_ACTIVE_DECODE_THROUGHPUT : METRICS_SW_ACTIVE_PREFILL_THROUGHPUT,
            &tput, &conc);
        ret |=
            stat(j, decode ? METRICS_SW_ACTIVE_DECODE_PER_USER : METRICS_SW_ACTIVE_PREFILL_PER_USER,
                 &per_user, &conc);
    }
    metrics__curve_free(&conc);
    metrics__curve_free(&tput);
    metrics__curve_free(&per_user);
    return ret;
}

/* run_metrics: the whole run's concurrency, total throughput and tokens in flight. */
static int run_metrics(const struct sweep_job *j)
{
    struct metrics__sweep_curve conc = {0}, total = {0}, tokens = {0};
    int ret = build(j, CURVE_CONCURRENCY, &conc);
    ret = ret != 0 ? ret : build(j, CURVE_TOTAL, &total);
    ret = ret != 0 ? ret : build(j, CURVE_TOKENS, &tokens);
    if (ret == 0) {
        ret |= stat(j, METRICS_SW_CONCURRENCY, &conc, NULL);
        ret |= stat(j, METRICS_SW_TOTAL_THROUGHPUT, &total, NULL);
        ret |= stat(j, METRICS_SW_ACTIVE_TOTAL_THROUGHPUT, &total, &conc);
        ret |= stat(j, METRICS_SW_TOKENS_IN_FLIGHT, &tokens, NULL);
    }
    metrics__curve_free(&conc);
    metrics__curve_free(&total);
    metrics__curve_free(&tokens);
    return ret;
}

int metrics_sweep_summarize_window(const struct metrics_sweep *s, int64_t window_start_ns,
                                   int64_t window_end_ns, struct metrics_sweep_summary *out)
{
    *out = (struct metrics_sweep_summary){.window_start_ns = window_start_ns,
                                          .window_end_ns = window_end_ns};
    if (s->n == 0 || s->truncated) {
        return 0;
    }
    struct sweep_job j = {.s = s,
                          .icl = !s->gaps_lost && s->gaps_n > 0,
                          .ws = window_start_ns,
                          .we = window_end_ns,
                          .out = out};
    size_t events = 4 * s->n;
    size_t with_gaps = 3 * s->n + s->gaps_n;
    events = with_gaps > events ? with_gaps : events;
    events = 2 * s->gaps_n > events ? 2 * s->gaps_n : events;
    j.ev = malloc(events * sizeof(*j.ev));
    int ret = j.ev != NULL ? 0 : -ENOMEM;
    ret = ret != 0 ? ret : run_metrics(&j);
    ret = ret != 0 ? ret : phase_metrics(&j, false);
    ret = ret != 0 ? ret : phase_metrics(&j, true);
    free(j.ev);
    out->present = ret == 0;
    out->icl = ret == 0 && j.icl;
    return ret;
}

int metrics_sweep_summarize(const struct metrics_sweep *s, struct metrics_sweep_summary *out)
{
    int64_t ws = 0, we = 0;
    for (size_t i = 0; i < s->n; i++) {
        const struct sweep_rec *r = &s->recs[i];
        ws = i == 0 || r->start < ws ? r->start : ws;
        we = i == 0 || r->end > we ? r->end : we;
    }
    return metrics_sweep_summarize_window(s, ws, we, out);
}
