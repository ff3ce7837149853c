/*
 * aggregate.c - the confidence aggregate of one cell's runs (spec §5.3): every statistic of
 * every metric the runs' summaries report, spread over the runs, written as
 * profile_export_aiperf_aggregate.json and .csv.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "multirun/multirun_internal.h"

#define AGGREGATE_SCHEMA_VERSION "1.0"
/* The AIPerf release whose files these follow (export.h's EXPORT_AIPERF_VERSION). */
#define AGGREGATE_AIPERF_VERSION "0.8.0"

static const char *const stat_keys[] = {"avg", "min", "max", "sum", "p1",  "p5",  "p10",
                                        "p25", "p50", "p75", "p90", "p95", "p99", "std"};

const char *const *multirun__stat_keys(size_t *out_count)
{
    *out_count = sizeof(stat_keys) / sizeof(stat_keys[0]);
    return stat_keys;
}

bool multirun__is_metric(json_t *value)
{
    return json_is_object(value) && json_is_string(json_object_get(value, "unit"));
}

void multirun__stats_free(struct multirun__stats *stats)
{
    free(stats->items);
    stats->items = NULL;
    stats->count = 0;
}

static bool stats_has(const struct multirun__stats *stats, const char *key)
{
    for (size_t i = 0; i < stats->count; i++) {
        if (strcmp(stats->items[i].key, key) == 0) {
            return true;
        }
    }
    return false;
}

/* collect_keys lists every <tag>_<stat> any summary reports with a number, first seen
 * first (AIPerf builds them from a set: its order is not defined). */
static int collect_keys(json_t *const *summaries, size_t n, struct multirun__stats *out)
{
    for (size_t r = 0; r < n; r++) {
        const char *tag;
        json_t *metric;
        json_object_foreach(summaries[r], tag, metric)
        {
            if (!multirun__is_metric(metric)) {
                continue;
            }
            for (size_t s = 0; s < sizeof(stat_keys) / sizeof(stat_keys[0]); s++) {
                char key[MULTIRUN__KEY_BYTES];
                int len = snprintf(key, sizeof(key), "%s_%s", tag, stat_keys[s]);
                if (!json_is_number(json_object_get(metric, stat_keys[s])) ||
                    len >= (int)sizeof(key) || stats_has(out, key)) {
                    continue;
                }
                struct multirun__stat *grown =
                    realloc(out->items, (out->count + 1) * sizeof(*grown));
                if (grown == NULL) {
                    return -ENOMEM;
                }
                out->items = grown;
                memset(&grown[out->count], 0, sizeof(grown[0]));
                memcpy(grown[out->count].key, key, (size_t)len + 1);
                out->count++;
            }
        }
    }
    return 0;
}

/* spread computes one key's spread; the tag and the stat are split at the key's last '_'
 * that leaves a known stat, as the key was built. */
static int spread(json_t *const *summaries, size_t n, double level, struct multirun__stat *st)
{
    char tag[MULTIRUN__KEY_BYTES];
    snprintf(tag, sizeof(tag), "%s", st->key);
    char *sep = strrchr(tag, '_');
    *sep = '\0';
    const char *stat = sep + 1;
    double values[64];
    size_t count = 0;
    for (size_t r = 0; r < n && count < sizeof(values) / sizeof(values[0]); r++) {
        json_t *metric = json_object_get(summaries[r], tag);
        json_t *value = multirun__is_metric(metric) ? json_object_get(metric, stat) : NULL;
        if (!json_is_number(value) || !isfinite(json_number_value(value))) {
            continue;
        }
        if (count == 0) {
            snprintf(st->unit, sizeof(st->unit), "%s",
                     json_string_value(json_object_get(metric, "unit")));
        }
        values[count++] = json_number_value(value);
    }
    return metrics_confidence_compute(values, count, level, &st->c);
}

