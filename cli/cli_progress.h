/*
 * cli_progress.h - the live view of a `ringperf profile` run (internal to
 * cli/): the progress display on stderr and the --api-port HTTP API. Both
 * are fed from the coordinator thread only: cli_live_record per record (a
 * counter bump), cli_live_progress at the progress interval (which reduces
 * the histograms once and hands the result to both).
 */
#ifndef RINGPERF_CLI_PROGRESS_H
#define RINGPERF_CLI_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>

#include "api/api.h"
#include "metrics/metrics_record.h"
#include "config/config.h"
#include "engine/engine.h"
#include "ui/ui.h"

/* cli_live_display is how progress is shown. */
enum cli_live_display {
    CLI_LIVE_DASHBOARD, /* the full-screen dashboard (ui/): --ui-type dashboard, or auto, on a
                           terminal */
    CLI_LIVE_BAR,   /* a bar redrawn in place (--ui-type simple, or auto with -v, on a terminal) */
    CLI_LIVE_LINES, /* one log line per interval (--ui-type none, or no terminal) */
};

/* cli_held_api is a finished run's API kept serving after its run. A session's runs hand theirs
 * over instead of waiting out the grace period: it serves through the cooldown until the next
 * run starts one of its own, and after the last run, through the session's plots, so that
 * /report.html has the session's report. */
struct cli_held_api {
    struct api_server *api; /* NULL: none held */
    int64_t grace_ms;       /* AIPERF_API_SERVER_POST_COMPLETE_GRACE */
    int64_t completed_ns;   /* engine_now_ns() when its run ended */
};

/* cli_held_api_grace_left_ns is what is left of the held API's grace period (0: none held, or
 * it is over). */
int64_t cli_held_api_grace_left_ns(const struct cli_held_api *h);

/* cli_held_api_linger runs `before` (NULL: none) with SIGINT and SIGTERM blocked, then keeps the
 * held API up for its whole grace period, or until one of them comes (taken, as at the end of a
 * lone run: one sent while `before` ran included), then stops it. Without a held API it only
 * runs `before`. Call it with no signal watcher running. */
void cli_held_api_linger(struct cli_held_api *h, void (*before)(void *ctx), void *ctx);

/* cli_held_api_stop stops the held API now; no-op when none is held. */
void cli_held_api_stop(struct cli_held_api *h);

/* cli_live is the live view of one run. Zero-initialise, then cli_live_start. */
struct cli_live {
    enum cli_live_display display;
    bool printed;              /* a bar is on screen and needs a newline */
    const char *phase;         /* "warmup" or "profiling" */
    int64_t start_ns;          /* engine_now_ns() when the phase started */
    double duration_target_s;  /* --benchmark-duration, 0 when count-limited */
    struct api_server *api;    /* NULL without --api-port */
    int64_t grace_ms;          /* how long the API stays up after the run */
    int64_t line_interval_ns;  /* CLI_LIVE_LINES: at least this long between lines */
    int64_t last_line_ns;      /* when the last line was printed; 0 = none yet */
    struct api_snapshot *snap; /* scratch for cli_live_progress (large) */
    uint32_t shard_count;      /* highest shard id seen + 1 */
    struct api_shard_view shards[API_SHARDS_MAX];
    /* Optional: called on the coordinator thread with every snapshot after
     * it is filled from this process's results and before it is shown and
     * published; it may change its figures (an MPI rank 0 merges the other
     * ranks' in). NULL = none. `on_snapshot_ctx` is borrowed. */
    void (*on_snapshot)(void *ctx, const struct metrics_results *results,
                        struct api_snapshot *snap);
    void *on_snapshot_ctx;
    struct ui_dashboard *ui;        /* CLI_LIVE_DASHBOARD, once started */
    const struct engine_stop *stop; /* the run's stop flag, shown as "stopping"; borrowed */
    bool open_loop;                 /* requests follow a schedule: shards report send lag */
    /* The run's histograms as they were at the last snapshot, so that the next one can tell
     * the interval's values apart (api_interval_fill); allocated at the first snapshot. */
    struct metrics_hist *before[API_METRIC_COUNT];
    int64_t last_fill_ns;
    struct metrics_hist *send_lag[API_SHARDS_MAX]; /* open loop, per shard; allocated when used */
    uint32_t phase_count;
    struct api_phase_row phases[API_PHASES_MAX];
    /* Optional: called by cli_live_finish of a run that did not fail, while the API still
     * serves, before it publishes the end (--auto-plot's report). NULL = none. */
    /* run_info's trial, run_label, variation_* and sweep_id of a run of a session, for
     * /api/run (borrowed; NULL for a lone run). */
    struct json_t *point_info;
    void (*before_complete)(void *ctx);
    void *before_complete_ctx;
    /* A run of a session: the directory of the session's report (borrowed), and where
     * cli_live_finish hands the API over instead of keeping it up (see cli_held_api). NULL for
     * a lone run. */
    const char *report_dir;
    struct cli_held_api *hold;
    /* The run's scrapers (borrowed; NULL = none): every snapshot copies their latest pictures,
     * taking only their publishing mutex, never waiting for a fetch. */
    struct scrape *server_scrape;
    struct scrape *gpu_scrape;
};

/* cli_live_start chooses the display from cfg->ui_type and whether stderr is
 * a terminal, and starts the API when --api-port or AIPERF_API_SERVER_PORT
 * asks for it, serving artifact_dir. Prints the API's address on stderr.
 * Returns 0, or -errno after printing why (the port is taken...). */
int cli_live_start(struct cli_live *live, const struct profile_config *cfg,
                   const char *artifact_dir, uint64_t benchmark_nonce);

/* cli_live_phase starts a phase ("warmup", "profiling"; static strings):
 * resets the per-shard counts and the clock and marks the API running. */
void cli_live_phase(struct cli_live *live, const char *phase);

/* cli_live_record counts one record, with its computed metrics, against its shard. */
void cli_live_record(struct cli_live *live, const struct record *rec,
                     const struct metrics_record *metrics);

/* cli_live_shards takes the engine's per-shard figures (engine_record_sink.on_shards). */
void cli_live_shards(struct cli_live *live, uint32_t first, const struct engine_shard_live *rows,
                     uint32_t count);

/* cli_live_progress draws the progress display and publishes a snapshot to
 * the API from results, finished of total records (total 0 when the run is
 * limited by duration). */
void cli_live_progress(struct cli_live *live, const struct metrics_results *results,
                       uint64_t finished, uint64_t total);

/* cli_live_end_display ends the bar's line, if one is on screen, or closes the dashboard and
 * gives the terminal back (the messages it showed are printed then). */
void cli_live_end_display(struct cli_live *live);

/* cli_live_finish publishes the final counts from results, tells the API
 * the run ended (failed or not) with the results document at results_path
 * (NULL: none), after live->before_complete, then keeps it up for the grace period or until
 * SIGINT or SIGTERM, and stops it; a session's run hands it to live->hold instead. No-op
 * without the API. */
void cli_live_finish(struct cli_live *live, const struct metrics_results *results, bool failed,
                     const char *results_path);

/* cli_live_free releases the live view; safe on a zeroed one. */
void cli_live_free(struct cli_live *live);

#endif
