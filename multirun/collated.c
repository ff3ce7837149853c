/*
 * collated.c - profile_export_aiperf_collated.json (spec §5.4): the per-request values of
 * every successful run pooled into one population per metric, with combined percentiles
 * and each run's own mean and count. AIPerf writes it beside the confidence aggregate when
 * trials stop on convergence (`plan.use_adaptive`), reading each run's profile_export.jsonl.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "multirun/multirun_internal.h"

#define COLLATED_SCHEMA_VERSION "1.0.0"
/* The AIPerf release whose files these follow (as aggregate.c's). */
#define COLLATED_AIPERF_VERSION "0.8.0"

static const char DESCRIPTION[] =
    "Collated per-request metrics across all runs. Pools individual request-level values "
    "from every run into a single population and computes combined percentiles (p50, p90, "
    "p95, p99). Contrast with profile_export_aiperf_aggregate.json, which computes "
    "statistics over run-level summary values.";

/* pool is every metric's values over the runs, and per tag its per_run list as built. */
struct pool {
    struct multirun__tagged values;
    json_t *per_run; /* tag -> [{label, mean, count}] */
};

/* pool_add appends one run's values v of tag, and the run's own mean and count. */
static int pool_add(struct pool *p, const char *tag, const char *label,
                    const struct multirun__values *v)
{
    struct multirun__values *all = multirun__tagged_values(&p->values, tag);
    if (all == NULL) {
        return -ENOMEM;
    }
    long double sum = 0;
    for (size_t k = 0; k < v->count; k++) {
        sum += v->items[k];
        int ret = multirun__values_push(all, v->items[k]);
        if (ret != 0) {
            return ret;
        }
    }
    json_t *list = json_object_get(p->per_run, tag);
    if (list == NULL) {
        list = json_array();
        json_object_set_new(p->per_run, tag, list);
    }
    json_t *entry = json_pack("{s:s, s:o, s:I}", "label", label, "mean",
                              multirun__real((double)(sum / (long double)v->count)), "count",
                              (json_int_t)v->count);
    return json_array_append_new(list, entry) == 0 ? 0 : -ENOMEM;
}

/* add_run pools one run's values: its own population first (so that its mean and count are
 * its own), then appended to the combined ones, in the order its file names the metrics. */
static int add_run(struct pool *p, const char *label, const char *records)
{
    struct multirun__tagged run = {0};
    int ret = multirun__record_all_values(records, &run);
    for (size_t i = 0; ret == 0 && i < run.count; i++) {
        ret = pool_add(p, run.items[i].tag, label, &run.items[i].values);
    }
    multirun__tagged_free(&run);
    /* AIPerf skips a run whose file is missing or unreadable, and so do we. */
    return ret == -ENOENT || ret == -EACCES ? 0 : ret;
}

/* combined is numpy's mean, std (ddof=1; 0 for one value) and default percentiles. */
static json_t *combined(struct multirun__values *v)
{
    struct metrics_stats s;
    if (metrics_stats_exact(v->items, v->count, &s) != 0) {
        return NULL;
    }
    long double squares = 0;
    for (size_t i = 0; i < v->count; i++) {
        long double d = (long double)v->items[i] - s.avg;
        squares += d * d;
    }
    double std = v->count > 1 ? sqrt((double)(squares / (long double)(v->count - 1))) : 0.0;
    return json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:I}", "mean", multirun__real(s.avg), "std",
                     multirun__real(std), "p50", multirun__real(s.p50), "p90",
                     multirun__real(s.p90), "p95", multirun__real(s.p95), "p99",
                     multirun__real(s.p99), "count", (json_int_t)v->count);
}

static json_t *metrics_json(struct pool *p)
{
    json_t *metrics = json_object();
    for (size_t i = 0; metrics != NULL && i < p->values.count; i++) {
        const char *tag = p->values.items[i].tag;
        json_t *c = combined(&p->values.items[i].values);
        json_t *entry = c != NULL ? json_pack("{s:o, s:O}", "combined", c, "per_run",
                                              json_object_get(p->per_run, tag))
                                  : NULL;
        if (entry == NULL || json_object_set_new(metrics, tag, entry) != 0) {
            json_decref(metrics);
            return NULL;
        }
    }
    return metrics;
}

static json_t *metadata(const struct profile_config *cfg, const struct multirun__run *runs,
                        size_t n)
{
    json_t *failed = json_array();
    json_t *labels = json_array();
    size_t ok = 0;
    for (size_t i = 0; i < n; i++) {
        ok += runs[i].ok;
        json_array_append_new(
            runs[i].ok ? labels : failed,
            runs[i].ok ? json_string(runs[i].label)
                       : json_pack("{s:s, s:s}", "label", runs[i].label, "error", runs[i].error));
    }
    return json_pack("{s:s, s:I, s:I, s:o, s:o, s:o}", "aggregation_type", "detailed",
                     "num_profile_runs", (json_int_t)n, "num_successful_runs", (json_int_t)ok,
                     "failed_runs", failed, "run_labels", labels, "cooldown_seconds",
                     multirun__real(cfg->multi_run.cooldown_seconds));
}

int multirun__write_collated(const char *dir, const struct profile_config *cfg,
                             const struct multirun__run *runs, size_t n)
{
    struct pool pool = {.per_run = json_object()};
    int ret = pool.per_run != NULL ? 0 : -ENOMEM;
    for (size_t i = 0; ret == 0 && i < n; i++) {
        if (runs[i].ok && runs[i].records[0] != '\0') {
            ret = add_run(&pool, runs[i].label, runs[i].records);
        }
    }
    json_t *metrics = ret == 0 ? metrics_json(&pool) : NULL;
    json_t *doc =
        metrics != NULL
            ? json_pack("{s:s, s:s, s:s, s:o, s:o}", "schema_version", COLLATED_SCHEMA_VERSION,
                        "aiperf_version", COLLATED_AIPERF_VERSION, "description", DESCRIPTION,
                        "metadata", metadata(cfg, runs, n), "metrics", metrics)
            : NULL;
    ret = ret != 0 ? ret : (doc == NULL ? -ENOMEM : 0);
    ret = ret != 0 ? ret : multirun__dump(doc, dir, "profile_export_aiperf_collated.json");
    if (ret != 0) {
        fprintf(stderr, "ringperf profile: cannot write the collated aggregate in %s: %s\n", dir,
                strerror(-ret));
    }
    json_decref(doc);
    multirun__tagged_free(&pool.values);
    json_decref(pool.per_run);
    return ret;
}
