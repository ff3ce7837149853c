/*
 * shard_results.c - wiring a profile run's metrics onto its shards (metrics/shard.c): the record
 * hook, the collect at each progress tick and at the end (merged into the run's results and
 * written as one interval of the .hlog logs), and each run's own shard state in a session.
 */
#include "cli/cli_profile.h"

/* metrics_of returns a record's metrics for `results`: its shard's, from the annex, when
 * `on_shards` (adding its phases to the sweep-line collection, which the shards' halves keep
 * none of), or computed and added to results here into *local. */
static const struct metrics_record *metrics_of(struct metrics_results *results, bool on_shards,
                                               const struct record *rec,
                                               struct metrics_record *local)
{
    if (on_shards) {
        const struct metrics_record *m = metrics_shards_of(rec);
        metrics_results_sweep_add(results, m);
        return m;
    }
    metrics_record_compute(results, rec, local);
    metrics_results_add(results, rec, local);
    return local;
}

/* shard_record is each phase's record hook: on the shard's thread. */
static void shard_record(void *ctx, uint32_t shard, struct record *rec)
{
    metrics_shards_record(ctx, shard, rec);
}

int cli_shards_prepare(struct profile_run *run, const struct metrics_results_options *opts)
{
    size_t max_events = run->engine.max_events_per_request != 0 ? run->engine.max_events_per_request
                                                                : ENGINE_DEFAULT_MAX_EVENTS;
    run->shard_slots = engine_shard_count(&run->engine);
    char errbuf[256];
    int ret = metrics_results_init(&run->part, opts, errbuf, sizeof(errbuf));
    if (ret == 0 && run->requests.multi_turn) {
        /* A session's history is kept by the shard that runs it. */
        ret = workload_sessions_shards(&run->requests.sessions, run->shard_slots);
    }
    if (ret == 0) {
        ret = metrics_shards_new(&run->results, opts, run->shard_slots, max_events, &run->shards);
    }
    run->hook = (struct engine_record_hook){.on_finish = shard_record,
                                            .ctx = run->shards,
                                            .annex_bytes = metrics_shards_annex_bytes(max_events)};
    struct workload_phase warm_load = {0};
    struct engine_config warm;
    if (ret == 0 && workload_phase_warmup(&run->cfg, run->seed, &run->engine, &warm_load, &warm)) {
        ret =
            metrics_shards_new(&run->warmup, opts, run->shard_slots, max_events, &run->warm_shards);
        run->warm_hook = run->hook;
        run->warm_hook.ctx = run->warm_shards;
    }
    return ret;
}

void cli_shards_arm_warmup(struct profile_run *run, struct engine_config *warm)
{
    bool sharded = run->warm_shards != NULL && engine_shard_count(warm) <= run->shard_slots;
    warm->record_hook = sharded ? &run->warm_hook : NULL;
}

const struct metrics_record *cli_shards_warmup_metrics(struct profile_run *run,
                                                       const struct record *rec,
                                                       struct metrics_record *local)
{
    return metrics_of(&run->warmup, rec->annex != NULL && run->warm_shards != NULL, rec, local);
}

void cli_shards_collect_warmup(struct profile_run *run, bool all)
{
    if (run->warm_shards == NULL) {
        return;
    }
    if (all) {
        metrics_shards_collect_all(run->warm_shards, &run->warmup);
    } else {
        metrics_shards_collect(run->warm_shards, &run->warmup);
    }
}

void cli_shards_arm(struct profile_run *run)
{
    bool sharded = run->shards != NULL && engine_shard_count(&run->engine) <= run->shard_slots;
    /* Out of memory for the timeslices: the coordinator computes the run, as it can. */
    sharded = sharded && export_run_group_slices(&run->exp, run->shards) == 0;
    run->engine.record_hook = sharded ? &run->hook : NULL;
    run->exp.intervals_from_parts = sharded;
    run->part_start_wall_ns = run->exp.start_wall_ns;
    if (run->requests.multi_turn) {
        workload_sessions_forget(&run->requests.sessions);
    }
}

const struct metrics_record *cli_shards_record_metrics(struct profile_run *run,
                                                       const struct record *rec,
                                                       struct metrics_record *local)
{
    run->seen_errors += rec->outcome != RECORD_SUCCESS;
    run->seen_records++;
    return metrics_of(&run->results, run->engine.record_hook != NULL, rec, local);
}

int cli_shards_collect(struct profile_run *run, bool all)
{
    int64_t now = export_wall_now_ns();
    int slices_ret = all ? metrics_shards_collect_all(run->shards, &run->part)
                         : metrics_shards_collect(run->shards, &run->part);
    (void)metrics_results_merge(&run->results, &run->part); /* same options: same layouts */
    int64_t end = all ? now : run->asked_wall_ns;
    int ret = 0;
    if (run->exp.intervals_from_parts && run->export_error == 0 && end > run->part_start_wall_ns) {
        ret = export_run_interval_part(&run->exp, run->part.run, run->part_start_wall_ns, end);
    }
    if (run->asked_wall_ns != 0) {
        run->part_start_wall_ns = end;
    }
    run->asked_wall_ns = now;
    metrics_results_reset(&run->part);
    if (all && run->exp.slice_ns > 0 && ret == 0) {
        ret = slices_ret;
    }
    return ret;
}

void cli_shards_release(struct profile_run *run)
{
    metrics_shards_free(run->shards);
    metrics_shards_free(run->warm_shards);
    metrics_results_free(&run->part);
    run->shards = NULL;
    run->warm_shards = NULL;
    run->warm_hook = (struct engine_record_hook){0};
    run->shard_slots = 0;
    run->hook = (struct engine_record_hook){0};
    run->part = (struct metrics_results){0};
    run->part_start_wall_ns = 0;
    run->asked_wall_ns = 0;
    run->seen_records = 0;
    run->seen_errors = 0;
}
