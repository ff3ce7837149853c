/*
 * config_sweep.c - repeated runs and parameter sweeps: comma lists on the six sweepable
 * flags into struct config_sweep, the cells of a grid or a zip, and the checks of
 * --num-profile-runs and its companions; and what a run's load is, asked of the config by
 * workload/ and export/ alike (paced or not, the profiling concurrency).
 *
 * A comma list leaves its first value in the flag's own field, so that every check of a
 * single run sees a real value; config__check_sweep_cells then checks each cell as a run.
 */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "config/config_internal.h"

#define OFF(field) offsetof(struct profile_config, field)

/* sweep_params maps each sweepable field to its parameter, in enum order. */
static const struct {
    enum config_sweep_param param;
    size_t offset;
    bool integer;
    const char *name; /* AIPerf's cell directory names use it: concurrency_10 */
    const char *flag;
} sweep_params[CONFIG_SWEEP_PARAM_COUNT] = {
    {CONFIG_SWEEP_CONCURRENCY, OFF(concurrency), true, "concurrency", "--concurrency"},
    {CONFIG_SWEEP_REQUEST_RATE, OFF(request_rate_per_second), false, "request_rate",
     "--request-rate"},
    {CONFIG_SWEEP_ISL, OFF(isl_tokens_mean), true, "isl", "--isl"},
    {CONFIG_SWEEP_OSL, OFF(osl_tokens_mean), true, "osl", "--osl"},
    {CONFIG_SWEEP_BENCHMARK_DURATION, OFF(benchmark_duration_seconds), false, "benchmark_duration",
     "--benchmark-duration"},
    {CONFIG_SWEEP_NUM_USERS, OFF(num_users), true, "num_users", "--num-users"},
};

static int param_of_offset(size_t offset)
{
    for (int i = 0; i < CONFIG_SWEEP_PARAM_COUNT; i++) {
        if (sweep_params[i].offset == offset) {
            return i;
        }
    }
    return -1;
}

const char *config_sweep_param_name(enum config_sweep_param param)
{
    return (unsigned)param < CONFIG_SWEEP_PARAM_COUNT ? sweep_params[param].name : "unknown";
}

const char *config_sweep_param_flag(enum config_sweep_param param)
{
    return (unsigned)param < CONFIG_SWEEP_PARAM_COUNT ? sweep_params[param].flag : "unknown";
}

bool config_sweep_param_is_integer(enum config_sweep_param param)
{
    return (unsigned)param < CONFIG_SWEEP_PARAM_COUNT && sweep_params[param].integer;
}

void config_sweep_apply(struct profile_config *cfg, enum config_sweep_param param, double value)
{
    if ((unsigned)param >= CONFIG_SWEEP_PARAM_COUNT) {
        return;
    }
    char *field = (char *)cfg + sweep_params[param].offset;
    if (sweep_params[param].integer) {
        int64_t v = (int64_t)llround(value);
        memcpy(field, &v, sizeof(v));
    } else {
        memcpy(field, &value, sizeof(value));
    }
}

static double field_value(const struct profile_config *cfg, int param)
{
    const char *field = (const char *)cfg + sweep_params[param].offset;
    if (sweep_params[param].integer) {
        int64_t v;
        memcpy(&v, field, sizeof(v));
        return (double)v;
    }
    double v;
    memcpy(&v, field, sizeof(v));
    return v;
}

void config__sweep_forget(struct profile_config *cfg, size_t offset)
{
    int param = param_of_offset(offset);
    struct config_sweep *sw = &cfg->sweep;
    for (size_t i = 0; param >= 0 && i < sw->dim_count; i++) {
        if ((int)sw->dims[i].param == param) {
            memmove(&sw->dims[i], &sw->dims[i + 1], (sw->dim_count - i - 1) * sizeof(sw->dims[0]));
            sw->dim_count--;
            return;
        }
    }
}

/* store_entry converts one entry of the list as the flag's single value would be, and
 * appends it to dim. */
static int store_entry(struct profile_config *cfg, const struct config__occurrence *occ, int param,
                       const char *entry, size_t len, struct config_sweep_dim *dim, char *errbuf,
                       size_t errcap)
{
    char text[64];
    if (len == 0 || len >= sizeof(text)) {
        return config__fail(errbuf, errcap,
                            "%.*s: a comma list needs a number between every two commas "
                            "(e.g. %.*s 10,20,40)",
                            (int)occ->spelled_len, occ->spelled, (int)occ->spelled_len,
                            occ->spelled);
    }
    memcpy(text, entry, len);
    text[len] = '\0';
    /* One value, without a comma: converted and range checked as the flag's own. */
    int rc = config__store_value(cfg, occ, text, errbuf, errcap);
    if (rc != 0) {
        return rc;
    }
    double v = field_value(cfg, param);
    for (size_t i = 0; i < dim->count; i++) {
        if (dim->values[i] == v) {
            return config__fail(errbuf, errcap,
                                "%.*s: %s appears twice in the list; give each "
                                "value once",
                                (int)occ->spelled_len, occ->spelled, text);
        }
    }
    if (dim->count >= CONFIG_SWEEP_VALUES_MAX) {
        return config__fail(errbuf, errcap, "%.*s: more than %d values in the list",
                            (int)occ->spelled_len, occ->spelled, CONFIG_SWEEP_VALUES_MAX);
    }
    dim->values[dim->count++] = v;
    return 0;
}

