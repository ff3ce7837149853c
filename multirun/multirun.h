/*
 * multirun.h - repeated runs and parameter sweeps, laid out and summarised as AIPerf does
 * (spec §5): which runs to make in which order, in which directories, with which seed and
 * warmup; the confidence aggregate of a cell's runs (aggregate/profile_export_aiperf_
 * aggregate.{json,csv}, and profile_export_aiperf_collated.json when trials stop on
 * convergence); the sweep aggregate across cells (sweep_aggregate/profile_export_
 * aiperf_sweep.{json,csv}, best configurations, Pareto set); and the exit status (§5.6).
 *
 * A run itself is the caller's: multirun_execute calls ops->run once per run with the run's
 * point, and reads back only the summary JSON the run wrote. It keeps no global state and
 * starts no thread; everything it allocates is freed before it returns.
 */
#ifndef RINGPERF_MULTIRUN_H
#define RINGPERF_MULTIRUN_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config/config.h"

#define MULTIRUN_PATH_BYTES 4096
#define MULTIRUN_ERROR_BYTES 512
/* MULTIRUN_DEFAULT_SEED is AIPerf's seed for repeated runs without --random-seed. */
#define MULTIRUN_DEFAULT_SEED 42
/* MULTIRUN_CONVERGENCE_MIN_RUNS is how many runs convergence waits for, as AIPerf. */
#define MULTIRUN_CONVERGENCE_MIN_RUNS 3

/* multirun_point is one run of a plan: borrowed views, valid during ops->run. */
struct multirun_point {
    size_t cell;          /* the sweep cell (config_sweep_cell_values); 0 without a sweep */
    size_t trial;         /* 0-based repeat of the cell */
    const double *values; /* the cell's value of each sweep dim, cfg->sweep.dim_count of them */
    bool seed_set;        /* false: the run draws a seed of its own */
    uint64_t seed;
    bool warmup;           /* false: the run skips its warmup phase */
    const char *dir;       /* the run's artifact directory (created), its files only */
    const char *label;     /* run_0001, or trial_0001 in a sweep */
    const char *cell_name; /* concurrency_10__isl_100; "" without a sweep */
    const char *sweep_id;  /* a UUID4 shared by every run of the session (AIPerf's sweep_id) */
};

/* multirun_outputs is where a run left the files multirun/ reads back. */
struct multirun_outputs {
    char summary[MULTIRUN_PATH_BYTES]; /* profile_export_aiperf.json */
    char records[MULTIRUN_PATH_BYTES]; /* profile_export.jsonl; "" when none was written */
};

/* multirun_ops is what multirun_execute needs of its caller. */
struct multirun_ops {
    /* run makes one run. Returns 0 when it succeeded, with its files named in *out;
     * otherwise nonzero with a one-line reason in error. */
    int (*run)(void *ctx, const struct multirun_point *point, struct multirun_outputs *out,
               char *error, size_t errcap);
    /* stopped reports whether the session was told to end (Ctrl-C): no further run starts. */
    bool (*stopped)(void *ctx);
    void *ctx;
};

/* multirun_execute makes every run cfg asks for (config_is_multi_run must hold) under
 * base_dir, in AIPerf's order and layout (§5.1), pausing the cooldowns between runs,
 * stopping a cell early when --convergence-metric says it is stable, and stopping
 * altogether when ops->stopped says so. Then it writes the aggregates over the runs that
 * succeeded. Returns AIPerf's exit status (§5.6): 0 when at least two runs succeeded, else 1;
 * 1 as well when an aggregate could not be written (said on stderr). */
int multirun_execute(const struct profile_config *cfg, const char *base_dir,
                     const struct multirun_ops *ops);

/* multirun_pause waits ns nanoseconds, or less when stopped(ctx) says the session was told to
 * end (checked every few milliseconds): the cooldowns' wait. */
void multirun_pause(int64_t ns, bool (*stopped)(void *ctx), void *ctx);

/* multirun_cell_name writes cell's directory name into out (cap bytes): each swept
 * parameter as <name>_<value> (concurrency_10, request_rate_5.0: floats as Python prints
 * them), joined by "__". Returns false when it does not fit. */
bool multirun_cell_name(const struct profile_config *cfg, size_t cell, char *out, size_t cap);

/* multirun_py_float writes v as Python's str(float) does (shortest text that reads back
 * as v, ".0" on whole numbers, "inf", "nan") into out (cap >= 32). */
void multirun_py_float(double v, char *out, size_t cap);

/* multirun_confidence_json builds the metrics object of a confidence aggregate from the
 * summaries (profile_export_aiperf.json documents, borrowed) of the successful runs: one
 * <tag>_<stat> entry per statistic any of them reports, with mean, std, min, max, cv, se,
 * ci_low, ci_high, t_critical and unit (non-finite numbers as null). Returns a new
 * reference, or NULL when out of memory or level is not inside (0, 1). */
json_t *multirun_confidence_json(json_t *const *summaries, size_t n, double level);

#endif
