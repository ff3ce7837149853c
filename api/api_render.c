/*
 * api_render.c - snapshot values: histogram views, the Prometheus text
 * exposition and the JSON bodies of /api/metrics, /api/progress and
 * /api/workers. Everything here is pure: no I/O, no locks.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "api/api_internal.h"

#define COUNT_OF(a) (sizeof(a) / sizeof((a)[0]))

static const struct api_metric_info metric_infos[API_METRIC_COUNT] = {
    [API_M_TTFT] = {METRICS_TTFT}, [API_M_TTST] = {METRICS_TTST},
    [API_M_ITL] = {METRICS_ITL},   [API_M_REQUEST_LATENCY] = {METRICS_REQUEST_LATENCY},
    [API_M_OSL] = {METRICS_OSL},   [API_M_ISL] = {METRICS_ISL},
};

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
    struct metrics_stats st;
    if (h == NULL || metrics_stats_from_hist(h, &st) != 0) {
        return;
    }
    enum metrics_id id = api_metric_info_of(m)->source;
    metrics_stats_scale(&st, 1.0 / metrics_record_hist_per_display(id));
    *out = (struct api_hist_view){
        .present = true,
        .count = st.count,
        .sum = st.sum,
        .avg = st.avg,
        .min = st.min,
        .max = st.max,
        .std = st.std,
        .p1 = st.p1,
        .p5 = st.p5,
        .p10 = st.p10,
        .p25 = st.p25,
        .p50 = st.p50,
        .p75 = st.p75,
        .p90 = st.p90,
        .p95 = st.p95,
        .p99 = st.p99,
    };
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

/* prom_unit writes AIPerf's unit suffix (spec §4.2): "%" -> percent, "/" ->
 * _per_, tokens_per_sec -> tps, then every character outside [a-z0-9_] as _. */
static void prom_unit(const char *unit, char *out, size_t cap)
{
    char spelled[64] = "";
    size_t n = 0;
    for (const char *p = unit; *p != '\0' && n + 6 < sizeof(spelled); p++) {
        const char *piece = *p == '%' ? "percent" : *p == '/' ? "_per_" : NULL;
        if (piece != NULL) {
            n += (size_t)snprintf(spelled + n, sizeof(spelled) - n, "%s", piece);
        } else {
            spelled[n++] = *p;
            spelled[n] = '\0';
        }
    }
    char *tps = strstr(spelled, "tokens_per_sec");
    if (tps != NULL) {
        memmove(tps + 3, tps + 14, strlen(tps + 14) + 1);
        memcpy(tps, "tps", 3);
    }
    size_t len = 0;
    for (const char *p = spelled; *p != '\0' && len + 1 < cap; p++) {
        char c = (char)tolower((unsigned char)*p);
        c = isalnum((unsigned char)c) ? c : '_';
        if (c == '_' && len > 0 && out[len - 1] == '_') {
            continue;
        }
        out[len++] = c;
    }
    out[len] = '\0';
}

/* put_label_value writes a label value with Prometheus' escapes. */
static void put_label_value(struct out *o, const char *value)
{
    for (const char *p = value != NULL ? value : ""; *p != '\0'; p++) {
        if (*p == '\\' || *p == '"') {
            put(o, "\\%c", *p);
        } else if (*p == '\n') {
            put(o, "\\n");
        } else {
            put(o, "%c", *p);
        }
    }
}

/* put_label_list writes AIPerf's info labels without the braces. */
static void put_label_list(struct out *o, const struct api_labels *l)
{
    put(o, "benchmark_id=\"");
    put_label_value(o, l->benchmark_id);
    put(o, "\",model=\"");
    put_label_value(o, l->model);
    put(o, "\",endpoint_type=\"");
    put_label_value(o, l->endpoint_type);
    put(o, "\",streaming=\"%s\"", l->streaming ? "true" : "false");
    if (l->concurrency > 0) {
        put(o, ",concurrency=\"%u\"", l->concurrency);
    }
    if (l->request_rate > 0) {
        char rate[40];
        metrics_python_float(l->request_rate, rate, sizeof(rate));
        put(o, ",request_rate=\"%s\"", rate);
    }
}

