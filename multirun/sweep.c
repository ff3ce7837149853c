/*
 * sweep.c - the sweep aggregate across cells (spec §5.5): each cell's metrics (its one
 * run's values, or the spread of its runs), the best throughput and latency, the Pareto
 * set of throughput against latency, written as profile_export_aiperf_sweep.json and .csv.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "multirun/multirun_internal.h"

/* cell is one combination with at least one successful run. */
struct cell {
    json_t *parameters; /* {name: value} */
    json_t *metrics;    /* nested <tag> blocks, then flattened <tag>_<stat> entries */
};

static json_t *parameters(const struct profile_config *cfg, size_t index)
{
    double values[CONFIG_SWEEP_PARAM_COUNT];
    config_sweep_cell_values(cfg, index, values);
    json_t *o = json_object();
    for (size_t i = 0; i < cfg->sweep.dim_count; i++) {
        enum config_sweep_param p = cfg->sweep.dims[i].param;
        json_object_set_new(o, config_sweep_param_name(p),
                            config_sweep_param_is_integer(p) ? json_integer((json_int_t)values[i])
                                                             : json_real(values[i]));
    }
    return o;
}

static json_t *flat_entry(double mean, double std, double min, double max, double cv, double low,
                          double high, const char *unit)
{
    json_t *o = json_object();
    json_object_set_new(o, "mean", multirun__real(mean));
    json_object_set_new(o, "std", multirun__real(std));
    json_object_set_new(o, "min", multirun__real(min));
    json_object_set_new(o, "max", multirun__real(max));
    json_object_set_new(o, "cv", multirun__real(cv));
    json_object_set_new(o, "ci_low", multirun__real(low));
    json_object_set_new(o, "ci_high", multirun__real(high));
    json_object_set_new(o, "unit", json_string(unit));
    return o;
}

/* single_nested is AIPerf's projection of one run's metric block: its avg as mean and avg,
 * no spread, and its percentiles, count and sum as they are. */
static json_t *single_nested(json_t *block)
{
    json_t *avg_value = json_object_get(block, "avg");
    double avg = json_is_number(avg_value) ? json_number_value(avg_value) : 0.0;
    json_t *min = json_object_get(block, "min");
    json_t *max = json_object_get(block, "max");
    json_t *o = json_pack("{s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:f}", "mean", avg, "avg", avg,
                          "std", 0.0, "min", json_is_number(min) ? json_number_value(min) : avg,
                          "max", json_is_number(max) ? json_number_value(max) : avg, "cv", 0.0,
                          "ci_low", avg, "ci_high", avg);
    json_object_set(o, "unit", json_object_get(block, "unit"));
    static const char *const extra[] = {"p1",  "p5",  "p10", "p25",   "p50", "p75",
                                        "p90", "p95", "p99", "count", "sum"};
    for (size_t i = 0; i < sizeof(extra) / sizeof(extra[0]); i++) {
        json_t *v = json_object_get(block, extra[i]);
        if (json_is_number(v)) {
            json_object_set(o, extra[i], v);
        }
    }
    return o;
}

/* nested_from_stats is AIPerf's per-metric view of a spread: each stat's mean, and the
 * unit after the first. */
static void nested_from_stats(const struct multirun__stats *stats, json_t *summary, json_t *metrics)
{
    const char *tag;
    json_t *block;
    json_object_foreach(summary, tag, block)
    {
        if (!multirun__is_metric(block)) {
            continue;
        }
        json_t *nested = json_object();
        size_t nkeys;
        const char *const *keys = multirun__stat_keys(&nkeys);
        for (size_t s = 0; s < nkeys; s++) {
            char key[MULTIRUN__KEY_BYTES];
            snprintf(key, sizeof(key), "%s_%s", tag, keys[s]);
            for (size_t i = 0; i < stats->count; i++) {
                if (strcmp(stats->items[i].key, key) == 0) {
                    json_object_set_new(nested, keys[s], multirun__real(stats->items[i].c.mean));
                    if (json_object_get(nested, "unit") == NULL) {
                        json_object_set_new(nested, "unit", json_string(stats->items[i].unit));
                    }
                }
            }
        }
        json_object_set_new(metrics, tag, nested);
    }
}

