/*
 * bench_ui.c - the terminal dashboard's CPU cost: it runs on a pseudo-terminal (200x50 by
 * default) while snapshots like a busy run's (64 shards, a full timeline, error rows) are
 * published UI_REDRAW_HZ times a second, so that every frame is a full redraw, and reports
 * the dashboard thread's CPU time per second of wall time.
 * Usage: bench_ui [SECONDS] [COLS] [ROWS]   (defaults 10, 200, 50). Built by bench/ui/run.sh.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "ui/ui.h"

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void fill(struct api_snapshot *s, uint64_t tick)
{
    s->state = API_STATE_RUNNING;
    s->phase = "profiling";
    s->elapsed_ns = (int64_t)tick * 100000000;
    s->total = 1000000;
    s->finished = tick * 1000;
    s->errors = tick;
    for (int m = 0; m < API_METRIC_COUNT; m++) {
        double v = 10.0 + (double)(tick % 17);
        s->hist[m] =
            (struct api_hist_view){.present = true, .p50 = v, .p90 = 2 * v, .p99 = 3 * v, .avg = v};
        s->interval[m] = s->hist[m];
    }
    s->shard_count = 64;
    for (uint32_t i = 0; i < 64; i++) {
        s->shards[i] = (struct api_shard_view){.requests = tick * 15 + i,
                                               .cpu_fraction = 0.4,
                                               .outstanding = 32,
                                               .send_lag_p99_us = 12.5};
    }
    s->error_row_count = 3;
    for (uint32_t i = 0; i < 3; i++) {
        s->error_rows[i] = (struct api_error_row){
            .code = 500 + (int)i, .type = "Server Error", .message = "injected", .count = tick};
    }
    s->timeline_count = API_TIMELINE_MAX;
    for (uint32_t i = 0; i < API_TIMELINE_MAX; i++) {
        s->timeline[i].request_throughput = (double)((i + tick) % 23);
        s->timeline[i].output_token_throughput = (double)((i * 7 + tick) % 31);
    }
    /* Every server figure and eight GPUs with every field, as a busy node shows them. */
    s->server_live.fetches = tick;
    for (int f = 0; f < SCRAPE_LIVE_FIGURE_COUNT; f++) {
        s->server_live.present[f] = true;
        s->server_live.current[f] = 1000.0 * f + (double)(tick % 100);
    }
    s->gpu_live.gpu_count = 8;
    for (size_t g = 0; g < 8; g++) {
        struct scrape_live_gpu *gpu = &s->gpu_live.gpus[g];
        snprintf(gpu->index, sizeof(gpu->index), "%zu", g);
        snprintf(gpu->model, sizeof(gpu->model), "NVIDIA H100 80GB HBM3");
        for (int f = 0; f < SCRAPE_GPU_FIELD_COUNT; f++) {
            gpu->present[f] = true;
            gpu->value[f] = 10.0 * f + (double)(tick % 50);
        }
    }
}

/* drain reads the terminal's output so that the dashboard's writes never block. */
static void *drain(void *arg)
{
    int master = *(int *)arg;
    char buf[65536];
    while (read(master, buf, sizeof(buf)) > 0) {
    }
    return NULL;
}

/* measure runs in a new session whose controlling terminal is the pty's other end. */
static int measure(const char *slave_name, double seconds)
{
    setsid();
    int slave = open(slave_name, O_RDWR);
    if (slave < 0) {
        perror("open pty");
        return 1;
    }
    struct ui_dashboard *ui = NULL;
    int ret = ui_dashboard_start(&(struct ui_options){.title = "bench | chat"}, &ui);
    if (ret != 0) {
        fprintf(stdout, "ui_dashboard_start: %s\n", strerror(-ret));
        return 1;
    }
    struct api_snapshot *snap = calloc(1, sizeof(*snap));
    int64_t start = now_ns();
    int64_t cpu0 = ui_dashboard_cpu_ns(ui);
    uint64_t tick = 0;
    while (now_ns() - start < (int64_t)(seconds * 1e9)) {
        fill(snap, ++tick);
        ui_dashboard_publish(ui, snap);
        struct timespec gap = {.tv_nsec = 1000000000L / UI_REDRAW_HZ};
        nanosleep(&gap, NULL);
    }
    int64_t wall = now_ns() - start;
    int64_t cpu = ui_dashboard_cpu_ns(ui) - cpu0;
    uint64_t frames = ui_dashboard_frames(ui);
    ui_dashboard_stop(ui);
    printf("frames %llu in %.1f s (%.1f/s), dashboard thread CPU %.1f ms: %.3f%% of a core, "
           "%.1f us per frame\n",
           (unsigned long long)frames, (double)wall / 1e9, (double)frames * 1e9 / (double)wall,
           (double)cpu / 1e6, 100.0 * (double)cpu / (double)wall,
           frames > 0 ? (double)cpu / 1e3 / (double)frames : 0);
    free(snap);
    return 0;
}

int main(int argc, char **argv)
{
    double seconds = argc > 1 ? strtod(argv[1], NULL) : 10;
    struct winsize ws = {.ws_col = (unsigned short)(argc > 2 ? strtoul(argv[2], NULL, 10) : 200),
                         .ws_row = (unsigned short)(argc > 3 ? strtoul(argv[3], NULL, 10) : 50)};
    int master = posix_openpt(O_RDWR | O_NOCTTY);
    if (master < 0 || grantpt(master) != 0 || unlockpt(master) != 0) {
        perror("pty");
        return 1;
    }
    ioctl(master, TIOCSWINSZ, &ws);
    printf("dashboard at %ux%u, %d snapshots/s, %.0f s\n", ws.ws_col, ws.ws_row, UI_REDRAW_HZ,
           seconds);
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        int ret = measure(ptsname(master), seconds);
        fflush(stdout);
        _exit(ret);
    }
    pthread_t reader;
    pthread_create(&reader, NULL, drain, &master);
    int status = 0;
    waitpid(pid, &status, 0);
    pthread_cancel(reader);
    pthread_join(reader, NULL);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
