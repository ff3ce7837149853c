/*
 * plot_internal.h - what the files of plot/ share: the runs read from disk (runs.c), the chart
 * description PLplot draws (chart.c), the default plots built from the runs (plots.c) and the
 * page (report.c).
 */
#ifndef RINGPERF_PLOT_INTERNAL_H
#define RINGPERF_PLOT_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "plot/plot.h"

#define PLOT_PATH_BYTES 4096
#define PLOT_MAX_RUNS 256
#define PLOT_MAX_SERIES 8
#define PLOT_MAX_CHARTS 8
/* A filled series holds at most twice this many points (two per step of a step line). */
#define PLOT_FILL_POINTS_MAX 1024

/* plot_run is one run directory: its summary document and the few numbers the multi-run plots
 * need. The summary is profile_export_aiperf.json or, for a cell that only has its confidence
 * aggregate, profile_export_aiperf_aggregate.json (whose values are the means over its runs). */
struct plot_run {
    char dir[PLOT_PATH_BYTES];
    char label[128];
    json_t *summary; /* owned */
    bool aggregate;  /* the summary is an aggregate (metrics.<tag>_<stat>.mean) */
};

struct plot_runs {
    struct plot_run items[PLOT_MAX_RUNS];
    size_t count;
    /* An aggregate has no command of its own: the first run's below a skipped profile_runs/. */
    char runs_command[8192];
};

/* plot__join writes dir/name into out; false (out empty) when it does not fit. */
bool plot__join(char *out, size_t cap, const char *dir, const char *name);

/* plot__find_runs walks dirs and loads every run directory below them, as AIPerf's mode
 * detector: profile_runs/ is skipped where a sibling aggregate/ stands for it, and plots/ and
 * sweep_aggregate/ are not runs. Returns 0, or -1 with err. */
int plot__find_runs(const char *const *dirs, size_t count, struct plot_runs *out, char *err,
                    size_t cap);
void plot__free_runs(struct plot_runs *runs);

/* plot__stat is a run's statistic stat ("avg", "p99") of metric tag, or NAN when absent. */
double plot__stat(const struct plot_run *run, const char *tag, const char *stat);

/* plot__ci is an aggregate run's confidence interval of the mean of tag's stat over its runs;
 * false for a single run or where the interval is missing. */
bool plot__ci(const struct plot_run *run, const char *tag, const char *stat, double *lo,
              double *hi);

/* plot__unit is the unit of tag in run's summary ("" when absent). */
const char *plot__unit(const struct plot_run *run, const char *tag);

/* One series of a chart: points, a line through them, or both. */
struct plot_series {
    const char *label;
    size_t n;
    const double *x;
    const double *y;
    bool line;
    bool points;
    const char *const *point_labels; /* NULL, or one label drawn beside each point */
    const double *x_lo, *x_hi;       /* NULL, or each point's error bar along x */
    const double *y_lo, *y_hi;       /* NULL, or along y */
    bool right;                      /* on the right-hand y axis (plot_chart.y2label) */
    bool fill;                       /* the area under the line filled, translucent */
};

/* plot_chart describes one figure; chart.c draws it with PLplot into <name>.png and <name>.svg. */
struct plot_chart {
    const char *name;
    const char *title;
    const char *xlabel;
    const char *ylabel;
    const char *y2label;   /* NULL, or the right-hand axis of the series marked right */
    double y2_min, y2_max; /* the right-hand axis' range; both 0: from its series */
    struct plot_series series[PLOT_MAX_SERIES];
    size_t series_count;
    bool x_nines; /* x is -log10(1 - q): labelled as percentiles */
    bool y_log;   /* y values are log10 of the quantity: labelled as powers of ten */
};

/* plot__render writes dir/<name>.png and dir/<name>.svg. Returns 0, or -1 with err. */
int plot__render(const struct plot_chart *chart, const char *dir, enum plot_theme theme, char *err,
                 size_t cap);

/* plot_drawn is the list of charts written, in order, for the page. */
struct plot_drawn {
    char names[PLOT_MAX_CHARTS][64];
    char titles[PLOT_MAX_CHARTS][128];
    size_t count;
    char notes[PLOT_MAX_CHARTS][160]; /* plots not drawn, and why */
    size_t note_count;
};

/* plot__emit renders chart c into dir and lists it in drawn; plot__note lists a plot not
 * drawn, and why. */
int plot__emit(const struct plot_chart *c, const char *dir, enum plot_theme theme,
               struct plot_drawn *drawn, char *err, size_t cap);
void plot__note(struct plot_drawn *drawn, const char *name, const char *why);

/* plot__each_line calls fn with each line of the JSONL file dir/name, parsed (lines that are not
 * JSON are skipped), until fn returns false. Returns false when the file cannot be opened. */
bool plot__each_line(const char *dir, const char *name, bool (*fn)(json_t *doc, void *ctx),
                     void *ctx);

/* plot__gpu draws gpu_utilization_and_throughput_over_time from the run's records and
 * gpu_telemetry_export.jsonl (gpu.c), or notes why it cannot. */
int plot__gpu(const struct plot_run *run, const char *dir, enum plot_theme theme,
              struct plot_drawn *drawn, char *err, size_t cap);

/* plot__single draws the single-run plots of run; plot__multi the multi-run plots of runs. */
int plot__single(const struct plot_run *run, const char *dir, enum plot_theme theme,
                 struct plot_drawn *drawn, char *err, size_t cap);
int plot__multi(const struct plot_runs *runs, const char *dir, enum plot_theme theme,
                struct plot_drawn *drawn, char *err, size_t cap);

/* plot__write_report writes dir/report.html from the runs and the charts drawn in dir. */
int plot__write_report(const struct plot_runs *runs, const struct plot_drawn *drawn,
                       const char *dir, enum plot_theme theme, char *err, size_t cap);

#endif
