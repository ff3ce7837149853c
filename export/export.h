/*
 * export.h - every artifact of a run, in AIPerf's schemas (spec §1.9, §3.2).
 *
 * The summary files (profile_export_aiperf.json and .csv), the interval logs
 * and the timeslices are written once at the end of a run from a struct
 * metrics_summary (display units), so they use jansson and stdio. The
 * per-request files are written as the run goes, by the records writer of
 * export_jsonw.h; the second half of this header opens, feeds and finishes
 * them. Nothing here keeps a pointer to its arguments after returning unless
 * it says so, and nothing is thread-safe beyond that.
 */
#ifndef RINGPERF_EXPORT_H
#define RINGPERF_EXPORT_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "config/config.h"
#include "export/export_jsonw.h"
#include "metrics/metrics.h"
#include "metrics/metrics_record.h"

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
    uint64_t errors_unlisted; /* errors of kinds past the listed ones: one "other" row */
    /* Members appended to run_info after AIPerf's (borrowed; NULL = none):
     * ringperf's own provenance, e.g. the clock source and send lag. */
    json_t *extra;
    /* The warmup phase's metrics, written as AIPerf's `warmup_metrics` after
     * end_time (borrowed; NULL = no warmup records, no key). */
    const struct metrics_summary *warmup_metrics;
    /* GPU telemetry (spec §1.6), after the declared metrics, and metrics computed outside
     * metrics/ (the energy metrics), after the others (both borrowed; NULL = none). */
    json_t *telemetry_data;
    json_t *extra_metrics;
};

/* export_summary_json builds the profile_export_aiperf.json document: the
 * schema version, every present metric as a flat top-level key (record
 * metrics with unit, avg, p1..p99, min, max, std, count, sum; scalar metrics
 * with unit and avg) in AIPerf's key order, then input_config, run_info,
 * was_cancelled, error_summary, start_time, end_time and, after a warmup,
 * warmup_metrics (the same blocks over the warmup's records). Returns a new
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

/* export_summary_csv_write writes export_summary_csv() to `path`, then the telemetry section
 * of telemetry_data (export_telemetry_csv; borrowed, NULL = none). Returns 0 or -errno. */
int export_summary_csv_write(const char *path, const struct metrics_summary *summary,
                             const json_t *telemetry_data);

/* export_csv_field writes s as one CSV field, quoted (inner quotes doubled) when it holds a
 * comma, a quote or a line break, as Python's csv module writes it. */
void export_csv_field(FILE *out, const char *s);

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

/* export_hlog_open creates `path` (as <path>.partial, renamed when closed) and writes the log's
 * header lines (the comment, format version 1.3, StartTime, BaseTime, the column legend). Borrows
 * `opts` for the call. Returns 0 and the log, owned by the caller (release with export_hlog_close),
 * in `*out`; -EINVAL, -ENOMEM or -errno. */
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

/* ---- A run's artifacts: the per-request files written as the run goes
 * (profile_export.jsonl, with --export-level raw profile_export_raw.jsonl,
 * outputs.json), the payloads sent (inputs.json), the interval logs and
 * timeslices, and at the end the summary files, the log and the console
 * report with its footer. ---- */

#define EXPORT_PATH_BYTES 4096

/* EXPORT_DESCRIPTORS_MAX bounds the file descriptors a run's exports hold
 * open at once: an interval log per metric, the per-request files with the
 * io_uring of each, and the summary files and log at the end. */
#define EXPORT_DESCRIPTORS_MAX (METRICS_ID_COUNT + 16)

