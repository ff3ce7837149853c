/*
 * run.c - multirun_execute: the runs of a plan in AIPerf's order and directories (spec
 * §5.1), with their seeds, warmups, cooldowns and convergence, then the aggregates and the
 * exit status (§5.6).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "multirun/multirun_internal.h"

/* multirun_pause (the cooldowns) checks for Ctrl-C this often. */
#define COOLDOWN_SLICE_NS (50L * 1000 * 1000)

struct plan {
    const struct profile_config *cfg;
    const char *base;
    const struct multirun_ops *ops;
    size_t cells;
    size_t trials;
    bool sweep;
    struct multirun__run *runs; /* made so far, in order */
    size_t count;
    size_t last_cell; /* for the cooldown between cells */
    char sweep_id[40];
};

bool multirun_cell_name(const struct profile_config *cfg, size_t cell, char *out, size_t cap)
{
    double values[CONFIG_SWEEP_PARAM_COUNT];
    if (cap == 0 || !config_sweep_cell_values(cfg, cell, values)) {
        return false;
    }
    size_t used = 0;
    out[0] = '\0';
    for (size_t i = 0; i < cfg->sweep.dim_count; i++) {
        enum config_sweep_param p = cfg->sweep.dims[i].param;
        char value[40];
        if (config_sweep_param_is_integer(p)) {
            snprintf(value, sizeof(value), "%lld", (long long)llround(values[i]));
        } else {
            multirun_py_float(values[i], value, sizeof(value));
        }
        int n = snprintf(out + used, cap - used, "%s%s_%s", i > 0 ? "__" : "",
                         config_sweep_param_name(p), value);
        if (n < 0 || (size_t)n >= cap - used) {
            return false;
        }
        used += (size_t)n;
    }
    return true;
}

/* run_place writes where a run's files go and its label (§5.1). */
static bool run_place(const struct plan *pl, size_t cell, size_t trial, char *dir, char *label)
{
    char name[MULTIRUN__LABEL_BYTES] = "";
    if (pl->sweep && !multirun_cell_name(pl->cfg, cell, name, sizeof(name))) {
        return false;
    }
    snprintf(label, MULTIRUN__LABEL_BYTES, "%s_%04zu", pl->sweep ? "trial" : "run", trial + 1);
    int n;
    if (!pl->sweep) {
        n = snprintf(dir, MULTIRUN_PATH_BYTES, "%s/profile_runs/%s", pl->base, label);
    } else if (pl->trials == 1) {
        n = snprintf(dir, MULTIRUN_PATH_BYTES, "%s/%s", pl->base, name);
    } else if (pl->cfg->sweep.mode == CONFIG_SWEEP_REPEATED) {
        n = snprintf(dir, MULTIRUN_PATH_BYTES, "%s/profile_runs/%s/%s", pl->base, label, name);
    } else {
        n = snprintf(dir, MULTIRUN_PATH_BYTES, "%s/%s/profile_runs/%s", pl->base, name, label);
    }
    return n > 0 && n < MULTIRUN_PATH_BYTES;
}

/* seed_of is the run's seed: --random-seed, else AIPerf's 42 when runs must send the same
 * requests. A sweep from a --random-seed gives cell i that seed plus i, unless
 * --parameter-sweep-same-seed, as AIPerf derives variation seeds. */
static bool seed_of(const struct plan *pl, size_t cell, uint64_t *out)
{
    const struct profile_config *cfg = pl->cfg;
    if (!cfg->random_seed_set && !cfg->multi_run.set_consistent_seed) {
        return false;
    }
    if (!cfg->random_seed_set) {
        *out = MULTIRUN_DEFAULT_SEED;
        return true;
    }
    bool derive = pl->sweep && !cfg->sweep.same_seed;
    *out = (uint64_t)cfg->random_seed + (derive ? cell : 0);
    return true;
}

/* cool_down waits the pause due before the next run; Ctrl-C ends it at once. */
static void cool_down(const struct plan *pl, size_t cell, size_t trial)
{
    if (pl->count == 0) {
        return;
    }
    double seconds = cell != pl->last_cell ? pl->cfg->sweep.cooldown_seconds
                                           : pl->cfg->multi_run.cooldown_seconds;
    if (trial > 0 && cell != pl->last_cell) {
        seconds += pl->cfg->multi_run.cooldown_seconds; /* a new trial of a repeated sweep */
    }
    if (seconds > 0) {
        fprintf(stderr, "ringperf: cooling down for %g s\n", seconds);
    }
    multirun_pause(llround(seconds * 1e9), pl->ops->stopped, pl->ops->ctx);
}

