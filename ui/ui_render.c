/*
 * ui_render.c - one frame of the dashboard from a snapshot: the title bar,
 * phase progress, then either every pane (tall terminals) or the selected
 * one. Pure: the thread in ui_dashboard.c writes what this draws.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ui/ui_internal.h"

#define BOLD "\033[1m"
#define REVERSE "\033[7m"
#define DIM "\033[2m"
#define PLAIN "\033[0m"
#define NAME_COLS 26  /* the metrics table's first column */
#define NUM_COLS 10   /* every number column */
#define SHARD_COLS 12 /* every column of the shards' table */
#define PROGRESS_ROWS 4
#define METRICS_ROWS 10
#define CHARTS_ROWS 3
#define ERRORS_ROWS 4
#define SHARDS_ROWS_MIN 3
#define SERVER_ROWS_MIN 4 /* title, the servers' line, the GPUs' heads and one GPU */
#define GPU_NAME_COLS 28  /* the GPU table's first column */
#define LOGS_ROWS_MIN 3

static const char *const titles[UI_PANE_COUNT] = {
    [UI_PANE_METRICS] = "Metrics", [UI_PANE_CHARTS] = "Throughput",   [UI_PANE_ERRORS] = "Errors",
    [UI_PANE_SHARDS] = "Shards",   [UI_PANE_SERVER] = "Server & GPU", [UI_PANE_LOGS] = "Log",
};

const char *ui_pane_title(enum ui_pane pane)
{
    return (unsigned)pane < UI_PANE_COUNT ? titles[pane] : "";
}

/* canvas is where panes draw: rows first .. first + height - 1 of the frame. */
struct canvas {
    struct ui_frame *frame;
    const struct api_snapshot *snap;
    const struct ui_view *view;
    int row; /* next row to draw */
    int end; /* first row past the area */
};

static bool next_line(struct canvas *c, struct ui__line *out)
{
    if (c->row >= c->end) {
        return false;
    }
    *out = ui__line_start(c->frame, c->row++);
    return true;
}

static void pane_title(struct canvas *c, enum ui_pane pane)
{
    struct ui__line l;
    if (!next_line(c, &l)) {
        return;
    }
    bool selected = c->view->selected == pane;
    ui__put(&l, "-- ");
    ui__style(&l, selected ? BOLD REVERSE : BOLD);
    ui__put(&l, titles[pane]);
    ui__style(&l, PLAIN);
    ui__put(&l, " ");
    while (l.col < l.width) {
        ui__put(&l, "-");
    }
    ui__line_end(&l);
}

static void title_bar(struct canvas *c)
{
    struct ui__line l;
    next_line(c, &l);
    ui__style(&l, BOLD);
    ui__putf(&l, "ringperf %s", c->view->title != NULL ? c->view->title : "");
    ui__style(&l, PLAIN);
    ui__putf(&l, "  [%s]  ", api_state_name(c->snap->state));
    for (int p = 0; p < UI_PANE_COUNT; p++) {
        ui__style(&l, p == (int)c->view->selected ? REVERSE : "");
        ui__putf(&l, " %s ", titles[p]);
        ui__style(&l, PLAIN);
    }
    ui__put(&l, "  Tab/arrows: pane  q: stop");
    ui__line_end(&l);
}

static void eta_text(double seconds, char *out, size_t cap)
{
    if (!(seconds >= 0) || seconds > 99 * 3600.0) {
        snprintf(out, cap, "--:--");
        return;
    }
    long s = (long)(seconds + 0.5);
    snprintf(out, cap, "%ld:%02ld", s / 60, s % 60);
}

