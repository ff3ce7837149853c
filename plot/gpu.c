/*
 * gpu.c - gpu_utilization_and_throughput_over_time (spec §7, AIPerf's dual_axis handler): the
 * output token throughput of the run as a step line on the left axis, and the GPUs' mean
 * utilisation from gpu_telemetry_export.jsonl, filled, on the right, both against seconds from
 * the first request's start, in windows of one width.
 */
#include "plot/plot_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define RECORDS "profile_export.jsonl"
#define TELEMETRY "gpu_telemetry_export.jsonl"
/* Windows: about this many over the run, each 0.1 s to 10 s wide. */
#define WINDOWS_WANTED 40
#define WINDOW_MIN_S 0.1
#define WINDOW_MAX_S 10.0

/* timeline is the run's windows: tokens that finished in each, and utilisation samples. */
struct timeline {
    double first_start_ns, last_end_ns;
    double width_s;
    size_t count; /* windows, at most PLOT_FILL_POINTS_MAX */
    double tokens[PLOT_FILL_POINTS_MAX];
    double util_sum[PLOT_FILL_POINTS_MAX];
    size_t util_n[PLOT_FILL_POINTS_MAX];
};

/* A successful profiling record's end (ns) and output tokens, or false. */
static bool finished(json_t *rec, double *start_ns, double *end_ns, double *tokens)
{
    json_t *meta = json_object_get(rec, "metadata");
    const char *phase = json_string_value(json_object_get(meta, "benchmark_phase"));
    json_t *error = json_object_get(rec, "error");
    json_t *start = json_object_get(meta, "request_start_ns");
    json_t *end = json_object_get(meta, "request_end_ns");
    json_t *osl = json_object_get(
        json_object_get(json_object_get(rec, "metrics"), "output_sequence_length"), "value");
    if (phase == NULL || strcmp(phase, "profiling") != 0 ||
        (error != NULL && !json_is_null(error)) || !json_is_number(start) || !json_is_number(end)) {
        return false;
    }
    *start_ns = json_number_value(start);
    *end_ns = json_number_value(end);
    *tokens = json_is_number(osl) ? json_number_value(osl) : 0;
    return true;
}

static bool span_of(json_t *rec, void *ctx)
{
    struct timeline *t = ctx;
    double start, end, tokens;
    if (finished(rec, &start, &end, &tokens)) {
        t->first_start_ns = fmin(t->first_start_ns, start);
        t->last_end_ns = fmax(t->last_end_ns, end);
    }
    return true;
}

/* window_of is the window of wall time ns, or -1 outside the run. */
static long window_of(const struct timeline *t, double ns)
{
    double s = (ns - t->first_start_ns) / 1e9;
    long w = (long)floor(s / t->width_s);
    return s < 0 || w >= (long)t->count ? -1 : w;
}

static bool count_tokens(json_t *rec, void *ctx)
{
    struct timeline *t = ctx;
    double start, end, tokens;
    long w = finished(rec, &start, &end, &tokens) ? window_of(t, end) : -1;
    if (w >= 0) {
        t->tokens[w] += tokens;
    }
    return true;
}

static bool add_utilisation(json_t *line, void *ctx)
{
    struct timeline *t = ctx;
    json_t *ts = json_object_get(line, "timestamp_ns");
    json_t *util =
        json_object_get(json_object_get(line, "telemetry_data"), "nvidia_gpu_utilization");
    long w = json_is_number(ts) && json_is_number(util) ? window_of(t, json_number_value(ts)) : -1;
    if (w >= 0) {
        t->util_sum[w] += json_number_value(util);
        t->util_n[w]++;
    }
    return true;
}

/* build reads the records and the telemetry into t; false when either has nothing to draw. */
static bool build(const struct plot_run *run, struct timeline *t)
{
    t->first_start_ns = INFINITY;
    t->last_end_ns = -INFINITY;
    plot__each_line(run->dir, RECORDS, span_of, t);
    if (!(t->last_end_ns > t->first_start_ns)) {
        return false;
    }
    double span_s = (t->last_end_ns - t->first_start_ns) / 1e9;
    t->width_s = fmin(fmax(span_s / WINDOWS_WANTED, WINDOW_MIN_S), WINDOW_MAX_S);
    t->count = (size_t)fmin(ceil(span_s / t->width_s), PLOT_FILL_POINTS_MAX);
    t->count = t->count > 0 ? t->count : 1;
    plot__each_line(run->dir, RECORDS, count_tokens, t);
    if (!plot__each_line(run->dir, TELEMETRY, add_utilisation, t)) {
        return false;
    }
    for (size_t w = 0; w < t->count; w++) {
        if (t->util_n[w] > 0) {
            return true;
        }
    }
    return false;
}

/* The two series' points: the throughput as steps (two points a window), the utilisation at
 * each window's middle where there were samples. */
struct points {
    double tx[2 * PLOT_FILL_POINTS_MAX], ty[2 * PLOT_FILL_POINTS_MAX];
    double ux[PLOT_FILL_POINTS_MAX], uy[PLOT_FILL_POINTS_MAX];
    size_t tn, un;
};

static void points_of(const struct timeline *t, struct points *p)
{
    p->tn = 0;
    p->un = 0;
    for (size_t w = 0; w < t->count; w++) {
        double rate = t->tokens[w] / t->width_s;
        p->tx[p->tn] = (double)w * t->width_s;
        p->ty[p->tn++] = rate;
        p->tx[p->tn] = (double)(w + 1) * t->width_s;
        p->ty[p->tn++] = rate;
        if (t->util_n[w] > 0) {
            p->ux[p->un] = ((double)w + 0.5) * t->width_s;
            p->uy[p->un++] = t->util_sum[w] / (double)t->util_n[w];
        }
    }
}

int plot__gpu(const struct plot_run *run, const char *dir, enum plot_theme theme,
              struct plot_drawn *drawn, char *err, size_t cap)
{
    static const char name[] = "gpu_utilization_and_throughput_over_time";
    struct timeline *t = calloc(1, sizeof(*t));
    struct points *p = t != NULL ? malloc(sizeof(*p)) : NULL;
    if (p == NULL) {
        free(t);
        snprintf(err, cap, "out of memory");
        return -1;
    }
    int ret = 0;
    if (!build(run, t)) {
        plot__note(drawn, name,
                   "no GPU utilisation in " TELEMETRY " during the run's records (run with "
                   "--gpu-telemetry)");
    } else {
        points_of(t, p);
        struct plot_chart c = {.name = name,
                               .title = "GPU utilization and output token throughput",
                               .xlabel = "Time from the first request's start (s)",
                               .ylabel = "Output token throughput (tokens/sec)",
                               .y2label = "GPU utilization (%)",
                               .y2_min = 0,
                               .y2_max = 105, /* a full GPU's line stays inside the frame */
                               .series_count = 2};
        c.series[0] = (struct plot_series){
            .label = "Throughput", .n = p->tn, .x = p->tx, .y = p->ty, .line = true};
        c.series[1] = (struct plot_series){.label = "GPU util.",
                                           .n = p->un,
                                           .x = p->ux,
                                           .y = p->uy,
                                           .line = true,
                                           .right = true,
                                           .fill = true};
        ret = plot__emit(&c, dir, theme, drawn, err, cap);
    }
    free(p);
    free(t);
    return ret;
}