int multirun__confidence(json_t *const *summaries, size_t n, double level,
                         struct multirun__stats *out)
{
    *out = (struct multirun__stats){0};
    if (!(level > 0.0 && level < 1.0)) {
        return -EINVAL;
    }
    int ret = collect_keys(summaries, n, out);
    size_t kept = 0;
    for (size_t i = 0; ret == 0 && i < out->count; i++) {
        /* A key whose every value was null (non-finite) has nothing to spread. */
        if (spread(summaries, n, level, &out->items[i]) == 0) {
            out->items[kept++] = out->items[i];
        }
    }
    out->count = kept;
    if (ret != 0) {
        multirun__stats_free(out);
    }
    return ret;
}

static json_t *stat_json(const struct multirun__stat *st)
{
    const struct metrics_confidence *c = &st->c;
    json_t *o = json_object();
    json_object_set_new(o, "mean", multirun__real(c->mean));
    json_object_set_new(o, "std", multirun__real(c->std));
    json_object_set_new(o, "min", multirun__real(c->min));
    json_object_set_new(o, "max", multirun__real(c->max));
    json_object_set_new(o, "cv", multirun__real(c->cv));
    json_object_set_new(o, "se", multirun__real(c->se));
    json_object_set_new(o, "ci_low", multirun__real(c->ci_low));
    json_object_set_new(o, "ci_high", multirun__real(c->ci_high));
    json_object_set_new(o, "t_critical", multirun__real(c->t_critical));
    json_object_set_new(o, "unit", json_string(st->unit));
    return o;
}

json_t *multirun_confidence_json(json_t *const *summaries, size_t n, double level)
{
    struct multirun__stats stats;
    if (multirun__confidence(summaries, n, level, &stats) != 0) {
        return NULL;
    }
    json_t *metrics = json_object();
    for (size_t i = 0; metrics != NULL && i < stats.count; i++) {
        json_object_set_new(metrics, stats.items[i].key, stat_json(&stats.items[i]));
    }
    multirun__stats_free(&stats);
    return metrics;
}

/* metadata is the aggregate's metadata block, AIPerf's keys in its order. */
static json_t *metadata(const struct profile_config *cfg, const struct multirun__run *runs,
                        size_t n, size_t ok, json_t *extra)
{
    json_t *failed = json_array();
    json_t *labels = json_array();
    for (size_t i = 0; i < n; i++) {
        if (runs[i].ok) {
            json_array_append_new(labels, json_string(runs[i].label));
        } else {
            json_array_append_new(
                failed, json_pack("{s:s, s:s}", "label", runs[i].label, "error", runs[i].error));
        }
    }
    json_t *meta = json_pack("{s:s, s:I, s:I, s:o, s:f, s:o}", "aggregation_type", "confidence",
                             "num_profile_runs", (json_int_t)n, "num_successful_runs",
                             (json_int_t)ok, "failed_runs", failed, "confidence_level",
                             cfg->multi_run.confidence_level, "run_labels", labels);
    if (meta != NULL && ok == 1) {
        json_object_set_new(meta, "single_run", json_true());
    }
    if (meta != NULL) {
        json_object_set_new(meta, "cooldown_seconds", json_real(cfg->multi_run.cooldown_seconds));
        json_object_update(meta, extra);
    }
    return meta;
}

