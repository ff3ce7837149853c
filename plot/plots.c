/*
 * plots.c - the default plots built from the runs (spec §7): the single-run TTFT over time, the
 * TTFT/generation timeline and latency percentile spectrum, and the multi-run Pareto curves and
 * TTFT against throughput.
 */
#include "plot/plot_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RECORDS "profile_export.jsonl"
#define MAX_POINTS 1000000

int plot__emit(const struct plot_chart *c, const char *dir, enum plot_theme theme,
               struct plot_drawn *drawn, char *err, size_t cap)
{
    if (plot__render(c, dir, theme, err, cap) != 0) {
        return -1;
    }
    if (drawn->count < PLOT_MAX_CHARTS) {
        snprintf(drawn->names[drawn->count], sizeof(drawn->names[0]), "%s", c->name);
        snprintf(drawn->titles[drawn->count], sizeof(drawn->titles[0]), "%s", c->title);
        drawn->count++;
    }
    return 0;
}

void plot__note(struct plot_drawn *drawn, const char *name, const char *why)
{
    if (drawn->note_count < PLOT_MAX_CHARTS) {
        snprintf(drawn->notes[drawn->note_count++], sizeof(drawn->notes[0]), "%s: %s", name, why);
    }
}

/* timed is one profiling request on the timeline: seconds from the first request's start. */
struct timed {
    double start_s, end_s;
    double ttft; /* in the records' unit (ms) */
};

/* A profiling record's times, or false for warmup, errors and records without a TTFT
 * (non-streaming runs). start_s and end_s are still in ns here. */
static bool ttft_point(json_t *rec, struct timed *out)
{
    json_t *meta = json_object_get(rec, "metadata");
    const char *phase = json_string_value(json_object_get(meta, "benchmark_phase"));
    json_t *error = json_object_get(rec, "error");
    json_t *value = json_object_get(
        json_object_get(json_object_get(rec, "metrics"), "time_to_first_token"), "value");
    json_t *start = json_object_get(meta, "request_start_ns");
    json_t *end = json_object_get(meta, "request_end_ns");
    if ((phase != NULL && strcmp(phase, "profiling") != 0) ||
        (error != NULL && !json_is_null(error)) || !json_is_number(value) ||
        !json_is_number(start)) {
        return false;
    }
    out->start_s = json_number_value(start);
    out->end_s = json_is_number(end) ? json_number_value(end) : out->start_s;
    out->ttft = json_number_value(value);
    return true;
}

/* timed_list is what read_timed gathers. */
struct timed_list {
    struct timed *items;
    size_t count;
    size_t cap;
};

static bool add_timed(json_t *rec, void *ctx)
{
    struct timed_list *l = ctx;
    struct timed t;
    if (!ttft_point(rec, &t)) {
        return true;
    }
    if (l->count == l->cap) {
        size_t cap = l->cap == 0 ? 1024 : l->cap * 2;
        struct timed *grown = realloc(l->items, cap * sizeof(*grown));
        if (grown == NULL) {
            return false;
        }
        l->items = grown;
        l->cap = cap;
    }
    l->items[l->count++] = t;
    return l->count < MAX_POINTS;
}

/* read_timed loads every profiling request with a TTFT from the run's records, with times in
 * seconds from the first start. Returns how many; *out (free it) is NULL when none. */
static size_t read_timed(const struct plot_run *run, struct timed **out)
{
    struct timed_list l = {0};
    plot__each_line(run->dir, RECORDS, add_timed, &l);
    double first = INFINITY;
    for (size_t i = 0; i < l.count; i++) {
        first = fmin(first, l.items[i].start_s);
    }
    for (size_t i = 0; i < l.count; i++) {
        l.items[i].start_s = (l.items[i].start_s - first) / 1e9;
        l.items[i].end_s = (l.items[i].end_s - first) / 1e9;
    }
    *out = l.items;
    return l.count;
}

static const char *ttft_unit(const struct plot_run *run)
{
    const char *unit = plot__unit(run, "time_to_first_token");
    return unit[0] != '\0' ? unit : "ms";
}