/* export_paths are the artifact file paths of a run. */
struct export_paths {
    char dir[EXPORT_PATH_BYTES];                  /* the artifact directory itself */
    char records[EXPORT_PATH_BYTES];              /* profile_export.jsonl */
    char raw[EXPORT_PATH_BYTES];                  /* profile_export_raw.jsonl */
    char outputs[EXPORT_PATH_BYTES];              /* outputs.json */
    char json[EXPORT_PATH_BYTES];                 /* profile_export_aiperf.json */
    char csv[EXPORT_PATH_BYTES];                  /* profile_export_aiperf.csv */
    char console[EXPORT_PATH_BYTES];              /* profile_export_console.txt */
    char log_dir[EXPORT_PATH_BYTES];              /* logs */
    char log[EXPORT_PATH_BYTES];                  /* logs/aiperf.log */
    char timeslices_json[EXPORT_PATH_BYTES];      /* profile_export_aiperf_timeslices.json */
    char timeslices_csv[EXPORT_PATH_BYTES];       /* profile_export_aiperf_timeslices.csv */
    char hlog_base[EXPORT_PATH_BYTES];            /* <dir>/profile_export: + "_<tag>.hlog" */
    char server_metrics_json[EXPORT_PATH_BYTES];  /* server_metrics_export.json */
    char server_metrics_csv[EXPORT_PATH_BYTES];   /* server_metrics_export.csv */
    char server_metrics_jsonl[EXPORT_PATH_BYTES]; /* server_metrics_export.jsonl */
    char gpu_telemetry_jsonl[EXPORT_PATH_BYTES];  /* gpu_telemetry_export.jsonl */
    char network_latency[EXPORT_PATH_BYTES];      /* profile_export_network_latency.jsonl */
};

/* export_paths_init fills `*out` for artifact directory `dir`. With a
 * `prefix` (--profile-export-prefix, NULL for AIPerf's names) the files are
 * <prefix>.jsonl, <prefix>_raw.jsonl, <prefix>.json, <prefix>.csv,
 * <prefix>_console.txt, <prefix>_timeslices.{json,csv}, <prefix>_network_latency.jsonl,
 * <prefix>_<tag>.hlog and <prefix>_server_metrics.{json,csv,jsonl}, after
 * a trailing .json, .jsonl or .csv is stripped from the prefix. Returns 0,
 * or -ENAMETOOLONG when a path does not fit. */
int export_paths_init(struct export_paths *out, const char *dir, const char *prefix);

/* EXPORT_SLICES_MAX bounds the number of --slice-duration windows kept; records
 * that start in later windows are left out of the timeslice exports (and
 * counted), not of the run. */
#define EXPORT_SLICES_MAX 4096

/* EXPORT_SLICE_SIGFIGS is the timeslices' histograms' precision: their statistics come from
 * exact samples, the histograms are a fallback. */
#define EXPORT_SLICE_SIGFIGS 1

/* EXPORT_HLOG_INTERVAL_NS is the interval of the .hlog files without
 * --slice-duration. */
#define EXPORT_HLOG_INTERVAL_NS (1000LL * 1000 * 1000)

/* export_intervals groups a run's records by time on the coordinator's thread:
 * by completion time into the intervals of one HdrHistogram interval log
 * per record metric (written as each interval closes), and, with
 * --slice-duration, by start time into AIPerf's timeslices (summarised at
 * the end). Part of struct export_run; zero-initialised with it. */
struct export_intervals {
    bool enabled;
    int64_t base_wall_ns;       /* the profiling phase's start: interval and slice 0 begin here */
    int64_t interval_ns;        /* .hlog interval */
    int64_t open_start_wall_ns; /* start of the interval being filled */
    bool open_has_values;
    struct metrics_hist *hist[METRICS_ID_COUNT]; /* the open interval's values */
    struct export_hlog *log[METRICS_ID_COUNT];   /* opened on a metric's first value */
    struct metrics_slices slices;                /* zeroed: no timeslices */
    int error;                                   /* first -errno writing the logs */
};

/* export_run is the open per-record export of a run. Zero-initialise, then
 * export_run_open; export_run_close is safe on a zeroed or closed one. */
