/*
 * cluster_merge.h - `ringperf merge`: one result from the records files the
 * shares of a run wrote. Part of cluster.h, which includes it; merge.c
 * includes only this, as it needs neither the engine nor the API server
 * (tests/cluster/test_merge.c links it without them).
 */
#ifndef RINGPERF_CLUSTER_MERGE_H
#define RINGPERF_CLUSTER_MERGE_H

#include <stdbool.h>
#include <stddef.h>

#include "cluster/cluster_transport.h"

/* CLUSTER_RECORDS_FILE is the per-share file `ringperf merge` reads. */
#define CLUSTER_RECORDS_FILE "ringperf_records.jsonl"

/* CLUSTER_RECORDS_FORMAT is the version of that file's format. */
#define CLUSTER_RECORDS_FORMAT 1

/* CLUSTER_MERGE_FILES_MAX bounds the records files one merge reads. */
#define CLUSTER_MERGE_FILES_MAX CLUSTER_RANKS_MAX

/* cluster_merge_options configure cluster_merge_files. */
struct cluster_merge_options {
    const char *out_dir; /* where the merged exports go (created) */
    int expected_count;  /* shares expected; 0 = take it from the files */
    bool quiet;          /* no console report */
    const char *title;   /* console title; NULL = LLM metrics */
    /* NULL = the shares' --export-level; "records" or "summary" overrides it.
     * Shares that ran with "raw" are refused without an override: the
     * records files keep no response text, so the raw export cannot be
     * merged (each share's own stays in its directory). */
    const char *export_level;
};

/* cluster_merge_files merges `count` records files (paths borrowed) into one
 * result in opts->out_dir, named with the run's --profile-export-prefix:
 * the same exports as one run, records in end-time
 * order with their rank and host, run_info with the ranks, hosts and clock
 * offsets, marked incomplete when a share is missing or did not finish.
 * Returns the exit code (0 when some request succeeded). */
int cluster_merge_files(char *const *paths, size_t count, const struct cluster_merge_options *opts);

#endif
