/*
 * cli_internal.h - the pieces of `ringperf profile`: the run's results (metric
 * histograms and error summary built from records as they arrive), the console
 * report, and the artifact files.
 */
#ifndef RINGPERF_CLI_INTERNAL_H
#define RINGPERF_CLI_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "engine/engine.h"
#include "metrics/metrics.h"

/* The per-request metrics ringperf reports now, in AIPerf's console order. */
enum cli_metric {
    CLI_METRIC_TTFT,
    CLI_METRIC_TTST,
    CLI_METRIC_TTFO,
    CLI_METRIC_REQUEST_LATENCY,
    CLI_METRIC_ITL,
    CLI_METRIC_ICL,
    CLI_METRIC_OTPS_PER_USER,
    CLI_METRIC_OSL,
    CLI_METRIC_ISL,
    CLI_METRIC_COUNT
};

/* cli_metric_info describes one metric: AIPerf tag, console header, unit, and
 * the factor from the histogram's integer unit to the display unit. */
struct cli_metric_info {
    const char *tag;
    const char *header;
    const char *unit;
    double display_per_recorded; /* e.g. 1e-6 for ns recorded, ms displayed */
    bool streaming_only;
};

/* cli_metric_infos returns the table of CLI_METRIC_COUNT entries. */
const struct cli_metric_info *cli_metric_infos(void);

#define CLI_ERROR_KINDS_MAX 64

/* cli_error_kind is one row of the error summary. */
struct cli_error_kind {
    int code;
    char type[ENGINE_ERROR_TYPE_BYTES];
    char message[ENGINE_ERROR_MESSAGE_BYTES];
    uint64_t count;
};

/* cli_record_metrics are the values one record contributes (ns and tokens). */
struct cli_record_metrics {
    bool has[CLI_METRIC_COUNT];
    double value[CLI_METRIC_COUNT]; /* recorded units: ns, tokens, milli-tokens/s */
};

/* cli_results accumulates a run's records. */
struct cli_results {
    bool streaming;
    struct metrics_hist *hist[CLI_METRIC_COUNT];
    uint64_t success_count;
    uint64_t error_count;
    uint64_t cancelled_count;
    uint64_t total_osl;
    uint64_t total_isl;
    int64_t min_request_wall_ns; /* earliest send start (CLOCK_REALTIME) */
    int64_t max_response_wall_ns;
    struct cli_error_kind errors[CLI_ERROR_KINDS_MAX];
    size_t error_kind_count;
    uint64_t errors_unlisted;  /* errors past CLI_ERROR_KINDS_MAX distinct kinds */
    uint64_t same_read_events; /* content events that shared a read with the previous one */
};

/* cli_results_init allocates the histograms. Returns 0 or -ENOMEM. */
int cli_results_init(struct cli_results *results, bool streaming);

/* cli_results_free frees them; safe on a zeroed struct. */
void cli_results_free(struct cli_results *results);

/* cli_record_compute fills the per-request metric values of a record, following
 * AIPerf's formulas (reference §2.2). Failed requests get none. */
void cli_record_compute(const struct engine_record *record, bool streaming,
                        struct cli_record_metrics *out);

/* cli_record_wall_ns converts a record's monotonic timestamp to wall-clock ns. */
int64_t cli_record_wall_ns(const struct engine_record *record, int64_t monotonic_ns);

/* cli_results_add folds one record (and its computed metrics) into the results. */
void cli_results_add(struct cli_results *results, const struct engine_record *record,
                     const struct cli_record_metrics *metrics);

/* cli_report_print writes the console report: the metrics table, the error
 * summary and the footer lines. */
void cli_report_print(FILE *out, const struct cli_results *results, const char *title,
                      double duration_s);

/* cli_format_number writes v with thousands separators and 2 decimals. */
void cli_format_number(char *out, size_t cap, double v);

#endif