struct export_run {
    struct export_paths paths;
    enum config_export_level level;
    struct export_jsonw writer;     /* open unless --export-level summary */
    struct export_jsonw raw_writer; /* open only at --export-level raw */
    /* outputs.json, with --export-outputs-json or at --export-level raw: its
     * "warmup" array is written first, then "data". */
    struct export_jsonw outputs_writer;
    bool outputs_in_data; /* the "data" array is open */
    bool outputs_first;   /* no entry yet in the open array */
    bool streaming;
    int profiling_phase_index; /* the profiling phase's index in input_config.phases: 1 after a
                                  warmup, else 0 (export_run_open) */
    bool http_trace;           /* --export-http-trace: trace_data on each record line */
    uint64_t request_id_nonce;
    uint64_t lines;
    /* CLOCK_REALTIME when the profiling phase started (after warmup); set by
     * the caller before the first export_run_record. */
    int64_t start_wall_ns;
    int64_t slice_ns; /* --slice-duration; 0 = none */
    /* The interval logs take their values from parts of the run's results
     * (export_run_interval_part), and the timeslices from the shards' groups
     * (export_run_group_slices), rather than from each record: set by the
     * caller before the first record. */
    bool intervals_from_parts;
    struct export_intervals intervals;
    struct metrics_goodput goodput; /* parsed --goodput, for the timeslices */
    /* `ringperf merge` (cluster_share.h): the share the next record came from,
     * written as metadata "rank" and "host" when record_host is not NULL
     * (borrowed until the next export_run_record). */
    int record_rank;
    const char *record_host;
    /* The dataset's name of the conversation a record played (inputs.json's session_id),
     * with its context (borrowed): workload_requests_conversation_name for a profile run,
     * the records files' names for `ringperf merge`. Writes into scratch (cap bytes) or
     * returns a string that outlives the call; *out_len is its length. NULL: the record's
     * correlation id. */
    const char *(*conversation_name)(const void *ctx, const struct record *record, char *scratch,
                                     size_t cap, size_t *out_len);
    const void *conversation_ctx;
};

/* EXPORT_CONVERSATION_NAME_BYTES is the scratch a conversation_name callback gets: enough for
 * session_<n> and a correlation id; longer dataset names are returned, not copied. */
#define EXPORT_CONVERSATION_NAME_BYTES 64

/* export_wall_now_ns returns CLOCK_REALTIME in ns. */
int64_t export_wall_now_ns(void);

/* export_run_clear removes the files an earlier run left in `dir` under the names this run
 * writes (cfg's prefix): records, raw, outputs, summaries, console copy, timeslices, .hlog
 * files, the log and inputs.json, and any .partial of them. Called once every check that can
 * refuse the run has passed and before its first file, so that a directory never holds a mix
 * of two runs. Returns 0 or the first -errno (a file that is not there is no error). */
int export_run_clear(const char *dir, const struct profile_config *cfg);

/* export_run_open computes the paths for `dir` and cfg's prefix and creates
 * the per-request files cfg's export level asks for. Returns 0 or -errno
 * (after which export_run_close releases what was opened). */
int export_run_open(struct export_run *exp, const char *dir, const struct profile_config *cfg);

/* export_run_record appends one record to the per-request files (nothing at
 * export level summary) and to the interval logs (unless intervals_from_parts)
 * and timeslices. Returns 0 or the first -errno of a writer. */
/* export_run_interval_part writes, with intervals_from_parts, one interval of
 * the logs from `part` (export_intervals_add_part). Returns 0 or the first
 * -errno. */
int export_run_interval_part(struct export_run *exp, const struct metrics_run *part,
                             int64_t start_wall_ns, int64_t end_wall_ns);

/* export_run_group_slices makes `shards` group the run's records into its timeslices
 * (--slice-duration; nothing without) from the profiling phase's start (start_wall_ns, set
 * before): they merge their groups into the run's table at each collect
 * (metrics_shards_slices), so set intervals_from_parts too. Opens the intervals if they are
 * not open yet. Call before the shards run. Returns 0, or -ENOMEM when the intervals or the
 * shards' room for timeslices could not be made (the records' timeslices are then the
 * coordinator's to group, one by one). */
int export_run_group_slices(struct export_run *exp, struct metrics_shards *shards);

int export_run_record(struct export_run *exp, const struct record *record,
                      const struct metrics_record *metrics);

/* export_run_warmup_record appends a warmup request to outputs.json, when it
 * is written (its X-Request-ID made with request_id_nonce, the warmup's).
 * Warmup requests go nowhere else. Returns 0 or the writer's first error. */
int export_run_warmup_record(struct export_run *exp, const struct record *record,
                             const struct metrics_record *metrics, uint64_t request_id_nonce);

