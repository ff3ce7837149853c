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

int export_intervals_open(struct export_intervals *iv, int64_t start_wall_ns, int64_t slice_ns)
{
    *iv = (struct export_intervals){
        .enabled = true,
        .base_wall_ns = start_wall_ns,
        .open_start_wall_ns = start_wall_ns,
        .interval_ns = slice_ns > 0 ? slice_ns : EXPORT_HLOG_INTERVAL_NS,
        .slice_ns = slice_ns > 0 ? slice_ns : 0,
    };
    for (int id = 0; id < METRICS_ID_COUNT; id++) {
        if (metrics_record_hist_new((enum metrics_id)id, 0, &iv->hist[id]) != 0) {
            export_intervals_free(iv);
            return -ENOMEM;
        }
    }
    if (iv->slice_ns > 0) {
        iv->slices = calloc(EXPORT_SLICES_MAX, sizeof(*iv->slices));
        if (iv->slices == NULL) {
            export_intervals_free(iv);
            return -ENOMEM;
        }
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
    for (size_t i = 0; iv->slices != NULL && i < iv->slice_count; i++) {
        metrics_run_free(iv->slices[i]);
    }
    free(iv->slices);
    iv->slices = NULL;
    iv->slice_count = 0;
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

/* slice_at returns in *out slice `index` (< EXPORT_SLICES_MAX), made when it has none yet.
 * Returns 0 or -ENOMEM. */
static int slice_at(struct export_intervals *iv, uint64_t index, bool streaming,
                    const struct metrics_goodput *goodput, struct metrics_run **out)
{
    if (iv->slices[index] == NULL) {
        struct metrics_run_config cfg = {.streaming = streaming,
                                         .significant_figures = EXPORT_SLICE_SIGFIGS,
                                         .goodput = goodput};
        int ret = metrics_run_new(&cfg, &iv->slices[index]);
        if (ret != 0) {
            return ret;
        }
        int64_t start = iv->base_wall_ns + (int64_t)index * iv->slice_ns;
        metrics_run_set_window(iv->slices[index], start, start + iv->slice_ns);
    }
    if (index + 1 > iv->slice_count) {
        iv->slice_count = index + 1;
    }
    *out = iv->slices[index];
    return 0;
}

static int add_to_slice(struct export_intervals *iv, const struct record *rec,
                        const struct metrics_record *m, bool streaming,
                        const struct metrics_goodput *goodput)
{
    if (rec->wall_start_ns == 0 || rec->wall_start_ns < iv->base_wall_ns) {
        return 0; /* never sent, or sent before profiling began: no window */
    }
    uint64_t index = (uint64_t)(rec->wall_start_ns - iv->base_wall_ns) / (uint64_t)iv->slice_ns;
    if (index >= EXPORT_SLICES_MAX) {
        iv->slice_records_dropped++;
        return 0;
    }
    struct metrics_run *run = NULL;
    int ret = slice_at(iv, index, streaming, goodput, &run);
    if (ret == 0) {
        metrics_run_add(run, &m->request, &m->values);
    }
    return ret;
}

int export_intervals_merge_slice(struct export_intervals *iv, uint64_t index,
                                 const struct metrics_run *part, bool streaming,
                                 const struct metrics_goodput *goodput)
{
    if (!iv->enabled || iv->slice_ns == 0 || index >= EXPORT_SLICES_MAX) {
        return -EINVAL;
    }
    struct metrics_run *run = NULL;
    int ret = slice_at(iv, index, streaming, goodput, &run);
    return ret != 0 ? ret : metrics_run_merge(run, part);
}

int export_intervals_add(struct export_intervals *iv, const char *hlog_base,
                         const struct record *rec, const struct metrics_record *m, bool streaming,
                         const struct metrics_goodput *goodput)
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
    if (iv->slice_ns > 0 && ret == 0) {
        ret = add_to_slice(iv, rec, m, streaming, goodput);
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
    if (!iv->enabled || iv->slice_ns == 0) {
        return 0;
    }
    size_t used = 0;
    for (size_t i = 0; i < iv->slice_count; i++) {
        used += iv->slices[i] != NULL;
    }
    struct metrics_summary *sums = calloc(used > 0 ? used : 1, sizeof(*sums));
    struct export_timeslice *list = calloc(used > 0 ? used : 1, sizeof(*list));
    int ret = sums != NULL && list != NULL ? 0 : -ENOMEM;
    size_t n = 0;
    for (size_t i = 0; ret == 0 && i < iv->slice_count; i++) {
        if (iv->slices[i] == NULL) {
            continue;
        }
        int64_t start = iv->base_wall_ns + (int64_t)i * iv->slice_ns;
        if (i + 1 == iv->slice_count && end_wall_ns > start && end_wall_ns < start + iv->slice_ns) {
            metrics_run_set_window(iv->slices[i], start, end_wall_ns); /* partial last window */
        }
        metrics_run_summarize(iv->slices[i], &sums[n]);
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
