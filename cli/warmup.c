/*
 * warmup.c - AIPerf's warmup phase of a profile run: the profiling load's engine, before it,
 * whose records count towards a one-line summary, warmup_metrics and outputs.json only.
 */
#include <errno.h>
#include <stdio.h>

#include "cli/cli_profile.h"

struct warmup_tally {
    struct profile_run *run;
    uint64_t request_id_nonce; /* the warmup's */
    uint64_t records;
    uint64_t errors;
};

/* on_warmup_record counts a warmup request and adds it to the warmup's own
 * results (the JSON's warmup_metrics) and to outputs.json, when that is
 * written; outputs.json keeps the profiling results' token counts. */
static void on_warmup_record(void *ctx, const struct record *rec)
{
    struct warmup_tally *tally = ctx;
    struct profile_run *run = tally->run;
    tally->records++;
    tally->errors += rec->outcome != RECORD_SUCCESS;
    struct metrics_record local;
    const struct metrics_record *warm_metrics = cli_shards_warmup_metrics(run, rec, &local);
    cli_live_record(&run->live, rec, warm_metrics);
    if (export_jsonw_is_open(&run->exp.outputs_writer) && run->export_error == 0) {
        /* The profiling results' values, from the counts the warmup's computing made. */
        struct metrics_record metrics;
        metrics_record_compute_as(&run->results, rec, warm_metrics, &metrics);
        run->export_error =
            export_run_warmup_record(&run->exp, rec, &metrics, tally->request_id_nonce);
    }
}

static void on_warmup_progress(void *ctx, uint64_t finished, uint64_t total)
{
    struct warmup_tally *tally = ctx;
    cli_shards_collect_warmup(tally->run, false);
    cli_live_progress(&tally->run->live, &tally->run->warmup, finished, total);
}

static void on_warmup_finish(void *ctx, const struct engine_run_stats *stats)
{
    struct warmup_tally *tally = ctx;
    (void)stats;
    /* The shards' threads have ended: what they hold now is all of it. */
    cli_shards_collect_warmup(tally->run, true);
}

static void on_warmup_shards(void *ctx, uint32_t first, const struct engine_shard_live *rows,
                             uint32_t count)
{
    struct warmup_tally *tally = ctx;
    cli_live_shards(&tally->run->live, first, rows, count);
}

int cli_warmup_run(struct profile_run *run, char *errbuf, size_t errcap)
{
    struct workload_phase warm_load;
    struct engine_config warm;
    if (!workload_phase_warmup(&run->cfg, run->seed, &run->engine, &warm_load, &warm)) {
        return 0;
    }
    if (run->requests.multi_turn) {
        /* Before the split: the turn limit is the whole run's, as ordinals are. */
        workload_phase_sessions(&run->cfg, &run->requests.sessions.engine, false, &warm_load,
                                &warm);
    }
    if (!cluster_share_split_warmup(&run->cluster, &run->cfg, run->seed, &warm_load, &warm)) {
        return 0;
    }
    if (run->requests.multi_turn &&
        workload_sessions_shards(&run->requests.sessions, engine_shard_count(&warm)) != 0) {
        snprintf(errbuf, errcap, "out of memory");
        return -ENOMEM;
    }
    /* Distinct X-Request-IDs, so server logs tell warmup from profiling. */
    warm.request_id_nonce ^= 0x5741524dULL;
    struct warmup_tally tally = {.run = run, .request_id_nonce = warm.request_id_nonce};
    cli_shards_arm_warmup(run, &warm);
    struct engine_record_sink sink = {.on_record = on_warmup_record,
                                      .on_progress = on_warmup_progress,
                                      .on_shards = on_warmup_shards,
                                      .on_finish = on_warmup_finish,
                                      .ctx = &tally,
                                      .progress_interval_ns = CLI_PROGRESS_INTERVAL_NS};
    cli_scrapers_phase(&run->scrapers, SCRAPE_PHASE_WARMUP);
    int ret = engine_run(&warm, &sink, &run->stop, errbuf, errcap);
    if (ret == 0) {
        fprintf(stderr, "Warmup: %llu requests, %llu errors (excluded from the results)\n",
                (unsigned long long)tally.records, (unsigned long long)tally.errors);
    }
    return ret;
}