/* cell_metrics builds one cell's metrics from its runs, or NULL when none succeeded. */
static json_t *cell_metrics(const struct profile_config *cfg, const struct multirun__run *runs,
                            size_t n)
{
    json_t *summaries[CONFIG_PROFILE_RUNS_MAX];
    size_t ok = multirun__successful(runs, n, summaries, CONFIG_PROFILE_RUNS_MAX);
    struct multirun__stats stats;
    if (ok == 0 || multirun__confidence(summaries, ok, cfg->multi_run.confidence_level, &stats)) {
        return NULL;
    }
    json_t *metrics = json_object();
    if (n == 1) {
        const char *tag;
        json_t *block;
        json_object_foreach(summaries[0], tag, block)
        {
            if (multirun__is_metric(block)) {
                json_object_set_new(metrics, tag, single_nested(block));
            }
        }
    } else {
        nested_from_stats(&stats, summaries[0], metrics);
    }
    for (size_t i = 0; i < stats.count; i++) {
        const struct metrics_confidence *c = &stats.items[i].c;
        json_object_set_new(metrics, stats.items[i].key,
                            flat_entry(c->mean, c->std, c->min, c->max, c->cv, c->ci_low,
                                       c->ci_high, stats.items[i].unit));
    }
    multirun__stats_free(&stats);
    return metrics;
}

static double mean_of(const struct cell *c, const char *key)
{
    json_t *v = json_object_get(json_object_get(c->metrics, key), "mean");
    return json_is_number(v) ? json_number_value(v) : NAN;
}

static bool all_have(const struct cell *cells, size_t n, const char *key)
{
    for (size_t i = 0; i < n; i++) {
        if (json_object_get(cells[i].metrics, key) == NULL) {
            return false;
        }
    }
    return n > 0;
}

/* latency_key is the first of AIPerf's latency candidates every cell has, or NULL. */
static const char *latency_key(const struct cell *cells, size_t n)
{
    static const char *const candidates[] = {"time_to_first_token_p99", "request_latency_p99"};
    for (size_t i = 0; i < 2; i++) {
        if (all_have(cells, n, candidates[i])) {
            return candidates[i];
        }
    }
    return NULL;
}

static json_t *best_entry(const struct cell *c, const char *key, const char *fallback_unit)
{
    json_t *unit = json_object_get(json_object_get(c->metrics, key), "unit");
    return json_pack("{s:O, s:o, s:s}", "parameters", c->parameters, "metric",
                     multirun__real(mean_of(c, key)), "unit",
                     json_is_string(unit) ? json_string_value(unit) : fallback_unit);
}

/* best_configurations: the first cell of highest throughput, the first of lowest latency. */
static json_t *best_configurations(const struct cell *cells, size_t n)
{
    json_t *best = json_object();
    const char *tput = "request_throughput_avg";
    if (all_have(cells, n, tput)) {
        size_t top = 0;
        for (size_t i = 1; i < n; i++) {
            top = mean_of(&cells[i], tput) > mean_of(&cells[top], tput) ? i : top;
        }
        json_object_set_new(best, "best_throughput", best_entry(&cells[top], tput, "requests/sec"));
    }
    const char *lat = latency_key(cells, n);
    if (lat != NULL) {
        size_t low = 0;
        for (size_t i = 1; i < n; i++) {
            low = mean_of(&cells[i], lat) < mean_of(&cells[low], lat) ? i : low;
        }
        json_object_set_new(best, "best_latency_p99", best_entry(&cells[low], lat, "ms"));
    }
    return best;
}

/* dominates: a is no worse than b on both objectives and better on one. */
static bool dominates(double a_tput, double a_lat, double b_tput, double b_lat)
{
    bool no_worse = a_tput >= b_tput && a_lat <= b_lat;
    return no_worse && (a_tput > b_tput || a_lat < b_lat);
}

/* params_before orders parameter sets as Python sorts tuple(sorted(params.items())). */
static int params_cmp(const void *a, const void *b)
{
    json_t *pa = *(json_t *const *)a;
    json_t *pb = *(json_t *const *)b;
    const char *names[CONFIG_SWEEP_PARAM_COUNT];
    size_t count = 0;
    const char *key;
    json_t *v;
    json_object_foreach(pa, key, v)
    {
        names[count++] = key;
    }
    for (size_t i = 0; i < count; i++) { /* insertion sort of at most six names */
        for (size_t j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
            const char *t = names[j];
            names[j] = names[j - 1];
            names[j - 1] = t;
        }
    }
    for (size_t i = 0; i < count; i++) {
        double x = json_number_value(json_object_get(pa, names[i]));
        double y = json_number_value(json_object_get(pb, names[i]));
        if (x != y) {
            return x < y ? -1 : 1;
        }
    }
    return 0;
}

