/*
 * report.c - the console report, laid out like AIPerf's Rich tables (spec
 * §3.1): a centred title, a heavy header rule, right-justified cells sized
 * to their content, `N/A` where a statistic does not apply, and numbers as
 * Python's f"{v:,.2f}". Colour only when the caller says the output is a
 * terminal without NO_COLOR; otherwise plain text with the same layout.
 */
#include "export/export.h"
#include "export/export_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scrape/scrape.h"

#define TABLE_COLS_MAX 8
#define TABLE_ROWS_MAX 96
#define CELL_BYTES 96
#define LABEL_WRAP_CHARS 30 /* AIPerf puts the unit on its own line past this */
#define MESSAGE_WIDTH_MAX 60

#define ANSI_RESET "\033[0m"
#define ANSI_CYAN "\033[36m"
#define ANSI_GREEN "\033[32m"
#define ANSI_RED "\033[1;31m"
#define ANSI_BOLD "\033[1m"

struct table {
    const char *title;
    const char *title_color;
    int cols;
    bool left[TABLE_COLS_MAX]; /* left-justified column (else right) */
    const char *color[TABLE_COLS_MAX];
    int rows;
    char cell[TABLE_ROWS_MAX][TABLE_COLS_MAX][CELL_BYTES];
    size_t width[TABLE_COLS_MAX];
};

/* text_width counts code points, so UTF-8 text pads to the right columns. */
static size_t text_width(const char *s)
{
    size_t w = 0;
    for (; *s != '\0'; s++) {
        w += ((unsigned char)*s & 0xC0) != 0x80;
    }
    return w;
}

/* copy_cell copies at most `max_chars` code points of s (and at most what a
 * cell holds), never splitting a UTF-8 sequence; a cut ends in "...". */
static void copy_cell(char *dst, const char *s, size_t max_chars)
{
    size_t bytes = 0;
    size_t chars = 0;
    size_t limit = CELL_BYTES - 4;
    while (s[bytes] != '\0') {
        size_t next = bytes + 1;
        while (((unsigned char)s[next] & 0xC0) == 0x80) {
            next++;
        }
        if (chars + 1 > max_chars || next > limit) {
            memcpy(dst, s, bytes);
            memcpy(dst + bytes, "...", 4);
            return;
        }
        bytes = next;
        chars++;
    }
    memcpy(dst, s, bytes + 1);
}

static char *add_row(struct table *t)
{
    if (t->rows == TABLE_ROWS_MAX) {
        return NULL;
    }
    memset(t->cell[t->rows], 0, sizeof(t->cell[t->rows]));
    return t->cell[t->rows++][0];
}

static void repeat(FILE *out, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        fputs(s, out);
    }
}

static void rule(FILE *out, const struct table *t, const char *const glyphs[4])
{
    fputs(glyphs[0], out);
    for (int c = 0; c < t->cols; c++) {
        repeat(out, glyphs[1], t->width[c] + 2);
        fputs(c + 1 < t->cols ? glyphs[2] : glyphs[3], out);
    }
    fputc('\n', out);
}

static void line(FILE *out, const struct table *t, const char *bar, int r, bool color, bool head)
{
    fputs(bar, out);
    for (int c = 0; c < t->cols; c++) {
        const char *text = t->cell[r][c];
        size_t pad = t->width[c] - text_width(text);
        const char *on = color ? (head ? ANSI_BOLD : t->color[c]) : NULL;
        fputc(' ', out);
        if (!t->left[c]) {
            repeat(out, " ", pad);
        }
        fprintf(out, "%s%s%s", on != NULL ? on : "", text, on != NULL ? ANSI_RESET : "");
        if (t->left[c]) {
            repeat(out, " ", pad);
        }
        fprintf(out, " %s", bar);
    }
    fputc('\n', out);
}