static void current_phase(struct canvas *c)
{
    const struct api_snapshot *s = c->snap;
    struct ui__line l;
    if (!next_line(c, &l)) {
        return;
    }
    double elapsed = (double)s->elapsed_ns / 1e9;
    double rate = elapsed > 0 ? (double)s->finished / elapsed : 0;
    double done = 0;
    double eta = -1;
    if (s->total > 0) {
        done = (double)s->finished / (double)s->total;
        eta = rate > 0
                  ? (double)(s->total - (s->finished < s->total ? s->finished : s->total)) / rate
                  : -1;
    } else if (s->duration_target_s > 0) {
        done = elapsed / s->duration_target_s;
        eta = s->duration_target_s - elapsed;
    }
    done = done < 1 ? done : 1;
    /* A narrow terminal keeps room for the ETA and the errors with a shorter bar. */
    int bar_cols = c->frame->cols >= 120 ? 20 : 10;
    char bar[24];
    for (int i = 0; i < bar_cols; i++) {
        bar[i] = i < (int)(done * bar_cols) ? '#' : '.';
    }
    bar[bar_cols] = '\0';
    char eta_s[48];
    eta_text(eta, eta_s, sizeof(eta_s));
    ui__putf(&l, "  %-10s [%s] %3.0f%%  %llu", s->phase, bar, 100 * done,
             (unsigned long long)s->finished);
    if (s->total > 0) {
        ui__putf(&l, "/%llu", (unsigned long long)s->total);
    }
    ui__putf(&l, " requests  %.1f s  %.1f req/s  ETA %s  %llu errors", elapsed, rate, eta_s,
             (unsigned long long)s->errors);
    ui__line_end(&l);
}

static void progress_pane(struct canvas *c)
{
    const struct api_snapshot *s = c->snap;
    struct ui__line l;
    if (next_line(c, &l)) {
        ui__style(&l, BOLD);
        ui__put(&l, "Progress");
        ui__style(&l, PLAIN);
        ui__line_end(&l);
    }
    for (uint32_t i = 0; i < s->phase_count && i < API_PHASES_MAX; i++) {
        const struct api_phase_row *p = &s->phases[i];
        if (p->name == NULL || strcmp(p->name, s->phase) == 0 || !next_line(c, &l)) {
            continue;
        }
        ui__putf(&l, "  %-10s done: %llu requests in %.1f s, %llu errors", p->name,
                 (unsigned long long)p->finished, p->elapsed_s, (unsigned long long)p->errors);
        ui__line_end(&l);
    }
    current_phase(c);
    if ((s->grace || s->stopping) && next_line(c, &l)) {
        uint64_t in_flight = 0;
        for (uint32_t i = 0; i < s->shard_count && i < API_SHARDS_MAX; i++) {
            in_flight += s->shards[i].outstanding;
        }
        ui__putf(&l, "  %-10s no new requests; %llu in flight finishing",
                 s->stopping ? "stopping" : "grace", (unsigned long long)in_flight);
        ui__line_end(&l);
    }
}

/* metric_rows names the table's rows: metric, label. */
static const struct {
    enum api_metric m;
    const char *label;
} metric_rows[] = {
    {API_M_TTFT, "Time to first token (ms)"}, {API_M_TTST, "Time to second token (ms)"},
    {API_M_ITL, "Inter-token latency (ms)"},  {API_M_REQUEST_LATENCY, "Request latency (ms)"},
    {API_M_OSL, "Output length (tokens)"},    {API_M_ISL, "Input length (tokens)"},
};

static const char *const metric_heads[] = {"last p50", "last p90", "last p99", "run p50",
                                           "run p90",  "run p99",  "run avg"};

/* number_columns is how many number columns fit beside the name column. */
static int number_columns(int width, int max)
{
    int n = (width - NAME_COLS) / NUM_COLS;
    return n < 0 ? 0 : n > max ? max : n;
}

static void metric_row(struct canvas *c, const char *label, const double *values,
                       const bool *present, int columns)
{
    struct ui__line l;
    if (!next_line(c, &l)) {
        return;
    }
    ui__putf(&l, "  %s", label);
    for (int i = 0; i < columns; i++) {
        char num[32];
        ui__num(values[i], present[i], num, sizeof(num));
        ui__pad_to(&l, NAME_COLS + i * NUM_COLS + (NUM_COLS - 1 - (int)strlen(num)));
        ui__put(&l, num);
    }
    ui__line_end(&l);
}

