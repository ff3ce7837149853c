/*
 * report.c - what a profile run says about itself after its tables: how late open-loop
 * requests left, --per-chunk-usage fallbacks, a client short of CPU or of free records; its
 * run_info "ringperf_timing"; its title; and the end of a run that went ahead: the exports'
 * summaries, the scrapers' files, the MPI merge, the live API's final state and the exit status.
 */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_profile.h"

json_t *cli_report_timing(const struct profile_run *run)
{
    const struct engine_run_stats *st = &run->engine_stats;
    const char *clock = st->user_timestamp_reads == 0     ? "kernel_so_timestamping"
                        : st->kernel_timestamp_reads == 0 ? "user_space"
                                                          : "mixed";
    int64_t client_cpu_ns = st->coordinator_cpu_ns + st->shards_cpu_ns;
    json_t *timing = json_pack(
        "{s:s, s:I, s:I, s:I, s:f, s:i, s:I, s:f}", "receive_clock", clock,
        "kernel_timestamp_reads", (json_int_t)st->kernel_timestamp_reads, "user_timestamp_reads",
        (json_int_t)st->user_timestamp_reads, "shared_read_events",
        (json_int_t)run->results.same_read_events, "busiest_shard_cpu_fraction",
        st->busiest_shard_cpu_fraction, "busiest_shard", (int)st->busiest_shard, "record_waits",
        (json_int_t)st->record_waits, "coordinator_cpu_share",
        client_cpu_ns > 0 ? (double)st->coordinator_cpu_ns / (double)client_cpu_ns : 0.0);
    if (timing != NULL && run->engine.schedule != NULL && metrics_hist_count(run->send_lag) > 0) {
        /* A bucket's highest value can exceed the exact maximum: cap at it. */
        int64_t max = metrics_hist_max(run->send_lag);
        int64_t p50 = metrics_hist_value_at_percentile(run->send_lag, 50);
        int64_t p99 = metrics_hist_value_at_percentile(run->send_lag, 99);
        json_object_set_new(timing, "send_lag_ns",
                            json_pack("{s:I, s:I, s:I}", "p50", (json_int_t)(p50 < max ? p50 : max),
                                      "p99", (json_int_t)(p99 < max ? p99 : max), "max",
                                      (json_int_t)max));
    }
    if (timing != NULL) {
        json_object_set_new(timing, "precision", cli_realtime_json(&run->realtime, st));
    }
    return timing != NULL ? json_pack("{s:o}", "ringperf_timing", timing) : NULL;
}

/* print_send_lag reports how late open-loop requests left, and warns when the
 * client, not the server, was the limit. */
void cli_report_send_lag(const struct profile_run *run)
{
    if (run->engine.schedule == NULL || metrics_hist_count(run->send_lag) == 0) {
        return;
    }
    double p50_us = (double)metrics_hist_value_at_percentile(run->send_lag, 50) / 1e3;
    double p99_us = (double)metrics_hist_value_at_percentile(run->send_lag, 99) / 1e3;
    double max_us = (double)metrics_hist_max(run->send_lag) / 1e3;
    printf("Send Lag (send start - due time): p50 %.1f us, p99 %.1f us, max %.1f us\n", p50_us,
           p99_us, max_us);
    if (p99_us > 1000.0) {
        printf("Warning: 1%% of requests left over %.1f ms late. Either every connection was busy "
               "(raise --concurrency) or the client was saturated (raise --workers-max).\n",
               p99_us / 1e3);
    }
}

/* print_itl_fallbacks says, once, how many requests --per-chunk-usage could
 * not apply to. */
void cli_report_itl_fallbacks(const struct profile_run *run)
{
    uint64_t n = run->results.itl_first_chunk_fallbacks;
    if (n > 0) {
        printf("Warning: --per-chunk-usage: %llu streamed request%s reported no usage with the "
               "first content chunk (or as many tokens as the whole output); their ITL divides "
               "by OSL - 1. Check that the server honours stream_options.continuous_usage_stats.\n",
               (unsigned long long)n, n == 1 ? "" : "s");
    }
}

/* CLIENT_BUSY_WARN is the share of a shard's CPU above which the client, not
 * the server, may have set the pace. */
#define CLIENT_BUSY_WARN 0.9

/* print_client_load warns when a shard had no CPU to spare or waited for a free record, and
 * says when receive times did not all come from the kernel. */
void cli_report_client_load(const struct profile_run *run)
{
    const struct engine_run_stats *st = &run->engine_stats;
    if (st->user_timestamp_reads > 0) {
        printf("Notice: %llu of %llu reads were timed in user space, not by the kernel "
               "(SO_TIMESTAMPING was unavailable%s): their arrival times include the client's "
               "wake-up delay.\n",
               (unsigned long long)st->user_timestamp_reads,
               (unsigned long long)(st->user_timestamp_reads + st->kernel_timestamp_reads),
               run->engine.user_timestamps ? ", or RINGPERF_USER_TIMESTAMPS=1 asked for it" : "");
    }
    if (st->record_waits > 0) {
        printf("Warning: shards waited %llu time%s for a free record while a connection was free "
               "and a request due: the coordinator had not yet given their records back, so the "
               "client, not the server, held the load back. Give the coordinator a core of its "
               "own (fewer --workers-max than CPUs) or lower --export-level.\n",
               (unsigned long long)st->record_waits, st->record_waits == 1 ? "" : "s");
    }
    if (st->busiest_shard_cpu_fraction < CLIENT_BUSY_WARN) {
        return;
    }
    printf("Warning: shard %u was busy %.0f%% of the run (pacing spins left out): the client may "
           "have limited the load and its timings. Raise --workers-max, give ringperf more "
           "cores, or spread the run over machines.\n",
           st->busiest_shard, st->busiest_shard_cpu_fraction * 100.0);
}

