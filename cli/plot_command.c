/*
 * plot_command.c - `ringperf plot [--theme light|dark] [--output DIR] [DIR...]`: command-line
 * glue over plot_dirs (plot/), as `aiperf plot`.
 */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "config/config.h"
#include "plot/plot.h"

#define MAX_DIRS 64

static void print_plot_usage(FILE *out)
{
    fprintf(out,
            "Usage: ringperf plot [--theme light|dark] [--output DIR] [DIR...]\n\n"
            "Draws AIPerf's default plots of finished runs as PNG and SVG, and report.html, one\n"
            "self-contained page with the tables, the plots, the errors, the command and the\n"
            "machine. DIR (default ./artifacts) is searched for run directories: one run gives\n"
            "TTFT over time and the latency percentile spectrum, two or more (a sweep, repeated\n"
            "runs, several DIRs) the Pareto curves and TTFT against throughput.\n\n"
            "  --theme light|dark  colours of the plots and the page (default light)\n"
            "  --output DIR        where to write (default: the first DIR's plots/)\n");
}

/* parse_theme reads --theme's value; false (with the message printed) when it is neither. */
static bool parse_theme(const char *value, enum plot_theme *out)
{
    if (value != NULL && strcmp(value, "light") == 0) {
        *out = PLOT_THEME_LIGHT;
    } else if (value != NULL && strcmp(value, "dark") == 0) {
        *out = PLOT_THEME_DARK;
    } else {
        fprintf(stderr, "ringperf plot: --theme: expected light or dark, got '%s'\n",
                value != NULL ? value : "(nothing)");
        return false;
    }
    return true;
}

int cli_plot_run(const char *const *dirs, size_t count, const struct plot_options *opt)
{
    char out[4096];
    char err[1024];
    if (plot_dirs(dirs, count, opt, out, sizeof(out), err, sizeof(err)) != 0) {
        fprintf(stderr, "ringperf plot: %s\n", err);
        return 1;
    }
    printf("Plots: %s\nReport: %s/report.html\n", out, out);
    return 0;
}

/* AIPerf's post-run callbacks turn only a status that was 0 into 1. */
int cli_plot_after_run(const char *dir, bool required, int status)
{
    if (status != 0 || dir[0] == '\0') {
        return status;
    }
    const char *dirs[] = {dir};
    struct plot_options opt = {.theme = PLOT_THEME_LIGHT};
    if (cli_plot_run(dirs, 1, &opt) == 0) {
        return status;
    }
    if (required) {
        fprintf(stderr, "ringperf profile: --plot-required: plotting failed (above)\n");
        return 1;
    }
    fprintf(stderr, "ringperf profile: warning: --auto-plot failed (above); the results are "
                    "complete (add --plot-required to make this an error)\n");
    return status;
}

void cli_plot_job_run(void *ctx)
{
    struct cli_plot_job *job = ctx;
    job->status = cli_plot_after_run(job->dir, job->required, job->status);
}

int cli_plot_main(int argc, char **argv)
{
    struct plot_options opt = {.theme = PLOT_THEME_LIGHT};
    const char *dirs[MAX_DIRS];
    size_t count = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            print_plot_usage(stdout);
            return 0;
        }
        if (strcmp(argv[i], "--theme") == 0) {
            if (!parse_theme(i + 1 < argc ? argv[++i] : NULL, &opt.theme)) {
                return CONFIG_EXIT_INVALID;
            }
        } else if (strcmp(argv[i], "--output") == 0) {
            if (i + 1 == argc) {
                fprintf(stderr, "ringperf plot: --output needs a directory\n");
                return CONFIG_EXIT_INVALID;
            }
            opt.output_dir = argv[++i];
        } else if (argv[i][0] == '-') {
            fprintf(stderr, "ringperf plot: unknown flag '%s' (see ringperf plot --help)\n",
                    argv[i]);
            return CONFIG_EXIT_INVALID;
        } else if (count == MAX_DIRS) {
            fprintf(stderr, "ringperf plot: more than %d directories\n", MAX_DIRS);
            return CONFIG_EXIT_INVALID;
        } else {
            dirs[count++] = argv[i];
        }
    }
    if (count == 0) {
        dirs[count++] = "artifacts"; /* aiperf plot's default */
    }
    return cli_plot_run(dirs, count, &opt);
}
