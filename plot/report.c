/*
 * report.c - report.html: one self-contained page of the runs (no network, no script): the
 * summary tables, the plots as inline SVG, the error summary, the exact (redacted) command and
 * the machine the report was written on.
 */
#include "plot/plot_internal.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

static void put_escaped(FILE *f, const char *s)
{
    for (; s != NULL && *s != '\0'; s++) {
        switch (*s) {
        case '<':
            fputs("&lt;", f);
            break;
        case '>':
            fputs("&gt;", f);
            break;
        case '&':
            fputs("&amp;", f);
            break;
        case '"':
            fputs("&quot;", f);
            break;
        default:
            fputc(*s, f);
        }
    }
}

static void put_number(FILE *f, double v)
{
    if (isfinite(v)) {
        fprintf(f, "<td>%.2f</td>", v);
    } else {
        fputs("<td>N/A</td>", f);
    }
}

static void head(FILE *f, enum plot_theme theme)
{
    bool dark = theme == PLOT_THEME_DARK;
    fprintf(f,
            "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
            "<title>ringperf report</title>\n<style>\n"
            "body{font-family:sans-serif;margin:24px;background:%s;color:%s}\n"
            "table{border-collapse:collapse;margin:8px 0 24px}\n"
            "td,th{border:1px solid %s;padding:3px 8px;text-align:right}\n"
            "td:first-child,th:first-child{text-align:left}\n"
            "figure{margin:0 0 24px}figure svg{width:100%%;max-width:1600px;height:auto}\n"
            "pre{white-space:pre-wrap;word-break:break-all;background:%s;padding:8px}\n"
            "</style></head><body>\n<h1>ringperf report</h1>\n",
            dark ? "#1e1e1e" : "#ffffff", dark ? "#e0e0e0" : "#222222",
            dark ? "#555555" : "#bbbbbb", dark ? "#2a2a2a" : "#f3f3f3");
}

static const char *const table_stats[] = {"avg", "min", "max", "p50", "p90", "p99", "std"};
#define TABLE_STATS (sizeof(table_stats) / sizeof(table_stats[0]))

/* One run's metrics: every block with a unit and an average, in the summary's order. */
static void summary_table(FILE *f, const struct plot_run *run)
{
    fputs("<table><tr><th>Metric</th><th>unit</th>", f);
    for (size_t s = 0; s < TABLE_STATS; s++) {
        fprintf(f, "<th>%s</th>", table_stats[s]);
    }
    fputs("</tr>\n", f);
    const char *key;
    json_t *block;
    json_object_foreach(run->summary, key, block)
    {
        if (!json_is_object(block) || !json_is_string(json_object_get(block, "unit")) ||
            !json_is_number(json_object_get(block, "avg"))) {
            continue;
        }
        fputs("<tr><td>", f);
        put_escaped(f, key);
        fputs("</td><td>", f);
        put_escaped(f, json_string_value(json_object_get(block, "unit")));
        fputs("</td>", f);
        for (size_t s = 0; s < TABLE_STATS; s++) {
            put_number(f, plot__stat(run, key, table_stats[s]));
        }
        fputs("</tr>\n", f);
    }
    fputs("</table>\n", f);
}

/* An aggregate's rows: the mean over its runs and its confidence interval. */
static void aggregate_table(FILE *f, const struct plot_run *run)
{
    fputs("<table><tr><th>Metric</th><th>unit</th><th>mean</th><th>std</th><th>ci_low</th>"
          "<th>ci_high</th></tr>\n",
          f);
    const char *key;
    json_t *block;
    json_object_foreach(json_object_get(run->summary, "metrics"), key, block)
    {
        fputs("<tr><td>", f);
        put_escaped(f, key);
        fputs("</td><td>", f);
        put_escaped(f, json_string_value(json_object_get(block, "unit")));
        fputs("</td>", f);
        static const char *const fields[] = {"mean", "std", "ci_low", "ci_high"};
        for (size_t i = 0; i < 4; i++) {
            json_t *v = json_object_get(block, fields[i]);
            put_number(f, json_is_number(v) ? json_number_value(v) : NAN);
        }
        fputs("</tr>\n", f);
    }
    fputs("</table>\n", f);
}