static int64_t monotonic_ns(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (int64_t)now.tv_sec * 1000000000 + now.tv_nsec;
}

void multirun_pause(int64_t ns, bool (*stopped)(void *ctx), void *ctx)
{
    int64_t end_ns = monotonic_ns() + ns;
    for (;;) {
        int64_t left = end_ns - monotonic_ns();
        if (left <= 0 || stopped(ctx)) {
            return;
        }
        struct timespec slice = {0, left < COOLDOWN_SLICE_NS ? left : COOLDOWN_SLICE_NS};
        nanosleep(&slice, NULL);
    }
}

static void load_summary(struct multirun__run *r, const char *path)
{
    json_error_t err;
    r->summary = json_load_file(path, 0, &err);
    if (r->summary == NULL) {
        r->ok = false;
        snprintf(r->error, sizeof(r->error), "cannot read %.300s: %.150s (line %d)", path, err.text,
                 err.line);
    }
}

/* make_run runs one point and records it. Returns false when no run could be made. */
static bool make_run(struct plan *pl, size_t cell, size_t trial)
{
    struct multirun__run *r = &pl->runs[pl->count];
    char dir[MULTIRUN_PATH_BYTES];
    char name[MULTIRUN__LABEL_BYTES] = "";
    double values[CONFIG_SWEEP_PARAM_COUNT] = {0};
    cool_down(pl, cell, trial);
    if (pl->ops->stopped(pl->ops->ctx)) {
        return false;
    }
    *r = (struct multirun__run){.cell = cell, .trial = trial};
    if (!run_place(pl, cell, trial, dir, r->label) || multirun__make_dirs(dir) != 0) {
        fprintf(stderr, "ringperf profile: cannot create the run directory under %s\n", pl->base);
        return false;
    }
    config_sweep_cell_values(pl->cfg, cell, values);
    multirun_cell_name(pl->cfg, cell, name, sizeof(name));
    struct multirun_point point = {.cell = cell,
                                   .trial = trial,
                                   .values = values,
                                   .dir = dir,
                                   .label = r->label,
                                   .cell_name = name,
                                   .sweep_id = pl->sweep_id};
    point.seed_set = seed_of(pl, cell, &point.seed);
    point.warmup = trial == 0 || !pl->cfg->multi_run.disable_warmup_after_first;
    fprintf(stderr, "ringperf: run %s%s%s -> %s\n", name, name[0] != '\0' ? " " : "", r->label,
            dir);
    struct multirun_outputs out = {.summary = "", .records = ""};
    r->ok = pl->ops->run(pl->ops->ctx, &point, &out, r->error, sizeof(r->error)) == 0;
    if (r->ok) {
        load_summary(r, out.summary);
        snprintf(r->records, sizeof(r->records), "%s", out.records);
    }
    pl->count++;
    pl->last_cell = cell;
    return true;
}

/* distribution_stable is AIPerf's distribution criterion: the last successful run's
 * per-request values against all the earlier ones pooled, stable when the two-sample
 * Kolmogorov-Smirnov p-value exceeds the threshold. */
static bool distribution_stable(const struct plan *pl, size_t cell, size_t *out_p_runs,
                                double *out_p)
{
    const struct config_multi_run *mr = &pl->cfg->multi_run;
    size_t last = pl->count;
    size_t ok = 0;
    for (size_t i = 0; i < pl->count; i++) {
        if (pl->runs[i].cell == cell && pl->runs[i].ok && pl->runs[i].records[0] != '\0') {
            ok++;
            last = i;
        }
    }
    *out_p_runs = ok;
    if (ok < MULTIRUN_CONVERGENCE_MIN_RUNS) {
        return false;
    }
    struct multirun__values earlier = {0};
    struct multirun__values latest = {0};
    int ret = 0;
    for (size_t i = 0; i < pl->count && ret == 0; i++) {
        const struct multirun__run *r = &pl->runs[i];
        if (r->cell == cell && r->ok && r->records[0] != '\0') {
            ret = multirun__record_values(r->records, mr->convergence_metric,
                                          i == last ? &latest : &earlier);
        }
    }
    *out_p =
        ret == 0 && earlier.count >= 2 && latest.count >= 2
            ? multirun__ks_pvalue(earlier.items, earlier.count, latest.items, latest.count, NULL)
            : NAN;
    multirun__values_free(&earlier);
    multirun__values_free(&latest);
    return *out_p > mr->convergence_threshold;
}

/* stat_measure is the ci_width or cv measure of the cell's successful runs' statistic, NaN
 * before MULTIRUN_CONVERGENCE_MIN_RUNS values or at a zero mean. */
