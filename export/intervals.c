/*
 * intervals.c - a run's records grouped by time: HdrHistogram interval logs
 * (one .hlog per record metric) and AIPerf's --slice-duration timeslices.
 *
 * Everything happens on the coordinator's thread as records arrive. Interval
 * logs group by completion time, as a load generator's live histograms do,
 * so an interval is written once the first record past its end arrives; a
 * straggler that completed earlier than the open interval (records from
 * different shards interleave) lands in the open one. Timeslices group by
 * request start time, as AIPerf does, so a window is only complete at the
 * end of the run: each keeps a small metrics_run, summarised then.
 */
#include "export/export.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int export_intervals_open(struct export_intervals *iv, int64_t start_wall_ns, int64_t slice_ns,
                          bool streaming, const struct metrics_goodput *goodput)
{
    *iv = (struct export_intervals){
        .enabled = true,
        .base_wall_ns = start_wall_ns,
        .open_start_wall_ns = start_wall_ns,
        .interval_ns = slice_ns > 0 ? slice_ns : EXPORT_HLOG_INTERVAL_NS,
    };
    for (int id = 0; id < METRICS_ID_COUNT; id++) {
        if (metrics_record_hist_new((enum metrics_id)id, 0, &iv->hist[id]) != 0) {
            export_intervals_free(iv);
            return -ENOMEM;
        }
    }
    struct metrics_run_config slice_config = {
        .streaming = streaming, .significant_figures = EXPORT_SLICE_SIGFIGS, .goodput = goodput};
    if (slice_ns > 0 && metrics_slices_init(&iv->slices, start_wall_ns, slice_ns, EXPORT_SLICES_MAX,
                                            &slice_config) != 0) {
        export_intervals_free(iv);
        return -ENOMEM;
    }
    return 0;
}

void export_intervals_free(struct export_intervals *iv)
{
    for (int id = 0; id < METRICS_ID_COUNT; id++) {
        metrics_hist_free(iv->hist[id]);
        iv->hist[id] = NULL;
        export_hlog_close(iv->log[id]);
        iv->log[id] = NULL;
    }
    metrics_slices_free(&iv->slices);
    iv->enabled = false;
}

static int open_log(struct export_intervals *iv, const char *hlog_base, enum metrics_id id)
{
    const struct metrics_info *info = metrics_info_of(id);
    char path[EXPORT_PATH_BYTES + 64];
    snprintf(path, sizeof(path), "%s_%s.hlog", hlog_base, info->tag);
    char comment[160];
    double per_display = metrics_record_hist_per_display(id);
    const char *hist_unit = per_display == 1e6 ? "ns" : per_display == 1e3 ? "milli-" : "";
    snprintf(comment, sizeof(comment), "[ringperf %s: values in %s%s, Interval_Max in %s]",
             info->tag, hist_unit, per_display == 1e6 ? "" : info->unit, info->unit);
    struct export_hlog_options opts = {
        .start_wall_ns = iv->base_wall_ns,
        .max_value_divisor = per_display,
        .comment = comment,
    };
    return export_hlog_open(path, &opts, &iv->log[id]);
}

/* flush_interval writes the open interval of every metric that has values. */
static int flush_interval(struct export_intervals *iv, const char *hlog_base)
{
    int ret = 0;
    for (int id = 0; id < METRICS_ID_COUNT && iv->open_has_values; id++) {
        struct metrics_hist *h = iv->hist[id];
        if (metrics_hist_count(h) == 0) {
            continue;
        }
        if (iv->log[id] == NULL && ret == 0) {
            ret = open_log(iv, hlog_base, (enum metrics_id)id);
        }
        if (ret == 0) {
            ret = export_hlog_write(iv->log[id], iv->open_start_wall_ns, iv->interval_ns, h);
        }
        metrics_hist_reset(h);
    }
    iv->open_has_values = false;
    return ret;
}

/* logged says whether metric `id` gets an interval log: not the HTTP trace's phases and
 * counts, whose distributions the summary files hold, and which would double the logs and
 * their cost per request. */
static bool logged(int id)
{
    return (metrics_info_of((enum metrics_id)id)->flags & METRICS_F_HTTP_TRACE) == 0;
}

