/*
 * test_plan.c - multirun_execute with a run callback that writes made-up summaries: the order
 * of the runs, their directories, seeds and warmups, stopping, convergence and the exit
 * status, with no server.
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "multirun/multirun.h"

#define CALLS_MAX 64

struct call {
    size_t cell, trial;
    bool seed_set;
    uint64_t seed;
    bool warmup;
    char dir[512];
};

struct fake {
    struct call calls[CALLS_MAX];
    size_t count;
    size_t stop_after; /* 0: never */
    size_t fail_mask;  /* bit i: call i fails */
    bool vary;         /* throughput differs run to run */
};

static int fake_run(void *ctx, const struct multirun_point *p, struct multirun_outputs *out,
                    char *error, size_t errcap)
{
    struct fake *f = ctx;
    struct call *c = &f->calls[f->count];
    *c = (struct call){p->cell, p->trial, p->seed_set, p->seed, p->warmup, ""};
    snprintf(c->dir, sizeof(c->dir), "%s", p->dir);
    size_t index = f->count++;
    if ((f->fail_mask >> index) & 1) {
        snprintf(error, errcap, "made to fail");
        return 1;
    }
    double tput = 100.0 * (double)(p->cell + 1) + (f->vary ? (double)index : 0.0);
    json_t *doc =
        json_pack("{s:s, s:{s:s, s:f}, s:{s:s, s:f, s:f}}", "schema_version", "1.5",
                  "request_throughput", "unit", "requests/sec", "avg", tput, "time_to_first_token",
                  "unit", "ms", "avg", 5.0 + (double)p->cell, "p99", 10.0 - (double)p->cell);
    snprintf(out->summary, sizeof(out->summary), "%s/profile_export_aiperf.json", p->dir);
    cr_assert_eq(json_dump_file(doc, out->summary, 0), 0);
    json_decref(doc);
    return 0;
}

static bool fake_stopped(void *ctx)
{
    struct fake *f = ctx;
    return f->stop_after > 0 && f->count >= f->stop_after;
}

static char base[64];

static void make_base(void)
{
    snprintf(base, sizeof(base), "/tmp/ringperf-plan-XXXXXX");
    cr_assert_not_null(mkdtemp(base));
}

static void remove_base(void)
{
    char cmd[128];
    snprintf(cmd, sizeof(cmd), "rm -rf %s", base);
    cr_assert_eq(system(cmd), 0);
}

static bool exists(const char *rel)
{
    char path[512];
    snprintf(path, sizeof(path), "%s/%s", base, rel);
    struct stat st;
    return stat(path, &st) == 0;
}

static void sweep_cfg(struct profile_config *cfg, size_t trials, enum config_sweep_mode mode)
{
    static char *models[] = {"m"};
    *cfg = (struct profile_config){0};
    cfg->models = (struct config_strlist){models, 1};
    cfg->multi_run = (struct config_multi_run){.num_profile_runs = (int64_t)trials,
                                               .confidence_level = 0.95,
                                               .disable_warmup_after_first = true,
                                               .set_consistent_seed = true,
                                               .convergence_threshold = 0.1};
    cfg->sweep.dim_count = 2;
    cfg->sweep.dims[0] = (struct config_sweep_dim){CONFIG_SWEEP_CONCURRENCY, 2, {1, 2}};
    cfg->sweep.dims[1] = (struct config_sweep_dim){CONFIG_SWEEP_ISL, 2, {10, 20}};
    cfg->sweep.mode = mode;
}

Test(multirun_plan, repeated_sweep_runs_every_cell_once_per_trial)
{
    make_base();
    struct profile_config cfg;
    sweep_cfg(&cfg, 2, CONFIG_SWEEP_REPEATED);
    struct fake f = {0};
    struct multirun_ops ops = {fake_run, fake_stopped, &f};
    cr_assert_eq(multirun_execute(&cfg, base, &ops), 0);
    cr_assert_eq(f.count, 8);
    for (size_t i = 0; i < 8; i++) {
        cr_assert_eq(f.calls[i].cell, i % 4);
        cr_assert_eq(f.calls[i].trial, i / 4);
        cr_assert(f.calls[i].seed_set && f.calls[i].seed == 42, "no --random-seed: 42");
        cr_assert_eq(f.calls[i].warmup, i < 4, "only a cell's first trial warms up");
    }
    char want[512];
    snprintf(want, sizeof(want), "%s/profile_runs/trial_0002/concurrency_2__isl_10", base);
    cr_assert_str_eq(f.calls[6].dir, want);
    cr_assert(exists("aggregate/concurrency_1__isl_20/profile_export_aiperf_aggregate.json"));
    cr_assert(exists("aggregate/sweep_aggregate/profile_export_aiperf_sweep.csv"));
    remove_base();
}

