/*
 * ui_dashboard.c - the dashboard's thread: it waits on the terminal's keys,
 * a wake-up pipe (new snapshot, resize, stop) and the pipe stderr now goes
 * to, and redraws at most UI_REDRAW_HZ times a second with one write of the
 * whole frame over the old one (cursor home, each row then erase to its
 * end), so that nothing flickers.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "ui/ui_internal.h"

#define FRAME_GAP_NS (1000000000LL / UI_REDRAW_HZ)
#define PIPE_BYTES (1 << 20)

struct ui_dashboard {
    pthread_t thread;
    bool thread_started;
    int tty_fd;
    int saved_stderr; /* the real stderr while fd 2 is the log pipe */
    int log_read;     /* the log pipe's read end */
    int wake[2];      /* publish, resize and stop write a byte to wake[1] */
    pthread_mutex_t lock;
    struct api_snapshot published; /* under lock */
    bool stop;                     /* under lock */
    void (*on_quit)(void *ctx);
    void *on_quit_ctx;
    bool quit_sent;
    char title[256];
    /* The thread's own. */
    struct api_snapshot shown;
    struct ui_frame frame;
    struct ui_view view;
    char *logs; /* UI_LOG_BYTES_MAX */
    size_t log_len;
    uint64_t log_dropped; /* bytes dropped from the front to keep the newest */
    char *out;            /* one frame's bytes, written at once */
    size_t out_cap;
    int last_cols;
    int last_rows;
    int64_t last_draw_ns;
    uint64_t frames; /* written atomically */
    clockid_t cpu_clock;
};

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void wake(struct ui_dashboard *ui)
{
    char byte = 'p';
    ssize_t n = write(ui->wake[1], &byte, 1);
    (void)n; /* a full pipe already holds a wake-up */
}

/* keep_log appends stderr text (one read: n < UI_LOG_BYTES_MAX), dropping the oldest when
 * full. */
static void keep_log(struct ui_dashboard *ui, const char *text, size_t n)
{
    if (ui->log_len + n > UI_LOG_BYTES_MAX) {
        size_t drop = ui->log_len + n - UI_LOG_BYTES_MAX;
        memmove(ui->logs, ui->logs + drop, ui->log_len - drop);
        ui->log_len -= drop;
        ui->log_dropped += drop;
    }
    memcpy(ui->logs + ui->log_len, text, n);
    ui->log_len += n;
}

static void read_logs(struct ui_dashboard *ui)
{
    char buf[4096];
    ssize_t n;
    while ((n = read(ui->log_read, buf, sizeof(buf))) > 0) {
        keep_log(ui, buf, (size_t)n);
    }
}

/* read_keys takes the keys typed since the last look: q stops the run once,
 * Tab, Right and Down select the next pane, Shift-Tab, Left and Up the
 * previous one. */
static void read_keys(struct ui_dashboard *ui)
{
    char keys[64];
    ssize_t n = read(ui->tty_fd, keys, sizeof(keys));
    for (ssize_t i = 0; i < n; i++) {
        int step = 0;
        if (keys[i] == 'q' || keys[i] == 'Q') {
            if (!ui->quit_sent && ui->on_quit != NULL) {
                ui->quit_sent = true;
                ui->on_quit(ui->on_quit_ctx);
            }
        } else if (keys[i] == '\t') {
            step = 1;
        } else if (keys[i] == '\033' && i + 2 < n && keys[i + 1] == '[') {
            char k = keys[i + 2];
            step = k == 'C' || k == 'B' ? 1 : k == 'D' || k == 'A' || k == 'Z' ? -1 : 0;
            i += 2;
        }
        if (step != 0) {
            ui->view.selected =
                (enum ui_pane)(((int)ui->view.selected + step + UI_PANE_COUNT) % UI_PANE_COUNT);
        }
    }
}

static bool out_add(struct ui_dashboard *ui, size_t *len, const char *text, size_t n)
{
    if (*len + n > ui->out_cap) {
        return false;
    }
    memcpy(ui->out + *len, text, n);
    *len += n;
    return true;
}

