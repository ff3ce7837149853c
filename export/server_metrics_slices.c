/*
 * server_metrics_slices.c - the `timeslices` of server_metrics_export.json's series (spec §6.2)
 * with --slice-duration: the profiling window cut into slices of that length from its start
 * (the last one partial, marked is_complete: false), each reduced as a window of its own, in
 * one pass over the samples, and each series' statistics in each slice appended to that
 * series' list: gauges' avg, min and max, counters' total and rate, histograms' count, sum, avg
 * and bucket deltas. Only the first EXPORT_SLICES_MAX slices, as the request timeslices.
 */
#include "export/export.h"

#include <errno.h>
#include <math.h>
#include <string.h>

#include "export/export_internal.h"

static json_t *number(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

/* same_labels reports whether the JSON labels object (NULL: none) holds exactly se's labels. */
static bool same_labels(const json_t *labels, const struct scrape_series_stats *se)
{
    if (json_object_size(labels) != se->label_count) {
        return false;
    }
    for (size_t i = 0; i < se->label_count; i++) {
        const char *v = json_string_value(json_object_get(labels, se->labels[i].name));
        if (v == NULL || strcmp(v, se->labels[i].value) != 0) {
            return false;
        }
    }
    return true;
}

/* series_of finds the exported series of family `name` that se (a slice's) is. */
static json_t *series_of(json_t *metrics, const char *name, const char *url,
                         const struct scrape_series_stats *se)
{
    json_t *list = json_object_get(json_object_get(metrics, name), "series");
    size_t i;
    json_t *o;
    json_array_foreach(list, i, o)
    {
        const char *u = json_string_value(json_object_get(o, "endpoint_url"));
        if (u != NULL && strcmp(u, url) == 0 && same_labels(json_object_get(o, "labels"), se)) {
            return o;
        }
    }
    return NULL;
}

/* slice_entry is one series' statistics in slice w. */
static json_t *slice_entry(const struct scrape_series_stats *se, struct scrape_window w,
                           bool complete)
{
    json_t *e =
        json_pack("{s:I, s:I}", "start_ns", (json_int_t)w.start_ns, "end_ns", (json_int_t)w.end_ns);
    if (e == NULL) {
        return NULL;
    }
    if (!complete) {
        json_object_set_new(e, "is_complete", json_false());
    }
    if (se->type == PROM_HISTOGRAM) {
        const struct scrape_histogram_stats *h = &se->histogram;
        json_object_set_new(e, "count", json_integer((json_int_t)h->count));
        json_object_set_new(e, "sum", number(h->count > 0 ? h->sum : 0));
        json_object_set_new(e, "avg", number(h->count > 0 ? h->avg : NAN));
        if (h->has_buckets) {
            json_object_set_new(e, "buckets", export__buckets_json(h));
        }
    } else if (se->type == PROM_COUNTER) {
        json_object_set_new(e, "total", number(se->counter.total));
        json_object_set_new(e, "rate", number(se->counter.rate));
    } else {
        json_object_set_new(e, "avg", number(se->gauge.avg));
        json_object_set_new(e, "min", number(se->gauge.min));
        json_object_set_new(e, "max", number(se->gauge.max));
    }
    return e;
}

/* add_slice appends slice w's entry to every exported series that has data in it. */
static void add_slice(json_t *metrics, const struct scrape *s, const struct scrape_report *r,
                      struct scrape_window w, bool complete)
{
    for (size_t f = 0; f < r->family_count; f++) {
        const struct scrape_family_stats *fam = &r->families[f];
        for (size_t j = 0; j < fam->series_count; j++) {
            const struct scrape_series_stats *se = &fam->series[j];
            struct scrape_endpoint_info info;
            scrape_endpoint_info_of(s, se->endpoint, &info);
            json_t *series = series_of(metrics, fam->name, info.url, se);
            if (series == NULL) {
                continue; /* not in the whole window's export (cannot be, but never invent one) */
            }
            json_t *list = json_object_get(series, "timeslices");
            if (list == NULL) {
                list = json_array();
                json_object_set_new(series, "timeslices", list);
            }
            json_array_append_new(list, slice_entry(se, w, complete));
        }
    }
}

struct slices_out {
    json_t *metrics;
    const struct scrape *s;
    int64_t slice_ns;
};

static int on_slice(void *ctx, struct scrape_window slice, const struct scrape_report *r)
{
    const struct slices_out *o = ctx;
    add_slice(o->metrics, o->s, r, slice, slice.end_ns - slice.start_ns == o->slice_ns);
    return 0;
}

int export__server_metrics_timeslices(json_t *metrics, const struct scrape *s,
                                      struct scrape_window w, int64_t slice_ns)
{
    /* As the request timeslices (intervals.c): windows past EXPORT_SLICES_MAX are left out. */
    struct scrape_slicing sl = {.slice_ns = slice_ns, .slices_max = EXPORT_SLICES_MAX};
    struct slices_out o = {.metrics = metrics, .s = s, .slice_ns = slice_ns};
    return scrape_reduce_slices(s, w, sl, on_slice, &o);
}

uint64_t export_server_metrics_slices_left_out(const struct export_server_metrics *in)
{
    struct scrape_window w = scrape_window_of(in->scrape, SCRAPE_PHASE_PROFILING);
    if (in->slice_ns <= 0 || w.start_ns == 0 || w.end_ns <= w.start_ns) {
        return 0;
    }
    uint64_t span = (uint64_t)(w.end_ns - w.start_ns);
    uint64_t slices = span / (uint64_t)in->slice_ns + (span % (uint64_t)in->slice_ns != 0);
    return slices > EXPORT_SLICES_MAX ? slices - EXPORT_SLICES_MAX : 0;
}
