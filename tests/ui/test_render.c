/*
 * ui_render without a terminal: which panes a size shows, that no row is
 * wider than the terminal (columns drop, nothing wraps), and what the panes
 * say about a snapshot.
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ui/ui.h"

/* visible_cols counts a row's columns: escape sequences none, a UTF-8 character one. */
static int visible_cols(const char *row)
{
    int cols = 0;
    for (const unsigned char *p = (const unsigned char *)row; *p != '\0'; p++) {
        if (*p == '\033') {
            cr_assert_eq(p[1], '[', "only CSI sequences");
            p += 2;
            while (*p != '\0' && !(*p >= '@' && *p <= '~')) {
                p++;
            }
            continue;
        }
        cr_assert_geq(*p, 0x20, "no control byte in a row");
        cols += (*p & 0xC0) != 0x80;
    }
    return cols;
}

/* frame_text joins the rows without their escape sequences, one line each. */
static char *frame_text(const struct ui_frame *f)
{
    size_t cap = (size_t)f->rows * (f->cap + 1) + 1;
    char *out = calloc(1, cap);
    size_t len = 0;
    for (int r = 0; r < f->rows; r++) {
        for (const char *p = f->text[r]; *p != '\0'; p++) {
            if (*p == '\033') {
                while (*p != '\0' && !(*p >= '@' && *p <= '~' && *p != '[')) {
                    p++;
                }
                continue;
            }
            out[len++] = *p;
        }
        out[len++] = '\n';
    }
    return out;
}

static struct api_snapshot *sample(void)
{
    struct api_snapshot *s = calloc(1, sizeof(*s));
    s->state = API_STATE_RUNNING;
    s->phase = "profiling";
    s->elapsed_ns = 12LL * 1000 * 1000 * 1000;
    s->total = 1000;
    s->finished = 450;
    s->success = 440;
    s->errors = 10;
    s->request_throughput = 37.5;
    s->hist[API_M_TTFT] =
        (struct api_hist_view){.present = true, .p50 = 20.5, .p99 = 31, .avg = 21};
    s->interval[API_M_TTFT] = (struct api_hist_view){.present = true, .p50 = 19.25, .p99 = 30};
    s->shard_count = 3;
    for (uint32_t i = 0; i < 3; i++) {
        s->shards[i] = (struct api_shard_view){
            .requests = 150, .cpu_fraction = 0.125, .outstanding = 4, .send_lag_p99_us = -1};
    }
    s->error_row_count = 1;
    s->error_rows[0] = (struct api_error_row){
        .code = 500, .type = "Internal Server Error", .message = "injected", .count = 10};
    s->phase_count = 1;
    s->phases[0] = (struct api_phase_row){.name = "warmup", .finished = 20, .complete = true};
    for (uint32_t i = 0; i < 30; i++) {
        s->timeline[i] = (struct api_point){
            .elapsed_s = i, .request_throughput = i % 8, .output_token_throughput = 100 * (i % 8)};
    }
    s->timeline_count = 30;
    return s;
}

static const char logs[] = "first line\nWarmup: 20 requests, 0 errors\nlast line\n";

static char *render(const struct api_snapshot *s, enum ui_pane pane, int cols, int rows, bool utf8)
{
    struct ui_frame f;
    cr_assert_eq(ui_frame_init(&f), 0);
    struct ui_view view = {.selected = pane,
                           .utf8 = utf8,
                           .title = "m | chat",
                           .logs = logs,
                           .log_len = sizeof(logs) - 1};
    ui_render(s, &view, cols, rows, &f);
    cr_assert_eq(f.cols, cols);
    cr_assert_eq(f.rows, rows);
    for (int r = 0; r < f.rows; r++) {
        cr_assert_leq(visible_cols(f.text[r]), cols, "row %d at %d columns: %s", r, cols,
                      f.text[r]);
    }
    char *text = frame_text(&f);
    ui_frame_free(&f);
    return text;
}

Test(ui_render, a_tall_terminal_shows_every_pane)
{
    struct api_snapshot *s = sample();
    char *t = render(s, UI_PANE_METRICS, 200, 50, true);
    const char *titles[] = {"-- Metrics ", "-- Throughput ", "-- Errors ", "-- Shards ", "-- Log "};
    for (size_t i = 0; i < 5; i++) {
        cr_assert_not_null(strstr(t, titles[i]), "%s in\n%s", titles[i], t);
    }
    cr_assert_not_null(strstr(t, "Progress"));
    cr_assert_not_null(strstr(t, "warmup     done: 20 requests"), "%s", t);
    cr_assert_not_null(strstr(t, "450/1000 requests"), "%s", t);
    cr_assert_not_null(strstr(t, "19.25"), "the last interval's TTFT p50");
    cr_assert_not_null(strstr(t, "20.50"), "the run's TTFT p50");
    cr_assert_not_null(strstr(t, "Internal Server Error: injected"));
    cr_assert_not_null(strstr(t, "shard 2"));
    cr_assert_not_null(strstr(t, "12.50"), "a shard's CPU share in percent");
    cr_assert_not_null(strstr(t, "last line"), "the log pane");
    cr_assert_not_null(strstr(t, "\xe2\x96\x88"), "a full block at the sparkline's peak");
    free(t);
    free(s);
}