static int ttft_over_time(const struct plot_run *run, const struct timed *t, size_t n,
                          const char *dir, enum plot_theme theme, struct plot_drawn *drawn,
                          char *err, size_t cap)
{
    double *xs = malloc((n > 0 ? n : 1) * sizeof(double));
    double *ys = malloc((n > 0 ? n : 1) * sizeof(double));
    if (xs == NULL || ys == NULL) {
        free(xs);
        free(ys);
        snprintf(err, cap, "out of memory");
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        xs[i] = t[i].start_s;
        ys[i] = t[i].ttft;
    }
    char ylabel[96];
    snprintf(ylabel, sizeof(ylabel), "Time to first token (%s)", ttft_unit(run));
    struct plot_chart c = {.name = "ttft_over_time",
                           .title = "TTFT over time",
                           .xlabel = "Request start, from the first (s)",
                           .ylabel = ylabel,
                           .series_count = 1};
    c.series[0] = (struct plot_series){.label = "TTFT", .n = n, .x = xs, .y = ys, .points = true};
    int ret = plot__emit(&c, dir, theme, drawn, err, cap);
    free(xs);
    free(ys);
    return ret;
}

static int by_start(const void *a, const void *b)
{
    double d = ((const struct timed *)a)->start_s - ((const struct timed *)b)->start_s;
    return (d > 0) - (d < 0);
}

/* ttft_timeline is AIPerf's request_timeline (a Gantt chart): one row per request in start
 * order, its wait for the first token then its generation, as two bars end to end. */
static int ttft_timeline(struct timed *t, size_t n, const char *dir, enum plot_theme theme,
                         struct plot_drawn *drawn, char *err, size_t cap)
{
    qsort(t, n, sizeof(*t), by_start);
    double *v = malloc((n > 0 ? n : 1) * 4 * sizeof(double));
    if (v == NULL) {
        snprintf(err, cap, "out of memory");
        return -1;
    }
    double *row = v, *starts = v + n, *first = v + 2 * n, *gen_end = v + 3 * n;
    for (size_t i = 0; i < n; i++) {
        row[i] = (double)(i + 1);
        starts[i] = t[i].start_s;
        first[i] = t[i].start_s + t[i].ttft / 1e3; /* the records' TTFT is in ms */
        gen_end[i] = fmax(t[i].end_s, first[i]);
    }
    struct plot_chart c = {.name = "ttft_timeline",
                           .title = "TTFT and generation per request",
                           .xlabel = "Time from the first request's start (s)",
                           .ylabel = "Request, in start order",
                           .series_count = 2};
    c.series[0] = (struct plot_series){
        .label = "TTFT", .n = n, .x = starts, .y = row, .x_lo = starts, .x_hi = first};
    c.series[1] = (struct plot_series){
        .label = "Generation", .n = n, .x = first, .y = row, .x_lo = first, .x_hi = gen_end};
    int ret = plot__emit(&c, dir, theme, drawn, err, cap);
    free(v);
    return ret;
}

/* ttft_plots draws the plots of the requests' own times: TTFT over time and the timeline. */
static int ttft_plots(const struct plot_run *run, const char *dir, enum plot_theme theme,
                      struct plot_drawn *drawn, char *err, size_t cap)
{
    struct timed *t;
    size_t n = read_timed(run, &t);
    int ret = 0;
    if (n == 0) {
        plot__note(drawn, "ttft_over_time, ttft_timeline",
                   "no profiling record with a TTFT in " RECORDS
                   " (a non-streaming run, an aggregate, "
                   "or --export-level summary)");
    } else {
        ret = ttft_over_time(run, t, n, dir, theme, drawn, err, cap);
        ret = ret != 0 ? ret : ttft_timeline(t, n, dir, theme, drawn, err, cap);
    }
    free(t);
    return ret;
}

static const char *const spectrum_stats[] = {"p1",  "p5",  "p10", "p25", "p50",
                                             "p75", "p90", "p95", "p99"};
#define SPECTRUM_N (sizeof(spectrum_stats) / sizeof(spectrum_stats[0]))

static const struct {
    const char *tag;
    const char *label;
} spectrum_metrics[] = {
    {"time_to_first_token", "TTFT"},
    {"inter_token_latency", "ITL"},
    {"request_latency", "Request latency"},
};
#define SPECTRUM_SERIES (sizeof(spectrum_metrics) / sizeof(spectrum_metrics[0]))

/* The latency percentile spectrum: each latency's percentiles against q on a "nines" axis
 * (p50, p90, p99 evenly apart), log10 of the latency up the y axis. */