Test(multirun_plan, independent_sweep_runs_a_cell_to_the_end)
{
    make_base();
    struct profile_config cfg;
    sweep_cfg(&cfg, 2, CONFIG_SWEEP_INDEPENDENT);
    cfg.random_seed = 7;
    cfg.random_seed_set = true;
    struct fake f = {0};
    struct multirun_ops ops = {fake_run, fake_stopped, &f};
    cr_assert_eq(multirun_execute(&cfg, base, &ops), 0);
    cr_assert_eq(f.count, 8);
    for (size_t i = 0; i < 8; i++) {
        cr_assert_eq(f.calls[i].cell, i / 2);
        cr_assert_eq(f.calls[i].trial, i % 2);
        cr_assert_eq(f.calls[i].seed, 7 + i / 2, "cell i: --random-seed + i");
    }
    char want[512];
    snprintf(want, sizeof(want), "%s/concurrency_1__isl_20/profile_runs/trial_0002", base);
    cr_assert_str_eq(f.calls[3].dir, want);
    cr_assert(exists("concurrency_2__isl_20/aggregate/profile_export_aiperf_aggregate.csv"));
    cr_assert(exists("sweep_aggregate/profile_export_aiperf_sweep.json"));
    remove_base();
}

Test(multirun_plan, stop_ends_the_plan_and_keeps_the_runs)
{
    make_base();
    struct profile_config cfg;
    sweep_cfg(&cfg, 1, CONFIG_SWEEP_REPEATED);
    cfg.sweep.dim_count = 0;
    cfg.multi_run.num_profile_runs = 5;
    struct fake f = {.stop_after = 3, .vary = true};
    struct multirun_ops ops = {fake_run, fake_stopped, &f};
    cr_assert_eq(multirun_execute(&cfg, base, &ops), 0, "three runs succeeded");
    cr_assert_eq(f.count, 3);
    cr_assert(!exists("profile_runs/run_0004"));
    json_error_t err;
    char path[512];
    snprintf(path, sizeof(path), "%s/aggregate/profile_export_aiperf_aggregate.json", base);
    json_t *agg = json_load_file(path, 0, &err);
    cr_assert_not_null(agg, "%s", err.text);
    json_t *meta = json_object_get(agg, "metadata");
    cr_assert_eq(json_integer_value(json_object_get(meta, "num_profile_runs")), 3);
    json_t *tput = json_object_get(json_object_get(agg, "metrics"), "request_throughput_avg");
    cr_assert_float_eq(json_real_value(json_object_get(tput, "mean")), 101.0, 1e-12);
    cr_assert_float_eq(json_real_value(json_object_get(tput, "std")), 1.0, 1e-12);
    json_decref(agg);
    remove_base();
}

Test(multirun_plan, fewer_than_two_successes_exit_1)
{
    make_base();
    struct profile_config cfg;
    sweep_cfg(&cfg, 3, CONFIG_SWEEP_REPEATED);
    cfg.sweep.dim_count = 0;
    struct fake f = {.fail_mask = 0x3};
    struct multirun_ops ops = {fake_run, fake_stopped, &f};
    cr_assert_eq(multirun_execute(&cfg, base, &ops), 1);
    cr_assert_eq(f.count, 3);
    char path[512];
    snprintf(path, sizeof(path), "%s/aggregate/profile_export_aiperf_aggregate.json", base);
    json_error_t err;
    json_t *agg = json_load_file(path, 0, &err);
    cr_assert_not_null(agg, "one success still has its aggregate");
    json_t *meta = json_object_get(agg, "metadata");
    cr_assert(json_is_true(json_object_get(meta, "single_run")));
    cr_assert_eq(json_array_size(json_object_get(meta, "failed_runs")), 2);
    json_decref(agg);
    remove_base();
}

Test(multirun_plan, convergence_stops_a_stable_metric)
{
    make_base();
    struct profile_config cfg;
    sweep_cfg(&cfg, 6, CONFIG_SWEEP_REPEATED);
    cfg.sweep.dim_count = 0;
    cfg.multi_run.convergence_metric = "request_throughput";
    cfg.multi_run.disable_warmup_after_first = false;
    struct fake f = {0};
    struct multirun_ops ops = {fake_run, fake_stopped, &f};
    cr_assert_eq(multirun_execute(&cfg, base, &ops), 0);
    cr_assert_eq(f.count, 3, "a constant metric is stable at the third run");
    cr_assert(f.calls[2].warmup, "every run warms up when asked");
    remove_base();
    make_base();
    struct fake g = {.vary = true};
    ops.ctx = &g;
    cfg.multi_run.convergence_mode = CONFIG_CONVERGENCE_CV;
    cfg.multi_run.convergence_threshold = 1e-9;
    cr_assert_eq(multirun_execute(&cfg, base, &ops), 0);
    cr_assert_eq(g.count, 6, "a varying metric never settles below 1e-9");
    remove_base();
}