/* table_print draws row 0 as the header, the rest as the body. */
static void table_print(FILE *out, struct table *t, bool color)
{
    size_t total = 1;
    for (int c = 0; c < t->cols; c++) {
        t->width[c] = 0;
        for (int r = 0; r < t->rows; r++) {
            size_t w = text_width(t->cell[r][c]);
            t->width[c] = w > t->width[c] ? w : t->width[c];
        }
        total += t->width[c] + 3;
    }
    size_t title_len = text_width(t->title);
    fprintf(out, "%*s%s%s%s\n", (int)(total > title_len ? (total - title_len) / 2 : 0), "",
            color ? t->title_color : "", t->title, color ? ANSI_RESET : "");
    static const char *const top[4] = {"┏", "━", "┳", "┓"};
    static const char *const mid[4] = {"┡", "━", "╇", "┩"};
    static const char *const bottom[4] = {"└", "─", "┴", "┘"};
    rule(out, t, top);
    line(out, t, "┃", 0, color, true);
    rule(out, t, mid);
    for (int r = 1; r < t->rows; r++) {
        line(out, t, "│", r, color, false);
    }
    rule(out, t, bottom);
}

/* stat_row adds one metric: the label (its unit on a second line when the
 * header is long) and avg, min, max, p99, p90, p50, std. */
static void stat_row(struct table *t, const struct metrics_info *info, const double *values,
                     int value_count)
{
    char(*row)[CELL_BYTES] = (char(*)[CELL_BYTES])add_row(t);
    if (row == NULL) {
        return;
    }
    bool wrap = strlen(info->header) > LABEL_WRAP_CHARS;
    if (wrap) {
        snprintf(row[0], CELL_BYTES, "%s", info->header);
    } else {
        snprintf(row[0], CELL_BYTES, "%s (%s)", info->header, info->unit);
    }
    for (int c = 1; c < t->cols; c++) {
        if (c <= value_count) {
            metrics_format_grouped(row[c], CELL_BYTES, values[c - 1], 2);
        } else {
            snprintf(row[c], CELL_BYTES, "N/A");
        }
    }
    if (wrap) {
        char(*unit)[CELL_BYTES] = (char(*)[CELL_BYTES])add_row(t);
        if (unit != NULL) {
            snprintf(unit[0], CELL_BYTES, "(%s)", info->unit);
        }
    }
}

static void record_row(struct table *t, const struct metrics_summary *s, enum metrics_id id)
{
    const struct metrics_stats *st = &s->record[id];
    const double values[7] = {st->avg, st->min, st->max, st->p99, st->p90, st->p50, st->std};
    stat_row(t, metrics_info_of(id), values, 7);
}

static void stats_header(struct table *t, const char *title, const char *title_color)
{
    static const char *const head[] = {"Metric", "avg", "min", "max", "p99", "p90", "p50", "std"};
    t->title = title;
    t->title_color = title_color;
    t->cols = 8;
    t->rows = 0;
    char(*row)[CELL_BYTES] = (char(*)[CELL_BYTES])add_row(t);
    for (int c = 0; c < t->cols; c++) {
        snprintf(row[c], CELL_BYTES, "%s", head[c]);
        t->left[c] = false;
        t->color[c] = c == 0 ? ANSI_CYAN : ANSI_GREEN;
    }
}

/* console_group is which table a metric row goes in. */
enum console_group {
    GROUP_MAIN,       /* every console metric */
    GROUP_USAGE,      /* AIPerf's "Usage" group */
    GROUP_HTTP_TRACE, /* --show-trace-timing: the http_req_* metrics */
    GROUP_SPEC,       /* AIPerf's "Spec Decode" group */
};

/* row_wanted says whether metric `index` (records first, then scalars) goes in the table of
 * `group`. */
static bool row_wanted(const struct metrics_summary *s, int index, enum console_group group)
{
    bool scalar = index >= METRICS_ID_COUNT;
    int sid = index - METRICS_ID_COUNT;
    const struct metrics_info *info = scalar ? metrics_scalar_info_of(sid) : metrics_info_of(index);
    bool present = scalar ? s->scalar_present[sid] : s->record_present[index];
    if (!present || info->display_order <= 0) {
        return false;
    }
    switch (group) {
    case GROUP_USAGE:
        return (info->flags & METRICS_F_USAGE) != 0;
    case GROUP_HTTP_TRACE:
        return (info->flags & METRICS_F_HTTP_TRACE) != 0;
    case GROUP_SPEC:
        return (info->flags & METRICS_F_SPEC_DECODE) != 0;
    case GROUP_MAIN:
    default:
        return (info->flags & METRICS_F_NO_CONSOLE) == 0;
    }
}