int config__store_sweep(struct profile_config *cfg, const struct config__occurrence *occ,
                        const char *value, char *errbuf, size_t errcap)
{
    int param = param_of_offset(occ->flag->offset);
    if (param < 0) {
        return config__fail(errbuf, errcap, "internal error: %.*s is not sweepable",
                            (int)occ->spelled_len, occ->spelled);
    }
    struct config_sweep_dim dim = {.param = (enum config_sweep_param)param};
    for (const char *p = value;;) {
        size_t len = strcspn(p, ",");
        int rc = store_entry(cfg, occ, param, p, len, &dim, errbuf, errcap);
        if (rc != 0) {
            return rc;
        }
        if (p[len] == '\0') {
            break;
        }
        p += len + 1;
    }
    config__sweep_forget(cfg, occ->flag->offset);
    config_sweep_apply(cfg, dim.param, dim.values[0]);
    if (dim.count > 1) {
        cfg->sweep.dims[cfg->sweep.dim_count++] = dim;
    }
    return 0;
}

size_t config_sweep_cells(const struct profile_config *cfg)
{
    const struct config_sweep *sw = &cfg->sweep;
    if (sw->dim_count == 0) {
        return 1;
    }
    if (sw->type == CONFIG_SWEEP_ZIP) {
        return sw->dims[0].count;
    }
    size_t cells = 1;
    for (size_t i = 0; i < sw->dim_count; i++) {
        if (cells > CONFIG_SWEEP_CELLS_MAX) {
            return cells; /* already refused; no overflow */
        }
        cells *= sw->dims[i].count;
    }
    return cells;
}

bool config_sweep_cell_values(const struct profile_config *cfg, size_t cell, double *out)
{
    const struct config_sweep *sw = &cfg->sweep;
    if (cell >= config_sweep_cells(cfg)) {
        return false;
    }
    size_t rest = cell;
    for (size_t i = sw->dim_count; i-- > 0;) {
        const struct config_sweep_dim *d = &sw->dims[i];
        size_t index = sw->type == CONFIG_SWEEP_ZIP ? cell : rest % d->count;
        rest /= d->count;
        out[i] = d->values[index];
    }
    return true;
}

bool config_is_multi_run(const struct profile_config *cfg)
{
    return cfg->sweep.dim_count > 0 || cfg->multi_run.num_profile_runs > 1;
}

bool config_load_is_paced(double rate, enum config_arrival_pattern pattern)
{
    return rate > 0 && pattern != CONFIG_ARRIVAL_CONCURRENCY_BURST;
}

int64_t config_profiling_concurrency(const struct profile_config *cfg)
{
    if (cfg->concurrency > 0) {
        return cfg->concurrency;
    }
    bool paced = config_load_is_paced(cfg->request_rate_per_second, cfg->arrival_pattern) ||
                 cfg->user_centric_rate > 0 || cfg->fixed_schedule;
    return paced ? 0 : 1;
}

static int check_sweep_shape(const struct profile_config *cfg, char *errbuf, size_t errcap)
{
    const struct config_sweep *sw = &cfg->sweep;
    if (sw->dim_count == 0) {
        const char *flags[] = {"--sweep-type", "--parameter-sweep-mode",
                               "--parameter-sweep-cooldown-seconds", "--parameter-sweep-same-seed",
                               "--no-parameter-sweep-same-seed"};
        for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++) {
            if (config_flag_given(cfg, flags[i])) {
                return config__fail(errbuf, errcap,
                                    "%s shapes a parameter sweep, and there is none: give a "
                                    "comma list (e.g. --concurrency 1,4,16)",
                                    flags[i]);
            }
        }
        return 0;
    }
    for (size_t i = 1; sw->type == CONFIG_SWEEP_ZIP && i < sw->dim_count; i++) {
        if (sw->dims[i].count != sw->dims[0].count) {
            return config__fail(errbuf, errcap,
                                "--sweep-type zip pairs the lists value by value: %s has %zu "
                                "values and %s %zu; give lists of one length, or use grid",
                                sweep_params[sw->dims[0].param].flag, sw->dims[0].count,
                                sweep_params[sw->dims[i].param].flag, sw->dims[i].count);
        }
    }
    if (sw->same_seed && !cfg->random_seed_set) {
        return config__fail(errbuf, errcap,
                            "--parameter-sweep-same-seed gives every cell --random-seed: give it "
                            "too (e.g. --random-seed 42)");
    }
    if (cfg->ui_type == CONFIG_UI_DASHBOARD) {
        return config__fail(errbuf, errcap,
                            "--ui-type dashboard cannot follow a sweep's runs, as in AIPerf; use "
                            "--ui-type simple or none");
    }
    if (config_sweep_cells(cfg) > CONFIG_SWEEP_CELLS_MAX) {
        return config__fail(errbuf, errcap,
                            "the sweep has more than %d combinations; shorten the comma lists "
                            "or use --sweep-type zip",
                            CONFIG_SWEEP_CELLS_MAX);
    }
    return 0;
}