static int spectrum(const struct plot_run *run, const char *dir, enum plot_theme theme,
                    struct plot_drawn *drawn, char *err, size_t cap)
{
    double xs[SPECTRUM_SERIES][SPECTRUM_N], ys[SPECTRUM_SERIES][SPECTRUM_N];
    struct plot_chart c = {.name = "latency_percentile_spectrum",
                           .title = "Latency percentile spectrum",
                           .xlabel = "Percentile",
                           .ylabel = "Latency (ms, log scale)",
                           .x_nines = true,
                           .y_log = true};
    for (size_t m = 0; m < SPECTRUM_SERIES; m++) {
        size_t n = 0;
        for (size_t i = 0; i < SPECTRUM_N; i++) {
            double v = plot__stat(run, spectrum_metrics[m].tag, spectrum_stats[i]);
            double q = strtod(spectrum_stats[i] + 1, NULL) / 100.0;
            if (isfinite(v) && v > 0) {
                xs[m][n] = -log10(1.0 - q);
                ys[m][n] = log10(v);
                n++;
            }
        }
        if (n > 0) {
            c.series[c.series_count++] = (struct plot_series){.label = spectrum_metrics[m].label,
                                                              .n = n,
                                                              .x = xs[m],
                                                              .y = ys[m],
                                                              .line = true,
                                                              .points = true};
        }
    }
    if (c.series_count == 0) {
        plot__note(drawn, c.name, "the summary has no latency percentiles");
        return 0;
    }
    return plot__emit(&c, dir, theme, drawn, err, cap);
}

#define TIMESLICES "profile_export_aiperf_timeslices.json"
#define MAX_SLICES 100000

/* timeslice draws AIPerf's timeslices_<name>: tag's average in each --slice-duration window,
 * against the window's index (timeslice_index, as AIPerf's x axis), with its p90 beside it. */
static int timeslice(const struct plot_run *run, json_t *slices, const char *name, const char *tag,
                     const char *text, const char *dir, enum plot_theme theme,
                     struct plot_drawn *drawn, char *err, size_t cap)
{
    size_t total = json_array_size(slices) < MAX_SLICES ? json_array_size(slices) : MAX_SLICES;
    double *buf = calloc(total * 3 + 1, sizeof(double));
    if (buf == NULL) {
        snprintf(err, cap, "out of memory");
        return -1;
    }
    double *xs = buf, *avg = buf + total, *p90 = buf + 2 * total;
    size_t n = 0;
    for (size_t i = 0; i < total; i++) {
        json_t *slice = json_array_get(slices, i);
        json_t *block = json_object_get(slice, tag);
        json_t *a = json_object_get(block, "avg");
        if (json_is_number(a)) {
            json_t *index = json_object_get(slice, "timeslice_index");
            xs[n] = json_is_number(index) ? json_number_value(index) : (double)i;
            avg[n] = json_number_value(a);
            json_t *p = json_object_get(block, "p90");
            p90[n++] = json_is_number(p) ? json_number_value(p) : NAN;
        }
    }
    int ret = 0;
    if (n == 0) {
        plot__note(drawn, name, "no window has the metric");
    } else {
        char title[96], ylabel[96];
        snprintf(title, sizeof(title), "%s per time slice", text);
        snprintf(ylabel, sizeof(ylabel), "%s (%s)", text, plot__unit(run, tag));
        struct plot_chart c = {.name = name,
                               .title = title,
                               .xlabel = "Time slice (index, --slice-duration apart)",
                               .ylabel = ylabel,
                               .series_count = 2};
        c.series[0] = (struct plot_series){
            .label = "p90", .n = n, .x = xs, .y = p90, .line = true, .points = true};
        /* the average second, so that it is drawn over the p90 where they meet */
        c.series[1] = (struct plot_series){
            .label = "avg", .n = n, .x = xs, .y = avg, .line = true, .points = true};
        ret = plot__emit(&c, dir, theme, drawn, err, cap);
    }
    free(buf);
    return ret;
}

static int timeslices(const struct plot_run *run, const char *dir, enum plot_theme theme,
                      struct plot_drawn *drawn, char *err, size_t cap)
{
    char path[PLOT_PATH_BYTES];
    plot__join(path, sizeof(path), run->dir, TIMESLICES);
    json_t *doc = json_load_file(path, 0, NULL);
    json_t *slices = json_object_get(doc, "timeslices");
    int ret = 0;
    if (json_array_size(slices) == 0) {
        plot__note(drawn, "timeslices_ttft, timeslices_itl",
                   "no " TIMESLICES " (run with --slice-duration)");
    } else {
        ret = timeslice(run, slices, "timeslices_ttft", "time_to_first_token",
                        "Time to first token", dir, theme, drawn, err, cap);
        ret = ret != 0 ? ret
                       : timeslice(run, slices, "timeslices_itl", "inter_token_latency",
                                   "Inter token latency", dir, theme, drawn, err, cap);
    }
    json_decref(doc);
    return ret;
}