/* put_labels writes AIPerf's info labels, then `extra_name`="`extra`" when
 * extra_name is not NULL, inside braces. */
static void put_labels(struct out *o, const struct api_labels *l, const char *extra_name,
                       const char *extra)
{
    put(o, "{");
    put_label_list(o, l);
    if (extra_name != NULL) {
        put(o, ",%s=\"", extra_name);
        put_label_value(o, extra);
        put(o, "\"");
    }
    put(o, "}");
}

/* put_value writes a float as Python's str() does, and NaN/Inf as Prometheus spells them. */
static void put_value(struct out *o, double v)
{
    char text[40];
    if (isnan(v)) {
        snprintf(text, sizeof(text), "NaN");
    } else if (isinf(v)) {
        snprintf(text, sizeof(text), "%s", v > 0 ? "+Inf" : "-Inf");
    } else {
        metrics_python_float(v, text, sizeof(text));
    }
    put(o, " %s\n", text);
}

/* prom_metric is what one metric family group needs: AIPerf's tag, header and unit suffix. */
struct prom_metric {
    const struct metrics_info *info;
    char unit[64];
};

static void put_gauge(struct out *o, const struct api_labels *l, const struct prom_metric *pm,
                      const char *stat, const char *word, double value, bool integer)
{
    const char *sep = pm->unit[0] != '\0' ? "_" : "";
    put(o, "# HELP aiperf_%s_%s%s%s %s %s (in %s)\n", pm->info->tag, stat, sep, pm->unit,
        pm->info->header, word, pm->info->unit);
    put(o, "# TYPE aiperf_%s_%s%s%s gauge\n", pm->info->tag, stat, sep, pm->unit);
    put(o, "aiperf_%s_%s%s%s", pm->info->tag, stat, sep, pm->unit);
    put_labels(o, l, NULL, NULL);
    if (integer) {
        put(o, " %.0f\n", value);
    } else {
        put_value(o, value);
    }
}

static void put_summary(struct out *o, const struct api_labels *l, const struct prom_metric *pm,
                        const struct api_hist_view *v)
{
    static const char *const quantiles[] = {"0.01", "0.05", "0.1",  "0.25", "0.5",
                                            "0.75", "0.9",  "0.95", "0.99"};
    const double values[] = {v->p1, v->p5, v->p10, v->p25, v->p50, v->p75, v->p90, v->p95, v->p99};
    char name[160];
    snprintf(name, sizeof(name), "aiperf_%s%s%s", pm->info->tag, pm->unit[0] != '\0' ? "_" : "",
             pm->unit);
    put(o, "# HELP %s %s (in %s)\n# TYPE %s summary\n", name, pm->info->header, pm->info->unit,
        name);
    for (size_t i = 0; i < COUNT_OF(quantiles); i++) {
        put(o, "%s", name);
        put_labels(o, l, "quantile", quantiles[i]);
        put_value(o, values[i]);
    }
    put(o, "%s_sum", name);
    put_labels(o, l, NULL, NULL);
    put_value(o, v->sum);
    put(o, "%s_count", name);
    put_labels(o, l, NULL, NULL);
    put(o, " %llu\n", (unsigned long long)v->count);
    put_gauge(o, l, pm, "avg", "average", v->avg, false);
    put_gauge(o, l, pm, "min", "minimum", v->min, false);
    put_gauge(o, l, pm, "max", "maximum", v->max, false);
    put_gauge(o, l, pm, "std", "standard deviation", v->std, false);
}

/* put_sweep is an injected sweep-line metric as AIPerf exposes it: a summary of the four
 * quantiles it keeps (no _sum or _count), then its avg, min, max and std gauges. */