static json_t *pareto(const struct cell *cells, size_t n)
{
    json_t *front = json_array();
    const char *lat = latency_key(cells, n);
    if (lat == NULL || !all_have(cells, n, "request_throughput_avg")) {
        return front;
    }
    json_t *chosen[CONFIG_SWEEP_CELLS_MAX];
    size_t count = 0;
    for (size_t i = 0; i < n; i++) {
        bool dominated = false;
        for (size_t j = 0; j < n && !dominated; j++) {
            dominated =
                j != i &&
                dominates(mean_of(&cells[j], "request_throughput_avg"), mean_of(&cells[j], lat),
                          mean_of(&cells[i], "request_throughput_avg"), mean_of(&cells[i], lat));
        }
        if (!dominated) {
            chosen[count++] = cells[i].parameters;
        }
    }
    qsort(chosen, count, sizeof(chosen[0]), params_cmp);
    for (size_t i = 0; i < count; i++) {
        json_array_append(front, chosen[i]);
    }
    return front;
}

/* sweep_parameters lists each swept parameter with its values in the order the cells that
 * ran met them; num_combinations is their product, as AIPerf counts (a zip's too). */
static json_t *sweep_metadata(const struct profile_config *cfg, const struct multirun__run *runs,
                              size_t n, size_t trials)
{
    json_t *list = json_array();
    json_int_t combinations = 1;
    for (size_t d = 0; d < cfg->sweep.dim_count; d++) {
        json_t *values = json_array();
        for (size_t i = 0; i < n; i++) {
            json_t *p = parameters(cfg, runs[i].cell);
            json_t *v = json_object_get(p, config_sweep_param_name(cfg->sweep.dims[d].param));
            bool seen = false;
            for (size_t k = 0; k < json_array_size(values) && !seen; k++) {
                seen = json_equal(json_array_get(values, k), v);
            }
            if (!seen) {
                json_array_append(values, v);
            }
            json_decref(p);
        }
        combinations *= (json_int_t)json_array_size(values);
        json_array_append_new(list, json_pack("{s:s, s:o}", "name",
                                              config_sweep_param_name(cfg->sweep.dims[d].param),
                                              "values", values));
    }
    return json_pack("{s:o, s:I, s:s, s:s, s:f, s:I}", "sweep_parameters", list, "num_combinations",
                     combinations, "aggregation_type", "sweep", "sweep_mode",
                     cfg->sweep.mode == CONFIG_SWEEP_INDEPENDENT ? "independent" : "repeated",
                     "confidence_level", cfg->multi_run.confidence_level, "num_trials_per_value",
                     (json_int_t)trials);
}

