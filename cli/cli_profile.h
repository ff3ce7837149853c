/*
 * cli_profile.h - one `ringperf profile` run as functions a session of several runs calls
 * again and again (internal to cli/): cli/profile.c makes and reports a run, cli/report.c
 * prints its notices, cli/multi.c repeats it through multirun/.
 */
#ifndef RINGPERF_CLI_PROFILE_H
#define RINGPERF_CLI_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cli/cli_aws.h"
#include "cli/cli_progress.h"
#include "cli/cli_readiness.h"
#include "cli/cli_realtime.h"
#include "cli/cli_scrapers.h"
#include "cli/cli_signals.h"
#include "cli/cli_targets.h"
#include "cluster/cluster.h"
#include "config/config.h"
#include "engine/engine.h"
#include "export/export.h"
#include "metrics/metrics.h"
#include "record/record.h"
#include "tokenizer/tokenizer.h"
#include "workload/workload.h"

/* After Ctrl-C (or the failure threshold), requests in flight get this long
 * to finish before they are cancelled. */
#define STOP_GRACE_NS (3LL * 1000 * 1000 * 1000)

/* profile_run is a session: what every run shares (the config, targets, tokenizer, the
 * requests while they fit) and the state of the run being made. Zero-initialised. */
struct profile_run {
    struct profile_config cfg;
    struct cli_targets targets; /* one per --url; outlives every engine_run */
    struct engine_config engine;
    struct workload_phase load;
    uint64_t seed; /* --random-seed, or drawn from the clock */
    struct workload_requests requests;
    struct tokenizer *tokenizer; /* NULL: token counts from the server's usage */
    char artifact_dir[4096];
    char plot_dir[4096]; /* what --auto-plot plots: the run's directory, or a sweep's base */
    struct metrics_results results;
    struct metrics_results warmup; /* the warmup phase's, for warmup_metrics */
    struct export_run exp;
    struct engine_stop stop;
    struct metrics_hist *send_lag; /* open loop: send start minus due time, ns */
    bool threshold_exceeded;       /* --failed-request-threshold stopped the run */
    struct cli_live live;          /* progress display and the --api-port API */
    int export_error;
    struct cluster_share cluster;         /* MPI ranks or --shard-count shares of one run */
    struct engine_run_stats engine_stats; /* of the profiling phase */
    /* --wait-for-model-timeout: what the readiness probes send */
    struct cli_readiness_probes probes; /* what --wait-for-model-timeout sends */
    struct cli_realtime realtime;       /* --realtime-priority: asked for and granted */
    struct record_secrets secrets;      /* what responses must not echo into the exports */
    struct cli_aws aws;                 /* --auth-type sigv4: the credentials */
    struct cli_scrapers scrapers;       /* server metrics and GPU telemetry */
    /* A session of several runs (cli/multi.c) */
    struct cli_signals signals; /* the session's Ctrl-C watcher, over every run */
    const char *run_dir;        /* this run's directory; NULL: AIPerf's naming of one run */
    json_t *point_info;         /* run_info's trial, run_label, variation_*: borrowed, or NULL */
    bool requests_ready;        /* requests hold the payloads for these: */
    int64_t requests_isl;
    int64_t requests_osl;
    uint64_t requests_seed;
};

/* cli_profile_prepare_session resolves the targets, checks io_uring and loads the
 * tokenizer, once for every run. Returns 0 or the exit status after saying why. */
int cli_profile_prepare_session(struct profile_run *run);

/* cli_profile_configure gives the engine the run's seed (run->cfg's --random-seed, else
 * one drawn now) and load from run->cfg. Returns 0 or the exit status. */
int cli_profile_configure(struct profile_run *run);

/* cli_profile_artifact_dir writes the run's directory into out (cap bytes) and creates it:
 * run->run_dir when set, else --artifact-dir, else AIPerf's name under "artifacts" from
 * the configured load (cli_profile_configure first). Returns 0 or -errno, said. */
int cli_profile_artifact_dir(struct profile_run *run, char *out, size_t cap);

/* cli_profile_prepare_run readies one run of run->cfg: engine, requests (kept from the
 * last run when they fit), results, live view, and the first files. Returns 0 or the exit
 * status after saying why; call cli_profile_release_run either way. */
int cli_profile_prepare_run(struct profile_run *run);

/* cli_profile_execute makes the prepared run and writes its exports; run->signals must be
 * watching. Returns the run's exit status (130/143 when a signal stopped it). */
int cli_profile_execute(struct profile_run *run);

/* cli_profile_release_run releases what one run holds, keeping what the session shares. */
void cli_profile_release_run(struct profile_run *run);

/* cli_multi_main makes every run of a --num-profile-runs or sweep session through
 * multirun/ (cli/multi.c). Returns the exit status: §5.6's, or 128 + a signal. */
int cli_multi_main(struct profile_run *run);

/* cli_report_title writes AIPerf's console title for the run's endpoint (its "NVIDIA AIPerf"
 * is ours "ringperf") into buf and returns it. */
const char *cli_report_title(const struct profile_run *run, char *buf, size_t cap);

/* cli_report_send_lag, cli_report_itl_fallbacks and cli_report_client_load print the
 * run's notices: open-loop lateness, --per-chunk-usage fallbacks, a saturated client. */
void cli_report_send_lag(const struct profile_run *run);
void cli_report_itl_fallbacks(const struct profile_run *run);
void cli_report_client_load(const struct profile_run *run);

#endif