static void record_values(struct export_intervals *iv, const struct metrics_record *m)
{
    for (int id = 0; id < METRICS_ID_COUNT; id++) {
        if (id != METRICS_ICL && m->values.has[id] && logged(id)) {
            metrics_hist_record(
                iv->hist[id], metrics_record_hist_value((enum metrics_id)id, m->values.value[id]));
            iv->open_has_values = true;
        }
    }
    uint32_t gaps = metrics_request_icl_count(&m->request);
    for (uint32_t i = 0; i < gaps; i++) {
        metrics_hist_record(iv->hist[METRICS_ICL], metrics_request_icl_ns(&m->request, i));
        iv->open_has_values = true;
    }
}

int export_intervals_add(struct export_intervals *iv, const char *hlog_base,
                         const struct record *rec, const struct metrics_record *m)
{
    if (!iv->enabled) {
        return 0;
    }
    int64_t done = metrics_record_wall_ns(rec, rec->end_ns);
    int ret = 0;
    if (done >= iv->open_start_wall_ns + iv->interval_ns) {
        ret = flush_interval(iv, hlog_base);
        int64_t k = (done - iv->base_wall_ns) / iv->interval_ns;
        iv->open_start_wall_ns = iv->base_wall_ns + k * iv->interval_ns;
    }
    record_values(iv, m);
    if (iv->slices.slice_ns > 0 && ret == 0) {
        ret = metrics_slices_add(&iv->slices, rec, m);
    }
    if (ret != 0 && iv->error == 0) {
        iv->error = ret;
    }
    return iv->error;
}

int export_intervals_add_part(struct export_intervals *iv, const char *hlog_base,
                              const struct metrics_run *part, int64_t start_wall_ns,
                              int64_t end_wall_ns)
{
    int ret = 0;
    for (int id = 0; id < METRICS_ID_COUNT && ret == 0; id++) {
        const struct metrics_hist *h = metrics_run_record_hist(part, (enum metrics_id)id);
        if (!logged(id) || metrics_hist_count(h) == 0) {
            continue;
        }
        if (iv->log[id] == NULL) {
            ret = open_log(iv, hlog_base, (enum metrics_id)id);
        }
        if (ret == 0) {
            ret = export_hlog_write(iv->log[id], start_wall_ns, end_wall_ns - start_wall_ns, h);
        }
    }
    if (ret != 0 && iv->error == 0) {
        iv->error = ret;
    }
    return iv->error;
}

int export_intervals_close(struct export_intervals *iv, const char *hlog_base)
{
    if (!iv->enabled) {
        return 0;
    }
    int ret = flush_interval(iv, hlog_base);
    for (int id = 0; id < METRICS_ID_COUNT; id++) {
        int close_ret = export_hlog_close(iv->log[id]);
        iv->log[id] = NULL;
        ret = ret != 0 ? ret : close_ret;
    }
    if (ret != 0 && iv->error == 0) {
        iv->error = ret;
    }
    return iv->error;
}

int export_intervals_write_timeslices(const struct export_intervals *iv,
                                      const struct export_paths *paths, json_t *input_config,
                                      int64_t end_wall_ns)
{
    const struct metrics_slices *sl = &iv->slices;
    if (!iv->enabled || sl->slice_ns == 0) {
        return 0;
    }
    size_t used = 0;
    for (size_t i = 0; i < sl->count; i++) {
        used += sl->runs[i] != NULL;
    }
    struct metrics_summary *sums = calloc(used > 0 ? used : 1, sizeof(*sums));
    struct export_timeslice *list = calloc(used > 0 ? used : 1, sizeof(*list));
    int ret = sums != NULL && list != NULL ? 0 : -ENOMEM;
    size_t n = 0;
    for (size_t i = 0; ret == 0 && i < sl->count; i++) {
        if (sl->runs[i] == NULL) {
            continue;
        }
        int64_t start = sl->base_wall_ns + (int64_t)i * sl->slice_ns;
        if (i + 1 == sl->count && end_wall_ns > start && end_wall_ns < start + sl->slice_ns) {
            metrics_run_set_window(sl->runs[i], start, end_wall_ns); /* partial last window */
        }
        metrics_run_summarize(sl->runs[i], &sums[n]);
        list[n] = (struct export_timeslice){.index = i, .summary = &sums[n]};
        n++;
    }
    if (ret == 0) {
        ret = export_timeslices_json_write(paths->timeslices_json, list, n, input_config);
    }
    if (ret == 0) {
        ret = export_timeslices_csv_write(paths->timeslices_csv, list, n);
    }
    free(sums);
    free(list);
    return ret;
}
