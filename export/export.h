/*
 * export.h - the summary artifacts of a run in AIPerf's schemas (spec §1.9,
 * §3.2): profile_export_aiperf.json and profile_export_aiperf.csv.
 *
 * Both are written once at the end of a run from a struct metrics_summary
 * (display units), so they use jansson and stdio rather than the hot-path
 * writer of the per-request records. Nothing here keeps a pointer to its
 * arguments after returning, and nothing is thread-safe beyond that.
 */
#ifndef RINGPERF_EXPORT_H
#define RINGPERF_EXPORT_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "metrics/metrics.h"

/* EXPORT_SCHEMA_VERSION is the AIPerf JSON export schema these files follow. */
#define EXPORT_SCHEMA_VERSION "1.5"

/* export_error_row is one row of the error summary (borrowed strings). */
struct export_error_row {
    int code; /* 0 = none (written as null) */
    const char *type;
    const char *message;
    uint64_t count;
};

/* export_run_info is the provenance written beside the metrics. Every
 * pointer is borrowed for the call. `cli_command` must already have its
 * secrets redacted and `input_config` must hold no secret: this module
 * writes both as given. */
struct export_run_info {
    const char *cli_command;
    const char *benchmark_id;
    json_t *input_config; /* NULL writes an empty object */
    bool was_cancelled;
    int64_t start_wall_ns; /* CLOCK_REALTIME; 0 writes null */
    int64_t end_wall_ns;
    bool random_seed_set;
    int64_t random_seed;
    const struct export_error_row *errors;
    size_t error_count;
};

/* export_summary_json builds the profile_export_aiperf.json document: the
 * schema version, every present metric as a flat top-level key (record
 * metrics with unit, avg, p1..p99, min, max, std, count, sum; scalar metrics
 * with unit and avg) in AIPerf's key order, then input_config, run_info,
 * was_cancelled, error_summary, start_time and end_time. Returns a new
 * reference owned by the caller, or NULL when out of memory. */
json_t *export_summary_json(const struct metrics_summary *summary,
                            const struct export_run_info *info);

/* export_summary_json_write writes export_summary_json() to `path` with a
 * two-space indent. Returns 0, -ENOMEM or -EIO. */
int export_summary_json_write(const char *path, const struct metrics_summary *summary,
                              const struct export_run_info *info);

/* export_summary_csv writes profile_export_aiperf.csv's two sections to
 * `out`: `Metric,avg,min,max,p1,p5,p10,p25,p50,p75,p90,p95,p99,std` for the
 * record metrics, a blank line, then `Metric,Value` for the scalar metrics,
 * each section sorted by tag. Names are "Header (unit)" (no unit for
 * request counts); numbers have two decimals, integral values of integer
 * metrics none. Returns 0 or -EIO. */
int export_summary_csv(FILE *out, const struct metrics_summary *summary);

/* export_summary_csv_write writes export_summary_csv() to `path`. Returns 0
 * or -errno. */
int export_summary_csv_write(const char *path, const struct metrics_summary *summary);

/* export_metric_label writes the CSV name of a metric ("Header (unit)")
 * into out (cap bytes, NUL-terminated when cap > 0). */
void export_metric_label(const struct metrics_info *info, char *out, size_t cap);

/* export_iso_time writes wall-clock ns as AIPerf's start_time/end_time, the
 * local time as "YYYY-MM-DDTHH:MM:SS.ffffff", into out (cap >= 27). Returns
 * 0, or -EINVAL when the time cannot be converted or cap is too small. */
int export_iso_time(int64_t wall_ns, char *out, size_t cap);

#endif