int plot__single(const struct plot_run *run, const char *dir, enum plot_theme theme,
                 struct plot_drawn *drawn, char *err, size_t cap)
{
    if (ttft_plots(run, dir, theme, drawn, err, cap) != 0 ||
        plot__gpu(run, dir, theme, drawn, err, cap) != 0 ||
        timeslices(run, dir, theme, drawn, err, cap) != 0) {
        return -1;
    }
    return spectrum(run, dir, theme, drawn, err, cap);
}

/* One multi-run chart: a point per run (x_tag and y_tag averages), labelled with the run, and
 * with front set the Pareto front through the points no other point beats on both axes. */
struct multi_spec {
    const char *name;
    const char *title;
    const char *x_tag, *x_text;
    const char *y_tag, *y_text;
    bool front;
    bool x_higher_better;
};

struct point {
    double x, y;
    const char *label;
};

static int by_x(const void *a, const void *b)
{
    double d = ((const struct point *)a)->x - ((const struct point *)b)->x;
    return (d > 0) - (d < 0);
}

/* pareto_front keeps the points (sorted by x) not dominated (y higher is better; x as told);
 * returns the count, in x order. */
static size_t pareto_front(struct point *p, size_t n, bool x_higher_better, double *fx, double *fy)
{
    size_t k = 0;
    double best = -INFINITY;
    for (size_t j = 0; j < n; j++) {
        size_t i = x_higher_better ? n - 1 - j : j;
        if (p[i].y > best) {
            best = p[i].y;
            fx[k] = p[i].x;
            fy[k] = p[i].y;
            k++;
        }
    }
    if (x_higher_better) { /* collected from the right: put back in x order */
        for (size_t i = 0; i < k / 2; i++) {
            double tx = fx[i], ty = fy[i];
            fx[i] = fx[k - 1 - i];
            fy[i] = fy[k - 1 - i];
            fx[k - 1 - i] = tx;
            fy[k - 1 - i] = ty;
        }
    }
    return k;
}

static int multi_chart(const struct plot_runs *runs, const struct multi_spec *spec, const char *dir,
                       enum plot_theme theme, struct plot_drawn *drawn, char *err, size_t cap)
{
    static double xs[PLOT_MAX_RUNS], ys[PLOT_MAX_RUNS], fx[PLOT_MAX_RUNS], fy[PLOT_MAX_RUNS];
    static struct point pts[PLOT_MAX_RUNS];
    const char *labels[PLOT_MAX_RUNS];
    size_t n = 0;
    const char *xu = "", *yu = "";
    for (size_t i = 0; i < runs->count; i++) {
        double x = plot__stat(&runs->items[i], spec->x_tag, "avg");
        double y = plot__stat(&runs->items[i], spec->y_tag, "avg");
        if (isfinite(x) && isfinite(y)) {
            xu = plot__unit(&runs->items[i], spec->x_tag);
            yu = plot__unit(&runs->items[i], spec->y_tag);
            pts[n++] = (struct point){x, y, runs->items[i].label};
        }
    }
    qsort(pts, n, sizeof(pts[0]), by_x); /* the line of a scatter_line runs left to right */
    for (size_t i = 0; i < n; i++) {
        xs[i] = pts[i].x;
        ys[i] = pts[i].y;
        labels[i] = pts[i].label;
    }
    if (n < 2) {
        plot__note(drawn, spec->name, "fewer than two runs carry both metrics");
        return 0;
    }
    char xlabel[128], ylabel[128];
    snprintf(xlabel, sizeof(xlabel), "%s (%s)", spec->x_text, xu);
    snprintf(ylabel, sizeof(ylabel), "%s (%s)", spec->y_text, yu);
    struct plot_chart c = {.name = spec->name,
                           .title = spec->title,
                           .xlabel = xlabel,
                           .ylabel = ylabel,
                           .series_count = 1};
    c.series[0] = (struct plot_series){.label = "runs",
                                       .n = n,
                                       .x = xs,
                                       .y = ys,
                                       .points = true,
                                       .point_labels = labels,
                                       .line = !spec->front};
    if (spec->front) {
        size_t k = pareto_front(pts, n, spec->x_higher_better, fx, fy);
        c.series[c.series_count++] = (struct plot_series){
            .label = "Pareto front", .n = k, .x = fx, .y = fy, .line = true, .points = true};
    }
    return plot__emit(&c, dir, theme, drawn, err, cap);
}

