/*
 * progress.c - the live view of a run: the progress bar or log lines on
 * stderr, and the --api-port HTTP API fed with the same snapshot.
 */
#include "cli/cli_progress.h"

#include <errno.h>
#include <jansson.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "export/export.h"

extern char **environ;

#define BAR_WIDTH 24

/* run_json is /api/run: the run_info block of profile_export_aiperf.json. */
static char *run_json(const struct profile_config *cfg, uint64_t nonce, json_t *point_info)
{
    char id[32];
    export_benchmark_id(nonce, id, sizeof(id));
    json_t *doc = json_pack(
        "{s:s, s:n, s:o, s:i, s:s, s:s, s:i, s:{}, s:s?}", "benchmark_id", id, "sweep_id",
        "random_seed", cfg->random_seed_set ? json_integer(cfg->random_seed) : json_null(), "trial",
        0, "run_label", "run_0001", "variation_label", "base", "variation_index", 0,
        "variation_values", "cli_command", cfg->cli_command);
    if (doc != NULL && point_info != NULL) {
        json_object_update(doc, point_info); /* a run of a session: its trial, cell, sweep_id */
    }
    char *text = doc != NULL ? json_dumps(doc, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
    json_decref(doc);
    return text;
}

static char *config_json(const struct profile_config *cfg, const char *artifact_dir)
{
    json_t *doc = export_input_config(cfg, artifact_dir); /* secrets redacted */
    char *text = doc != NULL ? json_dumps(doc, JSON_COMPACT) : NULL;
    json_decref(doc);
    return text;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* api_labels_of fills AIPerf's /metrics info labels: the models sorted and
 * comma-joined into `models` (cap bytes), and the profiling phase's
 * concurrency (a closed loop's is 1 by default) and request rate. */
static struct api_labels api_labels_of(const struct profile_config *cfg, const char *benchmark_id,
                                       char *models, size_t cap)
{
    const char *sorted[64];
    size_t n = cfg->models.count < 64 ? cfg->models.count : 64;
    memcpy(sorted, cfg->models.items, n * sizeof(sorted[0]));
    qsort(sorted, n, sizeof(sorted[0]), by_name);
    size_t len = 0;
    models[0] = '\0';
    for (size_t i = 0; i < n && len < cap; i++) {
        int w = snprintf(models + len, cap - len, "%s%s", i > 0 ? "," : "", sorted[i]);
        len += w > 0 ? (size_t)w : 0;
    }
    bool open_loop =
        cfg->request_rate_per_second > 0 || cfg->user_centric_rate > 0 || cfg->fixed_schedule;
    int64_t concurrency = cfg->concurrency > 0 ? cfg->concurrency : open_loop ? 0 : 1;
    return (struct api_labels){
        .benchmark_id = benchmark_id,
        .model = models,
        .endpoint_type = config_endpoint_type_name(cfg->endpoint_type),
        .streaming = cfg->streaming,
        .concurrency = (uint32_t)concurrency,
        .request_rate = cfg->request_rate_per_second,
        .version = EXPORT_AIPERF_VERSION,
    };
}

/* loopback_host says whether --api-host names this host only: 127.0.0.0/8, ::1, localhost. */
static bool loopback_host(const char *host)
{
    return strncmp(host, "127.", 4) == 0 || strcmp(host, "::1") == 0 ||
           strcmp(host, "localhost") == 0;
}

static int start_api(struct cli_live *live, const struct profile_config *cfg,
                     const char *artifact_dir, uint64_t nonce, uint16_t port)
{
    char *config_text = config_json(cfg, artifact_dir);
    char *run_text = run_json(cfg, nonce, live->point_info);
    char id[32];
    export_benchmark_id(nonce, id, sizeof(id));
    char models[API_LABEL_BYTES_MAX];
    struct api_options opts = {
        .host = cfg->api_host,
        .port = port,
        .artifact_dir = artifact_dir,
        .config_json = config_text,
        .run_json = run_text,
        .labels = api_labels_of(cfg, id, models, sizeof(models)),
        .token = cfg->api_token,
        .report_dir = live->report_dir,
    };
    char errbuf[512];
    int ret = config_text != NULL && run_text != NULL
                  ? api_server_start(&opts, &live->api, errbuf, sizeof(errbuf))
                  : -ENOMEM;
    free(config_text);
    free(run_text);
    if (ret != 0) {
        fprintf(stderr, "ringperf profile: --api-port: %s\n",
                ret == -ENOMEM ? "out of memory" : errbuf);
        return ret;
    }
    const char *host = cfg->api_host != NULL ? cfg->api_host : API_DEFAULT_HOST;
    bool v6 = strchr(host, ':') != NULL;
    fprintf(stderr, "API server listening on http://%s%s%s:%u (docs at /docs)\n", v6 ? "[" : "",
            host, v6 ? "]" : "", (unsigned)api_server_port(live->api));
    if (!loopback_host(host) && cfg->api_token == NULL) {
        fprintf(stderr,
                "ringperf profile: warning: --api-host %s is reachable from other hosts, and "
                "the API serves inputs.json, the records and the logs without asking who "
                "is there: give --api-token TOKEN, or bind 127.0.0.1\n",
                host);
    }
    live->grace_ms = api_grace_ms_from_env(environ);
    return 0;
}

/* quit_like_ctrl_c is the dashboard's `q`: the signal watcher (cli/signals.c) takes this
 * SIGINT exactly as it takes a first Ctrl-C, message and exit status included. */
static void quit_like_ctrl_c(void *ctx)
{
    (void)ctx;
    kill(getpid(), SIGINT);
}

/* start_dashboard takes the terminal over; where it cannot (no controlling terminal), the
 * bar shows progress instead. */
static void start_dashboard(struct cli_live *live, const struct profile_config *cfg)
{
    char title[256];
    snprintf(title, sizeof(title), "%s | %s%s", cfg->models.count > 0 ? cfg->models.items[0] : "",
             config_endpoint_type_name(cfg->endpoint_type), cfg->streaming ? " | streaming" : "");
    struct ui_options opts = {.title = title, .on_quit = quit_like_ctrl_c};
    int ret = ui_dashboard_start(&opts, &live->ui);
    if (ret != 0) {
        fprintf(stderr, "ringperf profile: --ui-type dashboard: %s; showing a progress bar\n",
                strerror(-ret));
        live->display = CLI_LIVE_BAR;
    }
}

/* choose_display follows AIPerf: the dashboard on a terminal, simple (the bar) when -v/-vv
 * leaves --ui-type unset, log lines without a terminal or with `none`. */
static enum cli_live_display choose_display(const struct profile_config *cfg)
{
    if (isatty(STDERR_FILENO) != 1 || cfg->ui_type == CONFIG_UI_NONE) {
        return CLI_LIVE_LINES;
    }
    if (cfg->ui_type == CONFIG_UI_SIMPLE ||
        (cfg->ui_type == CONFIG_UI_AUTO && (cfg->verbose || cfg->extra_verbose))) {
        return CLI_LIVE_BAR;
    }
    return CLI_LIVE_DASHBOARD;
}

int cli_live_start(struct cli_live *live, const struct profile_config *cfg,
                   const char *artifact_dir, uint64_t benchmark_nonce)
{
    live->display = choose_display(cfg);
    live->line_interval_ns = (int64_t)(cfg->stats_interval_seconds * 1e9);
    live->phase = "profiling";
    live->duration_target_s = cfg->benchmark_duration_seconds;
    live->snap = calloc(1, sizeof(*live->snap));
    if (live->snap == NULL) {
        fprintf(stderr, "ringperf profile: out of memory\n");
        return -ENOMEM;
    }
    uint16_t port = 0;
    bool enabled = cfg->api_port_set;
    if (enabled) {
        port = (uint16_t)cfg->api_port;
    } else {
        enabled = api_port_from_env(environ, &port);
    }
    int ret = enabled ? start_api(live, cfg, artifact_dir, benchmark_nonce, port) : 0;
    /* After the API's address is printed, so that the message shows in the log pane. */
    if (ret == 0 && live->display == CLI_LIVE_DASHBOARD) {
        start_dashboard(live, cfg);
    }
    return ret;
}

/* keep_phase_row remembers how the phase now ending went, for the views' progress. */
static void keep_phase_row(struct cli_live *live)
{
    const struct api_snapshot *s = live->snap;
    if (s->finished == 0 || live->phase_count >= API_PHASES_MAX) {
        return;
    }
    live->phases[live->phase_count++] = (struct api_phase_row){
        .name = live->phase,
        .total = s->total,
        .finished = s->finished,
        .errors = s->errors,
        .elapsed_s = (double)s->elapsed_ns / 1e9,
        .complete = true,
    };
}

void cli_live_phase(struct cli_live *live, const char *phase)
{
    if (live->snap != NULL && strcmp(live->phase, phase) != 0) {
        keep_phase_row(live);
    }
    live->phase = phase;
    live->start_ns = engine_now_ns();
    live->last_fill_ns = live->start_ns;
    live->shard_count = 0;
    memset(live->shards, 0, sizeof(live->shards));
    for (uint32_t i = 0; i < API_SHARDS_MAX; i++) {
        live->shards[i].cpu_fraction = -1; /* until the engine's first report */
    }
    /* The next phase's results are other histograms: its first interval starts empty. */
    for (int m = 0; m < API_METRIC_COUNT; m++) {
        if (live->before[m] != NULL) {
            metrics_hist_reset(live->before[m]);
        }
    }
    for (uint32_t i = 0; i < API_SHARDS_MAX; i++) {
        if (live->send_lag[i] != NULL) {
            metrics_hist_reset(live->send_lag[i]);
        }
    }
    if (live->snap != NULL) {
        memset(live->snap, 0, sizeof(*live->snap));
        live->snap->state = API_STATE_RUNNING;
        live->snap->phase = phase;
        live->snap->duration_target_s = live->duration_target_s;
    }
    if (live->api != NULL) {
        api_server_publish(live->api, live->snap);
    }
}

void cli_live_record(struct cli_live *live, const struct record *rec,
                     const struct metrics_record *metrics)
{
    if (rec->shard_id >= API_SHARDS_MAX) {
        return;
    }
    struct api_shard_view *row = &live->shards[rec->shard_id];
    row->requests++;
    row->errors += rec->outcome != RECORD_SUCCESS;
    row->shared_reads += metrics->shared_reads;
    if (rec->shard_id >= live->shard_count) {
        live->shard_count = rec->shard_id + 1;
    }
    /* Allocated at a shard's first open-loop record, once for the run. */
    struct metrics_hist **lag = &live->send_lag[rec->shard_id];
    if (live->open_loop && rec->send_start_ns != 0 &&
        (*lag != NULL || metrics_hist_new(1, 3600LL * 1000 * 1000 * 1000, 2, lag) == 0)) {
        metrics_hist_record(*lag, rec->send_start_ns - rec->scheduled_ns);
    }
}

void cli_live_shards(struct cli_live *live, uint32_t first, const struct engine_shard_live *rows,
                     uint32_t count)
{
    for (uint32_t i = 0; i < count && first + i < API_SHARDS_MAX; i++) {
        struct api_shard_view *row = &live->shards[first + i];
        row->cpu_fraction = rows[i].cpu_fraction;
        row->outstanding = rows[i].outstanding;
        row->records_waiting = rows[i].records_waiting;
        row->connections_open = rows[i].connections_open;
        if (first + i >= live->shard_count) {
            live->shard_count = first + i + 1;
        }
    }
}

/* fill_interval reduces what the run's histograms gained since the last snapshot. Intervals
 * shorter than a quarter second (the engine's last word, then the end of the run) are left to
 * the next one rather than drawn as spikes. */
static void fill_interval(struct cli_live *live, const struct metrics_results *results)
{
    struct api_snapshot *s = live->snap;
    int64_t now = engine_now_ns();
    if (now - live->last_fill_ns < 250LL * 1000 * 1000 || results->run == NULL) {
        return;
    }
    s->interval_s = (double)(now - live->last_fill_ns) / 1e9;
    live->last_fill_ns = now;
    for (int m = 0; m < API_METRIC_COUNT; m++) {
        const struct metrics_hist *h =
            metrics_run_record_hist(results->run, api_metric_info_of((enum api_metric)m)->source);
        struct metrics_hist_layout layout;
        if (h != NULL && live->before[m] == NULL) {
            metrics_hist_layout(h, &layout);
            metrics_hist_new(layout.lowest_trackable, layout.highest_trackable,
                             layout.significant_figures, &live->before[m]);
        }
        api_interval_fill((enum api_metric)m, h, live->before[m], &s->interval[m]);
        if (h != NULL && live->before[m] != NULL) {
            metrics_hist_reset(live->before[m]);
            metrics_hist_merge(live->before[m], h);
        }
    }
    api_timeline_push(s);
}

/* fill_health adds what the snapshot says about the run as a whole: the phase rows, the
 * grace period and a stop, the error kinds and the shards' send lag. */
static void fill_health(struct cli_live *live, const struct metrics_results *results)
{
    struct api_snapshot *s = live->snap;
    s->phase_count = live->phase_count;
    memcpy(s->phases, live->phases, sizeof(s->phases));
    s->grace = s->duration_target_s > 0 && (double)s->elapsed_ns / 1e9 >= s->duration_target_s;
    s->stopping = live->stop != NULL && __atomic_load_n(&live->stop->requested, __ATOMIC_ACQUIRE);
    api_error_rows_fill(s, results->errors, results->error_kind_count, results->errors_unlisted);
    for (uint32_t i = 0; i < s->shard_count && i < API_SHARDS_MAX; i++) {
        const struct metrics_hist *lag = live->send_lag[i];
        s->shards[i].send_lag_p99_us = lag != NULL && metrics_hist_count(lag) > 0
                                           ? (double)metrics_hist_value_at_percentile(lag, 99) / 1e3
                                           : -1;
    }
}

static void fill_snapshot(struct cli_live *live, const struct metrics_results *results,
                          uint64_t finished, uint64_t total)
{
    struct api_snapshot *s = live->snap;
    s->state = API_STATE_RUNNING;
    s->phase = live->phase;
    s->elapsed_ns = engine_now_ns() - live->start_ns;
    s->duration_target_s = live->duration_target_s;
    s->total = total;
    s->finished = finished;
    s->success = results->success_count;
    s->errors = results->error_count;
    s->cancelled = results->cancelled_count;
    for (int m = 0; m < API_METRIC_COUNT; m++) {
        const struct api_metric_info *info = api_metric_info_of((enum api_metric)m);
        const struct metrics_hist *h =
            results->run != NULL ? metrics_run_record_hist(results->run, info->source) : NULL;
        api_hist_view_fill((enum api_metric)m, h, &s->hist[m]);
    }
    double elapsed_s = (double)s->elapsed_ns / 1e9;
    s->request_throughput = elapsed_s > 0 ? (double)s->success / elapsed_s : 0;
    s->output_token_throughput = elapsed_s > 0 ? s->hist[API_M_OSL].sum / elapsed_s : 0;
    s->shard_count = live->shard_count;
    memcpy(s->shards, live->shards, sizeof(s->shards));
    fill_health(live, results);
    fill_interval(live, results);
    scrape_live_read(live->server_scrape, &s->server_live);
    scrape_live_read(live->gpu_scrape, &s->gpu_live);
    if (live->on_snapshot != NULL) {
        live->on_snapshot(live->on_snapshot_ctx, results, s);
    }
}

/* format_eta writes the remaining time as m:ss (h:mm:ss past an hour). */
static void format_eta(char *out, size_t cap, double seconds)
{
    if (!(seconds >= 0) || seconds > 99 * 3600.0) {
        snprintf(out, cap, "--:--");
        return;
    }
    long s = (long)(seconds + 0.5);
    if (s >= 3600) {
        snprintf(out, cap, "%ld:%02ld:%02ld", s / 3600, (s / 60) % 60, s % 60);
    } else {
        snprintf(out, cap, "%ld:%02ld", s / 60, s % 60);
    }
}

/* progress_view is what both displays print, already formatted. */
struct progress_view {
    const char *label;
    double done; /* 0..1 */
    double elapsed_s;
    double rate; /* records per second */
    char eta[32];
    char count[64];
    char stats[160];
};

static void make_view(const struct cli_live *live, const struct api_snapshot *s,
                      struct progress_view *v)
{
    v->label = strcmp(s->phase, "warmup") == 0 ? "Warmup" : "Profiling";
    v->elapsed_s = (double)s->elapsed_ns / 1e9;
    v->rate = v->elapsed_s > 0 ? (double)s->finished / v->elapsed_s : 0;
    double eta_s = -1;
    v->done = 0;
    if (s->total > 0) {
        uint64_t left = s->total - (s->finished < s->total ? s->finished : s->total);
        v->done = (double)s->finished / (double)s->total;
        eta_s = v->rate > 0 ? (double)left / v->rate : -1;
        snprintf(v->count, sizeof(v->count), "%llu/%llu", (unsigned long long)s->finished,
                 (unsigned long long)s->total);
    } else {
        if (s->duration_target_s > 0) {
            v->done = v->elapsed_s / s->duration_target_s;
            eta_s = s->duration_target_s - v->elapsed_s;
        }
        snprintf(v->count, sizeof(v->count), "%llu", (unsigned long long)s->finished);
    }
    v->done = v->done < 1.0 ? v->done : 1.0;
    format_eta(v->eta, sizeof(v->eta), eta_s < 0 ? -1 : eta_s);
    const char *sep = live->display == CLI_LIVE_BAR ? " |" : ",";
    snprintf(v->stats, sizeof(v->stats), "TTFT p50 %.1f ms%s ITL p50 %.2f ms%s %.0f tok/s",
             s->hist[API_M_TTFT].p50, sep, s->hist[API_M_ITL].p50, sep, s->output_token_throughput);
}

static void draw_bar(const struct progress_view *v, uint64_t errors)
{
    char bar[BAR_WIDTH + 1];
    int filled = (int)(v->done * BAR_WIDTH);
    for (int i = 0; i < BAR_WIDTH; i++) {
        bar[i] = i < filled ? '#' : '.';
    }
    bar[BAR_WIDTH] = '\0';
    char line[512];
    int n = snprintf(line, sizeof(line), "%s [%s] %3.0f%% %s | %.1f req/s | ETA %s | %s | %llu err",
                     v->label, bar, 100.0 * v->done, v->count, v->rate, v->eta, v->stats,
                     (unsigned long long)errors);
    /* A line wider than the terminal wraps, and \r would no longer redraw it. */
    struct winsize ws;
    size_t width = ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 1
                       ? (size_t)ws.ws_col - 1
                       : sizeof(line) - 1;
    size_t len = n < 0 ? 0 : (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1;
    fprintf(stderr, "\r%.*s\033[K", (int)(len < width ? len : width), line);
}

static void draw(struct cli_live *live, const struct api_snapshot *s)
{
    int64_t now = engine_now_ns();
    if (live->display == CLI_LIVE_LINES && live->last_line_ns != 0 &&
        now - live->last_line_ns < live->line_interval_ns) {
        return; /* --stats-interval: a log line every so often, not every update */
    }
    live->last_line_ns = now;
    if (live->display == CLI_LIVE_DASHBOARD) {
        ui_dashboard_publish(live->ui, s);
        return;
    }
    struct progress_view v;
    make_view(live, s, &v);
    if (live->display == CLI_LIVE_BAR) {
        draw_bar(&v, s->errors);
    } else {
        fprintf(stderr,
                "%s: %s requests, %.0f%% done, %.1f s, %.1f requests/sec, ETA %s, %s, %llu "
                "errors\n",
                v.label, v.count, 100.0 * v.done, v.elapsed_s, v.rate, v.eta, v.stats,
                (unsigned long long)s->errors);
    }
    fflush(stderr);
}

void cli_live_progress(struct cli_live *live, const struct metrics_results *results,
                       uint64_t finished, uint64_t total)
{
    if (live->snap == NULL) {
        return;
    }
    fill_snapshot(live, results, finished, total);
    if (live->api != NULL) {
        api_server_publish(live->api, live->snap);
    }
    draw(live, live->snap);
    live->printed = live->display == CLI_LIVE_BAR;
}

void cli_live_end_display(struct cli_live *live)
{
    ui_dashboard_stop(live->ui);
    live->ui = NULL;
    if (live->printed && live->display == CLI_LIVE_BAR) {
        fputc('\n', stderr);
        live->printed = false;
    }
}

/* block_stop_signals blocks SIGINT and SIGTERM in this thread, so that linger can take them;
 * *old is the mask to put back. */
static void block_stop_signals(sigset_t *set, sigset_t *old)
{
    sigemptyset(set);
    sigaddset(set, SIGINT);
    sigaddset(set, SIGTERM);
    pthread_sigmask(SIG_BLOCK, set, old);
}

/* linger keeps api up for grace_ms or until a signal of set (blocked) comes, then stops it. */
static void linger(struct api_server *api, int64_t grace_ms, const sigset_t *set)
{
    if (grace_ms > 0) {
        fprintf(stderr, "API server stays up for %.1f s (Ctrl+C to stop it now)\n",
                (double)grace_ms / 1e3);
        struct timespec wait = {.tv_sec = grace_ms / 1000, .tv_nsec = (grace_ms % 1000) * 1000000L};
        while (sigtimedwait(set, NULL, &wait) < 0 && errno == EINTR) {
        }
    }
    api_server_free(api);
}

/* hand_over gives a session's run's API to hold, the end of its run published. */
static void hand_over(struct cli_live *live, struct cli_held_api *hold)
{
    cli_held_api_stop(hold); /* the session releases it before a run starts: never two */
    *hold = (struct cli_held_api){
        .api = live->api, .grace_ms = live->grace_ms, .completed_ns = engine_now_ns()};
    live->api = NULL;
}

/* cli_live_finish blocks SIGINT and SIGTERM before it publishes the end of
 * the run, so that one sent after a client saw the results is taken by the
 * wait below rather than killing the process mid-exit. */
void cli_live_finish(struct cli_live *live, const struct metrics_results *results, bool failed,
                     const char *results_path)
{
    if (live->api == NULL) {
        return;
    }
    fill_snapshot(live, results, results->success_count + results->error_count, live->snap->total);
    /* The sweep needs every request: /metrics shows it once the run is over. */
    if (!failed && results->sweep != NULL) {
        metrics_sweep_summarize(results->sweep, &live->snap->sweep);
    }
    api_server_publish(live->api, live->snap);
    sigset_t set;
    sigset_t old;
    block_stop_signals(&set, &old);
    if (!failed && live->before_complete != NULL) {
        /* Before the end is published: a client that saw the results knows this work is done,
         * and a signal it sends then is the wait's below. */
        live->before_complete(live->before_complete_ctx);
    }
    api_server_set_results(live->api, failed ? API_STATE_FAILED : API_STATE_COMPLETE, results_path);
    if (live->hold != NULL) {
        hand_over(live, live->hold);
    } else {
        linger(live->api, live->grace_ms, &set);
        live->api = NULL;
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
}

int64_t cli_held_api_grace_left_ns(const struct cli_held_api *h)
{
    if (h->api == NULL) {
        return 0;
    }
    int64_t left = h->grace_ms * 1000000 - (engine_now_ns() - h->completed_ns);
    return left > 0 ? left : 0;
}

void cli_held_api_linger(struct cli_held_api *h, void (*before)(void *ctx), void *ctx)
{
    if (h->api == NULL) {
        if (before != NULL) {
            before(ctx);
        }
        return;
    }
    sigset_t set;
    sigset_t old;
    block_stop_signals(&set, &old);
    if (before != NULL) {
        /* Signals blocked first: a client that saw the page may send one at once. */
        before(ctx);
    }
    linger(h->api, h->grace_ms, &set);
    h->api = NULL;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
}

void cli_held_api_stop(struct cli_held_api *h)
{
    api_server_free(h->api);
    h->api = NULL;
}

void cli_live_free(struct cli_live *live)
{
    ui_dashboard_stop(live->ui);
    live->ui = NULL;
    for (int m = 0; m < API_METRIC_COUNT; m++) {
        metrics_hist_free(live->before[m]);
        live->before[m] = NULL;
    }
    for (uint32_t i = 0; i < API_SHARDS_MAX; i++) {
        metrics_hist_free(live->send_lag[i]);
        live->send_lag[i] = NULL;
    }
    api_server_free(live->api);
    live->api = NULL;
    free(live->snap);
    live->snap = NULL;
}
