/*
 * cli_internal.h - the pieces of `ringperf profile` that turn records into
 * results: the per-request metric view handed to metrics/ (results.c), the
 * run's accumulated results and error summary, and the console report
 * (report.c). The artifact files are in cli_export.h.
 */
#ifndef RINGPERF_CLI_INTERNAL_H
#define RINGPERF_CLI_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "workload/workload.h"
#include "config/config.h"
#include "engine/engine.h"
#include "metrics/metrics.h"
#include "tokenizer/tokenizer.h"

#define CLI_ERROR_KINDS_MAX 64

/* cli_error_kind is one row of the error summary. */
struct cli_error_kind {
    int code;
    char type[ENGINE_ERROR_TYPE_BYTES];
    char message[ENGINE_ERROR_MESSAGE_BYTES];
    uint64_t count;
};

/* cli_record_metrics is one record seen through metrics/: the request view
 * (whose content_ns borrows the cli_results' scratch buffer, valid until the
 * next cli_record_compute) and its computed values. */
struct cli_record_metrics {
    struct metrics_request request;
    struct metrics_values values;
    /* cli_record_shared_reads() of the record, counted once: the run total,
     * the record's export line and a share's rank file all take it from here
     * (a merge, whose records carry no events, from the rank file). */
    uint32_t shared_reads;
};

/* cli_results accumulates a run's records: the metric run, the error summary
 * and the counts the progress line shows. */
struct cli_results {
    bool streaming;
    bool use_server_token_count;
    bool per_chunk_usage; /* ITL leaves out the first chunk's tokens (--per-chunk-usage) */
    bool open_loop;       /* requests follow a schedule: add the *_from_schedule metrics */
    /* Client-side token counts (AIPerf's default): the run's tokenizer, or
     * NULL to take them from the server's usage. Borrowed. */
    const struct tokenizer *tokenizer;
    struct tokenizer_scratch token_scratch;
    const int64_t *payload_isl;         /* input tokens of each payload, by payload index */
    struct workload_sessions *sessions; /* multi-turn runs: input tokens with the history */
    struct metrics_goodput goodput;
    struct metrics_run *run;
    int64_t *content_ns; /* scratch for cli_record_compute, grown to the longest record */
    uint32_t content_cap;
    uint64_t success_count;
    uint64_t error_count;
    uint64_t cancelled_count;
    int64_t first_wall_ns; /* earliest send start of any record, 0 before the first */
    struct cli_error_kind errors[CLI_ERROR_KINDS_MAX];
    size_t error_kind_count;
    uint64_t errors_unlisted;  /* errors past CLI_ERROR_KINDS_MAX distinct kinds */
    uint64_t same_read_events; /* content events that shared a read with the previous one */
    /* --per-chunk-usage: streamed successes whose first chunk reported no
     * usable completion_tokens, so their ITL divides by OSL - 1. */
    uint64_t itl_first_chunk_fallbacks;
};

/* cli_results_init prepares `results` for a run of `cfg` (streaming, goodput
 * SLOs). Returns 0; -EINVAL after printing why to stderr (a bad --goodput);
 * or -ENOMEM. Release with cli_results_free. */
int cli_results_init(struct cli_results *results, const struct profile_config *cfg, bool streaming);

/* cli_results_free releases what results owns; safe on a zeroed struct. */
void cli_results_free(struct cli_results *results);

/* cli_record_compute fills `*out` for `record`: the content response times
 * (events that carried output or reasoning text), token counts (from the
 * run's tokenizer when there is one and --use-server-token-count is not
 * given, else from the server's usage) and the metric values. */
void cli_record_compute(struct cli_results *results, const struct engine_record *record,
                        struct cli_record_metrics *out);

/* cli_record_shared_reads returns how many of a successful streamed record's
 * content events arrived in the same network read as the content event before
 * them, and so carry that read's arrival time (0 for other records). */
uint32_t cli_record_shared_reads(const struct engine_record *record, bool streaming);

/* cli_record_wall_ns converts a record's monotonic timestamp to wall-clock ns
 * (0 when either is unknown). */
int64_t cli_record_wall_ns(const struct engine_record *record, int64_t monotonic_ns);

/* cli_results_add folds one record and its computed metrics into results. */
void cli_results_add(struct cli_results *results, const struct engine_record *record,
                     const struct cli_record_metrics *metrics);

/* cli_report_options say how the console report looks. */
struct cli_report_options {
    const char *title; /* e.g. "ringperf | LLM Metrics" */
    bool color;        /* ANSI colours: only on a terminal without NO_COLOR */
};

/* cli_report_print writes the console report to `out`: the metrics table in
 * AIPerf's row order, the usage table when the server reported usage, and the
 * error summary table when there were errors. */
void cli_report_print(FILE *out, const struct metrics_summary *summary,
                      const struct cli_results *results, const struct cli_report_options *opts);

/* cli_format_number writes v as AIPerf's console does (f"{v:,.2f}") into
 * out (cap bytes, always NUL-terminated when cap > 0). */
void cli_format_number(char *out, size_t cap, double v);

#endif