static void metrics_pane(struct canvas *c)
{
    const struct api_snapshot *s = c->snap;
    int columns = number_columns(c->frame->cols, 7);
    struct ui__line l;
    if (next_line(c, &l)) {
        ui__style(&l, DIM);
        ui__pad_to(&l, NAME_COLS);
        for (int i = 0; i < columns; i++) {
            ui__pad_to(&l,
                       NAME_COLS + i * NUM_COLS + (NUM_COLS - 1 - (int)strlen(metric_heads[i])));
            ui__put(&l, metric_heads[i]);
        }
        ui__line_end(&l);
    }
    for (size_t r = 0; r < sizeof(metric_rows) / sizeof(metric_rows[0]); r++) {
        const struct api_hist_view *iv = &s->interval[metric_rows[r].m];
        const struct api_hist_view *rv = &s->hist[metric_rows[r].m];
        double v[7] = {iv->p50, iv->p90, iv->p99, rv->p50, rv->p90, rv->p99, rv->avg};
        bool p[7] = {iv->present, iv->present, iv->present, rv->present,
                     rv->present, rv->present, rv->present};
        metric_row(c, metric_rows[r].label, v, p, columns);
    }
    const struct api_point *last =
        s->timeline_count > 0 ? &s->timeline[s->timeline_count - 1] : NULL;
    /* Rates have one value per span: the last interval's, and the run's in "run avg". */
    double rq[7] = {
        last != NULL ? last->request_throughput : 0, 0, 0, 0, 0, 0, s->request_throughput};
    double tk[7] = {last != NULL ? last->output_token_throughput : 0,
                    0,
                    0,
                    0,
                    0,
                    0,
                    s->output_token_throughput};
    bool rp[7] = {last != NULL, false, false, false, false, false, true};
    metric_row(c, "Request throughput (/s)", rq, rp, columns);
    metric_row(c, "Output tokens (/s)", tk, rp, columns);
}

static void sparkline(struct canvas *c, const char *label, bool tokens)
{
    static const char *const blocks[] = {"\xe2\x96\x81", "\xe2\x96\x82", "\xe2\x96\x83",
                                         "\xe2\x96\x84", "\xe2\x96\x85", "\xe2\x96\x86",
                                         "\xe2\x96\x87", "\xe2\x96\x88"};
    static const char ascii[] = "_.-~=+*#";
    const struct api_snapshot *s = c->snap;
    struct ui__line l;
    if (!next_line(c, &l)) {
        return;
    }
    int space = c->frame->cols - 40;
    int n = (int)s->timeline_count < space ? (int)s->timeline_count : space;
    n = n > 0 ? n : 0;
    const struct api_point *pts = &s->timeline[s->timeline_count - (uint32_t)n];
    double max = 0;
    for (int i = 0; i < n; i++) {
        double v = tokens ? pts[i].output_token_throughput : pts[i].request_throughput;
        max = v > max ? v : max;
    }
    ui__putf(&l, "  %-8s", label);
    for (int i = 0; i < n; i++) {
        double v = tokens ? pts[i].output_token_throughput : pts[i].request_throughput;
        int level = max > 0 ? (int)(v / max * 7.0 + 0.5) : 0;
        if (c->view->utf8) {
            ui__put(&l, blocks[level]);
        } else {
            char one[2] = {ascii[level], '\0'};
            ui__put(&l, one);
        }
    }
    char now[32];
    char top[32];
    ui__num(n > 0 ? (tokens ? pts[n - 1].output_token_throughput : pts[n - 1].request_throughput)
                  : 0,
            n > 0, now, sizeof(now));
    ui__num(max, n > 0, top, sizeof(top));
    ui__putf(&l, "  now %s  max %s", now, top);
    ui__line_end(&l);
}

static void charts_pane(struct canvas *c)
{
    sparkline(c, "req/s", false);
    sparkline(c, "tok/s", true);
}

static void errors_pane(struct canvas *c)
{
    const struct api_snapshot *s = c->snap;
    struct ui__line l;
    if (next_line(c, &l)) {
        ui__putf(&l, "  %llu errors (%llu cancelled)", (unsigned long long)s->errors,
                 (unsigned long long)s->cancelled);
        if (s->error_row_count > 0) {
            ui__style(&l, DIM);
            ui__put(&l, "    count  code  type / message");
        }
        ui__line_end(&l);
    }
    for (uint32_t i = 0; i < s->error_row_count && next_line(c, &l); i++) {
        const struct api_error_row *e = &s->error_rows[i];
        ui__putf(&l, "  %8llu  %4d  %s: %s", (unsigned long long)e->count, e->code, e->type,
                 e->message);
        ui__line_end(&l);
    }
    if (s->error_rows_unlisted > 0 && next_line(c, &l)) {
        ui__putf(&l, "  %8llu  other kinds", (unsigned long long)s->error_rows_unlisted);
        ui__line_end(&l);
    }
}

#define SHARD_FIGURES 8

static const char *const shard_heads[SHARD_FIGURES] = {
    "requests", "errors", "cpu %", "lag p99 us", "waiting", "outstanding", "conns", "merged"};

