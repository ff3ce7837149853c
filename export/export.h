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

/* EXPORT_AIPERF_VERSION is the AIPerf release whose exports these files
 * reproduce, written as `aiperf_version` for readers that key on it. */
#define EXPORT_AIPERF_VERSION "0.8.0"

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
    /* Members appended to run_info after AIPerf's (borrowed; NULL = none):
     * ringperf's own provenance, e.g. the clock source and send lag. */
    json_t *extra;
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

/*
 * HdrHistogram interval logs (.hlog): one line per interval holding that
 * interval's histogram in HdrHistogram's V2 compressed encoding (zlib,
 * base64), readable by HdrHistogram's HistogramLogReader and its tools in
 * every language.
 */

/* export_hist_encode_bound returns the most bytes export_hist_encode can
 * write for `h` (its layout, not its contents, decides). */
size_t export_hist_encode_bound(const struct metrics_hist *h);

/* export_hist_encode writes `h` in HdrHistogram's uncompressed V2 encoding
 * (cookie 0x1c849313, big-endian header, ZigZag LEB128 counts with zero
 * runs) into `out` (`cap` bytes, borrowed) and stores the length in
 * `*out_len`. Returns 0; -ENOSPC when cap < export_hist_encode_bound() would
 * be needed for the non-zero prefix; -EOVERFLOW for a count above INT64_MAX. */
int export_hist_encode(const struct metrics_hist *h, uint8_t *out, size_t cap, size_t *out_len);

/* export_hist_compress wraps an export_hist_encode() result (`len` bytes) in
 * HdrHistogram's V2 compressed encoding (cookie 0x1c849314, length, zlib
 * stream) into `out` (`cap` bytes; 8 + compressBound(len) always suffices).
 * Returns 0 with the length in `*out_len`, -ENOSPC or -ENOMEM. */
int export_hist_compress(const uint8_t *encoded, size_t len, uint8_t *out, size_t cap,
                         size_t *out_len);

/* export_base64 writes `len` bytes of `in` as padded standard base64 and a
 * NUL into `out` (`cap` bytes). Returns the text length, or 0 (with `out`
 * untouched) when it does not fit: cap must exceed (len + 2) / 3 * 4. */
size_t export_base64(const uint8_t *in, size_t len, char *out, size_t cap);

/* export_hlog is an open interval log file (opaque). */
struct export_hlog;

/* export_hlog_options describe an interval log. `start_wall_ns` is the
 * StartTime and BaseTime of the log (CLOCK_REALTIME ns); interval start
 * times are written relative to it. The Interval_Max column is the
 * interval's max value divided by `max_value_divisor` (1e6 for ns values
 * shown in ms, as HdrHistogram's writer does by default). `comment`, if not
 * NULL, is written as the first line after a '#' (no newlines). */
struct export_hlog_options {
    int64_t start_wall_ns;
    double max_value_divisor;
    const char *comment;
};

/* export_hlog_open creates `path` and writes the log's header lines (the
 * comment, format version 1.3, StartTime, BaseTime, the column legend).
 * Borrows `opts` for the call. Returns 0 and the log, owned by the caller
 * (release with export_hlog_close), in `*out`; -EINVAL, -ENOMEM or -errno. */
int export_hlog_open(const char *path, const struct export_hlog_options *opts,
                     struct export_hlog **out);

/* export_hlog_write appends one interval: it started at `start_wall_ns`,
 * lasted `length_ns` and holds the values of `h` (borrowed; every value
 * recorded in the interval, in the histogram's own unit). Encoding scratch
 * grows with the histogram's layout on first use. Returns 0, -ENOMEM or
 * -EIO. */
int export_hlog_write(struct export_hlog *log, int64_t start_wall_ns, int64_t length_ns,
                      const struct metrics_hist *h);

/* export_hlog_close flushes and closes the file and frees `log`. Returns 0
 * or -EIO. export_hlog_close(NULL) returns 0. */
int export_hlog_close(struct export_hlog *log);

/*
 * Timeslices (--slice-duration, spec §1.9, §2.4): the same statistics per
 * wall-clock window of the run.
 */

/* export_timeslice is one window's results: its index (window k covers
 * [start + k * slice, start + (k + 1) * slice)) and its summary (borrowed). */
struct export_timeslice {
    uint64_t index;
    const struct metrics_summary *summary;
};

/* export_timeslices_json builds profile_export_aiperf_timeslices.json:
 * {"timeslices":[{"timeslice_index":k, <tag>:{unit,avg,min,max,p50,p90,p95,
 * p99}, <scalar tag>:{unit,avg}, ...}, ...], "input_config":...}. Borrows
 * everything; `input_config` NULL writes an empty object. Returns a new
 * reference owned by the caller, or NULL when out of memory. */
json_t *export_timeslices_json(const struct export_timeslice *slices, size_t count,
                               json_t *input_config);

/* export_timeslices_json_write writes export_timeslices_json() to `path`
 * (two-space indent). Returns 0, -ENOMEM or -EIO. */
int export_timeslices_json_write(const char *path, const struct export_timeslice *slices,
                                 size_t count, json_t *input_config);

/* export_timeslices_csv writes profile_export_aiperf_timeslices.csv in long
 * form: the header `Timeslice,Metric,Unit,Stat,Value`, then for each slice
 * its record metrics (stats avg, min, max, p50, p90, p95, p99) and its
 * scalar metrics (stat avg), each sorted by tag. Metric is the header name;
 * numbers as in the summary CSV. Returns 0 or -EIO. */
int export_timeslices_csv(FILE *out, const struct export_timeslice *slices, size_t count);

/* export_timeslices_csv_write writes export_timeslices_csv() to `path`.
 * Returns 0 or -errno. */
int export_timeslices_csv_write(const char *path, const struct export_timeslice *slices,
                                size_t count);

#endif