static double stat_measure(const struct plan *pl, size_t cell, size_t *out_runs)
{
    const struct config_multi_run *mr = &pl->cfg->multi_run;
    const char *stat = mr->convergence_stat != NULL ? mr->convergence_stat : "avg";
    double values[CONFIG_PROFILE_RUNS_MAX];
    size_t n = 0;
    for (size_t i = 0; i < pl->count; i++) {
        const struct multirun__run *r = &pl->runs[i];
        json_t *v = r->cell == cell && r->ok
                        ? json_object_get(json_object_get(r->summary, mr->convergence_metric), stat)
                        : NULL;
        if (json_is_number(v) && n < CONFIG_PROFILE_RUNS_MAX) {
            values[n++] = json_number_value(v);
        }
    }
    *out_runs = n;
    struct metrics_confidence c;
    if (n < MULTIRUN_CONVERGENCE_MIN_RUNS ||
        metrics_confidence_compute(values, n, mr->confidence_level, &c) != 0 || c.mean == 0.0) {
        return NAN;
    }
    return mr->convergence_mode == CONFIG_CONVERGENCE_CV ? c.std / c.mean
                                                         : 2.0 * c.t_critical * c.se / c.mean;
}

/* converged applies --convergence-metric to the runs of cell, never before
 * MULTIRUN_CONVERGENCE_MIN_RUNS runs were made (AIPerf's min_runs). */
static bool converged(const struct plan *pl, size_t cell)
{
    const struct config_multi_run *mr = &pl->cfg->multi_run;
    size_t made = 0;
    for (size_t i = 0; i < pl->count; i++) {
        made += pl->runs[i].cell == cell;
    }
    if (mr->convergence_metric == NULL || made < MULTIRUN_CONVERGENCE_MIN_RUNS) {
        return false;
    }
    size_t used = 0;
    double measure = NAN;
    bool stable = false;
    const char *what = "ks p-value";
    if (mr->convergence_mode == CONFIG_CONVERGENCE_DISTRIBUTION) {
        stable = distribution_stable(pl, cell, &used, &measure);
    } else {
        measure = stat_measure(pl, cell, &used);
        stable = measure < mr->convergence_threshold;
        what = mr->convergence_mode == CONFIG_CONVERGENCE_CV ? "cv" : "ci width / mean";
    }
    if (stable) {
        fprintf(stderr, "ringperf: %s converged after %zu runs (%s %.4g, threshold %g)\n",
                mr->convergence_metric, made, what, measure, mr->convergence_threshold);
    }
    return stable;
}

/* make_runs makes every run in AIPerf's order: the trials of each cell in a row without a
 * sweep or with --parameter-sweep-mode independent, else every cell once per trial. */
static void make_runs(struct plan *pl)
{
    bool cells_outside = !pl->sweep || pl->cfg->sweep.mode == CONFIG_SWEEP_INDEPENDENT;
    size_t outer = cells_outside ? pl->cells : pl->trials;
    size_t inner = cells_outside ? pl->trials : pl->cells;
    for (size_t o = 0; o < outer; o++) {
        for (size_t i = 0; i < inner; i++) {
            size_t cell = cells_outside ? o : i;
            size_t trial = cells_outside ? i : o;
            if (!make_run(pl, cell, trial)) {
                return;
            }
            if (cells_outside && converged(pl, cell)) {
                break;
            }
        }
    }
}

/* cell_extra is the metadata a sweep cell's aggregate adds: which cell, in which mode. */
static json_t *cell_extra(const struct plan *pl, size_t cell)
{
    char name[MULTIRUN__LABEL_BYTES];
    double values[CONFIG_SWEEP_PARAM_COUNT];
    multirun_cell_name(pl->cfg, cell, name, sizeof(name));
    config_sweep_cell_values(pl->cfg, cell, values);
    json_t *given = json_object();
    for (size_t i = 0; i < pl->cfg->sweep.dim_count; i++) {
        enum config_sweep_param p = pl->cfg->sweep.dims[i].param;
        json_object_set_new(given, config_sweep_param_name(p),
                            config_sweep_param_is_integer(p) ? json_integer((json_int_t)values[i])
                                                             : json_real(values[i]));
    }
    bool independent = pl->cfg->sweep.mode == CONFIG_SWEEP_INDEPENDENT;
    return json_pack("{s:s, s:o, s:s, s:s}", "variation_label", name, "variation_values", given,
                     "sweep_mode", independent ? "independent" : "repeated", "model",
                     pl->cfg->models.items[0]);
}

