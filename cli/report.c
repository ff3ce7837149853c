/*
 * report.c - the console report, laid out like AIPerf's (spec §3.1): a metrics
 * table with avg, min, max, p99, p90, p50 and std per metric, then the error
 * summary. Box-drawing characters as AIPerf's Rich tables use them.
 */
#include "cli/cli_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define COL_COUNT 8
#define LABEL_WIDTH 38
#define STAT_WIDTH 11

void cli_format_number(char *out, size_t cap, double v)
{
    char digits[64];
    snprintf(digits, sizeof(digits), "%.2f", fabs(v));
    const char *dot = strchr(digits, '.');
    size_t int_len = dot != NULL ? (size_t)(dot - digits) : strlen(digits);
    size_t len = 0;
    if (v < 0 && len + 1 < cap) {
        out[len++] = '-';
    }
    for (size_t i = 0; i < int_len && len + 1 < cap; i++) {
        if (i > 0 && (int_len - i) % 3 == 0 && len + 1 < cap) {
            out[len++] = ',';
        }
        out[len++] = digits[i];
    }
    for (const char *p = dot; p != NULL && *p != '\0' && len + 1 < cap; p++) {
        out[len++] = *p;
    }
    out[len < cap ? len : cap - 1] = '\0';
}

static void repeat(FILE *out, const char *s, int n)
{
    for (int i = 0; i < n; i++) {
        fputs(s, out);
    }
}

static void rule(FILE *out, const char *left, const char *fill, const char *mid, const char *right)
{
    fputs(left, out);
    for (int c = 0; c < COL_COUNT; c++) {
        repeat(out, fill, (c == 0 ? LABEL_WIDTH : STAT_WIDTH) + 2);
        fputs(c + 1 < COL_COUNT ? mid : right, out);
    }
    fputc('\n', out);
}

static void row(FILE *out, const char *bar, const char *cells[COL_COUNT])
{
    fputs(bar, out);
    for (int c = 0; c < COL_COUNT; c++) {
        fprintf(out, " %*s %s", c == 0 ? LABEL_WIDTH : STAT_WIDTH, cells[c], bar);
    }
    fputc('\n', out);
}

static void stat_row(FILE *out, const char *label, const double *values, const bool *present)
{
    char text[COL_COUNT][32];
    const char *cells[COL_COUNT] = {label};
    for (int c = 1; c < COL_COUNT; c++) {
        if (present[c]) {
            cli_format_number(text[c], sizeof(text[c]), values[c]);
        } else {
            snprintf(text[c], sizeof(text[c]), "N/A");
        }
        cells[c] = text[c];
    }
    row(out, "│", cells);
}

static void metric_rows(FILE *out, const struct cli_results *results)
{
    const struct cli_metric_info *infos = cli_metric_infos();
    for (int m = 0; m < CLI_METRIC_COUNT; m++) {
        /* AIPerf keeps inter-chunk latency out of the console table. */
        if (m == CLI_METRIC_ICL || (infos[m].streaming_only && !results->streaming)) {
            continue;
        }
        struct metrics_stats s;
        if (metrics_hist_count(results->hist[m]) == 0 ||
            metrics_stats_from_hist(results->hist[m], &s) != 0) {
            continue;
        }
        metrics_stats_scale(&s, infos[m].display_per_recorded);
        const double values[COL_COUNT] = {0, s.avg, s.min, s.max, s.p99, s.p90, s.p50, s.std};
        const bool present[COL_COUNT] = {true, true, true, true, true, true, true, true};
        char label[96];
        snprintf(label, sizeof(label), "%s (%s)", infos[m].header, infos[m].unit);
        if (strlen(label) <= LABEL_WIDTH) {
            stat_row(out, label, values, present);
            continue;
        }
        /* As AIPerf's table does, a long label puts its unit on a second line. */
        char unit[48];
        snprintf(unit, sizeof(unit), "(%s)", infos[m].unit);
        stat_row(out, infos[m].header, values, present);
        const char *cells[COL_COUNT] = {unit, "", "", "", "", "", "", ""};
        row(out, "│", cells);
    }
}

static void scalar_row(FILE *out, const char *label, double value)
{
    const double values[COL_COUNT] = {0, value};
    const bool present[COL_COUNT] = {true, true};
    stat_row(out, label, values, present);
}

static void print_errors(FILE *out, const struct cli_results *results)
{
    if (results->error_kind_count == 0) {
        return;
    }
    fprintf(out, "\n%*s\n", 40, "ringperf | Error Summary");
    fprintf(out, "%6s | %-28s | %-60s | %8s\n", "Code", "Type", "Message", "Count");
    for (size_t i = 0; i < results->error_kind_count; i++) {
        const struct cli_error_kind *kind = &results->errors[i];
        char code[16];
        if (kind->code != 0) {
            snprintf(code, sizeof(code), "%d", kind->code);
        } else {
            snprintf(code, sizeof(code), "-");
        }
        fprintf(out, "%6s | %-28.28s | %-60.60s | %8llu\n", code, kind->type, kind->message,
                (unsigned long long)kind->count);
    }
    if (results->errors_unlisted > 0) {
        fprintf(out, "%6s | %-28s | %-60s | %8llu\n", "", "(other)",
                "more distinct errors than the summary lists",
                (unsigned long long)results->errors_unlisted);
    }
}

void cli_report_print(FILE *out, const struct cli_results *results, const char *title,
                      double duration_s)
{
    int width = LABEL_WIDTH + 2 + (COL_COUNT - 1) * (STAT_WIDTH + 3) + 2;
    int title_len = (int)strlen(title);
    fprintf(out, "%*s%s\n", (width - title_len) / 2, "", title);
    rule(out, "┏", "━", "┳", "┓");
    const char *head[COL_COUNT] = {"Metric", "avg", "min", "max", "p99", "p90", "p50", "std"};
    row(out, "┃", head);
    rule(out, "┡", "━", "╇", "┩");
    metric_rows(out, results);
    if (duration_s > 0) {
        scalar_row(out, "Output Token Throughput (tokens/sec)",
                   (double)results->total_osl / duration_s);
        scalar_row(out, "Request Throughput (requests/sec)",
                   (double)results->success_count / duration_s);
    }
    scalar_row(out, "Request Count (requests)", (double)results->success_count);
    if (results->error_count > 0) {
        scalar_row(out, "Error Request Count (requests)", (double)results->error_count);
    }
    rule(out, "└", "─", "┴", "┘");
    print_errors(out, results);
}