/* ordered_rows adds the metrics of `group` by display_order; on a tie a record metric comes
 * before a scalar one (a usage metric above its total). */
static void ordered_rows(struct table *t, const struct metrics_summary *s, enum console_group group)
{
    enum { ALL = METRICS_ID_COUNT + METRICS_SCALAR_COUNT };
    long long last = -1;
    for (;;) {
        long long best = -1;
        for (int i = 0; i < ALL; i++) {
            bool scalar = i >= METRICS_ID_COUNT;
            const struct metrics_info *info =
                scalar ? metrics_scalar_info_of(i - METRICS_ID_COUNT) : metrics_info_of(i);
            long long key = (long long)info->display_order * ALL + i;
            if (key > last && (best < 0 || key < best) && row_wanted(s, i, group)) {
                best = key;
            }
        }
        if (best < 0) {
            return;
        }
        int i = (int)(best % ALL);
        if (i >= METRICS_ID_COUNT) {
            int sid = i - METRICS_ID_COUNT;
            stat_row(t, metrics_scalar_info_of(sid), &s->scalar[sid], 1);
        } else {
            record_row(t, s, (enum metrics_id)i);
        }
        last = best;
    }
}

/* group_table prints the table of one group, titled "<title>: <name>" (or `title` when name is
 * NULL), when it has rows. */
static void group_table(FILE *out, struct table *t, const struct metrics_summary *s,
                        const char *title, const char *name, enum console_group group, bool color)
{
    char group_title[160];
    snprintf(group_title, sizeof(group_title), "%s%s%s", title, name != NULL ? ": " : "",
             name != NULL ? name : "");
    stats_header(t, group_title, ANSI_BOLD);
    ordered_rows(t, s, group);
    if (t->rows > 1) {
        fputc('\n', out);
        table_print(out, t, color);
    }
}

/* sweep_table prints AIPerf's "Effective" or "Active" group: sweep-line metrics [first, last). */
static void sweep_table(FILE *out, struct table *t, const struct metrics_summary *s,
                        const char *title, const char *name, int first, int last, bool color)
{
    if (!s->sweep.present) {
        return;
    }
    char group_title[160];
    snprintf(group_title, sizeof(group_title), "%s: %s", title, name);
    stats_header(t, group_title, ANSI_BOLD);
    for (int id = first; id < last; id++) {
        const struct metrics_sweep_stats *st = &s->sweep.stat[id];
        const double values[7] = {st->avg, st->min, st->max, st->p99, st->p90, st->p50, st->std};
        stat_row(t, metrics_sweep_info_of((enum metrics_sweep_id)id), values, 7);
    }
    fputc('\n', out);
    table_print(out, t, color);
}

/* spec_decode_table prints AIPerf's "Spec Decode" group, then the pooled accepted-draft
 * histogram on one cyan line. */
static void spec_decode_table(FILE *out, struct table *t, const struct metrics_summary *s,
                              const char *title, bool color)
{
    group_table(out, t, s, title, "Spec Decode", GROUP_SPEC, color);
    char line[512];
    if (export__spec_histogram_line(s, line, sizeof(line)) > 0) {
        fprintf(out, "  %sAccepted-draft histogram (%% steps):  %s%s\n", color ? ANSI_CYAN : "",
                line, color ? ANSI_RESET : "");
    }
}

