/*
 * cli_export.h - artifact files of `ringperf profile` (internal to cli/):
 * the per-request records written as the run goes (profile_export.jsonl and,
 * with --export-level raw, profile_export_raw.jsonl), the payloads sent
 * (inputs.json), and at the end the summary files, the log and the console
 * report with its footer.
 */
#ifndef RINGPERF_CLI_EXPORT_H
#define RINGPERF_CLI_EXPORT_H

#include <jansson.h>

#include "cli/cli_internal.h"
#include "cli/jsonw.h"
#include "config/config.h"
#include "export/export.h"

#define CLI_PATH_BYTES 4096

/* cli_export_paths are the artifact file paths of a run. */
struct cli_export_paths {
    char records[CLI_PATH_BYTES];         /* profile_export.jsonl */
    char raw[CLI_PATH_BYTES];             /* profile_export_raw.jsonl */
    char outputs[CLI_PATH_BYTES];         /* outputs.json */
    char json[CLI_PATH_BYTES];            /* profile_export_aiperf.json */
    char csv[CLI_PATH_BYTES];             /* profile_export_aiperf.csv */
    char console[CLI_PATH_BYTES];         /* profile_export_console.txt */
    char log_dir[CLI_PATH_BYTES];         /* logs */
    char log[CLI_PATH_BYTES];             /* logs/aiperf.log */
    char timeslices_json[CLI_PATH_BYTES]; /* profile_export_aiperf_timeslices.json */
    char timeslices_csv[CLI_PATH_BYTES];  /* profile_export_aiperf_timeslices.csv */
    char hlog_base[CLI_PATH_BYTES];       /* <dir>/profile_export: + "_<tag>.hlog" */
};

/* cli_export_paths_init fills `*out` for artifact directory `dir`. With a
 * `prefix` (--profile-export-prefix, NULL for AIPerf's names) the files are
 * <prefix>.jsonl, <prefix>_raw.jsonl, <prefix>.json, <prefix>.csv,
 * <prefix>_console.txt, <prefix>_timeslices.{json,csv} and
 * <prefix>_<tag>.hlog, after
 * a trailing .json, .jsonl or .csv is stripped from the prefix. Returns 0,
 * or -ENAMETOOLONG when a path does not fit. */
int cli_export_paths_init(struct cli_export_paths *out, const char *dir, const char *prefix);

/* CLI_SLICES_MAX bounds the number of --slice-duration windows kept; records
 * that start in later windows are left out of the timeslice exports (and
 * counted), not of the run. */
#define CLI_SLICES_MAX 4096

/* CLI_HLOG_INTERVAL_NS is the interval of the .hlog files without
 * --slice-duration. */
#define CLI_HLOG_INTERVAL_NS (1000LL * 1000 * 1000)

/* cli_intervals groups a run's records by time on the coordinator's thread:
 * by completion time into the intervals of one HdrHistogram interval log
 * per record metric (written as each interval closes), and, with
 * --slice-duration, by start time into AIPerf's timeslices (summarised at
 * the end). Part of struct cli_export; zero-initialised with it. */
struct cli_intervals {
    bool enabled;
    int64_t base_wall_ns;       /* the profiling phase's start: interval and slice 0 begin here */
    int64_t interval_ns;        /* .hlog interval */
    int64_t open_start_wall_ns; /* start of the interval being filled */
    bool open_has_values;
    struct metrics_hist *hist[METRICS_ID_COUNT]; /* the open interval's values */
    struct export_hlog *log[METRICS_ID_COUNT];   /* opened on a metric's first value */
    int64_t slice_ns;                            /* 0 = no timeslices */
    struct metrics_run **slices;                 /* by index; NULL for an empty window */
    size_t slice_count;                          /* highest used index + 1 */
    uint64_t slice_records_dropped;
    int error; /* first -errno writing the logs */
};

/* cli_export is the open per-record export of a run. Zero-initialise, then
 * cli_export_open; cli_export_close is safe on a zeroed or closed one. */
struct cli_export {
    struct cli_export_paths paths;
    enum config_export_level level;
    struct cli_jsonw writer;     /* open unless --export-level summary */
    struct cli_jsonw raw_writer; /* open only at --export-level raw */
    /* outputs.json, with --export-outputs-json or at --export-level raw: its
     * "warmup" array is written first, then "data". */
    struct cli_jsonw outputs_writer;
    bool outputs_in_data; /* the "data" array is open */
    bool outputs_first;   /* no entry yet in the open array */
    bool streaming;
    uint64_t request_id_nonce;
    uint64_t lines;
    /* CLOCK_REALTIME when the profiling phase started (after warmup); set by
     * the caller before the first cli_export_record. */
    int64_t start_wall_ns;
    int64_t slice_ns; /* --slice-duration; 0 = none */
    struct cli_intervals intervals;
    struct metrics_goodput goodput; /* parsed --goodput, for the timeslices */
    /* `ringperf merge` (cli_cluster.h): the share the next record came from,
     * written as metadata "rank" and "host" when record_host is not NULL
     * (borrowed until the next cli_export_record). */
    int record_rank;
    const char *record_host;
    /* Multi-turn runs: the conversations, for each record's conversation id
     * (borrowed; NULL otherwise). */
    const struct workload_sessions *sessions;
};