static bool known_stat(const char *stat)
{
    static const char *const stats[] = {"avg", "min", "max", "sum", "std", "p1",  "p5",
                                        "p10", "p25", "p50", "p75", "p90", "p95", "p99"};
    for (size_t i = 0; i < sizeof(stats) / sizeof(stats[0]); i++) {
        if (strcmp(stat, stats[i]) == 0) {
            return true;
        }
    }
    return false;
}

static int check_convergence(const struct profile_config *cfg, char *errbuf, size_t errcap)
{
    const struct config_multi_run *mr = &cfg->multi_run;
    if (mr->convergence_metric == NULL) {
        const char *flags[] = {"--convergence-stat", "--convergence-threshold",
                               "--convergence-mode"};
        for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++) {
            if (config_flag_given(cfg, flags[i])) {
                return config__fail(errbuf, errcap,
                                    "%s needs --convergence-metric (e.g. --convergence-metric "
                                    "time_to_first_token)",
                                    flags[i]);
            }
        }
        return 0;
    }
    if (mr->num_profile_runs < 3) {
        return config__fail(errbuf, errcap,
                            "--convergence-metric stops repeating after at least 3 runs: give "
                            "--num-profile-runs 3 to %d, the most runs it may take",
                            CONFIG_PROFILE_RUNS_MAX);
    }
    if (mr->convergence_stat != NULL && !known_stat(mr->convergence_stat)) {
        return config__fail(errbuf, errcap,
                            "--convergence-stat: '%s' is no statistic; give avg, min, max, sum, "
                            "std or p1, p5, p10, p25, p50, p75, p90, p95, p99",
                            mr->convergence_stat);
    }
    if (mr->convergence_mode == CONFIG_CONVERGENCE_DISTRIBUTION &&
        cfg->export_level == CONFIG_EXPORT_SUMMARY) {
        return config__fail(errbuf, errcap,
                            "--convergence-mode distribution compares the runs' per-request "
                            "records, which --export-level summary does not write; use records");
    }
    if (cfg->sweep.dim_count > 0 && cfg->sweep.mode == CONFIG_SWEEP_REPEATED) {
        return config__fail(errbuf, errcap,
                            "--convergence-metric judges the runs of one cell in a row: add "
                            "--parameter-sweep-mode independent to the sweep");
    }
    return 0;
}

int config__check_multi_run(struct profile_config *cfg, char *errbuf, size_t errcap)
{
    struct config_multi_run *mr = &cfg->multi_run;
    mr->disable_warmup_after_first = mr->disable_warmup_after_first && !mr->warmup_every_run;
    mr->set_consistent_seed = mr->set_consistent_seed && !mr->seed_per_run;
    cfg->sweep.same_seed = cfg->sweep.same_seed && !cfg->sweep.seed_per_cell;
    if (!(mr->confidence_level < 1.0)) {
        return config__fail(errbuf, errcap,
                            "--confidence-level: must be below 1 (e.g. --confidence-level 0.95)");
    }
    int rc = check_sweep_shape(cfg, errbuf, errcap);
    rc = rc != 0 ? rc : check_convergence(cfg, errbuf, errcap);
    if (rc == 0 && config_is_multi_run(cfg) && cfg->shard_count > 0) {
        return config__fail(errbuf, errcap,
                            "--shard-count shares one run between processes; repeated runs and "
                            "sweeps run in one process: drop %s",
                            cfg->sweep.dim_count > 0 ? "the comma lists" : "--num-profile-runs");
    }
    return rc;
}

int config__check_sweep_cells(const struct profile_config *cfg, char *errbuf, size_t errcap)
{
    size_t cells = cfg->sweep.dim_count > 0 ? config_sweep_cells(cfg) : 0;
    for (size_t cell = 0; cell < cells; cell++) {
        double values[CONFIG_SWEEP_PARAM_COUNT];
        config_sweep_cell_values(cfg, cell, values);
        /* A shallow copy: finalize only allocates what a parsed config lacks, and a
         * finalized one lacks nothing, so the copy shares and frees nothing. */
        struct profile_config copy = *cfg;
        for (size_t i = 0; i < cfg->sweep.dim_count; i++) {
            config_sweep_apply(&copy, cfg->sweep.dims[i].param, values[i]);
        }
        char why[768];
        if (config__finalize(&copy, why, sizeof(why)) != 0) {
            char cell_text[256] = "";
            size_t used = 0;
            for (size_t i = 0; i < cfg->sweep.dim_count && used < sizeof(cell_text); i++) {
                int n = snprintf(cell_text + used, sizeof(cell_text) - used, "%s%s %.15g",
                                 i > 0 ? " " : "", sweep_params[cfg->sweep.dims[i].param].flag,
                                 values[i]);
                used += n > 0 ? (size_t)n : 0;
            }
            return config__fail(errbuf, errcap, "in the sweep's cell with %s: %s", cell_text, why);
        }
    }
    return 0;
}
