/*
 * plot.h - `ringperf plot`: AIPerf's plots of finished runs, drawn with PLplot's cairo drivers as
 * PNG and SVG, and report.html, one self-contained page of a run (tables, plots, errors, command,
 * machine).
 *
 * The input is artifact directories as ringperf profile (or AIPerf) leaves them. Run directories
 * are found below them: one run gives the single-run plots (TTFT over time, the latency
 * percentile spectrum), two or more the multi-run plots (Pareto of throughput against latency).
 */
#ifndef RINGPERF_PLOT_H
#define RINGPERF_PLOT_H

#include <stddef.h>

enum plot_theme { PLOT_THEME_LIGHT, PLOT_THEME_DARK };

struct plot_options {
    enum plot_theme theme;
    const char *output_dir; /* NULL: <first input directory>/plots, as AIPerf */
};

/* plot_dirs draws the plots of the runs found under dirs[0..count-1] and writes report.html next
 * to them. Returns 0, or -1 with the reason in err (no run found, unreadable summary, a plot that
 * could not be written). out_dir receives the directory written (may be NULL). */
int plot_dirs(const char *const *dirs, size_t count, const struct plot_options *opt, char *out_dir,
              size_t out_cap, char *err, size_t err_cap);

#endif