static const struct multi_spec multi_specs[] = {
    {"pareto_curve_throughput_vs_latency",
     "Pareto: output token throughput vs request latency (run averages)", "request_latency",
     "Request latency", "output_token_throughput", "Output token throughput", true, false},
    {"pareto_curve_throughput_vs_interactivity",
     "Pareto: output token throughput vs interactivity (run averages)",
     "output_token_throughput_per_user", "Output token throughput per user",
     "output_token_throughput", "Output token throughput", true, true},
    {"ttft_vs_throughput", "TTFT vs request throughput (run averages)", "time_to_first_token",
     "Time to first token", "request_throughput", "Request throughput", false, false},
};

/* One point of the uncertainty plot: its averages and their confidence intervals (the point
 * itself where the run is single). */
struct ci_point {
    double x, y, x_lo, x_hi, y_lo, y_hi;
    bool ci;
};

static struct ci_point ci_point(const struct plot_run *run, const char *x_tag, const char *y_tag)
{
    struct ci_point p = {.x = plot__stat(run, x_tag, "avg"), .y = plot__stat(run, y_tag, "avg")};
    p.ci = plot__ci(run, x_tag, "avg", &p.x_lo, &p.x_hi) &&
           plot__ci(run, y_tag, "avg", &p.y_lo, &p.y_hi);
    if (!p.ci) {
        p.x_lo = p.x_hi = p.x;
        p.y_lo = p.y_hi = p.y;
    }
    return p;
}

/* AIPerf's latency_throughput_uncertainty, with error bars (the confidence intervals of the
 * means over repeated runs) and without its ellipses. */
static int uncertainty(const struct plot_runs *runs, const char *dir, enum plot_theme theme,
                       struct plot_drawn *drawn, char *err, size_t cap)
{
    static double xs[PLOT_MAX_RUNS], ys[PLOT_MAX_RUNS], xl[PLOT_MAX_RUNS], xh[PLOT_MAX_RUNS];
    static double yl[PLOT_MAX_RUNS], yh[PLOT_MAX_RUNS];
    const char *labels[PLOT_MAX_RUNS];
    size_t n = 0, with_ci = 0;
    for (size_t i = 0; i < runs->count; i++) {
        struct ci_point p = ci_point(&runs->items[i], "request_latency", "output_token_throughput");
        if (isfinite(p.x) && isfinite(p.y)) {
            xs[n] = p.x, ys[n] = p.y, xl[n] = p.x_lo, xh[n] = p.x_hi, yl[n] = p.y_lo;
            yh[n] = p.y_hi;
            labels[n++] = runs->items[i].label;
            with_ci += p.ci;
        }
    }
    const char *name = "latency_throughput_uncertainty";
    if (n < 2 || with_ci == 0) {
        plot__note(drawn, name,
                   "no confidence intervals: needs repeated runs (--num-profile-runs 2 "
                   "or more)");
        return 0;
    }
    char xlabel[96], ylabel[96];
    snprintf(xlabel, sizeof(xlabel), "Request latency (%s)",
             plot__unit(&runs->items[0], "request_latency"));
    snprintf(ylabel, sizeof(ylabel), "Output token throughput (%s)",
             plot__unit(&runs->items[0], "output_token_throughput"));
    struct plot_chart c = {.name = name,
                           .title = "Latency and throughput, with confidence intervals",
                           .xlabel = xlabel,
                           .ylabel = ylabel,
                           .series_count = 1};
    c.series[0] = (struct plot_series){.label = "mean, CI",
                                       .n = n,
                                       .x = xs,
                                       .y = ys,
                                       .points = true,
                                       .point_labels = labels,
                                       .x_lo = xl,
                                       .x_hi = xh,
                                       .y_lo = yl,
                                       .y_hi = yh};
    return plot__emit(&c, dir, theme, drawn, err, cap);
}

int plot__multi(const struct plot_runs *runs, const char *dir, enum plot_theme theme,
                struct plot_drawn *drawn, char *err, size_t cap)
{
    if (uncertainty(runs, dir, theme, drawn, err, cap) != 0) {
        return -1;
    }
    for (size_t i = 0; i < sizeof(multi_specs) / sizeof(multi_specs[0]); i++) {
        if (multi_chart(runs, &multi_specs[i], dir, theme, drawn, err, cap) != 0) {
            return -1;
        }
    }
    return 0;
}