/* The runs side by side: the numbers the Pareto view is made of. */
static void runs_table(FILE *f, const struct plot_runs *runs)
{
    static const char *const tags[] = {"request_throughput", "output_token_throughput",
                                       "request_latency", "time_to_first_token",
                                       "inter_token_latency"};
    fputs("<table><tr><th>Run</th>", f);
    for (size_t t = 0; t < 5; t++) {
        fprintf(f, "<th>%s avg (%s)</th>", tags[t], plot__unit(&runs->items[0], tags[t]));
    }
    fputs("</tr>\n", f);
    for (size_t i = 0; i < runs->count; i++) {
        fputs("<tr><td>", f);
        put_escaped(f, runs->items[i].label);
        fputs("</td>", f);
        for (size_t t = 0; t < 5; t++) {
            put_number(f, plot__stat(&runs->items[i], tags[t], "avg"));
        }
        fputs("</tr>\n", f);
    }
    fputs("</table>\n", f);
}

static void error_rows(FILE *f, const struct plot_run *run, bool label, size_t *rows)
{
    size_t i;
    json_t *entry;
    json_array_foreach(json_object_get(run->summary, "error_summary"), i, entry)
    {
        json_t *d = json_object_get(entry, "error_details");
        json_t *code = json_object_get(d, "code");
        fputs("<tr>", f);
        if (label) {
            fputs("<td>", f);
            put_escaped(f, run->label);
            fputs("</td>", f);
        }
        if (json_is_integer(code)) {
            fprintf(f, "<td>%lld</td>", (long long)json_integer_value(code));
        } else {
            fputs("<td>N/A</td>", f);
        }
        fputs("<td>", f);
        put_escaped(f, json_string_value(json_object_get(d, "type")));
        fputs("</td><td>", f);
        put_escaped(f, json_string_value(json_object_get(d, "message")));
        fprintf(f, "</td><td>%lld</td></tr>\n",
                (long long)json_integer_value(json_object_get(entry, "count")));
        (*rows)++;
    }
}

static void errors(FILE *f, const struct plot_runs *runs)
{
    bool many = runs->count > 1;
    fprintf(f,
            "<h2>Error summary</h2>\n<table id=\"errors\"><tr>%s<th>Code</th><th>Type</th>"
            "<th>Message</th><th>Count</th></tr>\n",
            many ? "<th>Run</th>" : "");
    size_t rows = 0;
    for (size_t i = 0; i < runs->count; i++) {
        error_rows(f, &runs->items[i], many, &rows);
    }
    fputs("</table>\n", f);
    if (rows == 0) {
        fputs("<p>No errors.</p>\n", f);
    }
}

/* The command of each run, once per distinct text (a sweep's cells share theirs). */
static void commands(FILE *f, const struct plot_runs *runs)
{
    fputs("<h2>Command</h2>\n", f);
    const char *shown[PLOT_MAX_RUNS];
    size_t count = 0;
    for (size_t i = 0; i < runs->count; i++) {
        const char *cmd = json_string_value(
            json_object_get(json_object_get(runs->items[i].summary, "run_info"), "cli_command"));
        bool seen = cmd == NULL;
        for (size_t j = 0; j < count && !seen; j++) {
            seen = strcmp(shown[j], cmd) == 0;
        }
        if (!seen) {
            shown[count++] = cmd;
            fputs("<pre class=\"command\">", f);
            put_escaped(f, cmd);
            fputs("</pre>\n", f);
        }
    }
    if (count == 0 && runs->runs_command[0] != '\0') {
        fputs("<pre class=\"command\">", f);
        put_escaped(f, runs->runs_command);
        fputs("</pre>\n", f);
    } else if (count == 0) {
        fputs("<p>The summaries carry no run_info.cli_command.</p>\n", f);
    }
}

static void machine(FILE *f)
{
    struct utsname u;
    fputs("<h2>Machine</h2>\n<table id=\"machine\">", f);
    if (uname(&u) == 0) {
        fputs("<tr><td>uname</td><td>", f);
        put_escaped(f, u.sysname);
        fputc(' ', f);
        put_escaped(f, u.nodename);
        fputc(' ', f);
        put_escaped(f, u.release);
        fputc(' ', f);
        put_escaped(f, u.version);
        fputc(' ', f);
        put_escaped(f, u.machine);
        fputs("</td></tr>", f);
    }
    fprintf(f, "<tr><td>CPUs online</td><td>%ld</td></tr></table>\n",
            sysconf(_SC_NPROCESSORS_ONLN));
    fputs("<p>The machine this report was written on (with --auto-plot, the one that ran the "
          "benchmark).</p>\n",
          f);
}