static void draw(struct ui_dashboard *ui)
{
    struct winsize ws = {0};
    int cols = 80;
    int rows = 24;
    if (ioctl(ui->tty_fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0 && ws.ws_row > 0) {
        cols = ws.ws_col;
        rows = ws.ws_row;
    }
    pthread_mutex_lock(&ui->lock);
    memcpy(&ui->shown, &ui->published, sizeof(ui->shown));
    pthread_mutex_unlock(&ui->lock);
    ui->view.logs = ui->logs;
    ui->view.log_len = ui->log_len;
    ui_render(&ui->shown, &ui->view, cols, rows, &ui->frame);
    size_t len = 0;
    /* A new size leaves old text where no row reaches now: clear once. */
    bool resized = cols != ui->last_cols || rows != ui->last_rows;
    out_add(ui, &len, resized ? "\033[2J" : "", resized ? 4 : 0);
    ui->last_cols = cols;
    ui->last_rows = rows;
    int drawn = ui->frame.rows < rows ? ui->frame.rows : rows;
    for (int r = 0; r < drawn; r++) {
        char move[32];
        int m = snprintf(move, sizeof(move), "\033[%d;1H", r + 1);
        if (!out_add(ui, &len, move, (size_t)m) ||
            !out_add(ui, &len, ui->frame.text[r], strlen(ui->frame.text[r])) ||
            !out_add(ui, &len, "\033[K", 3)) {
            break;
        }
    }
    ui__write_all(ui->tty_fd, ui->out, len);
    ui->last_draw_ns = now_ns();
    __atomic_add_fetch(&ui->frames, 1, __ATOMIC_RELAXED);
}

static bool stop_asked(struct ui_dashboard *ui)
{
    pthread_mutex_lock(&ui->lock);
    bool stop = ui->stop;
    pthread_mutex_unlock(&ui->lock);
    return stop;
}

static void *run(void *arg)
{
    struct ui_dashboard *ui = arg;
    bool dirty = true;
    while (!stop_asked(ui)) {
        int64_t wait_ns = dirty ? ui->last_draw_ns + FRAME_GAP_NS - now_ns() : 0;
        if (dirty && wait_ns <= 0) {
            draw(ui);
            dirty = false;
        }
        struct pollfd fds[3] = {{.fd = ui->wake[0], .events = POLLIN},
                                {.fd = ui->tty_fd, .events = POLLIN},
                                {.fd = ui->log_read, .events = POLLIN}};
        /* Without news nothing on screen changes: sleep until some comes. */
        int timeout_ms = dirty ? (int)(wait_ns / 1000000) + 1 : -1;
        poll(fds, 3, timeout_ms);
        if (fds[0].revents & POLLIN) {
            char drain[64];
            while (read(ui->wake[0], drain, sizeof(drain)) > 0) {
            }
            dirty = true;
        }
        if (fds[1].revents & POLLIN) {
            read_keys(ui);
            dirty = true;
        }
        if (fds[2].revents & POLLIN) {
            read_logs(ui);
            dirty = true;
        }
    }
    return NULL;
}

/* take_stderr points fd 2 at a pipe the thread reads, so that every message
 * of the run lands in the log pane rather than across the frame. */
static int take_stderr(struct ui_dashboard *ui)
{
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) {
        return -errno;
    }
    fcntl(fds[0], F_SETPIPE_SZ, PIPE_BYTES);
    fcntl(fds[0], F_SETFL, O_NONBLOCK);
    fflush(stderr);
    ui->saved_stderr = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3);
    if (ui->saved_stderr < 0 || dup2(fds[1], STDERR_FILENO) < 0) {
        int err = -errno;
        close(fds[0]);
        close(fds[1]);
        return err;
    }
    close(fds[1]);
    ui->log_read = fds[0];
    return 0;
}

static int open_parts(struct ui_dashboard *ui)
{
    ui->tty_fd = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC | O_NONBLOCK);
    if (ui->tty_fd < 0) {
        return errno == ENXIO || errno == ENOENT ? -ENOTTY : -errno;
    }
    /* Frames are written whole: only reads need not block. */
    if (!isatty(ui->tty_fd)) {
        return -ENOTTY;
    }
    if (pipe2(ui->wake, O_CLOEXEC | O_NONBLOCK) != 0) {
        return -errno;
    }
    if (ui_frame_init(&ui->frame) != 0) {
        return -ENOMEM;
    }
    /* Every row's bytes, its cursor move and its erase, and the clear. */
    ui->out_cap = (size_t)UI_ROWS_MAX * (ui->frame.cap + 16) + 16;
    ui->logs = malloc(UI_LOG_BYTES_MAX);
    ui->out = malloc(ui->out_cap);
    return ui->logs != NULL && ui->out != NULL ? 0 : -ENOMEM;
}

/* start_thread starts the drawing thread with every signal but the
 * synchronous ones blocked: those the run takes go to its other threads. */