/* export_record_error appends AIPerf's ErrorDetails of one record ({"code", "type",
 * "message"}, code null where there is no HTTP status), or null for a success. The
 * records file of a cluster share writes the same object, so `ringperf merge` reads
 * what profile_export.jsonl has. */
void export_record_error(struct export_jsonw *w, const struct record *rec);

/* export_run_conversation_name returns the name of the conversation `rec` played, as
 * profile_export.jsonl writes it in conversation_id: exp->conversation_name's answer, or the
 * record's correlation id without one. Written into scratch or borrowed; *out_len is its
 * length. */
const char *export_run_conversation_name(const struct export_run *exp, const struct record *rec,
                                         char scratch[EXPORT_CONVERSATION_NAME_BYTES],
                                         size_t *out_len);

/* export_run_failed_file writes into out (cap bytes) the file a failed
 * export_run_record or export_run_close could not write: the records, the raw
 * records, outputs.json, or the interval logs ("<base>_*.hlog"); "" when none
 * failed. */
void export_run_failed_file(const struct export_run *exp, char *out, size_t cap);

/* export_run_records_kept counts the complete records in the records file
 * as it is on disk (after export_run_close): what a run whose export failed
 * kept. Returns -1 when there is no records file or it cannot be read. */
long export_run_records_kept(const struct export_run *exp);

/* export_run_close writes the last interval of the interval logs, flushes
 * and closes the files. Returns 0 or -errno. The timeslices stay in memory
 * for export_run_finish; export_intervals_free(&exp->intervals) releases them. */
int export_run_close(struct export_run *exp);

/* export_intervals_open prepares `iv` for a run whose profiling phase starts
 * at `start_wall_ns`: .hlog intervals of `slice_ns` (EXPORT_HLOG_INTERVAL_NS when
 * 0), timeslices only when slice_ns > 0, of up to EXPORT_SLICES_MAX metrics_runs made
 * with `streaming`, EXPORT_SLICE_SIGFIGS and `goodput` (borrowed until
 * export_intervals_free). Returns 0 or -ENOMEM. */
int export_intervals_open(struct export_intervals *iv, int64_t start_wall_ns, int64_t slice_ns,
                          bool streaming, const struct metrics_goodput *goodput);

/* export_intervals_add folds one record into the open interval (writing the
 * intervals it closes to the logs named from `hlog_base`) and into its
 * timeslice. `m` is the record's metrics. Returns 0 or the first -errno. */
int export_intervals_add(struct export_intervals *iv, const char *hlog_base,
                         const struct record *rec, const struct metrics_record *m);

/* export_intervals_add_part writes one interval, [start_wall_ns, end_wall_ns),
 * to the log of every logged metric that has values in `part`: a run holding
 * the records that finished in that window (its histograms have the layout
 * metrics_record_hist_new gives, as a metrics_run's do). Returns 0 or the first
 * -errno. */
int export_intervals_add_part(struct export_intervals *iv, const char *hlog_base,
                              const struct metrics_run *part, int64_t start_wall_ns,
                              int64_t end_wall_ns);

/* export_intervals_close writes the open interval and closes the logs. Returns
 * 0 or the first -errno. Safe to call twice. */
int export_intervals_close(struct export_intervals *iv, const char *hlog_base);

/* export_intervals_write_timeslices writes the timeslice JSON and CSV of `iv`
 * to `paths` (the last window ends at `end_wall_ns` when earlier). Borrows
 * `input_config`. Returns 0 or -errno; 0 without timeslices. */
int export_intervals_write_timeslices(const struct export_intervals *iv,
                                      const struct export_paths *paths, json_t *input_config,
                                      int64_t end_wall_ns);

/* export_intervals_free releases everything `iv` holds; safe on a zeroed one. */
void export_intervals_free(struct export_intervals *iv);