static void error_table(FILE *out, struct table *t, const struct metrics_results *results,
                        bool color)
{
    if (results->error_kind_count == 0) {
        return;
    }
    static const char *const head[] = {"Code", "Type", "Message", "Count"};
    *t = (struct table){.title = "ringperf | Error Summary", .title_color = ANSI_RED, .cols = 4};
    char(*row)[CELL_BYTES] = (char(*)[CELL_BYTES])add_row(t);
    for (int c = 0; c < t->cols; c++) {
        snprintf(row[c], CELL_BYTES, "%s", head[c]);
        t->left[c] = c == 1 || c == 2;
    }
    for (size_t i = 0; i < results->error_kind_count; i++) {
        const struct metrics_error_kind *kind = &results->errors[i];
        row = (char(*)[CELL_BYTES])add_row(t);
        if (row == NULL) {
            break;
        }
        snprintf(row[0], CELL_BYTES, kind->code != 0 ? "%d" : "N/A", kind->code);
        copy_cell(row[1], kind->type, MESSAGE_WIDTH_MAX);
        copy_cell(row[2], kind->message, MESSAGE_WIDTH_MAX);
        snprintf(row[3], CELL_BYTES, "%llu", (unsigned long long)kind->count);
    }
    row = results->errors_unlisted > 0 ? (char(*)[CELL_BYTES])add_row(t) : NULL;
    if (row != NULL) {
        snprintf(row[0], CELL_BYTES, "N/A");
        snprintf(row[1], CELL_BYTES, "Other");
        snprintf(row[2], CELL_BYTES, "errors of further kinds than the summary lists");
        snprintf(row[3], CELL_BYTES, "%llu", (unsigned long long)results->errors_unlisted);
    }
    fputc('\n', out);
    table_print(out, t, color);
}

#define ANSI_YELLOW "\033[1;33m"
#define PANEL_TEXT_BYTES 4096
#define PANEL_LINE_BYTES 256

/* next_line copies the line of `text` at *pos into `line` (cap bytes, cut
 * if longer) and moves *pos past it; false at the end of the text. */
static bool next_line(const char *text, size_t *pos, char *line, size_t cap)
{
    if (text[*pos] == '\0') {
        return false;
    }
    const char *start = text + *pos;
    const char *nl = strchr(start, '\n');
    size_t len = nl != NULL ? (size_t)(nl - start) : strlen(start);
    snprintf(line, cap, "%.*s", (int)len, start);
    *pos += len + (nl != NULL);
    return true;
}

static void put_rule(FILE *out, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        fputs("─", out);
    }
}

/* warning_panel prints `text` (lines separated by '\n') as Rich draws
 * AIPerf's warning panels: a blank line, then a rounded box as wide as its
 * longest line plus two spaces of padding each side, the title centred in
 * the top border, the border bold yellow in colour. */
static void warning_panel(FILE *out, const char *title, const char *text, bool color)
{
    char line[PANEL_LINE_BYTES];
    size_t title_w = text_width(title) + 2;
    size_t inner = title_w;
    for (size_t pos = 0; next_line(text, &pos, line, sizeof(line));) {
        size_t w = text_width(line) + 4;
        inner = w > inner ? w : inner;
    }
    const char *on = color ? ANSI_YELLOW : "";
    const char *off = color ? ANSI_RESET : "";
    fprintf(out, "\n%s╭", on);
    put_rule(out, (inner - title_w) / 2);
    fprintf(out, " %s ", title);
    put_rule(out, inner - title_w - (inner - title_w) / 2);
    fprintf(out, "╮%s\n", off);
    for (size_t pos = 0; next_line(text, &pos, line, sizeof(line));) {
        int pad = (int)(inner - 4 - text_width(line));
        fprintf(out, "%s│%s  %s%*s  %s│%s\n", on, off, line, pad, "", on, off);
    }
    fprintf(out, "%s╰", on);
    put_rule(out, inner);
    fprintf(out, "╯%s\n", off);
}

/* panel_counts are the figures of a warning panel's first line, "<found> of
 * <total> requests (<pct>%)", the counts written as Python's f"{n:,}". */
struct panel_counts {
    char found[64];
    char total[64];
    double pct;
};

/* panel_counts fills `out` for the panel about scalar `id`; false when the
 * panel does not show: that count or request_count is absent or not above 0. */
static bool panel_counts(const struct metrics_summary *s, enum metrics_scalar_id id,
                         struct panel_counts *out)
{
    double found = trunc(s->scalar[id]);
    double total = trunc(s->scalar[METRICS_S_REQUEST_COUNT]);
    if (!s->scalar_present[id] || !(found > 0) || !s->scalar_present[METRICS_S_REQUEST_COUNT] ||
        !(total > 0)) {
        return false;
    }
    /* Whole numbers, as Python's f"{n:,}". */
    metrics_format_grouped(out->found, sizeof(out->found), found, 0);
    metrics_format_grouped(out->total, sizeof(out->total), total, 0);
    out->pct = found / total * 100.0;
    return true;
}