static int start_thread(struct ui_dashboard *ui)
{
    sigset_t set;
    sigset_t old;
    sigfillset(&set);
    sigdelset(&set, SIGSEGV);
    sigdelset(&set, SIGBUS);
    sigdelset(&set, SIGFPE);
    sigdelset(&set, SIGILL);
    sigdelset(&set, SIGABRT);
    pthread_sigmask(SIG_BLOCK, &set, &old);
    int ret = pthread_create(&ui->thread, NULL, run, ui);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (ret != 0) {
        return -ret;
    }
    ui->thread_started = true;
    if (pthread_getcpuclockid(ui->thread, &ui->cpu_clock) != 0) {
        ui->cpu_clock = CLOCK_THREAD_CPUTIME_ID;
    }
    return 0;
}

static bool locale_is_utf8(void)
{
    const char *names[] = {"LC_ALL", "LC_CTYPE", "LANG"};
    for (size_t i = 0; i < 3; i++) {
        const char *v = getenv(names[i]);
        if (v != NULL && v[0] != '\0') {
            return strcasestr(v, "utf-8") != NULL || strcasestr(v, "utf8") != NULL;
        }
    }
    return false;
}

int ui_dashboard_start(const struct ui_options *opts, struct ui_dashboard **out)
{
    struct ui_dashboard *ui = calloc(1, sizeof(*ui));
    if (ui == NULL) {
        return -ENOMEM;
    }
    *ui = (struct ui_dashboard){.tty_fd = -1,
                                .saved_stderr = -1,
                                .log_read = -1,
                                .wake = {-1, -1},
                                .on_quit = opts->on_quit,
                                .on_quit_ctx = opts->on_quit_ctx};
    pthread_mutex_init(&ui->lock, NULL);
    snprintf(ui->title, sizeof(ui->title), "%s", opts->title != NULL ? opts->title : "");
    ui->view =
        (struct ui_view){.selected = UI_PANE_METRICS, .utf8 = locale_is_utf8(), .title = ui->title};
    ui->published.phase = ui->shown.phase = "profiling";
    int ret = open_parts(ui);
    ret = ret == 0 ? take_stderr(ui) : ret;
    ret = ret == 0 ? ui__terminal_take(ui->tty_fd, ui->saved_stderr, ui->wake[1]) : ret;
    ret = ret == 0 ? start_thread(ui) : ret;
    if (ret != 0) {
        ui_dashboard_stop(ui);
        return ret;
    }
    *out = ui;
    return 0;
}

void ui_dashboard_publish(struct ui_dashboard *ui, const struct api_snapshot *snap)
{
    pthread_mutex_lock(&ui->lock);
    memcpy(&ui->published, snap, sizeof(*snap));
    pthread_mutex_unlock(&ui->lock);
    wake(ui);
}

int64_t ui_dashboard_cpu_ns(const struct ui_dashboard *ui)
{
    struct timespec ts;
    if (!ui->thread_started || clock_gettime(ui->cpu_clock, &ts) != 0) {
        return 0;
    }
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

uint64_t ui_dashboard_frames(const struct ui_dashboard *ui)
{
    return __atomic_load_n(&ui->frames, __ATOMIC_RELAXED);
}

/* replay_logs writes what the log pane kept to the real stderr, now back. */
static void replay_logs(struct ui_dashboard *ui)
{
    if (ui->log_read >= 0) {
        read_logs(ui);
    }
    if (ui->log_dropped > 0) {
        fprintf(stderr, "(%llu earlier bytes of messages were not kept)\n",
                (unsigned long long)ui->log_dropped);
    }
    if (ui->log_len > 0) {
        fwrite(ui->logs, 1, ui->log_len, stderr);
        if (ui->logs[ui->log_len - 1] != '\n') {
            fputc('\n', stderr);
        }
        fflush(stderr);
    }
}

static void close_fd(int fd)
{
    if (fd >= 0) {
        close(fd);
    }
}

void ui_dashboard_stop(struct ui_dashboard *ui)
{
    if (ui == NULL) {
        return;
    }
    if (ui->thread_started) {
        pthread_mutex_lock(&ui->lock);
        ui->stop = true;
        pthread_mutex_unlock(&ui->lock);
        wake(ui);
        pthread_join(ui->thread, NULL);
    }
    fflush(stderr);
    ui__terminal_give_back();
    if (ui->saved_stderr >= 0) {
        dup2(ui->saved_stderr, STDERR_FILENO); /* also where the terminal was never taken */
    }
    replay_logs(ui);
    close_fd(ui->saved_stderr);
    close_fd(ui->log_read);
    close_fd(ui->wake[0]);
    close_fd(ui->wake[1]);
    close_fd(ui->tty_fd);
    ui_frame_free(&ui->frame);
    free(ui->logs);
    free(ui->out);
    pthread_mutex_destroy(&ui->lock);
    free(ui);
}