static void put_sweep(struct out *o, const struct api_labels *l, enum metrics_sweep_id id,
                      const struct metrics_sweep_stats *st)
{
    struct prom_metric pm = {.info = metrics_sweep_info_of(id)};
    prom_unit(pm.info->unit, pm.unit, sizeof(pm.unit));
    static const char *const quantiles[] = {"0.5", "0.9", "0.95", "0.99"};
    const double values[] = {st->p50, st->p90, st->p95, st->p99};
    char name[160];
    snprintf(name, sizeof(name), "aiperf_%s_%s", pm.info->tag, pm.unit);
    put(o, "# HELP %s %s (in %s)\n# TYPE %s summary\n", name, pm.info->header, pm.info->unit, name);
    for (size_t i = 0; i < COUNT_OF(quantiles); i++) {
        put(o, "%s", name);
        put_labels(o, l, "quantile", quantiles[i]);
        put_value(o, values[i]);
    }
    put_gauge(o, l, &pm, "avg", "average", st->avg, false);
    put_gauge(o, l, &pm, "min", "minimum", st->min, false);
    put_gauge(o, l, &pm, "max", "maximum", st->max, false);
    put_gauge(o, l, &pm, "std", "standard deviation", st->std, false);
}

static void put_scalar(struct out *o, const struct api_labels *l, enum metrics_scalar_id id,
                       double value)
{
    struct prom_metric pm = {.info = metrics_scalar_info_of(id)};
    prom_unit(pm.info->unit, pm.unit, sizeof(pm.unit));
    put_gauge(o, l, &pm, "avg", "average", value, false);
    /* A realtime scalar result carries count=1. */
    put_gauge(o, l, &pm, "count", "observation count", 1, true);
}

/* put_server_figures writes AIPerf's server snapshot rows: avg and current gauges. */
static void put_server_figures(struct out *o, const struct api_labels *l,
                               const struct scrape_live *live)
{
    for (int f = 0; f < SCRAPE_LIVE_FIGURE_COUNT; f++) {
        if (!live->present[f]) {
            continue;
        }
        const struct scrape_live_figure_info *fi = scrape_live_figure_info_of(f);
        struct metrics_info info = {.tag = fi->tag, .header = fi->header, .unit = fi->unit};
        struct prom_metric pm = {.info = &info};
        prom_unit(info.unit, pm.unit, sizeof(pm.unit));
        put_gauge(o, l, &pm, "avg", "average", live->avg[f], false);
        put_gauge(o, l, &pm, "current", "current value", live->current[f], false);
    }
}

/* put_gpu_fields writes each field's latest value per GPU: one gauge family per field. */
static void put_gpu_fields(struct out *o, const struct api_labels *l,
                           const struct scrape_live *live)
{
    for (int f = 0; f < SCRAPE_GPU_FIELD_COUNT; f++) {
        const struct scrape_gpu_field_info *fi = scrape_gpu_field_info_of(f);
        char unit[64];
        prom_unit(fi->unit, unit, sizeof(unit));
        bool head = false;
        for (size_t g = 0; g < live->gpu_count; g++) {
            const struct scrape_live_gpu *gpu = &live->gpus[g];
            if (!gpu->present[f]) {
                continue;
            }
            if (!head) {
                put(o, "# HELP aiperf_%s_current_%s %s current value (in %s)\n", fi->name, unit,
                    fi->display, fi->unit);
                put(o, "# TYPE aiperf_%s_current_%s gauge\n", fi->name, unit);
                head = true;
            }
            put(o, "aiperf_%s_current_%s{", fi->name, unit);
            put_label_list(o, l);
            put(o, ",gpu_index=\"");
            put_label_value(o, gpu->index);
            put(o, "\",gpu_uuid=\"");
            put_label_value(o, gpu->uuid);
            put(o, "\"}");
            put_value(o, gpu->value[f]);
        }
    }
}

