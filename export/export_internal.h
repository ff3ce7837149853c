/*
 * export_internal.h - helpers shared by the files of export/ (not public): the CSV writers'
 * fields and the record lines' optional members.
 */
#ifndef RINGPERF_EXPORT_INTERNAL_H
#define RINGPERF_EXPORT_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

#include "export/export_jsonw.h"
#include "metrics/metrics.h"
#include "record/record.h"
#include "scrape/scrape.h"

/* export__put_number writes ",v": integral values of integer metrics without
 * decimals, everything else with two. */
void export__put_number(FILE *out, const struct metrics_info *info, double v);

/* export__sorted_ids fills ids (room for every id of the kind) with the
 * present record (scalar false) or scalar metrics of `s`, sorted by tag, and
 * returns how many. */
size_t export__sorted_ids(const struct metrics_summary *s, bool scalar, int *ids);

/* export__put_int_if_known writes "key": v, or nothing for 0 (not known), as AIPerf leaves a
 * None out of a record's metadata. */
void export__put_int_if_known(struct export_jsonw *w, bool *first, const char *key, int64_t v);

/* export__trace_data writes a record's trace_data object (trace_data.c). */
void export__trace_data(struct export_jsonw *w, const struct record *rec,
                        const struct metrics_http *h);

/* export__spec_decode writes a record's ,"spec_decode_acceptance":{...} member (AIPerf's
 * SpecDecodeAcceptanceRecord) when req carries usable speculative-decoding statistics, else
 * nothing (spec_decode.c). */
void export__spec_decode(struct export_jsonw *w, const struct metrics_request *req);

/* export__spec_histogram_json returns the summary's pooled_spec_decode_acceptance_histogram,
 * {"j": steps} for the buckets with steps in ascending j (a new reference), or NULL when the run
 * had no speculative-decoding statistics. */
json_t *export__spec_histogram_json(const struct metrics_summary *s);

/* export__spec_histogram_line writes the pooled histogram's console line into out (cap bytes,
 * NUL-terminated): each bucket's share of the verify steps, "0: 20%   1: 35%   ...", buckets
 * from 8 up folded into ">=8: N%". Returns its length, 0 (nothing written) without steps. */
size_t export__spec_histogram_line(const struct metrics_summary *s, char *out, size_t cap);

/* export__jsonw_text appends len bytes of ready text of any length to w. Returns w's error. */
int export__jsonw_text(struct export_jsonw *w, const char *text, size_t len);

/* export__write_staged writes len bytes of text to path through <path>.partial, renamed when
 * whole. Returns 0 or -errno. */
int export__write_staged(const char *path, const char *text, size_t len);

/* export__buckets_json is a histogram's bucket deltas as AIPerf's `buckets` object: le -> count
 * (server_metrics.c). A new reference. */
json_t *export__buckets_json(const struct scrape_histogram_stats *h);

/* export__server_metrics_timeslices adds each series' `timeslices` to the profiling window's
 * exported `metrics` object: window w cut into slice_ns slices (none for slice_ns 0), of which
 * the first EXPORT_SLICES_MAX (server_metrics_slices.c). Returns 0 or -ENOMEM. */
int export__server_metrics_timeslices(json_t *metrics, const struct scrape *s,
                                      struct scrape_window w, int64_t slice_ns);

/* export__server_metrics_csv writes server_metrics_export.csv from the profiling window's
 * report r (server_metrics_files.c). Returns 0 or -errno. */
int export__server_metrics_csv(const char *path, const struct scrape *s,
                               const struct scrape_report *r);

/* export__server_metrics_jsonl writes one line per kept fetch of s (server_metrics_files.c).
 * Returns 0 or -errno. */
int export__server_metrics_jsonl(const char *path, const struct scrape *s);

/* export__energy is one of AIPerf's NVIDIA power-efficiency metrics, in its registry's
 * display order (the console's "GPU Power Efficiency (NVIDIA)" rows). */
enum export__energy {
    EXPORT__ENERGY_DELAY_PRODUCT,
    EXPORT__ENERGY_PERFORMANCE_PER_WATT,
    EXPORT__ENERGY_OUTPUT_TPS_PER_WATT,
    EXPORT__ENERGY_GOODPUT_PER_WATT,
    EXPORT__ENERGY_AVERAGE_GPU_POWER,
    EXPORT__ENERGY_TOTAL_GPU_ENERGY,
    EXPORT__ENERGY_TOTAL_GPU_POWER,
    EXPORT__ENERGY_PER_TOTAL_TOKEN,
    EXPORT__ENERGY_PER_OUTPUT_TOKEN,
    EXPORT__ENERGY_PER_REQUEST,
    EXPORT__ENERGY_OUTPUT_TOKENS_PER_JOULE,
    EXPORT__ENERGY_PER_USER,
    EXPORT__ENERGY_COUNT,
};

/* export__energy_info returns metric `id`'s tag (its block's key in the summary JSON), its
 * console header and its unit (static; telemetry.c). */
const struct metrics_info *export__energy_info(enum export__energy id);

#endif
