/*
 * server_metrics.c - server_metrics_export.json (spec §6.2): the scraped Prometheus families
 * reduced over the profiling window (and the warmup's apart; with --slice-duration each series'
 * timeslices too, server_metrics_slices.c), each endpoint's fetch figures,
 * and what went wrong with an endpoint, in words. The CSV and JSONL siblings are in
 * server_metrics_files.c. Every file is written as <name>.partial and renamed when whole.
 */
#include "export/export.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export/export_internal.h"

/* number is v as JSON; a non-finite value is null, as AIPerf's scrub_non_finite makes it. */
static json_t *number(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

static json_t *labels_object(const struct scrape_label *labels, size_t n)
{
    json_t *o = json_object();
    for (size_t i = 0; o != NULL && i < n; i++) {
        json_object_set_new(o, labels[i].name, json_string(labels[i].value));
    }
    return o;
}

static void put_percentiles(json_t *o, const double *p, const char *suffix)
{
    for (size_t i = 0; i < SCRAPE_PERCENTILE_COUNT; i++) {
        char key[32];
        snprintf(key, sizeof(key), "p%g%s", scrape_percentiles[i], suffix);
        json_object_set_new(o, key, number(p[i]));
    }
}

static json_t *gauge_json(const struct scrape_gauge_stats *g)
{
    json_t *o = json_object();
    json_object_set_new(o, "avg", number(g->avg));
    json_object_set_new(o, "min", number(g->min));
    json_object_set_new(o, "max", number(g->max));
    json_object_set_new(o, "std", number(g->std));
    put_percentiles(o, g->p, "");
    return o;
}

static json_t *counter_json(const struct scrape_counter_stats *c)
{
    json_t *o = json_object();
    json_object_set_new(o, "total", number(c->total));
    json_object_set_new(o, "rate", number(c->rate));
    if (c->has_rate_stats) {
        json_object_set_new(o, "rate_avg", number(c->rate_avg));
        json_object_set_new(o, "rate_min", number(c->rate_min));
        json_object_set_new(o, "rate_max", number(c->rate_max));
        json_object_set_new(o, "rate_std", number(c->rate_std));
    }
    return o;
}

static json_t *histogram_json(const struct scrape_histogram_stats *h)
{
    json_t *o = json_object();
    json_object_set_new(o, "count", json_integer((json_int_t)h->count));
    if (h->count == 0) {
        return o; /* AIPerf: an empty window has its count alone */
    }
    json_object_set_new(o, "sum", number(h->sum));
    json_object_set_new(o, "avg", number(h->avg));
    if (h->has_rates) {
        json_object_set_new(o, "count_rate", number(h->count_rate));
        json_object_set_new(o, "sum_rate", number(h->sum_rate));
    }
    if (h->has_estimates) {
        put_percentiles(o, h->p_estimate, "_estimate");
    }
    return o;
}

json_t *export__buckets_json(const struct scrape_histogram_stats *h)
{
    json_t *b = json_object();
    for (size_t i = 0; b != NULL && i < h->bucket_count; i++) {
        json_object_set_new(b, h->bucket_le[i], json_integer((json_int_t)h->bucket_delta[i]));
    }
    return b;
}

static json_t *series_json(const struct scrape *s, const struct scrape_series_stats *se)
{
    struct scrape_endpoint_info info;
    scrape_endpoint_info_of(s, se->endpoint, &info);
    json_t *o = json_object();
    json_object_set_new(o, "endpoint_url", json_string(info.url));
    if (se->label_count > 0) {
        json_object_set_new(o, "labels", labels_object(se->labels, se->label_count));
    }
    if (se->type == PROM_HISTOGRAM) {
        json_object_set_new(o, "stats", histogram_json(&se->histogram));
        if (se->histogram.has_buckets) {
            json_object_set_new(o, "buckets", export__buckets_json(&se->histogram));
        }
    } else if (se->type == PROM_COUNTER) {
        json_object_set_new(o, "stats", counter_json(&se->counter));
    } else {
        json_object_set_new(o, "stats", gauge_json(&se->gauge));
    }
    return o;
}

static json_t *metrics_json(const struct scrape *s, const struct scrape_report *r)
{
    json_t *metrics = json_object();
    for (size_t i = 0; metrics != NULL && i < r->family_count; i++) {
        const struct scrape_family_stats *f = &r->families[i];
        json_t *fam = json_object();
        json_object_set_new(fam, "type", json_string(prom_type_name(f->type)));
        json_object_set_new(fam, "description", json_string(f->help));
        if (f->unit != NULL) {
            json_object_set_new(fam, "unit", json_string(f->unit));
        }
        json_t *series = json_array();
        for (size_t j = 0; j < f->series_count; j++) {
            json_array_append_new(series, series_json(s, &f->series[j]));
        }
        json_object_set_new(fam, "series", series);
        json_object_set_new(metrics, f->name, fam);
    }
    return metrics;
}

static json_t *endpoint_info_json(const struct scrape_endpoint_info *e)
{
    double duration_s = (double)(e->last_update_ns - e->first_update_ns) / 1e9;
    json_t *o = json_pack("{s:I, s:I, s:I, s:f, s:I, s:I, s:I, s:f, s:f, s:f}", "total_fetches",
                          (json_int_t)e->fetches, "first_fetch_ns", (json_int_t)e->first_fetch_ns,
                          "last_fetch_ns", (json_int_t)e->last_fetch_ns, "avg_fetch_latency_ms",
                          e->avg_fetch_latency_ms, "unique_updates", (json_int_t)e->unique_updates,
                          "first_update_ns", (json_int_t)e->first_update_ns, "last_update_ns",
                          (json_int_t)e->last_update_ns, "duration_seconds", duration_s,
                          "avg_update_interval_ms", e->avg_update_interval_ms,
                          "median_update_interval_ms", e->median_update_interval_ms);
    /* ringperf's own: what went wrong, so that an empty export says why. */
    json_object_set_new(o, "failed_fetches", json_integer((json_int_t)e->failures));
    if (e->dropped > 0) {
        json_object_set_new(o, "dropped_fetches", json_integer((json_int_t)e->dropped));
    }
    if (e->last_error[0] != '\0') {
        json_object_set_new(o, "last_error", json_string(e->last_error));
    }
    if (e->disabled) {
        json_object_set_new(o, "disabled_reason", json_string(e->disabled_reason));
    }
    return o;
}

static json_t *iso(int64_t wall_ns)
{
    char text[64];
    return wall_ns != 0 && export_iso_time(wall_ns, text, sizeof(text)) == 0 ? json_string(text)
                                                                             : json_null();
}

static json_t *summary_json(const struct scrape *s)
{
    json_t *configured = json_array();
    json_t *successful = json_array();
    json_t *infos = json_object();
    for (size_t i = 0; i < scrape_endpoint_count(s); i++) {
        struct scrape_endpoint_info e;
        scrape_endpoint_info_of(s, i, &e);
        json_array_append_new(configured, json_string(e.url));
        if (e.fetches > 0) {
            json_array_append_new(successful, json_string(e.url));
        }
        json_object_set_new(infos, e.url, endpoint_info_json(&e));
    }
    struct scrape_window prof = scrape_window_of(s, SCRAPE_PHASE_PROFILING);
    struct scrape_window warm = scrape_window_of(s, SCRAPE_PHASE_WARMUP);
    json_t *ranges = json_object();
    if (warm.start_ns != 0) {
        json_object_set_new(ranges, "warmup",
                            json_pack("{s:I, s:I}", "start_ns", (json_int_t)warm.start_ns, "end_ns",
                                      (json_int_t)warm.end_ns));
    }
    if (prof.start_ns != 0) {
        json_object_set_new(ranges, "profiling",
                            json_pack("{s:I, s:I}", "start_ns", (json_int_t)prof.start_ns, "end_ns",
                                      (json_int_t)prof.end_ns));
    }
    return json_pack("{s:o, s:o, s:o, s:o, s:o, s:o}", "endpoints_configured", configured,
                     "endpoints_successful", successful, "start_time", iso(prof.start_ns),
                     "end_time", iso(prof.end_ns), "endpoint_info", infos, "phase_time_ranges",
                     ranges);
}

int export__jsonw_text(struct export_jsonw *w, const char *text, size_t len)
{
    for (size_t off = 0; off < len; off += EXPORT_JSONW_PIECE_MAX) {
        size_t n = len - off < EXPORT_JSONW_PIECE_MAX ? len - off : EXPORT_JSONW_PIECE_MAX;
        export_jsonw_raw(w, text + off, n);
    }
    return w->error;
}

/* export__write_staged writes text into path through the staged .partial file. */
int export__write_staged(const char *path, const char *text, size_t len)
{
    struct export_jsonw w = {0};
    int ret = export_jsonw_open(&w, path, 1u << 20, EXPORT_OUTFILE_BUFFERED, EXPORT_OUTFILE_STAGED);
    if (ret != 0) {
        return ret;
    }
    export__jsonw_text(&w, text, len);
    return export_jsonw_close(&w);
}

static int write_json(const char *path, const struct export_server_metrics *in,
                      const struct scrape_report *prof, const struct scrape_report *warm)
{
    const struct scrape *s = in->scrape;
    json_t *metrics = metrics_json(s, prof);
    int ret = metrics != NULL
                  ? export__server_metrics_timeslices(
                        metrics, s, scrape_window_of(s, SCRAPE_PHASE_PROFILING), in->slice_ns)
                  : -ENOMEM;
    json_t *root =
        json_pack("{s:s, s:s, s:s, s:o, s:s, s:o}", "schema_version", "1.1", "aiperf_version",
                  EXPORT_AIPERF_VERSION, "benchmark_id", in->benchmark_id, "summary",
                  summary_json(s), "metrics_phase", "profiling", "metrics", metrics);
    if (root == NULL || ret != 0) {
        json_decref(root);
        return ret != 0 ? ret : -ENOMEM;
    }
    if (scrape_window_of(s, SCRAPE_PHASE_WARMUP).start_ns != 0) {
        json_object_set_new(root, "warmup_metrics", metrics_json(s, warm));
    }
    json_t *config = export_input_config(in->cfg, in->artifact_dir);
    json_object_set_new(root, "input_config", config != NULL ? config : json_object());
    char *text = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17));
    json_decref(root);
    if (text == NULL) {
        return -ENOMEM;
    }
    ret = export__write_staged(path, text, strlen(text));
    free(text);
    return ret;
}

