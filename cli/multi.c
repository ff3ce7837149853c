/*
 * multi.c - `ringperf profile` with --num-profile-runs or comma lists: the glue between
 * multirun/, which orders, places and summarises the runs, and cli/profile.c, which makes
 * each one. The session (tokenizer, targets, requests while they fit) and its Ctrl-C
 * watcher outlive the runs.
 */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_profile.h"
#include "multirun/multirun.h"

/* point_fields are the fields of run->cfg a point changes, kept to be put back. */
struct point_fields {
    int64_t warmup_request_count;
    double warmup_duration_seconds;
    int64_t random_seed;
    bool random_seed_set;
};

static bool stopped(void *ctx)
{
    struct profile_run *run = ctx;
    return __atomic_load_n(&run->signals.stop_signal, __ATOMIC_ACQUIRE) != 0;
}

/* apply_point gives run->cfg the point's cell values, seed and warmup. */
static struct point_fields apply_point(struct profile_run *run, const struct multirun_point *p)
{
    struct profile_config *cfg = &run->cfg;
    struct point_fields kept = {cfg->warmup_request_count, cfg->warmup_duration_seconds,
                                cfg->random_seed, cfg->random_seed_set};
    for (size_t i = 0; i < cfg->sweep.dim_count; i++) {
        config_sweep_apply(cfg, cfg->sweep.dims[i].param, p->values[i]);
    }
    if (p->seed_set) {
        cfg->random_seed = (int64_t)p->seed;
        cfg->random_seed_set = true;
    }
    if (!p->warmup) {
        cfg->warmup_request_count = 0;
        cfg->warmup_duration_seconds = 0;
    }
    run->run_dir = p->dir;
    return kept;
}

static void restore_point(struct profile_run *run, const struct point_fields *kept)
{
    run->cfg.warmup_request_count = kept->warmup_request_count;
    run->cfg.warmup_duration_seconds = kept->warmup_duration_seconds;
    run->cfg.random_seed = kept->random_seed;
    run->cfg.random_seed_set = kept->random_seed_set;
    run->run_dir = NULL;
}

/* point_of is how the exports name point p of the session. */
static struct export_run_point point_of(const struct multirun_point *p)
{
    return (struct export_run_point){.sweep_id = p->sweep_id,
                                     .trial = p->trial,
                                     .label = p->label,
                                     .cell = p->cell,
                                     .cell_name = p->cell_name,
                                     .values = p->values};
}

/* write_run_config leaves AIPerf's run_config.json in the prepared run's directory. */
static int write_run_config(const struct profile_run *run, const struct multirun_point *p)
{
    char id[32];
    export_benchmark_id(run->engine.request_id_nonce, id, sizeof(id));
    struct export_run_point point = point_of(p);
    struct export_run_envelope env = {
        .cfg = &run->cfg, .dir = run->artifact_dir, .benchmark_id = id, .point = &point};
    int ret = export_run_config_write(&env);
    if (ret != 0) {
        fprintf(stderr, "ringperf profile: cannot write %s/run_config.json: %s\n",
                run->artifact_dir, strerror(-ret));
    }
    return ret == 0 ? 0 : 1;
}

/* release_held_api ends the last run's API before the next run starts its own (on the same
 * port, when --api-port names one): after what is left of its grace period, which the
 * cooldown counted towards. Ctrl-C ends the wait, and the session. */
static void release_held_api(struct profile_run *run)
{
    int64_t left = cli_held_api_grace_left_ns(&run->held_api);
    if (left > 0) {
        fprintf(stderr, "API server of the last run stays up for %.1f s more\n",
                (double)left / 1e9);
        multirun_pause(left, stopped, run);
    }
    cli_held_api_stop(&run->held_api);
}

static int run_point(void *ctx, const struct multirun_point *p, struct multirun_outputs *out,
                     char *error, size_t errcap)
{
    struct profile_run *run = ctx;
    release_held_api(run);
    struct point_fields kept = apply_point(run, p);
    struct export_run_point point = point_of(p);
    run->point_info = export_run_point_info(&run->cfg, &point);
    int status = cli_profile_prepare_run(run);
    status = status == 0 ? write_run_config(run, p) : status;
    if (status == 0 && stopped(run)) {
        status = 130; /* Ctrl-C while the run was being prepared: it does not start */
    } else if (status == 0) {
        status = cli_profile_execute(run);
        snprintf(out->summary, sizeof(out->summary), "%s", run->exp.paths.json);
        if (run->cfg.export_level != CONFIG_EXPORT_SUMMARY) {
            snprintf(out->records, sizeof(out->records), "%s", run->exp.paths.records);
        }
    }
    cli_profile_release_run(run);
    restore_point(run, &kept);
    json_decref(run->point_info);
    run->point_info = NULL;
    if (status != 0) {
        snprintf(error, errcap, "%s (exit status %d)",
                 stopped(run) ? "interrupted" : "the run failed", status);
    }
    return status;
}

/* base_dir is where the runs go: --artifact-dir, or AIPerf's name of the first cell's run. */
static int base_dir(struct profile_run *run, char *out, size_t cap)
{
    double values[CONFIG_SWEEP_PARAM_COUNT];
    config_sweep_cell_values(&run->cfg, 0, values);
    for (size_t i = 0; i < run->cfg.sweep.dim_count; i++) {
        config_sweep_apply(&run->cfg, run->cfg.sweep.dims[i].param, values[i]);
    }
    int ret = cli_profile_configure(run);
    return ret != 0 ? ret : (cli_profile_artifact_dir(run, out, cap) != 0 ? 1 : 0);
}

int cli_multi_main(struct profile_run *run)
{
    if (run->cluster.mpi) {
        fprintf(stderr, "ringperf profile: MPI ranks share one run; repeated runs and sweeps run "
                        "in one process: drop --num-profile-runs and the comma lists\n");
        return CONFIG_EXIT_INVALID;
    }
    char base[MULTIRUN_PATH_BYTES];
    int ret = base_dir(run, base, sizeof(base));
    if (ret != 0) {
        return ret;
    }
    snprintf(run->plot_dir, sizeof(run->plot_dir), "%s", base);
    struct multirun_ops ops = {.run = run_point, .stopped = stopped, .ctx = run};
    cli_signals_start(&run->signals, &run->stop, &run->cluster, STOP_GRACE_NS);
    int status = multirun_execute(&run->cfg, base, &ops);
    cli_signals_end(&run->signals);
    status = cli_signals_exit_status(&run->signals, status);
    /* The session's plots while its last run's API still serves, so that /report.html has
     * them for the grace period. */
    struct cli_plot_job plot = {
        .dir = run->plot_dir, .required = run->cfg.plot_required, .status = status};
    run->plotted = status == 0 && cli_profile_auto_plot(run);
    cli_held_api_linger(&run->held_api, run->plotted ? cli_plot_job_run : NULL, &plot);
    return plot.status;
}