/* slurp reads a file whole (malloc'd, NUL-terminated), or NULL with errno. */
static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        return NULL;
    }
    char *buf = NULL;
    long size = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
    if (size >= 0 && fseek(f, 0, SEEK_SET) == 0) {
        buf = malloc((size_t)size + 1);
    }
    if (buf != NULL && fread(buf, 1, (size_t)size, f) != (size_t)size) {
        free(buf);
        buf = NULL;
        errno = EIO;
    }
    if (buf != NULL) {
        buf[size] = '\0';
    }
    fclose(f);
    return buf;
}

/* put_svg inlines one SVG file, without its XML declaration, its ids prefixed so that the glyph
 * and clip ids cairo gives every file do not collide between figures of the one page. */
static int put_svg(FILE *f, const char *path, size_t index, char *err, size_t cap)
{
    char *text = slurp(path);
    if (text == NULL) {
        snprintf(err, cap, "cannot read %s: %s", path, strerror(errno));
        return -1;
    }
    const char *p = strstr(text, "<svg");
    p = p != NULL ? p : text;
    char prefix[32];
    snprintf(prefix, sizeof(prefix), "f%zu-", index);
    static const char *const refs[] = {"id=\"", "href=\"#", "url(#"};
    while (*p != '\0') {
        size_t hit = 0;
        for (size_t r = 0; r < 3 && hit == 0; r++) {
            if (strncmp(p, refs[r], strlen(refs[r])) == 0) {
                hit = strlen(refs[r]);
            }
        }
        if (hit > 0) {
            fwrite(p, 1, hit, f);
            fputs(prefix, f);
            p += hit;
        } else {
            fputc(*p++, f);
        }
    }
    free(text);
    return 0;
}

static int figures(FILE *f, const struct plot_drawn *drawn, const char *dir, char *err, size_t cap)
{
    fputs("<h2>Plots</h2>\n", f);
    for (size_t i = 0; i < drawn->count; i++) {
        char path[PLOT_PATH_BYTES];
        snprintf(path, sizeof(path), "%s/%s.svg", dir, drawn->names[i]);
        fprintf(f, "<figure id=\"%s\"><figcaption>", drawn->names[i]);
        put_escaped(f, drawn->titles[i]);
        fputs("</figcaption>\n", f);
        if (put_svg(f, path, i, err, cap) != 0) {
            return -1;
        }
        fputs("</figure>\n", f);
    }
    for (size_t i = 0; i < drawn->note_count; i++) {
        fputs("<p class=\"note\">Not drawn: ", f);
        put_escaped(f, drawn->notes[i]);
        fputs("</p>\n", f);
    }
    return 0;
}

static void tables(FILE *f, const struct plot_runs *runs)
{
    if (runs->count > 1) {
        fputs("<h2>Runs</h2>\n", f);
        runs_table(f, runs);
        return;
    }
    const struct plot_run *run = &runs->items[0];
    fputs("<h2>Summary: ", f);
    put_escaped(f, run->dir);
    fputs("</h2>\n", f);
    if (run->aggregate) {
        aggregate_table(f, run);
    } else {
        summary_table(f, run);
    }
}

int plot__write_report(const struct plot_runs *runs, const struct plot_drawn *drawn,
                       const char *dir, enum plot_theme theme, char *err, size_t cap)
{
    char path[PLOT_PATH_BYTES];
    snprintf(path, sizeof(path), "%s/report.html", dir);
    FILE *f = fopen(path, "w");
    if (f == NULL) {
        snprintf(err, cap, "cannot write %s: %s", path, strerror(errno));
        return -1;
    }
    head(f, theme);
    int ret = figures(f, drawn, dir, err, cap); /* the pictures first, the numbers after */
    tables(f, runs);
    errors(f, runs);
    commands(f, runs);
    machine(f);
    fputs("</body></html>\n", f);
    if (fclose(f) != 0 && ret == 0) {
        snprintf(err, cap, "cannot write %s: %s", path, strerror(errno));
        ret = -1;
    }
    return ret;
}
