/*
 * summary_csv.c - profile_export_aiperf.csv (spec §1.9): record metrics with
 * their statistics, a blank line, then the scalar metrics.
 */
#include "export/export.h"
#include "export/export_internal.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void export_metric_label(const struct metrics_info *info, char *out, size_t cap)
{
    if (cap == 0) {
        return;
    }
    /* AIPerf's CSV leaves the unit out for counts of requests and of things. */
    if (strcmp(info->unit, "requests") == 0 || strcmp(info->unit, "count") == 0) {
        snprintf(out, cap, "%s", info->header);
    } else {
        snprintf(out, cap, "%s (%s)", info->header, info->unit);
    }
}

void export_csv_field(FILE *out, const char *s)
{
    if (strpbrk(s, ",\"\r\n") == NULL) {
        fputs(s, out);
        return;
    }
    fputc('"', out);
    for (; *s != '\0'; s++) {
        if (*s == '"') {
            fputc('"', out);
        }
        fputc(*s, out);
    }
    fputc('"', out);
}

void export__put_number(FILE *out, const struct metrics_info *info, double v)
{
    if ((info->flags & METRICS_F_INTEGER) != 0 && v == floor(v) && fabs(v) < 9.2e18) {
        fprintf(out, ",%lld", (long long)v);
    } else {
        fprintf(out, ",%.2f", v);
    }
}

static int compare_tags(const void *a, const void *b)
{
    const struct metrics_info *x = *(const struct metrics_info *const *)a;
    const struct metrics_info *y = *(const struct metrics_info *const *)b;
    return strcmp(x->tag, y->tag);
}

size_t export__sorted_ids(const struct metrics_summary *s, bool scalar, int *ids)
{
    const struct metrics_info *infos[METRICS_ID_COUNT + METRICS_SCALAR_COUNT];
    size_t n = 0;
    int count = scalar ? METRICS_SCALAR_COUNT : METRICS_ID_COUNT;
    for (int id = 0; id < count; id++) {
        if (scalar ? s->scalar_present[id] : s->record_present[id]) {
            infos[n++] = scalar ? metrics_scalar_info_of(id) : metrics_info_of(id);
        }
    }
    qsort(infos, n, sizeof(infos[0]), compare_tags);
    for (size_t i = 0; i < n; i++) {
        for (int id = 0; id < count; id++) {
            if ((scalar ? metrics_scalar_info_of(id) : metrics_info_of(id)) == infos[i]) {
                ids[i] = id;
            }
        }
    }
    return n;
}

/* csv_row is one row of the record section: a metric, its error-adjusted adj_<tag>, or a
 * sweep-line metric. */
struct csv_row {
    char tag[96];
    int id;
    enum { ROW_RECORD, ROW_ADJ, ROW_SWEEP } kind;
};

static int compare_rows(const void *a, const void *b)
{
    return strcmp(((const struct csv_row *)a)->tag, ((const struct csv_row *)b)->tag);
}

/* put_stat writes one statistic; a non-finite value (a failure counted as +Inf) is an empty
 * cell, as AIPerf scrubs it to None. */
static void put_stat(FILE *out, const struct metrics_info *info, double v, bool integer_ok)
{
    if (!isfinite(v)) {
        fputc(',', out);
    } else if (integer_ok) {
        export__put_number(out, info, v);
    } else {
        fprintf(out, ",%.2f", v);
    }
}

static void put_record_row(FILE *out, const struct metrics_info *info,
                           const struct metrics_stats *st)
{
    const double values[] = {st->avg, st->min, st->max, st->sum, st->p1,  st->p5,  st->p10,
                             st->p25, st->p50, st->p75, st->p90, st->p95, st->p99, st->std};
    char label[160];
    export_metric_label(info, label, sizeof(label));
    export_csv_field(out, label);
    for (size_t v = 0; v < sizeof(values) / sizeof(values[0]); v++) {
        /* avg and std are means and spreads: never integers in AIPerf. */
        put_stat(out, info, values[v], v != 0 && v != 13);
    }
    fputc('\n', out);
}

/* put_adj_row writes AIPerf's adj_<tag> row: the parent's header with "(error-adjusted)",
 * each failure one more +Inf, so avg, max and sum are not finite; no std. */
