/*
 * server_metrics_files.c - server_metrics_export.csv (one section per Prometheus type, spec
 * §6.1) and server_metrics_export.jsonl (one "slim" line per kept fetch).
 */
#include "export/export.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export/export_internal.h"

/* The label names of one section's series, in first-seen order. */
struct label_columns {
    const char *names[PROM_LABELS_MAX * 4];
    size_t count;
};

static void collect_labels(const struct scrape_report *r, enum prom_type type,
                           struct label_columns *cols)
{
    cols->count = 0;
    for (size_t i = 0; i < r->family_count; i++) {
        const struct scrape_family_stats *f = &r->families[i];
        for (size_t j = 0; j < f->series_count; j++) {
            if (f->series[j].type != type) {
                continue;
            }
            for (size_t k = 0; k < f->series[j].label_count; k++) {
                const char *name = f->series[j].labels[k].name;
                bool seen = false;
                for (size_t c = 0; c < cols->count && !seen; c++) {
                    seen = strcmp(cols->names[c], name) == 0;
                }
                if (!seen && cols->count < sizeof(cols->names) / sizeof(cols->names[0])) {
                    cols->names[cols->count++] = name;
                }
            }
        }
    }
}

static void put_number(FILE *out, double v, bool present)
{
    fputc(',', out);
    if (present && isfinite(v)) {
        fprintf(out, "%.17g", v);
    }
}

static void put_stats(FILE *out, const struct scrape_series_stats *se)
{
    if (se->type == PROM_COUNTER) {
        const struct scrape_counter_stats *c = &se->counter;
        put_number(out, c->total, true);
        put_number(out, c->rate, true);
        put_number(out, c->rate_avg, c->has_rate_stats);
        put_number(out, c->rate_min, c->has_rate_stats);
        put_number(out, c->rate_max, c->has_rate_stats);
        put_number(out, c->rate_std, c->has_rate_stats);
        return;
    }
    if (se->type == PROM_HISTOGRAM) {
        const struct scrape_histogram_stats *h = &se->histogram;
        put_number(out, h->count, true);
        put_number(out, h->count_rate, h->has_rates);
        put_number(out, h->sum, h->count > 0);
        put_number(out, h->sum_rate, h->has_rates);
        put_number(out, h->avg, h->count > 0);
        for (size_t i = 0; i < SCRAPE_PERCENTILE_COUNT; i++) {
            put_number(out, h->p_estimate[i], h->has_estimates);
        }
        return;
    }
    const struct scrape_gauge_stats *g = &se->gauge;
    const double head[] = {g->avg, g->min, g->max, g->std};
    for (size_t i = 0; i < 4; i++) {
        put_number(out, head[i], true);
    }
    for (size_t i = 0; i < SCRAPE_PERCENTILE_COUNT; i++) {
        put_number(out, g->p[i], true);
    }
}

static void put_header(FILE *out, enum prom_type type, const struct label_columns *cols)
{
    fputs("Endpoint,Type,Metric,Unit", out);
    for (size_t i = 0; i < cols->count; i++) {
        fputc(',', out);
        export_csv_field(out, cols->names[i]);
    }
    if (type == PROM_COUNTER) {
        fputs(",total,rate,rate_avg,rate_min,rate_max,rate_std", out);
    } else if (type == PROM_HISTOGRAM) {
        fputs(",count,count_rate,sum,sum_rate,avg", out);
        for (size_t i = 0; i < SCRAPE_PERCENTILE_COUNT; i++) {
            fprintf(out, ",p%g_estimate", scrape_percentiles[i]);
        }
    } else {
        fputs(",avg,min,max,std", out);
        for (size_t i = 0; i < SCRAPE_PERCENTILE_COUNT; i++) {
            fprintf(out, ",p%g", scrape_percentiles[i]);
        }
    }
    fputs(",Description\n", out);
}

static void put_row(FILE *out, const struct scrape *s, const struct scrape_family_stats *f,
                    const struct scrape_series_stats *se, const struct label_columns *cols)
{
    struct scrape_endpoint_info info;
    scrape_endpoint_info_of(s, se->endpoint, &info);
    export_csv_field(out, info.url);
    fprintf(out, ",%s,", prom_type_name(f->type));
    export_csv_field(out, f->name);
    fputc(',', out);
    export_csv_field(out, f->unit != NULL ? f->unit : "");
    for (size_t c = 0; c < cols->count; c++) {
        fputc(',', out);
        for (size_t k = 0; k < se->label_count; k++) {
            if (strcmp(se->labels[k].name, cols->names[c]) == 0) {
                export_csv_field(out, se->labels[k].value);
            }
        }
    }
    put_stats(out, se);
    fputc(',', out);
    export_csv_field(out, f->help);
    fputc('\n', out);
}

/* section writes the rows of one type; untyped families go with the gauges. */
static void section(FILE *out, const struct scrape *s, const struct scrape_report *r,
                    enum prom_type type, bool *first)
{
    struct label_columns cols;
    collect_labels(r, type, &cols);
    bool header = false;
    for (size_t i = 0; i < r->family_count; i++) {
        const struct scrape_family_stats *f = &r->families[i];
        for (size_t j = 0; j < f->series_count; j++) {
            const struct scrape_series_stats *se = &f->series[j];
            bool gaugeish = se->type == PROM_GAUGE || se->type == PROM_UNTYPED;
            if (se->type != type && !(type == PROM_GAUGE && gaugeish)) {
                continue;
            }
            if (!header) {
                fputs(*first ? "" : "\n", out);
                *first = false;
                put_header(out, type, &cols);
                header = true;
            }
            put_row(out, s, f, se, &cols);
        }
    }
}

