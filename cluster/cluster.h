/*
 * cluster.h - one `ringperf profile` run shared by several processes: MPI ranks under mpirun/srun,
 * or independent shards
 * (--shard-index/--shard-count, e.g. a Kubernetes Indexed Job); and
 * `ringperf merge`, which combines what each of them wrote.
 *
 * Share i of N runs request ordinals i, i + N, ... (so ordinals stay
 * globally unique), 1/N of --concurrency and --request-rate, and writes its
 * artifacts to <artifact-dir>/rank_<i>/ as the run goes, including
 * CLUSTER_RECORDS_FILE: every record's metric inputs on rank 0's clock.
 * Merging those files recomputes every metric exactly as one run would.
 */
#ifndef RINGPERF_CLUSTER_H
#define RINGPERF_CLUSTER_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "export/export.h"
#include "metrics/metrics_record.h"
#include "workload/workload.h"
#include "api/api.h"
#include "export/export_jsonw.h"
#include "cluster/cluster_merge.h"
#include "cluster/cluster_transport.h"
#include "config/config.h"
#include "engine/engine.h"

/* CLUSTER_CLOCK_ROUNDS is how many ping-pongs estimate a rank's clock. */
#define CLUSTER_CLOCK_ROUNDS 16

/* cluster_share is a process's part in a shared run. Zero-initialise, then
 * cluster_share_init; cluster_share_free is safe on a zeroed one. */
struct cluster_share {
    struct cluster *cluster; /* owned */
    bool mpi;                /* MPI ranks share the run (count > 1) */
    int index;               /* this share: MPI rank or --shard-index */
    int count;               /* shares */
    bool sharded;            /* MPI or --shard-count: rank_<i>/ and a records file */
    uint64_t run_nonce;      /* the same in every share of an MPI run */
    struct cluster_clock clock;
    struct cluster_clock *clocks;    /* MPI rank 0: every rank's, by rank */
    char *hosts;                     /* MPI rank 0: count * CLUSTER_HOST_BYTES */
    int64_t start_wall_ns;           /* the common start instant, on rank 0's clock */
    char top_dir[EXPORT_PATH_BYTES]; /* --artifact-dir as resolved; shares write rank_<i>/ */
    char file_path[EXPORT_PATH_BYTES];
    /* The schedule this share follows, wrapping the run's. */
    const struct engine_schedule *inner;
    struct engine_schedule schedule;
    const struct workload_phase *load;
    int64_t phase_ns; /* constant rate: this share's shift */
    bool streaming;
    bool open_loop;
    uint64_t request_id_nonce;
    struct export_jsonw writer; /* the records file */
    uint64_t records;
    int error;            /* first -errno writing the file */
    bool silenced;        /* MPI: stdout goes to /dev/null until the merged report */
    int saved_stdout;     /* the real stdout while silenced */
    bool write_failed;    /* reported once */
    uint64_t whole_total; /* records the whole run ends with (all shares); 0 = unknown */
    char results_json[EXPORT_PATH_BYTES]; /* MPI rank 0: the merged results document */
    bool export_raw;                      /* --export-level raw: merged as records */
    struct cluster_share_live *live;      /* MPI: the live figures exchanged at each tick (owned) */
    int64_t *pids;                        /* MPI rank 0: every rank's process id, by rank */
    int pids_ready; /* pids and hosts are set (atomic: read by another thread) */
};

/* cluster_share_init joins the run (MPI under a launcher) and checks the
 * split against cfg: --concurrency not below the share count, a
 * --random-seed for independent shards, and so on. MPI ranks other than 0
 * turn the live API off in cfg (and AIPERF_API_SERVER_PORT): rank 0 serves
 * the whole run (cluster_share_live_attach). Returns 0, or the exit
 * code (2 usage, 1 failure) after printing why. */
int cluster_share_init(struct cluster_share *cc, struct profile_config *cfg);

/* cluster_share_seed gives every MPI rank rank 0's seed: every rank
 * builds the same dataset. Returns 0 or 1. */
int cluster_share_seed(struct cluster_share *cc, uint64_t *seed);

/* cluster_share_prepare gives every MPI rank rank 0's request ID nonce,
 * splits the engine run for this share (ordinals,
 * request count, concurrency, rate, schedule; `load` must outlive it),
 * moves `artifact_dir` (cap bytes) to its rank_<i> subdirectory and creates
 * it. Returns 0, or the exit code after printing why. */
int cluster_share_prepare(struct cluster_share *cc, const struct profile_config *cfg, uint64_t seed,
                          struct workload_phase *load, struct engine_config *engine,
                          char *artifact_dir, size_t cap);

