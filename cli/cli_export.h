/*
 * cli_export.h - artifact files of `ringperf profile` (internal to cli/):
 * the per-request records written as the run goes (profile_export.jsonl and,
 * with --export-level raw, profile_export_raw.jsonl), the payloads sent
 * (inputs.json), and at the end the summary files, the log and the console
 * report with its footer.
 */
#ifndef RINGPERF_CLI_EXPORT_H
#define RINGPERF_CLI_EXPORT_H

#include "cli/cli_internal.h"
#include "cli/jsonw.h"
#include "config/config.h"

#define CLI_PATH_BYTES 4096

/* cli_export_paths are the artifact file paths of a run. */
struct cli_export_paths {
    char records[CLI_PATH_BYTES]; /* profile_export.jsonl */
    char raw[CLI_PATH_BYTES];     /* profile_export_raw.jsonl */
    char json[CLI_PATH_BYTES];    /* profile_export_aiperf.json */
    char csv[CLI_PATH_BYTES];     /* profile_export_aiperf.csv */
    char console[CLI_PATH_BYTES]; /* profile_export_console.txt */
    char log_dir[CLI_PATH_BYTES]; /* logs */
    char log[CLI_PATH_BYTES];     /* logs/aiperf.log */
};

/* cli_export_paths_init fills `*out` for artifact directory `dir`. With a
 * `prefix` (--profile-export-prefix, NULL for AIPerf's names) the files are
 * <prefix>.jsonl, <prefix>_raw.jsonl, <prefix>.json, <prefix>.csv and
 * <prefix>_console.txt, after
 * a trailing .json, .jsonl or .csv is stripped from the prefix. Returns 0,
 * or -ENAMETOOLONG when a path does not fit. */
int cli_export_paths_init(struct cli_export_paths *out, const char *dir, const char *prefix);

/* cli_export is the open per-record export of a run. Zero-initialise, then
 * cli_export_open; cli_export_close is safe on a zeroed or closed one. */
struct cli_export {
    struct cli_export_paths paths;
    enum config_export_level level;
    FILE *records; /* NULL at --export-level summary */
    struct cli_jsonw writer;
    FILE *raw; /* only at --export-level raw */
    struct cli_jsonw raw_writer;
    bool streaming;
    uint64_t request_id_nonce;
    uint64_t lines;
};

/* cli_export_open computes the paths for `dir` and cfg's prefix and creates
 * the per-request files cfg's export level asks for. Returns 0 or -errno
 * (after which cli_export_close releases what was opened). */
int cli_export_open(struct cli_export *exp, const char *dir, const struct profile_config *cfg);

/* cli_export_record appends one record to the per-request files (nothing at
 * export level summary). Returns 0 or the writer's sticky -errno. */
int cli_export_record(struct cli_export *exp, const struct engine_record *record,
                      const struct cli_record_metrics *metrics);

/* cli_export_close flushes and closes the files. Returns 0 or -errno. */
int cli_export_close(struct cli_export *exp);

/* cli_export_inputs writes dir/inputs.json: every payload, as sent. */
int cli_export_inputs(const char *dir, const struct engine_payload *payloads, size_t count);

/* cli_finish_info is what the end of a run reports besides the results. */
struct cli_finish_info {
    const struct profile_config *cfg;
    bool was_cancelled;
    const char *title; /* console title, e.g. "ringperf | LLM Metrics" */
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