long api_prometheus_render(const struct api_snapshot *snap, const struct api_labels *labels,
                           char *buf, size_t cap)
{
    struct out o = {.buf = buf, .cap = cap};
    if (cap == 0) {
        return -ENOSPC;
    }
    buf[0] = '\0';
    if (snap->finished == 0 && snap->success == 0) {
        return 0; /* nothing to report yet */
    }
    put(&o, "# HELP aiperf_info AIPerf benchmark information\n# TYPE aiperf_info gauge\n");
    put(&o, "aiperf_info");
    put_labels(&o, labels, "version", labels->version);
    put(&o, " 1\n\n");
    /* AIPerf's console order: TTFT, TTST, request latency, ITL, OSL, ISL. */
    static const enum api_metric order[] = {API_M_TTFT, API_M_TTST, API_M_REQUEST_LATENCY,
                                            API_M_ITL,  API_M_OSL,  API_M_ISL};
    for (size_t i = 0; i < COUNT_OF(order); i++) {
        const struct api_hist_view *v = &snap->hist[order[i]];
        if (!v->present) {
            continue;
        }
        struct prom_metric pm = {.info = metrics_info_of(api_metric_info_of(order[i])->source)};
        prom_unit(pm.info->unit, pm.unit, sizeof(pm.unit));
        put_summary(&o, labels, &pm, v);
    }
    put_scalar(&o, labels, METRICS_S_OUTPUT_TOKEN_THROUGHPUT, snap->output_token_throughput);
    put_scalar(&o, labels, METRICS_S_REQUEST_THROUGHPUT, snap->request_throughput);
    put_scalar(&o, labels, METRICS_S_REQUEST_COUNT, (double)snap->success);
    for (int id = 0; snap->sweep.present && id < METRICS_SWEEP_COUNT; id++) {
        put_sweep(&o, labels, (enum metrics_sweep_id)id, &snap->sweep.stat[id]);
    }
    put_server_figures(&o, labels, &snap->server_live);
    put_gpu_fields(&o, labels, &snap->gpu_live);
    if (o.overflow) {
        buf[0] = '\0';
        return -ENOSPC;
    }
    return (long)o.len;
}

/* metric_json is AIPerf's MetricResult shape (spec §4.4): header, display
 * unit and statistics in display units (ms for latencies). */
static json_t *metric_json(enum api_metric m, const struct api_hist_view *v)
{
    const struct metrics_info *info = metrics_info_of(api_metric_info_of(m)->source);
    return json_pack("{s:s, s:s, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:f, "
                     "s:f, s:I, s:f}",
                     "header", info->header, "unit", info->unit, "avg", v->avg, "p1", v->p1, "p5",
                     v->p5, "p10", v->p10, "p25", v->p25, "p50", v->p50, "p75", v->p75, "p90",
                     v->p90, "p95", v->p95, "p99", v->p99, "min", v->min, "max", v->max, "std",
                     v->std, "count", (json_int_t)v->count, "sum", v->sum);
}

/* sweep_json is a sweep-line metric's MetricResult: the statistics AIPerf keeps of it. */
static json_t *sweep_json(enum metrics_sweep_id id, const struct metrics_sweep_stats *st)
{
    const struct metrics_info *info = metrics_sweep_info_of(id);
    return json_pack("{s:s, s:s, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:f}", "header", info->header,
                     "unit", info->unit, "avg", st->avg, "p50", st->p50, "p90", st->p90, "p95",
                     st->p95, "p99", st->p99, "min", st->min, "max", st->max, "std", st->std);
}