static void shard_row(struct canvas *c, uint32_t i)
{
    const struct api_shard_view *sh = &c->snap->shards[i];
    struct ui__line l;
    if (!next_line(c, &l)) {
        return;
    }
    double v[SHARD_FIGURES] = {(double)sh->requests,         (double)sh->errors,
                               100 * sh->cpu_fraction,       sh->send_lag_p99_us,
                               (double)sh->records_waiting,  (double)sh->outstanding,
                               (double)sh->connections_open, (double)sh->shared_reads};
    bool p[SHARD_FIGURES] = {
        true, true, sh->cpu_fraction >= 0, sh->send_lag_p99_us >= 0, true, true, true, true};
    int columns = (c->frame->cols - 10) / SHARD_COLS;
    columns = columns > SHARD_FIGURES ? SHARD_FIGURES : columns;
    ui__putf(&l, "  shard %u", i);
    for (int k = 0; k < columns; k++) {
        char num[32];
        if (k < 2 || k >= 4) {
            snprintf(num, sizeof(num), "%.0f", v[k]);
        } else {
            ui__num(v[k], p[k], num, sizeof(num));
        }
        ui__pad_to(&l, 10 + k * SHARD_COLS + (SHARD_COLS - 1 - (int)strlen(num)));
        ui__put(&l, num);
    }
    ui__line_end(&l);
}

static void shards_pane(struct canvas *c)
{
    const struct api_snapshot *s = c->snap;
    struct ui__line l;
    int columns = (c->frame->cols - 10) / SHARD_COLS;
    columns = columns > SHARD_FIGURES ? SHARD_FIGURES : columns;
    if (next_line(c, &l)) {
        ui__style(&l, DIM);
        for (int k = 0; k < columns; k++) {
            ui__pad_to(&l, 10 + k * SHARD_COLS + (SHARD_COLS - 1 - (int)strlen(shard_heads[k])));
            ui__put(&l, shard_heads[k]);
        }
        ui__line_end(&l);
    }
    uint32_t shown = 0;
    for (uint32_t i = 0; i < s->shard_count && i < API_SHARDS_MAX && c->row < c->end - 1; i++) {
        shard_row(c, i);
        shown++;
    }
    if (next_line(c, &l)) {
        ui__style(&l, DIM);
        if (shown < s->shard_count) {
            ui__putf(&l, "  %u more shards; ", s->shard_count - shown);
        }
        ui__put(&l, "  outstanding: handed to the shard, not back (queued or in flight); conns: "
                    "sockets open; waiting: most records one coordinator pass found");
        ui__line_end(&l);
    }
}

/* grouped writes v rounded to a whole number with thousands separators, as Python's
 * f"{int(round(v)):,}": nearbyint rounds half to even, as round() does, and gives -0.0, no
 * sign, for what rounds to zero. */
static void grouped(double v, char *out, size_t cap)
{
    metrics_format_grouped(out, cap, nearbyint(v), 0);
}

/* server_line shows the servers' live figures as AIPerf's realtime log's "srv" row does (each
 * part only when the servers expose what it comes from), preemptions last. */