/* cli_wall_now_ns returns CLOCK_REALTIME in ns. */
int64_t cli_wall_now_ns(void);

/* cli_export_open computes the paths for `dir` and cfg's prefix and creates
 * the per-request files cfg's export level asks for. Returns 0 or -errno
 * (after which cli_export_close releases what was opened). */
int cli_export_open(struct cli_export *exp, const char *dir, const struct profile_config *cfg);

/* cli_export_record appends one record to the per-request files (nothing at
 * export level summary) and to the interval logs and timeslices. Returns 0
 * or the first -errno of a writer. */
int cli_export_record(struct cli_export *exp, const struct engine_record *record,
                      const struct cli_record_metrics *metrics);

/* cli_export_warmup_record appends a warmup request to outputs.json, when it
 * is written (its X-Request-ID made with request_id_nonce, the warmup's).
 * Warmup requests go nowhere else. Returns 0 or the writer's first error. */
int cli_export_warmup_record(struct cli_export *exp, const struct engine_record *record,
                             const struct cli_record_metrics *metrics, uint64_t request_id_nonce);

/* cli_export_close writes the last interval of the interval logs, flushes
 * and closes the files. Returns 0 or -errno. The timeslices stay in memory
 * for cli_export_finish; cli_intervals_free(&exp->intervals) releases them. */
int cli_export_close(struct cli_export *exp);

/* cli_export_inputs writes dir/inputs.json: every payload, as sent. */
int cli_export_inputs(const char *dir, const struct engine_payload *payloads, size_t count);

/* cli_intervals_open prepares `iv` for a run whose profiling phase starts
 * at `start_wall_ns`: .hlog intervals of `slice_ns` (CLI_HLOG_INTERVAL_NS when
 * 0), timeslices only when slice_ns > 0. Returns 0 or -ENOMEM. */
int cli_intervals_open(struct cli_intervals *iv, int64_t start_wall_ns, int64_t slice_ns);

/* cli_intervals_add folds one record into the open interval (writing the
 * intervals it closes to the logs named from `hlog_base`) and into its
 * timeslice. `m` is the record's metrics; `streaming` and `goodput` (borrowed
 * for the call) configure a new timeslice. Returns 0 or the first -errno. */
int cli_intervals_add(struct cli_intervals *iv, const char *hlog_base,
                      const struct engine_record *rec, const struct cli_record_metrics *m,
                      bool streaming, const struct metrics_goodput *goodput);

/* cli_intervals_close writes the open interval and closes the logs. Returns
 * 0 or the first -errno. Safe to call twice. */
int cli_intervals_close(struct cli_intervals *iv, const char *hlog_base);

/* cli_intervals_write_timeslices writes the timeslice JSON and CSV of `iv`
 * to `paths` (the last window ends at `end_wall_ns` when earlier). Borrows
 * `input_config`. Returns 0 or -errno; 0 without timeslices. */
int cli_intervals_write_timeslices(const struct cli_intervals *iv,
                                   const struct cli_export_paths *paths, json_t *input_config,
                                   int64_t end_wall_ns);

/* cli_intervals_free releases everything `iv` holds; safe on a zeroed one. */
void cli_intervals_free(struct cli_intervals *iv);

/* cli_finish_info is what the end of a run reports besides the results. */
struct cli_finish_info {
    const struct profile_config *cfg;
    bool was_cancelled;
    const char *title; /* console title, e.g. "ringperf | LLM Metrics" */
    /* Fixed-schedule replays: each request's send lag (send start minus its
     * trace time), for AIPerf's replay_sched_lag_* metrics; else NULL. */
    const struct metrics_hist *schedule_lag;
    json_t *run_info_extra; /* members added to run_info (borrowed), or NULL */
};

/* cli_export_finish ends a run: summarises `results`, prints the console
 * report and its footer to stdout (in colour only on a terminal without
 * NO_COLOR), and writes the JSON and CSV summaries, a plain copy of the
 * report and logs/aiperf.log. Call after cli_export_close. Returns the process exit
 * code: 0 when some request succeeded, 1 when none did or a file could not
 * be written (with a message on stderr). */
int cli_export_finish(const struct cli_export *exp, struct cli_results *results,
                      const struct cli_finish_info *info);

/* cli_input_config builds the input_config object of the JSON summary from
 * the parsed command line: no API key, header values redacted, the URLs
 * without user info or query. Returns a new reference or NULL. */
struct json_t;
struct json_t *cli_input_config(const struct profile_config *cfg);

#endif
