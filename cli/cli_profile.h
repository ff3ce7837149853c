/*
 * cli_profile.h - one `ringperf profile` run as functions a session of several runs calls
 * again and again (internal to cli/): cli/profile.c makes and reports a run, cli/report.c
 * prints its notices, cli/shard_results.c wires its metrics onto the shards, cli/multi.c
 * repeats it through multirun/.
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
#include "metrics/metrics_record.h"
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
    struct engine_jobs jobs; /* video_generation's polling, when engine.jobs points here */
    struct workload_phase load;
    uint64_t seed; /* --random-seed, or drawn from the clock */
    struct workload_requests requests;
    struct tokenizer *tokenizer; /* NULL: token counts from the server's usage */
    char artifact_dir[4096];
    /* What --auto-plot plots: the run's directory, or a session's (set before its runs: their
     * APIs serve its report). */
    char plot_dir[4096];
    struct metrics_results results;
    struct metrics_results warmup; /* the warmup phase's, for warmup_metrics */
    /* The profiling phase's records become metrics on the shards that ran them (NULL: on the
     * coordinator, as multi-turn runs whose input counts remember each session's history). */
    struct metrics_shards *shards;
    uint32_t shard_slots;           /* shards that metrics_shards was made for */
    struct engine_record_hook hook; /* metrics_shards_record, set for the profiling phase */
    /* The warmup's records become metrics on the shards too, for run->warmup (NULL: no
     * warmup, or on the coordinator). */
    struct metrics_shards *warm_shards;
    struct engine_record_hook warm_hook;
    /* What the shards handed over at one collect (merged into results, and one interval of the
     * .hlog logs), and the window it covers: from part_start_wall_ns to the ask before. */
    struct metrics_results part;
    int64_t part_start_wall_ns;
    int64_t asked_wall_ns;
    /* The records the coordinator has seen, and of them the errors: the failure threshold's,
     * live, while the results hold the shards' records one progress interval late. */
    uint64_t seen_records;
    uint64_t seen_errors;
    struct export_run exp;
    struct engine_stop stop;
    struct metrics_hist *send_lag; /* open loop: send start minus due time, ns */
    bool threshold_exceeded;       /* --failed-request-threshold stopped the run */
    struct cli_live live;          /* progress display and the --api-port API */
    struct cli_held_api held_api;  /* a session's last finished run's API, still serving */
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
    bool plotted;               /* --auto-plot drew while the live API served (cli/report.c) */
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

/* cli_profile_auto_plot reports whether the run's (the session's) plots are to be drawn when it
 * ends: --auto-plot, not undone by --no-auto-plot. */
bool cli_profile_auto_plot(const struct profile_run *run);

/* cli_profile_artifact_dir writes the run's directory into out (cap bytes) and creates it:
 * run->run_dir when set, else --artifact-dir, else AIPerf's name under "artifacts" from
 * the configured load (cli_profile_configure first). Returns 0 or -errno, said. */
int cli_profile_artifact_dir(struct profile_run *run, char *out, size_t cap);

/* cli_profile_prepare_run readies one run of run->cfg: engine, requests (kept from the
 * last run when they fit), results, live view, and the first files. Returns 0 or the exit
 * status after saying why; call cli_profile_release_run either way. */
int cli_profile_prepare_run(struct profile_run *run);

/* CLI_PROGRESS_INTERVAL_NS is how often a phase's progress is shown and published. */
#define CLI_PROGRESS_INTERVAL_NS (1000LL * 1000 * 1000)

/* cli_warmup_run runs AIPerf's warmup phase of the prepared run, if asked for (cli/warmup.c):
 * the profiling load's engine, whose records count towards a one-line summary, warmup_metrics
 * and outputs.json only. Returns 0, or engine_run's error with its message in errbuf. */
int cli_warmup_run(struct profile_run *run, char *errbuf, size_t errcap);

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

/* cli_shards_prepare makes the run's shard results (metrics/shard.c), sized for the shards this
 * run starts, and the record hook that fills them (cli/shard_results.c); a multi-turn run's
 * session history gets a table per shard (workload_sessions_shards). opts are the run's
 * results' options. Returns 0, -EINVAL or -ENOMEM. */
int cli_shards_prepare(struct profile_run *run, const struct metrics_results_options *opts);

/* cli_shards_arm sets the record hook for the profiling phase alone (the warmup, probes and
 * hooks copy run->engine), when the prepared shards fit the run, and starts the phase with no
 * open sessions; clear the hook after engine_run. */
void cli_shards_arm(struct profile_run *run);

/* cli_shards_arm_warmup sets the warmup engine's record hook, when the prepared warmup shards
 * fit it. */
void cli_shards_arm_warmup(struct profile_run *run, struct engine_config *warm);

/* cli_shards_warmup_metrics returns a warmup record's metrics for the warmup's results: its
 * shard's, from the annex (adding its phases to the warmup's sweep-line collection), or
 * computed and added to run->warmup here into *local. */
const struct metrics_record *cli_shards_warmup_metrics(struct profile_run *run,
                                                       const struct record *rec,
                                                       struct metrics_record *local);

/* cli_shards_collect_warmup merges into run->warmup what the warmup's shards handed over (all
 * of it once their threads have ended); nothing where the warmup computes on the coordinator. */
void cli_shards_collect_warmup(struct profile_run *run, bool all);

/* cli_shards_record_metrics returns a record's metrics on the coordinator: its shard's, from the
 * annex (the record also goes into the run's sweep-line collection here, exactly once, which
 * the shards' halves keep none of), or computed and added here into *local. Counts the
 * records and errors seen, for the failure threshold. */
const struct metrics_record *cli_shards_record_metrics(struct profile_run *run,
                                                       const struct record *rec,
                                                       struct metrics_record *local);

/* cli_shards_collect merges what the shards handed over since the last ask (everything they
 * hold, with `all`, once their threads have ended) into the run's results, and writes it as one
 * interval of the .hlog logs: the records shards finished between the two asks before, about.
 * Returns 0 or the interval's write error (-errno). */
int cli_shards_collect(struct profile_run *run, bool all);

/* cli_shards_release frees the run's shard state and clears it for the session's next run. */
void cli_shards_release(struct profile_run *run);

/* cli_report_timing returns run_info's {"ringperf_timing": {...}} for the ended run (receive
 * clock, shared reads, shard load, record waits, the coordinator's CPU share, send lag,
 * precision mode): a new reference; NULL when out of memory. */
json_t *cli_report_timing(const struct profile_run *run);

/* cli_report_send_lag, cli_report_itl_fallbacks and cli_report_client_load print the
 * run's notices: open-loop lateness, --per-chunk-usage fallbacks, a saturated client or
 * shards that waited for a free record. */
void cli_report_send_lag(const struct profile_run *run);
void cli_report_itl_fallbacks(const struct profile_run *run);
void cli_report_client_load(const struct profile_run *run);

/* cli_report_slices_ahead warns, before a run, when its --benchmark-duration holds more
 * --slice-duration windows than the timeslices keep (EXPORT_SLICES_MAX). */
void cli_report_slices_ahead(const struct profile_config *cfg);

/* cli_report_finish ends a run that went ahead: closes its records, writes the summaries (and
 * the scrapers' files), prints the report, finishes the MPI share and the live views, and
 * returns the exit status (the shell's own after a signal). */
int cli_report_finish(struct profile_run *run, struct cli_signals *signals);

#endif