static void server_line(struct canvas *c)
{
    const struct scrape_live *sv = &c->snap->server_live;
    struct ui__line l;
    if (!next_line(c, &l)) {
        return;
    }
    if (sv->fetches == 0) {
        ui__style(&l, DIM);
        ui__put(&l, "  srv  no /metrics fetched yet (each --url's, unless --no-server-metrics)");
        ui__line_end(&l);
        return;
    }
    const bool *has = sv->present;
    const double *v = sv->current;
    char n[48];
    ui__put(&l, "  srv ");
    if (has[SCRAPE_LIVE_PREFIX_CACHE_HIT_RATE]) {
        ui__putf(&l, " prefix_cache_hit=%.1f%%", v[SCRAPE_LIVE_PREFIX_CACHE_HIT_RATE]);
    }
    if (has[SCRAPE_LIVE_UNIQUE_INPUT_TOKENS]) {
        grouped(v[SCRAPE_LIVE_UNIQUE_INPUT_TOKENS], n, sizeof(n));
        ui__putf(&l, " unique_in_srv=%s", n);
    }
    if (has[SCRAPE_LIVE_EXTERNAL_PREFIX_CACHE_HIT_RATE]) {
        ui__putf(&l, " ext_cache_hit=%.1f%%", v[SCRAPE_LIVE_EXTERNAL_PREFIX_CACHE_HIT_RATE]);
    }
    if (has[SCRAPE_LIVE_KV_CACHE_USAGE]) {
        ui__putf(&l, " kv_usage=%.1f%%", v[SCRAPE_LIVE_KV_CACHE_USAGE]);
    }
    if (has[SCRAPE_LIVE_CPU_KV_CACHE_USAGE]) {
        ui__putf(&l, " cpu_kv_usage=%.1f%%", v[SCRAPE_LIVE_CPU_KV_CACHE_USAGE]);
    }
    if (has[SCRAPE_LIVE_NUM_RUNNING] || has[SCRAPE_LIVE_NUM_WAITING]) {
        ui__putf(&l, " queue=%.0fr/%.0fw", v[SCRAPE_LIVE_NUM_RUNNING], v[SCRAPE_LIVE_NUM_WAITING]);
    }
    if (has[SCRAPE_LIVE_INPUT_TOKEN_THROUGHPUT]) {
        grouped(v[SCRAPE_LIVE_INPUT_TOKEN_THROUGHPUT], n, sizeof(n));
        ui__putf(&l, " tput_in_srv=%s/s", n);
    }
    if (has[SCRAPE_LIVE_OUTPUT_TOKEN_THROUGHPUT]) {
        grouped(v[SCRAPE_LIVE_OUTPUT_TOKEN_THROUGHPUT], n, sizeof(n));
        ui__putf(&l, " tput_out_srv=%s/s", n);
    }
    if (has[SCRAPE_LIVE_NUM_PREEMPTIONS]) {
        grouped(v[SCRAPE_LIVE_NUM_PREEMPTIONS], n, sizeof(n));
        ui__putf(&l, " preemptions=%s", n);
    }
    ui__line_end(&l);
}

/* The GPU fields the pane shows, with their short heads. */
static const struct {
    enum scrape_gpu_field field;
    const char *head;
} gpu_columns[] = {
    {SCRAPE_GPU_POWER_USAGE, "power W"},      {SCRAPE_GPU_UTILIZATION, "util %"},
    {SCRAPE_GPU_SM_UTILIZATION, "sm %"},      {SCRAPE_GPU_MEMORY_USED, "mem GB"},
    {SCRAPE_GPU_MEMORY_UTILIZATION, "mem %"}, {SCRAPE_GPU_TEMPERATURE, "temp C"},
};
#define GPU_COLUMNS (int)(sizeof(gpu_columns) / sizeof(gpu_columns[0]))

/* gpu_rows shows each GPU's latest fields, one line per GPU, columns dropped to fit. */
static void gpu_rows(struct canvas *c)
{
    const struct scrape_live *g = &c->snap->gpu_live;
    struct ui__line l;
    int columns = (c->frame->cols - GPU_NAME_COLS) / NUM_COLS;
    columns = columns < 0 ? 0 : columns > GPU_COLUMNS ? GPU_COLUMNS : columns;
    if (!next_line(c, &l)) {
        return;
    }
    ui__style(&l, DIM);
    if (g->gpu_count == 0) {
        ui__put(&l, "  GPUs: no telemetry (--gpu-telemetry with DCGM exporter URLs, or pynvml)");
        ui__line_end(&l);
        return;
    }
    ui__put(&l, "  GPU");
    for (int k = 0; k < columns; k++) {
        ui__pad_to(&l, GPU_NAME_COLS + k * NUM_COLS +
                           (NUM_COLS - 1 - (int)strlen(gpu_columns[k].head)));
        ui__put(&l, gpu_columns[k].head);
    }
    ui__line_end(&l);
    for (size_t i = 0; i < g->gpu_count && i < SCRAPE_LIVE_GPUS_MAX && next_line(c, &l); i++) {
        const struct scrape_live_gpu *gpu = &g->gpus[i];
        ui__putf(&l, "  %s %.*s", gpu->index, GPU_NAME_COLS - 6, gpu->model);
        for (int k = 0; k < columns; k++) {
            char num[32];
            enum scrape_gpu_field f = gpu_columns[k].field;
            ui__num(gpu->value[f], gpu->present[f], num, sizeof(num));
            ui__pad_to(&l, GPU_NAME_COLS + k * NUM_COLS + (NUM_COLS - 1 - (int)strlen(num)));
            ui__put(&l, num);
        }
        ui__line_end(&l);
    }
}

