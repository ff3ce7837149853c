/*
 * cli.h - the `ringperf` command line: subcommands and their wiring.
 *
 * main() only dispatches; each subcommand is a function returning the process
 * exit code (0 success, 1 run or configuration error, 2 usage error).
 */
#ifndef RINGPERF_CLI_H
#define RINGPERF_CLI_H

#include <stdbool.h>
#include <stddef.h>

#include "plot/plot.h"

/* cli_main dispatches argv (argv[0] is the program) to a subcommand. */
int cli_main(int argc, char **argv);

/* cli_profile_main runs `ringperf profile`; argv[0] is the word "profile". */
int cli_profile_main(int argc, char **argv);

/* cli_merge_main runs `ringperf merge DIR...` (cli/merge.c): one result
 * from the per-rank or per-shard artifact directories of a shared run;
 * argv[0] is the word "merge". */
int cli_merge_main(int argc, char **argv);

/* cli_config_main runs `ringperf config validate|expand FILE` (cli/config_command.c) on an
 * AIPerf config file; argv[0] is the word "config". */
int cli_config_main(int argc, char **argv);

/* cli_plot_main runs `ringperf plot [--theme light|dark] [--output DIR] DIR...`
 * (cli/plot_command.c); argv[0] is the word "plot". */
int cli_plot_main(int argc, char **argv);

/* cli_plot_run draws the plots and report of dirs and prints where they went; 0, or 1 with the
 * reason on stderr. `ringperf plot` and `profile --auto-plot` share it. */
int cli_plot_run(const char *const *dirs, size_t count, const struct plot_options *opt);

/* cli_plot_after_run is --auto-plot, once the run's files are closed: cli_plot_run on dir.
 * Returns status; a failure is a warning, or with required (--plot-required) 1 when status was
 * 0. */
int cli_plot_after_run(const char *dir, bool required, int status);

/* cli_plot_job is cli_plot_after_run as a callback, for plots drawn while a live API still
 * serves (a lone run's, a session's): status goes in and comes back out. */
struct cli_plot_job {
    const char *dir; /* borrowed */
    bool required;
    int status;
};

/* cli_plot_job_run is cli_plot_after_run on ctx, a struct cli_plot_job. */
void cli_plot_job_run(void *ctx);

#endif