/* usage_discrepancy_panel is AIPerf's "Token Count Discrepancy Warning":
 * some requests' usage differs from the client's count by more than the
 * threshold. */
static void usage_discrepancy_panel(FILE *out, const struct metrics_summary *s, bool color)
{
    struct panel_counts c;
    if (!panel_counts(s, METRICS_S_USAGE_DISCREPANCY_COUNT, &c)) {
        return;
    }
    char text[PANEL_TEXT_BYTES];
    snprintf(text, sizeof(text),
             "%s of %s requests (%.1f%%) show a difference exceeding %g%% between:\n"
             "  • API-reported usage tokens (from 'usage' field)\n"
             "  • Client-computed token counts (from tokenization)\n"
             "\n"
             "Possible Causes:\n"
             "  • Different tokenization methods (API vs client)\n"
             "  • API special tokens or preprocessing\n"
             "\n"
             "Investigation Steps:\n"
             "  1. Review profile_export.jsonl for per-request usage_*_diff_pct values\n"
             "  2. Verify client tokenizer matches the model's tokenizer\n"
             "  4. Adjust threshold: AIPERF_METRICS_USAGE_PCT_DIFF_THRESHOLD=%g",
             c.found, c.total, c.pct, METRICS_USAGE_DIFF_PCT_THRESHOLD,
             METRICS_USAGE_DIFF_PCT_THRESHOLD);
    warning_panel(out, "Token Count Discrepancy Warning", text, color);
}

/* osl_mismatch_panel is AIPerf's "Output Sequence Length Mismatch Warning":
 * some requests' OSL missed the requested length by more than the threshold. */
static void osl_mismatch_panel(FILE *out, const struct metrics_summary *s, bool color)
{
    struct panel_counts c;
    if (!panel_counts(s, METRICS_S_OSL_MISMATCH_COUNT, &c)) {
        return;
    }
    char avg[64] = "N/A";
    if (s->record_present[METRICS_OSL_MISMATCH_DIFF_PCT]) {
        snprintf(avg, sizeof(avg), "%.1f%%", s->record[METRICS_OSL_MISMATCH_DIFF_PCT].avg);
    }
    char text[PANEL_TEXT_BYTES];
    snprintf(text, sizeof(text),
             "%s of %s requests (%.1f%%) have output length differing from requested by more "
             "than the threshold.\n"
             "Threshold (tokens): min(requested x %g%%, %g)\n"
             "Average mismatch: %s\n"
             "\n"
             "Why: Server hit EOS token before reaching requested output length.\n"
             "\n"
             "Fix Options:\n"
             "  - --extra-inputs ignore_eos:true - Generate until max_tokens (vLLM, TensorRT-LLM)\n"
             "  - --extra-inputs min_tokens:<N> - Set minimum output length (vLLM, TensorRT-LLM, "
             "SGLang)\n"
             "  - --use-server-token-count - Use server-reported token counts if tokenizer "
             "mismatch suspected\n"
             "\n"
             "Diagnostics:\n"
             "  - Review profile_export.jsonl -> osl_mismatch_diff_pct for per-request values\n"
             "  - Adjust: AIPERF_METRICS_OSL_MISMATCH_PCT_THRESHOLD=%g\n"
             "  - Adjust: AIPERF_METRICS_OSL_MISMATCH_MAX_TOKEN_THRESHOLD=%g",
             c.found, c.total, c.pct, METRICS_OSL_MISMATCH_PCT_THRESHOLD,
             METRICS_OSL_MISMATCH_TOKENS_MAX, avg, METRICS_OSL_MISMATCH_PCT_THRESHOLD,
             METRICS_OSL_MISMATCH_TOKENS_MAX);
    warning_panel(out, "Output Sequence Length Mismatch Warning", text, color);
}

/* reachable_lines prints the telemetry title's source lines: how many answered, then each
 * configured URL with a check or a cross. */