int export_server_metrics_write(const struct export_paths *paths,
                                const struct export_server_metrics *in, const char **out_failed)
{
    struct scrape_report prof = {0};
    struct scrape_report warm = {0};
    const struct scrape *s = in->scrape;
    /* Counters' rate statistics over the slices the timeslices keep. */
    struct scrape_slicing sl = {.slice_ns = in->slice_ns, .slices_max = EXPORT_SLICES_MAX};
    int ret = scrape_reduce(s, scrape_window_of(s, SCRAPE_PHASE_PROFILING), sl, &prof);
    if (ret == 0) {
        ret = scrape_reduce(s, scrape_window_of(s, SCRAPE_PHASE_WARMUP), sl, &warm);
    }
    *out_failed = paths->server_metrics_json;
    if (ret == 0 && config_server_metrics_format(in->cfg, "json")) {
        ret = write_json(paths->server_metrics_json, in, &prof, &warm);
    }
    if (ret == 0 && config_server_metrics_format(in->cfg, "csv")) {
        *out_failed = paths->server_metrics_csv;
        ret = export__server_metrics_csv(paths->server_metrics_csv, s, &prof);
    }
    if (ret == 0 && config_server_metrics_format(in->cfg, "jsonl")) {
        *out_failed = paths->server_metrics_jsonl;
        ret = export__server_metrics_jsonl(paths->server_metrics_jsonl, s);
    }
    scrape_report_free(&prof);
    scrape_report_free(&warm);
    return ret;
}
