/*
 * multirun_internal.h - shared between the files of multirun/; not a public API.
 */
#ifndef RINGPERF_MULTIRUN_INTERNAL_H
#define RINGPERF_MULTIRUN_INTERNAL_H

#include <stdio.h>

#include "export/export.h"
#include "metrics/metrics.h"
#include "multirun/multirun.h"

#define MULTIRUN__KEY_BYTES 160
#define MULTIRUN__UNIT_BYTES 64
#define MULTIRUN__LABEL_BYTES 256

/* multirun__run is one run made: where, and how it ended. */
struct multirun__run {
    size_t cell;
    size_t trial;
    char label[MULTIRUN__LABEL_BYTES]; /* run_0001, or <cell>/trial_0001 in a sweep */
    bool ok;
    char error[MULTIRUN_ERROR_BYTES];
    json_t *summary;                   /* owned; NULL unless ok */
    char records[MULTIRUN_PATH_BYTES]; /* its per-request records, or "" */
};

/* multirun__stat is the spread of one <tag>_<stat> over a cell's runs. */
struct multirun__stat {
    char key[MULTIRUN__KEY_BYTES];
    char unit[MULTIRUN__UNIT_BYTES];
    struct metrics_confidence c;
};

/* multirun__stats is a growable list of them, in first-seen order. */
struct multirun__stats {
    struct multirun__stat *items;
    size_t count;
};

/* multirun__values is a growable list of per-request values. */
struct multirun__values {
    double *items;
    size_t count;
    size_t cap;
};

/* MULTIRUN__TAGS_MAX bounds the metric tags read from one records file. */
#define MULTIRUN__TAGS_MAX 1024

/* multirun__tag_values is one metric's per-request values. */
struct multirun__tag_values {
    char tag[MULTIRUN__KEY_BYTES];
    struct multirun__values values;
};

/* multirun__tagged is every metric's, in the order a records file first names them. */
struct multirun__tagged {
    struct multirun__tag_values *items;
    size_t count;
    size_t cap;
};

/* multirun__values_push appends x. Returns 0, -ENOMEM, or -E2BIG past the cap. */
int multirun__values_push(struct multirun__values *v, double x);

/* multirun__record_all_values appends to *out every metric's values of the profiling
 * records without an error in the records file at path (AIPerf's jsonl loader: scalar
 * values only). Returns 0, -errno when it cannot be read, -ENOMEM or -E2BIG. */
int multirun__record_all_values(const char *path, struct multirun__tagged *out);

/* multirun__tagged_values returns tag's list in t, added empty when new; NULL when out of
 * memory or past MULTIRUN__TAGS_MAX. Valid until t next grows. */
struct multirun__values *multirun__tagged_values(struct multirun__tagged *t, const char *tag);

/* multirun__tagged_free releases the list; safe on a zeroed one. */
void multirun__tagged_free(struct multirun__tagged *t);

/* multirun__record_values appends metric tag's per-request values of the records file at
 * path to *out. Returns 0, -errno when it cannot be read, -ENOMEM or -E2BIG (too many). */
int multirun__record_values(const char *path, const char *tag, struct multirun__values *out);

/* multirun__values_free releases the list; safe on a zeroed one. */
void multirun__values_free(struct multirun__values *v);

/* multirun__ks_pvalue is scipy's two-sided ks_2samp p-value of samples a (n values) and b
 * (m values), both sorted in place; *out_d (may be NULL) gets the statistic. NaN when a
 * sample is empty or memory ran out. */
double multirun__ks_pvalue(double *a, size_t n, double *b, size_t m, double *out_d);

/* multirun__stat_keys lists AIPerf's STAT_KEYS in its order; *out_count gets how many. */
const char *const *multirun__stat_keys(size_t *out_count);

/* multirun__is_metric reports whether a summary's top-level member is a metric block. */
bool multirun__is_metric(json_t *value);

/* multirun__successful puts the summaries of the successful ones of n runs into out (at
 * most cap) and returns how many. */
size_t multirun__successful(const struct multirun__run *runs, size_t n, json_t **out, size_t cap);

/* multirun__confidence fills *out from the summaries of n successful runs (borrowed).
 * Returns 0, -ENOMEM, or -EINVAL for a level outside (0, 1). */
int multirun__confidence(json_t *const *summaries, size_t n, double level,
                         struct multirun__stats *out);

/* multirun__stats_free releases the list; safe on a zeroed one. */
void multirun__stats_free(struct multirun__stats *stats);

/* multirun__real is json_real(v), or null when v is not finite (AIPerf's scrub). */
json_t *multirun__real(double v);

/* multirun__write_confidence writes profile_export_aiperf_aggregate.json and .csv into dir
 * (created) for the runs of one cell (all of them, failed ones included), with `extra`
 * (borrowed, may be NULL) appended to the metadata. Returns 0, or -errno after saying why
 * on stderr. */
int multirun__write_confidence(const char *dir, const struct profile_config *cfg,
                               const struct multirun__run *runs, size_t n, json_t *extra);

/* multirun__write_sweep writes profile_export_aiperf_sweep.json and .csv into dir (created)
 * from every run of the sweep. Returns 0, or -errno after saying why on stderr. */
int multirun__write_sweep(const char *dir, const struct profile_config *cfg,
                          const struct multirun__run *runs, size_t n);

/* multirun__write_collated writes profile_export_aiperf_collated.json into dir (existing)
 * from the per-request records of the successful ones of n runs (spec §5.4). Returns 0, or
 * -errno after saying why on stderr. */
int multirun__write_collated(const char *dir, const struct profile_config *cfg,
                             const struct multirun__run *runs, size_t n);

/* multirun__csv_number writes v with `decimals` decimals, as AIPerf's _format_number. */
void multirun__csv_number(FILE *out, double v, int decimals);

/* multirun__py_repr writes a JSON value as Python's str() of it into out (cap bytes):
 * lists as ['a', 'b'], objects as {'k': 1}, floats by multirun_py_float, true as True. */
void multirun__py_repr(json_t *v, char *out, size_t cap);

/* multirun__title writes key as Python's key.replace("_", " ").title() into out. */
void multirun__title(const char *key, char *out, size_t cap);

/* multirun__make_dirs creates path and its parents (a writable copy is made). */
int multirun__make_dirs(const char *path);

/* multirun__dump writes doc as pretty JSON (2-space indent) to dir/name. 0 or -errno. */
int multirun__dump(json_t *doc, const char *dir, const char *name);

#endif
