/*
 * timeslices.c - profile_export_aiperf_timeslices.json and .csv (spec §1.9,
 * §2.4): per-window summaries with AIPerf's reduced statistic set.
 */
#include "export/export.h"
#include "export/export_internal.h"

#include <errno.h>
#include <string.h>

#define STAT_COUNT 7

static const char *const stat_names[STAT_COUNT] = {"avg", "min", "max", "p50", "p90", "p95", "p99"};

static void stat_values(const struct metrics_stats *s, double out[STAT_COUNT])
{
    out[0] = s->avg;
    out[1] = s->min;
    out[2] = s->max;
    out[3] = s->p50;
    out[4] = s->p90;
    out[5] = s->p95;
    out[6] = s->p99;
}

static json_t *record_json(const struct metrics_info *info, const struct metrics_stats *s)
{
    double v[STAT_COUNT];
    stat_values(s, v);
    json_t *obj = json_pack("{s:s}", "unit", info->unit);
    for (int i = 0; obj != NULL && i < STAT_COUNT; i++) {
        if (json_object_set_new(obj, stat_names[i], json_real(v[i])) != 0) {
            json_decref(obj);
            return NULL;
        }
    }
    return obj;
}

static json_t *slice_json(const struct export_timeslice *slice)
{
    const struct metrics_summary *s = slice->summary;
    json_t *obj = json_pack("{s:I}", "timeslice_index", (json_int_t)slice->index);
    int ret = obj != NULL ? 0 : -1;
    int record_ids[METRICS_ID_COUNT];
    size_t n = export__sorted_ids(s, false, record_ids);
    for (size_t i = 0; ret == 0 && i < n; i++) {
        const struct metrics_info *info = metrics_info_of(record_ids[i]);
        ret = json_object_set_new(obj, info->tag, record_json(info, &s->record[record_ids[i]]));
    }
    int scalar_ids[METRICS_SCALAR_COUNT];
    n = export__sorted_ids(s, true, scalar_ids);
    for (size_t i = 0; ret == 0 && i < n; i++) {
        const struct metrics_info *info = metrics_scalar_info_of(scalar_ids[i]);
        ret = json_object_set_new(
            obj, info->tag,
            json_pack("{s:s, s:f}", "unit", info->unit, "avg", s->scalar[scalar_ids[i]]));
    }
    if (ret != 0) {
        json_decref(obj);
        return NULL;
    }
    return obj;
}

json_t *export_timeslices_json(const struct export_timeslice *slices, size_t count,
                               json_t *input_config)
{
    json_t *list = json_array();
    for (size_t i = 0; list != NULL && i < count; i++) {
        if (json_array_append_new(list, slice_json(&slices[i])) != 0) {
            json_decref(list);
            list = NULL;
        }
    }
    if (list == NULL) {
        return NULL;
    }
    json_t *config = input_config != NULL ? json_incref(input_config) : json_object();
    return json_pack("{s:o, s:o}", "timeslices", list, "input_config", config);
}

int export_timeslices_json_write(const char *path, const struct export_timeslice *slices,
                                 size_t count, json_t *input_config)
{
    json_t *root = export_timeslices_json(slices, count, input_config);
    if (root == NULL) {
        return -ENOMEM;
    }
    int ret =
        json_dump_file(root, path, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17));
    json_decref(root);
    return ret == 0 ? 0 : -EIO;
}

static void row_start(FILE *out, uint64_t index, const struct metrics_info *info, const char *stat)
{
    fprintf(out, "%llu,", (unsigned long long)index);
    export_csv_field(out, info->header);
    fputc(',', out);
    export_csv_field(out, info->unit);
    fprintf(out, ",%s", stat);
}

static void slice_csv(FILE *out, const struct export_timeslice *slice)
{
    const struct metrics_summary *s = slice->summary;
    int record_ids[METRICS_ID_COUNT];
    size_t n = export__sorted_ids(s, false, record_ids);
    for (size_t i = 0; i < n; i++) {
        const struct metrics_info *info = metrics_info_of(record_ids[i]);
        double v[STAT_COUNT];
        stat_values(&s->record[record_ids[i]], v);
        for (int k = 0; k < STAT_COUNT; k++) {
            row_start(out, slice->index, info, stat_names[k]);
            if (k == 0) {
                fprintf(out, ",%.2f\n", v[k]); /* a mean is never an integer in AIPerf */
            } else {
                export__put_number(out, info, v[k]);
                fputc('\n', out);
            }
        }
    }
    int scalar_ids[METRICS_SCALAR_COUNT];
    n = export__sorted_ids(s, true, scalar_ids);
    for (size_t i = 0; i < n; i++) {
        const struct metrics_info *info = metrics_scalar_info_of(scalar_ids[i]);
        row_start(out, slice->index, info, "avg");
        export__put_number(out, info, s->scalar[scalar_ids[i]]);
        fputc('\n', out);
    }
}

int export_timeslices_csv(FILE *out, const struct export_timeslice *slices, size_t count)
{
    fputs("Timeslice,Metric,Unit,Stat,Value\n", out);
    for (size_t i = 0; i < count; i++) {
        slice_csv(out, &slices[i]);
    }
    return ferror(out) ? -EIO : 0;
}

int export_timeslices_csv_write(const char *path, const struct export_timeslice *slices,
                                size_t count)
{
    FILE *out = fopen(path, "w");
    if (out == NULL) {
        return -errno;
    }
    int ret = export_timeslices_csv(out, slices, count);
    if (fclose(out) != 0 && ret == 0) {
        ret = -errno;
    }
    return ret;
}