int export__server_metrics_csv(const char *path, const struct scrape *s,
                               const struct scrape_report *r)
{
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    if (out == NULL) {
        return -ENOMEM;
    }
    bool first = true;
    section(out, s, r, PROM_GAUGE, &first);
    section(out, s, r, PROM_COUNTER, &first);
    section(out, s, r, PROM_HISTOGRAM, &first);
    int ret = fclose(out) == 0 ? export__write_staged(path, text, len) : -ENOMEM;
    free(text);
    return ret;
}

static json_t *number(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

/* entry_for returns the entry of sample v in its family's array: the last one when v belongs to
 * the same histogram series, else a new one. */
static json_t *entry_for(json_t *metrics, const struct scrape_sample_view *v, size_t *last_group)
{
    json_t *arr = json_object_get(metrics, v->family);
    if (arr == NULL) {
        arr = json_array();
        json_object_set_new(metrics, v->family, arr);
    }
    bool histogram = v->type == PROM_HISTOGRAM && v->suffix != PROM_SUFFIX_NONE;
    if (histogram && *last_group == v->group && json_array_size(arr) > 0) {
        return json_array_get(arr, json_array_size(arr) - 1);
    }
    *last_group = v->group;
    json_t *entry = json_object();
    if (v->label_count > 0) {
        json_t *labels = json_object();
        for (size_t i = 0; i < v->label_count; i++) {
            json_object_set_new(labels, v->labels[i].name, json_string(v->labels[i].value));
        }
        json_object_set_new(entry, "labels", labels);
    }
    json_array_append_new(arr, entry);
    return entry;
}

static void put_sample(json_t *entry, const struct scrape_sample_view *v)
{
    if (v->type != PROM_HISTOGRAM || v->suffix == PROM_SUFFIX_NONE) {
        json_object_set_new(entry, "value", number(v->value));
    } else if (v->suffix == PROM_SUFFIX_BUCKET) {
        json_t *buckets = json_object_get(entry, "buckets");
        if (buckets == NULL) {
            buckets = json_object();
            json_object_set_new(entry, "buckets", buckets);
        }
        json_object_set_new(buckets, v->le != NULL ? v->le : "", number(v->value));
    } else {
        json_object_set_new(entry, v->suffix == PROM_SUFFIX_SUM ? "sum" : "count",
                            number(v->value));
    }
}

static const char *phase_of(const struct scrape *s, int64_t t)
{
    static const char *const names[SCRAPE_PHASE_COUNT] = {"warmup", "profiling"};
    for (int p = 0; p < SCRAPE_PHASE_COUNT; p++) {
        struct scrape_window w = scrape_window_of(s, (enum scrape_phase_kind)p);
        if (w.start_ns != 0 && t >= w.start_ns && t <= w.end_ns) {
            return names[p];
        }
    }
    return NULL;
}

static json_t *record_line(const struct scrape *s, size_t i)
{
    struct scrape_record rec;
    size_t n = scrape_record_at(s, i, &rec);
    struct scrape_endpoint_info info;
    scrape_endpoint_info_of(s, rec.endpoint, &info);
    json_t *metrics = json_object();
    size_t last_group = SIZE_MAX;
    for (size_t j = 0; j < n; j++) {
        struct scrape_sample_view v;
        scrape_record_sample(s, i, j, &v);
        put_sample(entry_for(metrics, &v, &last_group), &v);
    }
    json_t *line =
        json_pack("{s:s, s:I, s:I, s:o, s:I, s:I}", "endpoint_url", info.url, "timestamp_ns",
                  (json_int_t)rec.timestamp_ns, "endpoint_latency_ns", (json_int_t)rec.latency_ns,
                  "metrics", metrics, "request_sent_ns", (json_int_t)rec.request_sent_ns,
                  "first_byte_ns", (json_int_t)rec.first_byte_ns);
    const char *phase = phase_of(s, rec.timestamp_ns);
    if (line != NULL && phase != NULL) {
        json_object_set_new(line, "benchmark_phase", json_string(phase));
    }
    return line;
}

int export__server_metrics_jsonl(const char *path, const struct scrape *s)
{
    struct export_jsonw w = {0};
    int ret = export_jsonw_open(&w, path, 1u << 20, EXPORT_OUTFILE_BUFFERED, EXPORT_OUTFILE_STAGED);
    if (ret != 0) {
        return ret;
    }
    for (size_t i = 0; i < scrape_record_count(s) && ret == 0; i++) {
        json_t *line = record_line(s, i);
        char *text =
            line != NULL
                ? json_dumps(line, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17))
                : NULL;
        json_decref(line);
        if (text == NULL) {
            ret = -ENOMEM;
            break;
        }
        export__jsonw_text(&w, text, strlen(text));
        export_jsonw_raw(&w, "\n", 1);
        free(text);
    }
    int close_ret = export_jsonw_close(&w);
    return ret != 0 ? ret : close_ret;
}