static void reachable_lines(FILE *out, const json_t *summary)
{
    const json_t *configured = json_object_get(summary, "endpoints_configured");
    const json_t *successful = json_object_get(summary, "endpoints_successful");
    fprintf(out, "%zu/%zu telemetry sources reachable\n", json_array_size(successful),
            json_array_size(configured));
    size_t i;
    const json_t *url;
    json_array_foreach(configured, i, url)
    {
        bool ok = false;
        size_t j;
        const json_t *good;
        json_array_foreach(successful, j, good)
        {
            ok |= json_equal((json_t *)url, (json_t *)good) != 0;
        }
        fprintf(out, "\xe2\x80\xa2 %s %s\n", json_string_value(url),
                ok ? "\xe2\x9c\x94" : "\xe2\x9c\x98 (unreachable)");
    }
}

/* gpu_table prints one GPU's fields (AIPerf's order) with avg, min, max, p99, p90, p50, std. */
static void gpu_table(FILE *out, struct table *t, const char *title, const json_t *gpu, bool color)
{
    stats_header(t, title, ANSI_BOLD);
    const json_t *metrics = json_object_get(gpu, "metrics");
    static const char *const keys[7] = {"avg", "min", "max", "p99", "p90", "p50", "std"};
    for (int f = 0; f < SCRAPE_GPU_FIELD_COUNT; f++) {
        const struct scrape_gpu_field_info *field = scrape_gpu_field_info_of(f);
        const json_t *block = json_object_get(metrics, field->name);
        if (block == NULL) {
            continue;
        }
        double values[7];
        int n = 0;
        while (n < 7 && json_is_number(json_object_get(block, keys[n]))) {
            values[n] = json_number_value(json_object_get(block, keys[n]));
            n++;
        }
        struct metrics_info info = {.header = field->display, .unit = field->unit};
        stat_row(t, &info, values, n); /* a counter has its delta alone: N/A elsewhere */
    }
    table_print(out, t, color);
}

/* for_each_gpu calls fn with every GPU of telemetry_data td and its endpoint's display name. */
static void for_each_gpu(const json_t *td, void (*fn)(void *ctx, const char *display, json_t *gpu),
                         void *ctx)
{
    const char *display;
    json_t *ep;
    json_object_foreach((json_t *)json_object_get(td, "endpoints"), display, ep)
    {
        const char *key;
        json_t *gpu;
        json_object_foreach(json_object_get(ep, "gpus"), key, gpu)
        {
            fn(ctx, display, gpu);
        }
    }
}

/* gpu_tables is telemetry_tables' walk: where the tables go. */
struct gpu_tables {
    FILE *out;
    struct table *t;
    bool color;
};

static void one_gpu_table(void *ctx, const char *display, json_t *gpu)
{
    struct gpu_tables *g = ctx;
    char title[CELL_BYTES * 2];
    snprintf(title, sizeof(title), "%s | GPU %lld | %s", display,
             (long long)json_integer_value(json_object_get(gpu, "gpu_index")),
             json_string_value(json_object_get(gpu, "gpu_name")));
    fputc('\n', g->out);
    gpu_table(g->out, g->t, title, gpu, g->color);
}

/* telemetry_tables prints AIPerf's "GPU Telemetry Summary": the sources, then a table per GPU
 * titled "<endpoint> | GPU <index> | <name>". */
static void telemetry_tables(FILE *out, struct table *t, const json_t *td, bool color)
{
    if (td == NULL) {
        return;
    }
    fprintf(out, "\n%sringperf | GPU Telemetry Summary%s\n", color ? ANSI_BOLD : "",
            color ? ANSI_RESET : "");
    reachable_lines(out, json_object_get(td, "summary"));
    struct gpu_tables g = {.out = out, .t = t, .color = color};
    for_each_gpu(td, one_gpu_table, &g);
}

#define PLATFORMS_MAX 8 /* distinct GPU platforms named ("nvidia", "amd", ...) */