static void put_adj_row(FILE *out, const struct metrics_info *info, const struct metrics_adj *adj)
{
    struct metrics_info adj_info = *info;
    char header[128];
    snprintf(header, sizeof(header), "%s (error-adjusted)", info->header);
    adj_info.header = header;
    char label[160];
    export_metric_label(&adj_info, label, sizeof(label));
    export_csv_field(out, label);
    put_stat(out, info, INFINITY, false);                             /* avg */
    put_stat(out, info, adj->has_min ? adj->min : (double)NAN, true); /* min */
    put_stat(out, info, INFINITY, true);                              /* max */
    put_stat(out, info, INFINITY, true);                              /* sum */
    for (int i = 0; i < METRICS_ADJ_PERCENTILES; i++) {
        put_stat(out, info, adj->finite[i] ? adj->percentile[i] : (double)INFINITY, true);
    }
    fputs(",\n", out); /* std: None */
}

/* put_sweep_row writes a sweep-line metric's row: AIPerf keeps no sum, p1..p25 or p75 of those,
 * so their cells are empty. */
static void put_sweep_row(FILE *out, const struct metrics_info *info,
                          const struct metrics_sweep_stats *st)
{
    char label[160];
    export_metric_label(info, label, sizeof(label));
    export_csv_field(out, label);
    fprintf(out, ",%.2f,%.2f,%.2f,,,,,,%.2f,,%.2f,%.2f,%.2f,%.2f\n", st->avg, st->min, st->max,
            st->p50, st->p90, st->p95, st->p99, st->std);
}

static void record_section(FILE *out, const struct metrics_summary *s)
{
    struct csv_row rows[2 * METRICS_ID_COUNT + METRICS_SWEEP_COUNT];
    size_t n = 0;
    for (int id = 0; id < METRICS_ID_COUNT; id++) {
        const char *tag = metrics_info_of(id)->tag;
        if (s->record_present[id]) {
            rows[n] = (struct csv_row){.id = id, .kind = ROW_RECORD};
            snprintf(rows[n++].tag, sizeof(rows[0].tag), "%s", tag);
        }
        if (s->adj_present[id]) {
            rows[n] = (struct csv_row){.id = id, .kind = ROW_ADJ};
            snprintf(rows[n++].tag, sizeof(rows[0].tag), "adj_%s", tag);
        }
    }
    for (int id = 0; s->sweep.present && id < METRICS_SWEEP_COUNT; id++) {
        rows[n] = (struct csv_row){.id = id, .kind = ROW_SWEEP};
        snprintf(rows[n++].tag, sizeof(rows[0].tag), "%s",
                 metrics_sweep_info_of((enum metrics_sweep_id)id)->tag);
    }
    qsort(rows, n, sizeof(rows[0]), compare_rows);
    fputs("Metric,avg,min,max,sum,p1,p5,p10,p25,p50,p75,p90,p95,p99,std\n", out);
    for (size_t i = 0; i < n; i++) {
        int id = rows[i].id;
        if (rows[i].kind == ROW_SWEEP) {
            put_sweep_row(out, metrics_sweep_info_of((enum metrics_sweep_id)id),
                          &s->sweep.stat[id]);
        } else if (rows[i].kind == ROW_ADJ) {
            put_adj_row(out, metrics_info_of(id), &s->adj[id]);
        } else {
            put_record_row(out, metrics_info_of(id), &s->record[id]);
        }
    }
}

static void scalar_section(FILE *out, const struct metrics_summary *s)
{
    int ids[METRICS_SCALAR_COUNT];
    size_t n = export__sorted_ids(s, true, ids);
    fputs("Metric,Value\n", out);
    for (size_t i = 0; i < n; i++) {
        const struct metrics_info *info = metrics_scalar_info_of(ids[i]);
        char label[160];
        export_metric_label(info, label, sizeof(label));
        export_csv_field(out, label);
        export__put_number(out, info, s->scalar[ids[i]]);
        fputc('\n', out);
    }
}

int export_summary_csv(FILE *out, const struct metrics_summary *summary)
{
    record_section(out, summary);
    fputc('\n', out);
    scalar_section(out, summary);
    return ferror(out) ? -EIO : 0;
}

int export_summary_csv_write(const char *path, const struct metrics_summary *summary,
                             const json_t *telemetry_data)
{
    FILE *out = fopen(path, "w");
    if (out == NULL) {
        return -errno;
    }
    int ret = export_summary_csv(out, summary);
    if (ret == 0 && telemetry_data != NULL) {
        ret = export_telemetry_csv(out, telemetry_data);
    }
    if (fclose(out) != 0 && ret == 0) {
        ret = -errno;
    }
    return ret;
}