/* export_finish_info is what the end of a run reports besides the results. */
struct export_finish_info {
    const struct profile_config *cfg;
    bool was_cancelled;
    const char *title; /* console title, e.g. "ringperf | LLM Metrics" */
    /* Fixed-schedule replays: each request's send lag (send start minus its
     * trace time), for AIPerf's replay_sched_lag_* metrics; else NULL. */
    const struct metrics_hist *schedule_lag;
    json_t *run_info_extra; /* members added to run_info (borrowed), or NULL */
    /* The warmup phase's results, for the JSON's warmup_metrics (borrowed;
     * NULL or empty when the run had no warmup records). */
    struct metrics_results *warmup;
    /* The DCGM exporters' scraper, stopped (NULL = no GPU telemetry): telemetry_data and the
     * energy metrics. */
    const struct scrape *gpu_telemetry;
};

/* export_run_finish ends a run: summarises `results`, prints the console
 * report and its footer to stdout (in colour only on a terminal without
 * NO_COLOR), and writes the JSON and CSV summaries, a plain copy of the
 * report and logs/aiperf.log. A run without a successful request writes only the log
 * and lists its errors on stderr, as AIPerf skips its summaries then (the per-request
 * files stay). Call after export_run_close. Returns the process exit code: 0 when some
 * request succeeded, 1 when none did or a file could not be written. */
int export_run_finish(const struct export_run *exp, struct metrics_results *results,
                      const struct export_finish_info *info);

/* export_input_config builds the input_config object of the JSON summary (and
 * /api/config) from the parsed command line, as AIPerf's BenchmarkConfig
 * schema 2.0 dumps it (spec §1.5, input_config.c): only what the command line
 * set, and what AIPerf's converter always sets. `artifact_dir` is the run's
 * directory as resolved (artifacts.dir; NULL leaves it out). Secrets never
 * appear: the API key and credential-bearing header values
 * (config_header_is_sensitive) read <redacted>, URLs lose their credentials
 * (config_redact_url). The result depends on cfg having been filled by
 * config_parse_profile (config_flag_given) and on whether stdout is a
 * terminal (runtime.ui). Returns a new reference or NULL. */
struct json_t;
struct json_t *export_input_config(const struct profile_config *cfg, const char *artifact_dir);

/* export_benchmark_id writes a run's benchmark_id, which its request ids are derived from
 * too: request_id_nonce in 16 hex digits, into out (cap >= 17). */
void export_benchmark_id(uint64_t request_id_nonce, char *out, size_t cap);

/* export_run_point is one run of a multi-run or sweep as AIPerf's orchestrator names it
 * (all borrowed). */
struct export_run_point {
    const char *sweep_id;  /* the session's, shared by its runs */
    size_t trial;          /* 0-based repeat of the cell */
    const char *label;     /* run_0001, trial_0001 */
    size_t cell;           /* the sweep cell (variation index); 0 without a sweep */
    const char *cell_name; /* concurrency_10__isl_100 (variation label); "" reads "base" */
    const double *values;  /* the cell's value of each of the run's cfg->sweep dims */
};

/* export_run_point_info returns what a run's run_info (and its API's /run) says of the run
 * of a session `point` is: sweep_id, trial, run_label, variation_label, variation_index and
 * variation_values (each sweep dim's value by its flag's name, an integer where the flag
 * takes one). `cfg` is the session's (its sweep dims), borrowed. Returns a new reference,
 * or NULL when out of memory or a string is NULL. */
struct json_t *export_run_point_info(const struct profile_config *cfg,
                                     const struct export_run_point *point);

/* export_run_envelope is one run of a multi-run or sweep as AIPerf's orchestrator hands it
 * to the process that makes it (BenchmarkRun; all borrowed). */
struct export_run_envelope {
    const struct profile_config *cfg;     /* the run's: its cell's values, seed and warmup */
    const char *dir;                      /* the run's directory: artifact_dir, and the file's */
    const char *benchmark_id;             /* as the run's run_info has it */
    const struct export_run_point *point; /* its sweep_id (NULL omits it), trial, label and
                                             variation ({index, label, values}) */
};

/* export_run_config_write writes run_config.json into env->dir (spec §5.1): benchmark_id,
 * sweep_id, cfg (the run's input_config, secrets redacted), variation, trial, artifact_dir,
 * label, cli_command (redacted), random_seed when set, variables and resolved, in AIPerf's
 * field order. Returns 0 or -errno. */
int export_run_config_write(const struct export_run_envelope *env);