json_t *api__gpus_json(const struct scrape_live *live)
{
    json_t *list = json_array();
    for (size_t g = 0; g < live->gpu_count; g++) {
        const struct scrape_live_gpu *gpu = &live->gpus[g];
        json_t *fields = json_object();
        for (int f = 0; f < SCRAPE_GPU_FIELD_COUNT; f++) {
            const struct scrape_gpu_field_info *fi = scrape_gpu_field_info_of(f);
            if (gpu->present[f] && isfinite(gpu->value[f])) {
                json_object_set_new(
                    fields, fi->name,
                    json_pack("{s:s, s:f}", "unit", fi->unit, "current", gpu->value[f]));
            }
        }
        json_array_append_new(list,
                              json_pack("{s:s, s:s, s:s, s:o}", "gpu_index", gpu->index, "gpu_uuid",
                                        gpu->uuid, "gpu_name", gpu->model, "metrics", fields));
    }
    return list;
}

void api__server_figures_add(json_t *into, const struct scrape_live *live)
{
    for (int f = 0; f < SCRAPE_LIVE_FIGURE_COUNT; f++) {
        const struct scrape_live_figure_info *fi = scrape_live_figure_info_of(f);
        if (live->present[f]) {
            json_object_set_new(into, fi->tag,
                                json_pack("{s:s, s:s, s:f, s:f}", "header", fi->header, "unit",
                                          fi->unit, "avg", live->avg[f], "current",
                                          live->current[f]));
        }
    }
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
            json_object_set_new(
                metrics, metrics_info_of(api_metric_info_of((enum api_metric)m)->source)->tag,
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
    for (int id = 0; snap->sweep.present && id < METRICS_SWEEP_COUNT; id++) {
        json_object_set_new(metrics, metrics_sweep_info_of((enum metrics_sweep_id)id)->tag,
                            sweep_json((enum metrics_sweep_id)id, &snap->sweep.stat[id]));
    }
    api__server_figures_add(metrics, &snap->server_live);
    if (snap->gpu_live.gpu_count > 0) {
        json_object_set_new(root, "gpu_telemetry", api__gpus_json(&snap->gpu_live));
    }
    return root;
}

static json_t *phase_row_json(const struct api_phase_row *p)
{
    double percent = p->total > 0 ? 100.0 * (double)p->finished / (double)p->total : 100.0;
    return json_pack(
        "{s:s, s:I, s:I, s:I, s:I, s:I, s:f, s:f, s:f, s:b}", "phase", p->name, "requests_total",
        (json_int_t)p->total, "requests_completed", (json_int_t)p->finished, "requests_success",
        (json_int_t)(p->finished - p->errors), "requests_error", (json_int_t)p->errors,
        "requests_cancelled", (json_int_t)0, "percent_complete", percent > 100.0 ? 100.0 : percent,
        "elapsed_sec", p->elapsed_s, "requests_per_sec",
        p->elapsed_s > 0 ? (double)p->finished / p->elapsed_s : 0.0, "is_complete", true);
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
    json_t *phases = json_object();
    if (phase == NULL || phases == NULL) {
        json_decref(phase);
        json_decref(phases);
        return NULL;
    }
    /* The phases that ended before this one (warmup), then this one. */
    for (uint32_t i = 0; i < snap->phase_count && i < API_PHASES_MAX; i++) {
        const struct api_phase_row *p = &snap->phases[i];
        if (p->name != NULL && p->complete && strcmp(p->name, snap->phase) != 0) {
            json_object_set_new(phases, p->name, phase_row_json(p));
        }
    }
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
            json_pack("{s:s, s:I, s:I, s:I, s:s, s:f, s:I}", "worker_id", id, "requests_completed",
                      (json_int_t)snap->shards[i].requests, "requests_success",
                      (json_int_t)(snap->shards[i].requests - snap->shards[i].errors),
                      "requests_error", (json_int_t)snap->shards[i].errors, "state", state,
                      "cpu_fraction", snap->shards[i].cpu_fraction, "requests_outstanding",
                      (json_int_t)snap->shards[i].outstanding));
    }
    return json_pack("{s:I, s:o}", "worker_count", (json_int_t)snap->shard_count, "workers",
                     workers);
}