/* cluster_share_split_warmup splits the warmup run `warm` (its schedule in
 * `load`) for this share as cluster_share_prepare splits the profiling run.
 * Returns false when this share has no warmup requests of its own. */
bool cluster_share_split_warmup(struct cluster_share *cc, const struct profile_config *cfg,
                                uint64_t seed, struct workload_phase *load,
                                struct engine_config *warm);

/* cluster_share_inputs_dir returns where inputs.json goes: `artifact_dir` in
 * a plain run, the top directory for share 0, NULL (none) for the others. */
const char *cluster_share_inputs_dir(const struct cluster_share *cc, const char *artifact_dir);

/* cluster_share_start opens the records file, and under MPI waits for every
 * rank, estimates the clocks and agrees on a common start instant: an
 * open-loop `engine` counts its schedule from it (schedule_start_ns), a
 * closed loop starts when this returns, at that instant. Returns 0 or
 * -errno with errbuf set. */
int cluster_share_start(struct cluster_share *cc, const struct profile_config *cfg,
                        struct engine_config *engine, char *errbuf, size_t errcap);

/* cluster_share_record appends one record (borrowed) with its metrics to the
 * records file, with the name of its conversation as `exp` exports it, so that a merge
 * writes the same conversation_id. */
void cluster_share_record(struct cluster_share *cc, const struct record *rec,
                          const struct metrics_record *metrics, const struct export_run *exp);

/* cluster_share_flush writes what is buffered, so that a share that dies
 * keeps its records up to then. Called about once a second. */
void cluster_share_flush(struct cluster_share *cc);

/* cluster_share_finish closes the records file (marking it complete), and
 * under MPI streams every rank's file to rank 0, which merges them into the
 * top directory and prints the merged report. `status` is this share's
 * exit code; returns the process's. */
int cluster_share_finish(struct cluster_share *cc, bool cancelled, int status);

/* cluster_share_shards are this rank's live per-shard counts: *count rows
 * of `rows`, both borrowed from the live view that keeps them. */
struct cluster_share_shards {
    const uint32_t *count;
    const struct api_shard_view *rows;
};

/* cluster_share_live_attach prepares the exchange that makes a live view
 * show the whole MPI run from `shards` (copied; what it points to is
 * borrowed, as is `results`, this rank's figures; all must outlive cc's
 * run). The view then calls cluster_share_live_snapshot with cc at every
 * progress tick. No-op without MPI. Returns 0 or -ENOMEM after printing
 * why. */
int cluster_share_live_attach(struct cluster_share *cc, const struct cluster_share_shards *shards,
                              const struct metrics_results *results);

/* cluster_share_live_snapshot is a live view's snapshot hook, with ctx the
 * struct cluster_share: each rank other than 0 posts its counts and live
 * histograms to rank 0 without waiting, and rank 0 merges the latest of
 * every rank into `snap`, which it shows and publishes (counts add,
 * histograms add bucket by bucket). */
void cluster_share_live_snapshot(void *ctx, const struct metrics_results *results,
                                 struct api_snapshot *snap);

/* cluster_share_live_end, after the run (it blocks): every rank other than 0
 * posts its final figures, and rank 0 waits for them, so that its live view
 * ends on the whole run's figures. Called by cluster_share_finish. Returns 0
 * or -EIO. */
int cluster_share_live_end(struct cluster_share *cc);

/* cluster_share_gather, after the run under MPI (it blocks): every rank other than 0 sends its
 * records file to rank 0, which merges them all into the top directory. Called by
 * cluster_share_finish with the run's exit status; returns rank 0's merged status (1 when the
 * gather failed), the rank's own status elsewhere. */
int cluster_share_gather(struct cluster_share *cc, int status);

/* cluster_share_live_free releases what cluster_share_live_attach allocated;
 * called by cluster_share_free. */
void cluster_share_live_free(struct cluster_share *cc);

/* cluster_share_results_path returns the results document the live API
 * serves at the end of the run: under MPI, rank 0's merged one in the top
 * directory (a view into cc); otherwise `own` (this process's). */
const char *cluster_share_results_path(struct cluster_share *cc, const char *own);

/* cluster_share_stop_notice is called, from any thread, when the process is
 * told to stop (SIGTERM, SIGINT). Under mpirun that is how the surviving
 * ranks learn that one died: the launcher stops them all a moment later.
 * So MPI rank 0 checks every rank on its own host, and for each one that
 * no longer exists prints which rank and host stopped before the end, where
 * its records are, and how to merge them. Calls no MPI. */
void cluster_share_stop_notice(struct cluster_share *cc);

/* cluster_share_free releases cc (leaving MPI); safe on a zeroed one. */
void cluster_share_free(struct cluster_share *cc);

#endif