/* export_console_options say how the console report looks. */
struct export_console_options {
    const char *title;            /* e.g. "ringperf | LLM Metrics" */
    bool color;                   /* ANSI colours: only on a terminal without NO_COLOR */
    bool show_trace_timing;       /* --show-trace-timing: the HTTP trace table first */
    const json_t *telemetry_data; /* the GPU telemetry tables' source (borrowed), or NULL */
    /* export_energy_metrics' blocks, the "GPU Power Efficiency (NVIDIA)" table (borrowed), or
     * NULL. */
    const json_t *energy_metrics;
};

/* export_console_print writes the console report to `out`: with show_trace_timing the HTTP
 * trace timing table, the metrics table in AIPerf's row order, the usage table when the server
 * reported usage, the error summary table when there were errors, with GPU telemetry AIPerf's
 * "GPU Telemetry Platform" panel, its "GPU Power Efficiency (NVIDIA)" table and a table per GPU,
 * and the "Token Count Discrepancy Warning" and "Output Sequence Length Mismatch Warning"
 * panels when usage_discrepancy_count or osl_mismatch_count is above zero. */
void export_console_print(FILE *out, const struct metrics_summary *summary,
                          const struct metrics_results *results,
                          const struct export_console_options *opts);

struct netlatency;

/* export_network_latency_write writes AIPerf's profile_export_network_latency.jsonl: one line
 * per probe of `prober` (stopped), as <path>.partial renamed when complete. Returns 0 or
 * -errno. */
int export_network_latency_write(const char *path, const struct netlatency *prober);

/* export_server_metrics is what the server metrics exports are made of (all borrowed). */
struct scrape;
struct export_server_metrics {
    const struct scrape *scrape; /* stopped (scrape_stop) */
    const struct profile_config *cfg;
    const char *artifact_dir; /* for input_config */
    const char *benchmark_id;
    int64_t slice_ns; /* --slice-duration: counters' rate statistics; 0 = none */
};

/* export_server_metrics_write writes the server metrics files --server-metrics-formats asks
 * for (default json and csv; spec §6): the scraped families reduced over the profiling window
 * (the warmup's apart), and each endpoint's fetch figures with what went wrong. Returns 0, or
 * -errno with *out_failed the file that could not be written. */
int export_server_metrics_write(const struct export_paths *paths,
                                const struct export_server_metrics *in, const char **out_failed);

/* export_server_metrics_slices_left_out returns how many --slice-duration slices of the
 * profiling window come after the first EXPORT_SLICES_MAX, which alone are in the timeslices
 * and counters' rate statistics; 0 when none or without slices. */
uint64_t export_server_metrics_slices_left_out(const struct export_server_metrics *in);

/* export_gpu_telemetry_jsonl writes gpu_telemetry_export.jsonl: one TelemetryRecord line per
 * GPU per fetch of the DCGM scraper s (spec §6.3). Returns 0 or -errno. */
int export_gpu_telemetry_jsonl(const char *path, const struct scrape *s);

/* export_telemetry_data builds the summary's telemetry_data over the profiling window (spec
 * §1.6): a new reference, or NULL when no GPU was read. */
json_t *export_telemetry_data(const struct scrape *s);

/* export_telemetry_csv writes the CSV's GPU telemetry section from telemetry_data (as
 * export_telemetry_data built it): two blank rows, then `Endpoint,GPU_Index,GPU_Name,GPU_UUID,
 * Platform,Metric,avg,min,max,sum,p1..p99,std[,Hostname]` and one row per GPU and field, in
 * AIPerf's field order (a counter has its delta in avg alone). Nothing without endpoints.
 * Returns 0 or -EIO. */
int export_telemetry_csv(FILE *out, const json_t *telemetry_data);

/* export_energy_metrics builds AIPerf's nvidia_* energy metrics ({unit, avg} blocks) from the
 * GPUs' energy counters (power x time where there is none) and the run's summary: a new
 * reference, or NULL without energy data. concurrency is the profiling phase's (0: none, an
 * open loop), which nvidia_energy_per_user divides by, as AIPerf does. */
json_t *export_energy_metrics(const struct scrape *s, const struct metrics_summary *summary,
                              int64_t concurrency);

#endif