static int cmp_strings(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* write_param_values writes a parameter set's values in the order of names, as Python. */
static void write_params(FILE *out, json_t *params, json_t *names, bool leading_comma)
{
    for (size_t i = 0; i < json_array_size(names); i++) {
        char text[64] = "";
        json_t *v = json_object_get(params, json_string_value(json_array_get(names, i)));
        if (v != NULL) {
            multirun__py_repr(v, text, sizeof(text));
        }
        fputs(leading_comma || i > 0 ? "," : "", out);
        export_csv_field(out, text);
    }
}

static void write_combinations(FILE *out, const struct cell *cells, size_t n, json_t *names)
{
    const char *keys[4096];
    size_t count = 0;
    const char *key;
    json_t *v;
    json_object_foreach(cells[0].metrics, key, v)
    {
        if (count < sizeof(keys) / sizeof(keys[0])) {
            keys[count++] = key;
        }
    }
    qsort(keys, count, sizeof(keys[0]), cmp_strings);
    static const char *const cols[] = {"mean", "std", "min", "max", "cv"};
    for (size_t i = 0; i < json_array_size(names); i++) {
        fputs(i > 0 ? "," : "", out);
        export_csv_field(out, json_string_value(json_array_get(names, i)));
    }
    for (size_t k = 0; k < count; k++) {
        for (size_t c = 0; c < 5; c++) {
            fprintf(out, "%s%s_%s", json_array_size(names) + k + c > 0 ? "," : "", keys[k],
                    cols[c]);
        }
    }
    fputs("\r\n", out);
    for (size_t i = 0; i < n; i++) {
        write_params(out, cells[i].parameters, names, false);
        for (size_t k = 0; k < count; k++) {
            json_t *entry = json_object_get(cells[i].metrics, keys[k]);
            for (size_t c = 0; c < 5; c++) {
                json_t *value = json_object_get(entry, cols[c]);
                fputc(',', out);
                if (json_is_number(value)) {
                    multirun__csv_number(out, json_number_value(value), c == 4 ? 4 : 2);
                } else if (json_is_null(value)) {
                    fputs("nan", out); /* a non-finite number in AIPerf's memory */
                }
            }
        }
        fputs("\r\n", out);
    }
}

static void write_best(FILE *out, json_t *best, json_t *names)
{
    fputs("Best Configurations\r\n", out);
    if (json_object_size(best) == 0) {
        return;
    }
    fputs("Configuration", out);
    for (size_t i = 0; i < json_array_size(names); i++) {
        fputc(',', out);
        export_csv_field(out, json_string_value(json_array_get(names, i)));
    }
    fputs(",Metric,Unit\r\n", out);
    const char *key;
    json_t *entry;
    json_object_foreach(best, key, entry)
    {
        char title[64];
        multirun__title(key, title, sizeof(title));
        export_csv_field(out, title);
        write_params(out, json_object_get(entry, "parameters"), names, true);
        fputc(',', out);
        json_t *metric = json_object_get(entry, "metric");
        if (json_is_number(metric)) {
            multirun__csv_number(out, json_number_value(metric), 2);
        }
        fputc(',', out);
        export_csv_field(out, json_string_value(json_object_get(entry, "unit")));
        fputs("\r\n", out);
    }
}

static int write_sweep_csv(const char *dir, json_t *doc, const struct cell *cells, size_t n)
{
    char path[MULTIRUN_PATH_BYTES];
    snprintf(path, sizeof(path), "%s/profile_export_aiperf_sweep.csv", dir);
    FILE *out = fopen(path, "w");
    if (out == NULL) {
        return -errno;
    }
    json_t *meta = json_object_get(doc, "metadata");
    json_t *names = json_array();
    size_t i;
    json_t *p;
    json_array_foreach(json_object_get(meta, "sweep_parameters"), i, p)
    {
        json_array_append(names, json_object_get(p, "name"));
    }
    if (n > 0) {
        write_combinations(out, cells, n, names);
    }
    fputs("\r\n", out);
    write_best(out, json_object_get(doc, "best_configurations"), names);
    fputs("\r\nPareto Optimal Points\r\n", out);
    json_t *front = json_object_get(doc, "pareto_optimal");
    if (json_array_size(front) == 0) {
        fputs("None\r\n", out);
    } else {
        for (size_t k = 0; k < json_array_size(names); k++) {
            fputs(k > 0 ? "," : "", out);
            export_csv_field(out, json_string_value(json_array_get(names, k)));
        }
        fputs("\r\n", out);
    }
    json_array_foreach(front, i, p)
    {
        write_params(out, p, names, false);
        fputs("\r\n", out);
    }
    char joined[512] = "";
    for (size_t k = 0; k < json_array_size(names); k++) {
        size_t used = strlen(joined);
        snprintf(joined + used, sizeof(joined) - used, "%s%s", k > 0 ? ", " : "",
                 json_string_value(json_array_get(names, k)));
    }
    fputs("\r\nMetadata\r\nField,Value\r\nAggregation Type,sweep\r\nSweep Parameters,", out);
    export_csv_field(out, joined);
    fprintf(out,
            "\r\nNumber of Combinations,%lld\r\nNumber of Profile Runs,%lld\r\n"
            "Number of Successful Runs,%lld\r\n",
            (long long)json_integer_value(json_object_get(meta, "num_combinations")),
            (long long)json_integer_value(json_object_get(doc, "num_profile_runs")),
            (long long)json_integer_value(json_object_get(doc, "num_successful_runs")));
    json_decref(names);
    return fclose(out) == 0 ? 0 : -EIO;
}

/* group_cells gathers, cell by cell, the runs of each and their metrics; cells without a
 * successful run are left out. Returns how many cells it filled. */
static size_t group_cells(const struct profile_config *cfg, const struct multirun__run *runs,
                          size_t n, struct cell *cells, size_t *out_trials)
{
    size_t filled = 0;
    *out_trials = 0;
    for (size_t cell = 0; cell < config_sweep_cells(cfg); cell++) {
        struct multirun__run group[CONFIG_PROFILE_RUNS_MAX];
        size_t count = 0;
        for (size_t i = 0; i < n && count < CONFIG_PROFILE_RUNS_MAX; i++) {
            if (runs[i].cell == cell) {
                group[count++] = runs[i];
            }
        }
        *out_trials = count > *out_trials ? count : *out_trials;
        json_t *metrics = count > 0 ? cell_metrics(cfg, group, count) : NULL;
        if (metrics != NULL) {
            cells[filled].parameters = parameters(cfg, cell);
            cells[filled++].metrics = metrics;
        }
    }
    return filled;
}

static json_t *sweep_document(const struct profile_config *cfg, const struct multirun__run *runs,
                              size_t n, const struct cell *cells, size_t count, size_t trials)
{
    json_t *failed = json_array();
    size_t ok = 0;
    for (size_t i = 0; i < n; i++) {
        ok += runs[i].ok;
        if (!runs[i].ok) {
            /* A trial label names no cell: the sweep's failures say which. */
            char label[2 * MULTIRUN__LABEL_BYTES] = "";
            char cell[MULTIRUN__LABEL_BYTES] = "";
            multirun_cell_name(cfg, runs[i].cell, cell, sizeof(cell));
            snprintf(label, sizeof(label), "%s/%s", cell, runs[i].label);
            json_array_append_new(failed,
                                  json_pack("{s:s, s:s}", "label", label, "error", runs[i].error));
        }
    }
    json_t *combos = json_array();
    for (size_t i = 0; i < count; i++) {
        json_array_append_new(combos, json_pack("{s:O, s:O}", "parameters", cells[i].parameters,
                                                "metrics", cells[i].metrics));
    }
    return json_pack("{s:s, s:I, s:I, s:o, s:o, s:o, s:o, s:o}", "aggregation_type", "sweep",
                     "num_profile_runs", (json_int_t)n, "num_successful_runs", (json_int_t)ok,
                     "failed_runs", failed, "metadata", sweep_metadata(cfg, runs, n, trials),
                     "per_combination_metrics", combos, "best_configurations",
                     best_configurations(cells, count), "pareto_optimal", pareto(cells, count));
}

/* print_summary says the best configurations and the Pareto set, as AIPerf logs them. */
static void print_summary(json_t *doc)
{
    json_t *best = json_object_get(doc, "best_configurations");
    static const char *const names[][2] = {{"best_throughput", "Best throughput"},
                                           {"best_latency_p99", "Best latency (p99)"}};
    for (size_t i = 0; i < 2; i++) {
        json_t *entry = json_object_get(best, names[i][0]);
        if (entry == NULL) {
            continue;
        }
        char params[256];
        multirun__py_repr(json_object_get(entry, "parameters"), params, sizeof(params));
        printf("%s: %s (%.2f %s)\n", names[i][1], params,
               json_number_value(json_object_get(entry, "metric")),
               json_string_value(json_object_get(entry, "unit")));
    }
    char front[1024];
    multirun__py_repr(json_object_get(doc, "pareto_optimal"), front, sizeof(front));
    printf("Pareto optimal points: %s\n", front);
}

int multirun__write_sweep(const char *dir, const struct profile_config *cfg,
                          const struct multirun__run *runs, size_t n)
{
    struct cell *cells = calloc(config_sweep_cells(cfg), sizeof(*cells));
    int ret = cells == NULL ? -ENOMEM : multirun__make_dirs(dir);
    size_t count = 0;
    if (ret == 0) {
        size_t trials;
        count = group_cells(cfg, runs, n, cells, &trials);
        json_t *doc = sweep_document(cfg, runs, n, cells, count, trials);
        ret = doc == NULL ? -ENOMEM : multirun__dump(doc, dir, "profile_export_aiperf_sweep.json");
        ret = ret != 0 ? ret : write_sweep_csv(dir, doc, cells, count);
        if (ret == 0) {
            print_summary(doc);
        }
        json_decref(doc);
    }
    if (ret != 0) {
        fprintf(stderr, "ringperf profile: cannot write the sweep aggregate in %s: %s\n", dir,
                strerror(-ret));
    }
    for (size_t i = 0; i < count; i++) {
        json_decref(cells[i].parameters);
        json_decref(cells[i].metrics);
    }
    free(cells);
    return ret;
}