/* write_csv writes the metrics table, a blank row, then the metadata as rows. */
static int write_csv(const char *dir, const struct multirun__stats *stats, json_t *meta)
{
    char path[MULTIRUN_PATH_BYTES];
    snprintf(path, sizeof(path), "%s/profile_export_aiperf_aggregate.csv", dir);
    FILE *out = fopen(path, "w");
    if (out == NULL) {
        return -errno;
    }
    fputs("metric,mean,std,min,max,cv,se,ci_low,ci_high,t_critical,unit\r\n", out);
    for (size_t i = 0; i < stats->count; i++) {
        const struct metrics_confidence *c = &stats->items[i].c;
        const double cells[] = {c->mean, c->std,    c->min,     c->max,       c->cv,
                                c->se,   c->ci_low, c->ci_high, c->t_critical};
        const int decimals[] = {2, 2, 2, 2, 4, 4, 2, 2, 4};
        export_csv_field(out, stats->items[i].key);
        for (size_t k = 0; k < sizeof(cells) / sizeof(cells[0]); k++) {
            fputc(',', out);
            multirun__csv_number(out, cells[k], decimals[k]);
        }
        fputc(',', out);
        export_csv_field(out, stats->items[i].unit);
        fputs("\r\n", out);
    }
    fprintf(out, "\r\nAggregation Type,confidence\r\nTotal Runs,%lld\r\nSuccessful Runs,%lld\r\n",
            (long long)json_integer_value(json_object_get(meta, "num_profile_runs")),
            (long long)json_integer_value(json_object_get(meta, "num_successful_runs")));
    const char *key;
    json_t *value;
    json_object_foreach(meta, key, value)
    {
        if (strcmp(key, "aggregation_type") == 0 || strcmp(key, "num_profile_runs") == 0 ||
            strcmp(key, "num_successful_runs") == 0 || strcmp(key, "failed_runs") == 0) {
            continue; /* AIPerf's result fields, not its metadata dict */
        }
        char title[128];
        char text[4096];
        multirun__title(key, title, sizeof(title));
        multirun__py_repr(value, text, sizeof(text));
        export_csv_field(out, title);
        fputc(',', out);
        export_csv_field(out, text);
        fputs("\r\n", out);
    }
    return fclose(out) == 0 ? 0 : -EIO;
}

size_t multirun__successful(const struct multirun__run *runs, size_t n, json_t **out, size_t cap)
{
    size_t ok = 0;
    for (size_t i = 0; i < n && ok < cap; i++) {
        if (runs[i].ok) {
            out[ok++] = runs[i].summary;
        }
    }
    return ok;
}

int multirun__write_confidence(const char *dir, const struct profile_config *cfg,
                               const struct multirun__run *runs, size_t n, json_t *extra)
{
    json_t *summaries[CONFIG_PROFILE_RUNS_MAX];
    size_t ok = multirun__successful(runs, n, summaries, CONFIG_PROFILE_RUNS_MAX);
    struct multirun__stats stats;
    int ret = multirun__make_dirs(dir);
    ret = ret != 0 ? ret
                   : multirun__confidence(summaries, ok, cfg->multi_run.confidence_level, &stats);
    if (ret != 0) {
        fprintf(stderr, "ringperf profile: cannot write the aggregate in %s: %s\n", dir,
                strerror(-ret));
        return ret;
    }
    json_t *meta = metadata(cfg, runs, n, ok, extra);
    json_t *metrics = json_object();
    for (size_t i = 0; i < stats.count; i++) {
        json_object_set_new(metrics, stats.items[i].key, stat_json(&stats.items[i]));
    }
    json_t *doc =
        json_pack("{s:s, s:s, s:O, s:o}", "schema_version", AGGREGATE_SCHEMA_VERSION,
                  "aiperf_version", AGGREGATE_AIPERF_VERSION, "metadata", meta, "metrics", metrics);
    ret = doc == NULL ? -ENOMEM : multirun__dump(doc, dir, "profile_export_aiperf_aggregate.json");
    ret = ret != 0 ? ret : write_csv(dir, &stats, meta);
    if (ret == 0 && cfg->multi_run.convergence_metric != NULL) {
        ret = multirun__write_collated(dir, cfg, runs, n); /* AIPerf's adaptive trials only */
    }
    if (ret != 0) {
        fprintf(stderr, "ringperf profile: cannot write the aggregate in %s: %s\n", dir,
                strerror(-ret));
    }
    json_decref(doc);
    json_decref(meta);
    multirun__stats_free(&stats);
    return ret;
}