static int compare_strings(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* platforms is platform_panel's walk: the distinct platforms seen so far. */
struct platforms {
    const char *seen[PLATFORMS_MAX];
    size_t n;
};

static void gpu_platform(void *ctx, const char *display, json_t *gpu)
{
    (void)display;
    struct platforms *p = ctx;
    const char *name = json_string_value(json_object_get(gpu, "platform"));
    bool known = name == NULL;
    for (size_t i = 0; i < p->n && !known; i++) {
        known = strcmp(p->seen[i], name) == 0;
    }
    if (!known && p->n < PLATFORMS_MAX) {
        p->seen[p->n++] = name;
    }
}

/* platform_panel prints AIPerf's "GPU Telemetry Platform" panel ahead of every GPU table: the
 * platforms the GPUs reported, sorted and distinct, and why they do not compare across vendors. */
static void platform_panel(FILE *out, const json_t *td, bool color)
{
    struct platforms p = {.n = 0};
    for_each_gpu(td, gpu_platform, &p);
    const char **seen = p.seen;
    size_t n = p.n;
    qsort(seen, n, sizeof(seen[0]), compare_strings);
    char text[PANEL_LINE_BYTES * 2] = "Platform: ";
    size_t len = strlen(text);
    for (size_t i = 0; i < n && len < sizeof(text); i++) {
        len += (size_t)snprintf(text + len, sizeof(text) - len, "%s%s", i > 0 ? ", " : "", seen[i]);
    }
    if (len < sizeof(text)) {
        snprintf(text + len, sizeof(text) - len,
                 "%s\nMetric semantics are platform-specific; cross-platform comparisons "
                 "require workload and collector validation.",
                 n == 0 ? "unknown" : "");
    }
    warning_panel(out, "GPU Telemetry Platform", text, color);
}

/* efficiency_table prints AIPerf's "GPU Power Efficiency (NVIDIA)": totals, not distributions,
 * so its one statistic column is avg. Nothing when no efficiency metric was computed. */
static void efficiency_table(FILE *out, struct table *t, const json_t *energy, bool color)
{
    if (energy == NULL || json_object_size(energy) == 0) {
        return;
    }
    stats_header(t, "GPU Power Efficiency (NVIDIA)", ANSI_BOLD);
    t->cols = 2;
    for (int id = 0; id < EXPORT__ENERGY_COUNT; id++) {
        const struct metrics_info *info = export__energy_info((enum export__energy)id);
        const json_t *block = json_object_get(energy, info->tag);
        if (block == NULL) {
            continue;
        }
        double avg = json_number_value(json_object_get(block, "avg"));
        stat_row(t, info, &avg, 1);
    }
    fputc('\n', out);
    table_print(out, t, color);
}

void export_console_print(FILE *out, const struct metrics_summary *summary,
                          const struct metrics_results *results,
                          const struct export_console_options *opts)
{
    struct table *t = malloc(sizeof(*t));
    if (t == NULL) {
        fprintf(out, "ringperf: out of memory while printing the report\n");
        return;
    }
    if (opts->show_trace_timing) {
        /* AIPerf prints its HTTP trace table before the main one. */
        group_table(out, t, summary, "ringperf | HTTP Trace Timing", NULL, GROUP_HTTP_TRACE,
                    opts->color);
    }
    /* AIPerf's group order puts Effective and Active before its main table. */
    sweep_table(out, t, summary, opts->title, "Effective", 0, METRICS_SW_ACTIVE_FIRST, opts->color);
    sweep_table(out, t, summary, opts->title, "Active", METRICS_SW_ACTIVE_FIRST,
                METRICS_SWEEP_COUNT, opts->color);
    stats_header(t, opts->title, ANSI_BOLD);
    ordered_rows(t, summary, GROUP_MAIN);
    table_print(out, t, opts->color);
    group_table(out, t, summary, opts->title, "Usage", GROUP_USAGE, opts->color);
    spec_decode_table(out, t, summary, opts->title, opts->color);
    error_table(out, t, results, opts->color);
    if (opts->telemetry_data != NULL) {
        platform_panel(out, opts->telemetry_data, opts->color);
    }
    efficiency_table(out, t, opts->energy_metrics, opts->color);
    telemetry_tables(out, t, opts->telemetry_data, opts->color);
    free(t);
    usage_discrepancy_panel(out, summary, opts->color);
    osl_mismatch_panel(out, summary, opts->color);
}