/* logs_pane shows the last lines of the kept stderr text that fit. */
static void logs_pane(struct canvas *c)
{
    const char *text = c->view->logs;
    size_t len = c->view->log_len;
    int want = c->end - c->row;
    size_t start = len;
    int lines = 0;
    while (start > 0 && lines < want) {
        start--;
        if (text[start] == '\n' && start + 1 < len) {
            lines++;
        }
    }
    if (start > 0 || (len > 0 && text[0] == '\n')) {
        start++;
    }
    while (start < len && c->row < c->end) {
        const char *nl = memchr(text + start, '\n', len - start);
        size_t n = nl != NULL ? (size_t)(nl - (text + start)) : len - start;
        char piece[UI_COLS_MAX + 1];
        size_t take = n < UI_COLS_MAX ? n : UI_COLS_MAX;
        memcpy(piece, text + start, take);
        piece[take] = '\0';
        struct ui__line l;
        next_line(c, &l);
        ui__put(&l, "  ");
        ui__put(&l, piece);
        ui__line_end(&l);
        start += n + 1;
    }
}

static void draw_pane(struct canvas *c, enum ui_pane pane, int height)
{
    int end = c->end;
    c->end = c->row + height < end ? c->row + height : end;
    pane_title(c, pane);
    switch (pane) {
    case UI_PANE_METRICS:
        metrics_pane(c);
        break;
    case UI_PANE_CHARTS:
        charts_pane(c);
        break;
    case UI_PANE_ERRORS:
        errors_pane(c);
        break;
    case UI_PANE_SHARDS:
        shards_pane(c);
        break;
    case UI_PANE_SERVER:
        server_line(c);
        gpu_rows(c);
        break;
    case UI_PANE_LOGS:
    case UI_PANE_COUNT:
        logs_pane(c);
        break;
    }
    /* Rows the pane left empty are blank, not a previous frame's. */
    while (c->row < c->end) {
        struct ui__line l;
        next_line(c, &l);
        ui__line_end(&l);
    }
    c->end = end;
}

void ui_render(const struct api_snapshot *snap, const struct ui_view *view, int cols, int rows,
               struct ui_frame *frame)
{
    frame->cols = cols < 20 ? 20 : cols > UI_COLS_MAX ? UI_COLS_MAX : cols;
    frame->rows = rows < 5 ? 5 : rows > UI_ROWS_MAX ? UI_ROWS_MAX : rows;
    struct canvas c = {.frame = frame, .snap = snap, .view = view, .end = frame->rows};
    title_bar(&c);
    int head = c.row;
    progress_pane(&c);
    while (c.row < head + PROGRESS_ROWS && c.row < c.end) {
        struct ui__line l;
        next_line(&c, &l);
        ui__line_end(&l);
    }
    int left = c.end - c.row;
    int server_rows = 3 + (int)snap->gpu_live.gpu_count;
    server_rows = server_rows < SERVER_ROWS_MIN ? SERVER_ROWS_MIN : server_rows;
    int fixed = METRICS_ROWS + CHARTS_ROWS + ERRORS_ROWS + SERVER_ROWS_MIN;
    if (left < fixed + SHARDS_ROWS_MIN + LOGS_ROWS_MIN) {
        draw_pane(&c, view->selected, left);
        return;
    }
    int shard_rows = (int)snap->shard_count + 3;
    int spare = left - fixed - LOGS_ROWS_MIN;
    shard_rows = shard_rows < SHARDS_ROWS_MIN ? SHARDS_ROWS_MIN : shard_rows;
    shard_rows =
        shard_rows > spare / 2 + SHARDS_ROWS_MIN ? spare / 2 + SHARDS_ROWS_MIN : shard_rows;
    draw_pane(&c, UI_PANE_METRICS, METRICS_ROWS);
    draw_pane(&c, UI_PANE_CHARTS, CHARTS_ROWS);
    draw_pane(&c, UI_PANE_ERRORS, ERRORS_ROWS);
    draw_pane(&c, UI_PANE_SHARDS, shard_rows);
    /* More GPUs than the minimum take what the log can spare. */
    int log_spare = c.end - c.row - SERVER_ROWS_MIN - LOGS_ROWS_MIN;
    server_rows =
        server_rows - SERVER_ROWS_MIN > log_spare ? SERVER_ROWS_MIN + log_spare : server_rows;
    draw_pane(&c, UI_PANE_SERVER, server_rows);
    draw_pane(&c, UI_PANE_LOGS, c.end - c.row);
}
