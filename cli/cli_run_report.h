/*
 * cli_run_report.h - what a profile run says about the client itself once it ends: run_info's
 * "ringperf_timing" (receive clock, shared reads, shard load, record waits, send lag, precision
 * mode) and the console's send lag line and warnings about the client's own limits.
 */
#ifndef RINGPERF_CLI_RUN_REPORT_H
#define RINGPERF_CLI_RUN_REPORT_H

#include <jansson.h>
#include <stdbool.h>

#include "cli/cli_realtime.h"
#include "engine/engine.h"
#include "metrics/metrics_record.h"

/* cli_run_report is what the report reads; every pointer borrowed. */
struct cli_run_report {
    const struct engine_run_stats *stats;  /* the profiling phase's */
    const struct metrics_results *results; /* the run's, complete */
    const struct metrics_hist *send_lag;   /* open loop: send start - due time, ns; else NULL */
    const struct cli_realtime *realtime;   /* --realtime-priority, asked and granted */
    bool user_timestamps_asked;            /* RINGPERF_USER_TIMESTAMPS=1 */
};

/* cli_run_report_timing returns run_info's {"ringperf_timing": {...}} (a new reference; NULL
 * when out of memory). */
json_t *cli_run_report_timing(const struct cli_run_report *report);

/* cli_run_report_print prints the send lag line and the warnings about the client: requests
 * that left late, --per-chunk-usage fallbacks, reads timed in user space, shards that waited for
 * a free record, a shard without CPU to spare. */
void cli_run_report_print(const struct cli_run_report *report);

#endif