void cli_report_slices_ahead(const struct profile_config *cfg)
{
    double duration = cfg->benchmark_duration_seconds;
    double slice = cfg->slice_duration_seconds;
    if (duration <= 0 || slice <= 0 || duration / slice <= EXPORT_SLICES_MAX) {
        return;
    }
    fprintf(stderr,
            "ringperf profile: warning: --slice-duration %g s cuts --benchmark-duration %g s into "
            "%.0f windows; the timeslices keep the first %d. Give --slice-duration %.6g or more "
            "to cover the run.\n",
            slice, duration, ceil(duration / slice), EXPORT_SLICES_MAX,
            duration / EXPORT_SLICES_MAX);
}

/* report_slices warns when requests started past the last timeslice kept. */
static void report_slices(const struct profile_run *run)
{
    uint64_t dropped = run->exp.intervals.slices.dropped;
    if (dropped == 0) {
        return;
    }
    printf("Warning: %llu request%s started after the first %d windows of --slice-duration %g s "
           "and %s left out of the timeslices. A longer --slice-duration covers the whole run.\n",
           (unsigned long long)dropped, dropped == 1 ? "" : "s", EXPORT_SLICES_MAX,
           run->cfg.slice_duration_seconds, dropped == 1 ? "is" : "are");
}

/* report_title is AIPerf's console title for the endpoint's metrics. */
const char *cli_report_title(const struct profile_run *run, char *buf, size_t cap)
{
    snprintf(buf, cap, "ringperf | %s", endpoint_type_metrics_title(run->requests.type));
    return buf;
}

/* report_export_failure names the file that could not be written, why, and
 * how many records the records file kept. */
static void report_export_failure(const struct profile_run *run, int err)
{
    char file[EXPORT_PATH_BYTES + 16];
    export_run_failed_file(&run->exp, file, sizeof(file));
    long kept = export_run_records_kept(&run->exp);
    fprintf(stderr, "ringperf profile: writing %s failed: %s",
            file[0] != '\0' ? file : run->exp.paths.dir, strerror(-err));
    if (kept >= 0) {
        fprintf(stderr, "; %ld complete records kept in %s", kept, run->exp.paths.records);
    }
    fprintf(stderr, "\n");
}

/* plot_while_served arms job when this run's plots are to be drawn before its API stops: a
 * session's wait for its last run, and a run without the API plots after it is released. */
static void plot_while_served(struct profile_run *run, struct cli_signals *signals,
                              struct cli_plot_job *job)
{
    if (!cli_profile_auto_plot(run) || run->live.api == NULL || run->point_info != NULL ||
        run->cluster.mpi || cli_signals_exit_status(signals, job->status) != 0) {
        return;
    }
    run->plotted = true;
    run->live.before_complete = cli_plot_job_run;
    run->live.before_complete_ctx = job;
}

int cli_report_finish(struct profile_run *run, struct cli_signals *signals)
{
    int close_ret = export_run_close(&run->exp);
    if (run->export_error != 0 || close_ret != 0) {
        report_export_failure(run, run->export_error != 0 ? run->export_error : close_ret);
        return 1;
    }
    /* The signal watcher may be storing a stop right now: read it as it is written. */
    bool stopped = __atomic_load_n(&run->stop.requested, __ATOMIC_ACQUIRE) != 0;
    char title[80];
    struct export_finish_info finish = {
        .cfg = &run->cfg,
        .was_cancelled = stopped,
        .title = cli_report_title(run, title, sizeof(title)),
        .schedule_lag = run->requests.fixed_schedule ? run->send_lag : NULL,
        .run_info_extra = cli_report_timing(run),
        .warmup = &run->warmup,
    };
    if (finish.run_info_extra != NULL && run->point_info != NULL) {
        json_object_update(finish.run_info_extra, run->point_info);
    }
    cli_scrapers_stop(&run->scrapers);
    finish.gpu_telemetry = run->scrapers.gpus;
    int status = export_run_finish(&run->exp, &run->results, &finish);
    json_decref(finish.run_info_extra);
    if (cli_scrapers_write(&run->scrapers, &run->exp, &run->cfg) != 0) {
        status = 1;
    }
    cli_report_send_lag(run);
    cli_report_itl_fallbacks(run);
    cli_report_client_load(run);
    report_slices(run);
    /* MPI: the merge first, so that the live API ends on the whole run's figures. */
    status = cluster_share_finish(&run->cluster, stopped, run->threshold_exceeded ? 1 : status);
    /* --auto-plot of a lone run, drawn while its live API serves (cli_live_finish's
     * before_complete), so that /report.html has the page during the grace period. */
    struct cli_plot_job job = {
        .dir = run->artifact_dir, .required = run->cfg.plot_required, .status = status};
    plot_while_served(run, signals, &job);
    cli_live_finish(&run->live, &run->results, false,
                    cluster_share_results_path(&run->cluster, run->exp.paths.json));
    status = job.status;
    run->live.before_complete = NULL;
    /* Interrupted, once or twice: the shell's own status for the signal (130, 143). */
    return cli_signals_exit_status(signals, status);
}