/* write_cell_aggregates writes each cell's confidence aggregate where §5.1 puts it. */
static int write_cell_aggregates(const struct plan *pl)
{
    int ret = 0;
    struct multirun__run *group = calloc(pl->trials, sizeof(*group));
    for (size_t cell = 0; group != NULL && cell < pl->cells; cell++) {
        size_t n = 0;
        size_t ok = 0;
        for (size_t i = 0; i < pl->count && n < pl->trials; i++) {
            if (pl->runs[i].cell == cell) {
                ok += pl->runs[i].ok;
                group[n++] = pl->runs[i];
            }
        }
        char name[MULTIRUN__LABEL_BYTES];
        char dir[MULTIRUN_PATH_BYTES];
        multirun_cell_name(pl->cfg, cell, name, sizeof(name));
        bool repeated = pl->cfg->sweep.mode == CONFIG_SWEEP_REPEATED;
        snprintf(dir, sizeof(dir), repeated ? "%s/aggregate/%s" : "%s/%s/aggregate", pl->base,
                 name);
        if (ok > 0) {
            json_t *extra = cell_extra(pl, cell);
            ret = multirun__write_confidence(dir, pl->cfg, group, n, extra) != 0 ? -EIO : ret;
            json_decref(extra);
        }
    }
    free(group);
    return group == NULL ? -ENOMEM : ret;
}

static int write_aggregates(const struct plan *pl, size_t ok)
{
    char dir[MULTIRUN_PATH_BYTES];
    if (ok == 0) {
        fprintf(stderr, "ringperf profile: no run succeeded; no aggregate was written\n");
        return 0;
    }
    if (!pl->sweep) {
        snprintf(dir, sizeof(dir), "%s/aggregate", pl->base);
        int ret = multirun__write_confidence(dir, pl->cfg, pl->runs, pl->count, NULL);
        fprintf(stderr, "ringperf: aggregate of %zu runs in %s\n", ok, dir);
        return ret;
    }
    int ret = pl->trials > 1 ? write_cell_aggregates(pl) : 0;
    bool nested = pl->trials > 1 && pl->cfg->sweep.mode == CONFIG_SWEEP_REPEATED;
    snprintf(dir, sizeof(dir), nested ? "%s/aggregate/sweep_aggregate" : "%s/sweep_aggregate",
             pl->base);
    size_t cells_ok = 0;
    for (size_t cell = 0; cell < pl->cells; cell++) {
        for (size_t i = 0; i < pl->count; i++) {
            if (pl->runs[i].cell == cell && pl->runs[i].ok) {
                cells_ok++;
                break;
            }
        }
    }
    if (cells_ok >= 2) {
        ret = multirun__write_sweep(dir, pl->cfg, pl->runs, pl->count) != 0 ? -EIO : ret;
        fprintf(stderr, "ringperf: sweep aggregate of %zu cells in %s\n", cells_ok, dir);
    }
    return ret;
}

/* new_sweep_id writes a random UUID4, as AIPerf's plan draws one per session. */
static void new_sweep_id(char *out, size_t cap)
{
    uint8_t b[16] = {0};
    if (getrandom(b, sizeof(b), 0) != (ssize_t)sizeof(b)) {
        struct timespec now; /* no entropy yet: unique enough for a label */
        clock_gettime(CLOCK_REALTIME, &now);
        memcpy(b, &now, sizeof(now) < sizeof(b) ? sizeof(now) : sizeof(b));
    }
    b[6] = (uint8_t)((b[6] & 0x0f) | 0x40); /* version 4 */
    b[8] = (uint8_t)((b[8] & 0x3f) | 0x80); /* RFC 4122 variant */
    snprintf(out, cap, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0],
             b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13],
             b[14], b[15]);
}

int multirun_execute(const struct profile_config *cfg, const char *base_dir,
                     const struct multirun_ops *ops)
{
    struct plan pl = {
        .cfg = cfg,
        .base = base_dir,
        .ops = ops,
        .cells = config_sweep_cells(cfg),
        .trials = (size_t)cfg->multi_run.num_profile_runs,
        .sweep = cfg->sweep.dim_count > 0,
    };
    new_sweep_id(pl.sweep_id, sizeof(pl.sweep_id));
    pl.runs = calloc(pl.cells * pl.trials, sizeof(*pl.runs));
    if (pl.runs == NULL) {
        fprintf(stderr, "ringperf profile: out of memory\n");
        return 1;
    }
    make_runs(&pl);
    size_t ok = 0;
    for (size_t i = 0; i < pl.count; i++) {
        ok += pl.runs[i].ok;
    }
    int ret = write_aggregates(&pl, ok);
    for (size_t i = 0; i < pl.count; i++) {
        json_decref(pl.runs[i].summary);
    }
    free(pl.runs);
    return ret == 0 && ok >= 2 ? 0 : 1;
}