/* The Server & GPU pane: AIPerf's realtime "srv" row (each part only when its figure is
 * present, counts with thousands separators) and a line per GPU, absent fields as "-". */
Test(ui_render, the_server_pane_shows_the_srv_row_and_each_gpu)
{
    struct api_snapshot *s = sample();
    char *t = render(s, UI_PANE_SERVER, 160, 24, false);
    cr_assert_not_null(strstr(t, "no /metrics fetched yet"), "%s", t);
    cr_assert_not_null(strstr(t, "GPUs: no telemetry"), "%s", t);
    free(t);
    struct scrape_live *sv = &s->server_live;
    sv->fetches = 7;
    const struct {
        enum scrape_live_figure f;
        double v;
    } figures[] = {{SCRAPE_LIVE_PREFIX_CACHE_HIT_RATE, 68.25},
                   {SCRAPE_LIVE_UNIQUE_INPUT_TOKENS, 123456},
                   {SCRAPE_LIVE_KV_CACHE_USAGE, 94.5},
                   {SCRAPE_LIVE_NUM_RUNNING, 24},
                   {SCRAPE_LIVE_NUM_WAITING, 0},
                   {SCRAPE_LIVE_INPUT_TOKEN_THROUGHPUT, 98765.4},
                   {SCRAPE_LIVE_OUTPUT_TOKEN_THROUGHPUT, 4321}};
    for (size_t i = 0; i < sizeof(figures) / sizeof(figures[0]); i++) {
        sv->present[figures[i].f] = true;
        sv->current[figures[i].f] = figures[i].v;
    }
    s->gpu_live.gpu_count = 1;
    struct scrape_live_gpu *g = &s->gpu_live.gpus[0];
    snprintf(g->index, sizeof(g->index), "3");
    snprintf(g->model, sizeof(g->model), "NVIDIA H100 80GB HBM3");
    g->present[SCRAPE_GPU_POWER_USAGE] = true;
    g->value[SCRAPE_GPU_POWER_USAGE] = 612.5;
    g->present[SCRAPE_GPU_UTILIZATION] = true;
    g->value[SCRAPE_GPU_UTILIZATION] = 97;
    t = render(s, UI_PANE_SERVER, 160, 24, false);
    cr_assert_not_null(strstr(t, "  srv  prefix_cache_hit=68.2% unique_in_srv=123,456 "
                                 "kv_usage=94.5% queue=24r/0w tput_in_srv=98,765/s "
                                 "tput_out_srv=4,321/s\n"),
                       "%s", t);
    cr_assert_null(strstr(t, "ext_cache_hit"), "absent figures are left out");
    const char *row = strstr(t, "  3 NVIDIA H100 80GB HBM3");
    cr_assert_not_null(row, "%s", t);
    cr_assert_not_null(strstr(row, "612.5     97.00         -"), "%s", t);
    free(t);
    free(s);
}

Test(ui_render, a_small_terminal_shows_progress_and_the_selected_pane)
{
    struct api_snapshot *s = sample();
    for (int p = 0; p < UI_PANE_COUNT; p++) {
        char *t = render(s, (enum ui_pane)p, 80, 24, false);
        char want[64];
        snprintf(want, sizeof(want), "-- %s ", ui_pane_title((enum ui_pane)p));
        cr_assert_not_null(strstr(t, want), "%s in\n%s", want, t);
        cr_assert_not_null(strstr(t, "Progress"));
        for (int q = 0; q < UI_PANE_COUNT; q++) {
            snprintf(want, sizeof(want), "-- %s ", ui_pane_title((enum ui_pane)q));
            cr_assert(q == p || strstr(t, want) == NULL, "%s not shown at 80x24", want);
        }
        free(t);
    }
    free(s);
}

Test(ui_render, narrow_terminals_drop_columns_and_never_wrap)
{
    struct api_snapshot *s = sample();
    char *wide = render(s, UI_PANE_METRICS, 120, 24, false);
    cr_assert_not_null(strstr(wide, "run avg"));
    free(wide);
    char *narrow = render(s, UI_PANE_METRICS, 60, 24, false);
    cr_assert_not_null(strstr(narrow, "last p50"));
    cr_assert_null(strstr(narrow, "run avg"), "the rightmost columns go first");
    free(narrow);
    int sizes[][2] = {{20, 5}, {33, 7}, {47, 12}, {80, 30}, {512, 256}};
    for (size_t i = 0; i < 5; i++) {
        for (int p = 0; p < UI_PANE_COUNT; p++) {
            free(render(s, (enum ui_pane)p, sizes[i][0], sizes[i][1], p % 2 == 0));
        }
    }
    free(s);
}

Test(ui_render, an_empty_snapshot_draws)
{
    struct api_snapshot *s = calloc(1, sizeof(*s));
    s->phase = "warmup";
    char *t = render(s, UI_PANE_CHARTS, 100, 40, true);
    cr_assert_not_null(strstr(t, "warmup"));
    cr_assert_not_null(strstr(t, "-- Throughput "));
    free(t);
    free(s);
}
