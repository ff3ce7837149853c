/*
 * ui.h - the full-screen terminal dashboard of `ringperf profile --ui-type
 * dashboard`: phase progress, the live metrics table, throughput sparklines,
 * errors, shard health and the last log lines, drawn from the same
 * struct api_snapshot the live API serves.
 *
 * Threads. The dashboard runs on a thread of its own (which blocks every
 * signal). The coordinator hands it each snapshot with ui_dashboard_publish,
 * a copy under a mutex only the two of them take, and the thread redraws at
 * most UI_REDRAW_HZ times a second: on a new snapshot, a key, a log line or
 * a resize. It never sees the shards.
 *
 * The terminal. ui_dashboard_start switches the terminal to the alternate
 * screen with echo and line editing off (signals from the keyboard, Ctrl-C,
 * stay on), and sends the process's stderr into the log pane. Everything is
 * put back by ui_dashboard_stop, and by ui_terminal_emergency_restore, which
 * the handlers of crash signals (and of SIGINT, SIGTERM, SIGHUP, SIGQUIT
 * until the run takes those itself) call before the signal's own action.
 */
#ifndef RINGPERF_UI_H
#define RINGPERF_UI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "api/api.h"

#define UI_REDRAW_HZ 10 /* at most this many frames a second */
#define UI_COLS_MAX 512 /* wider terminals are drawn this wide */
#define UI_ROWS_MAX 256 /* taller terminals are drawn this tall */
#define UI_LOG_BYTES_MAX                                                                           \
    (64 << 10) /* stderr text kept for the log pane and replayed at the end                        \
                */

/* ui_pane names the panes; Tab and the arrow keys move between them. */
enum ui_pane {
    UI_PANE_METRICS,
    UI_PANE_CHARTS,
    UI_PANE_ERRORS,
    UI_PANE_SHARDS,
    UI_PANE_SERVER, /* the servers' /metrics figures and the GPUs' telemetry */
    UI_PANE_LOGS,
    UI_PANE_COUNT
};

/* ui_pane_title returns the pane's title as drawn ("Metrics"); static. */
const char *ui_pane_title(enum ui_pane pane);

/* ui_view is what a frame shows besides the snapshot. */
struct ui_view {
    enum ui_pane selected;
    bool utf8;         /* block characters for the sparklines; ASCII otherwise */
    const char *title; /* the first line's text (model, endpoint); borrowed */
    const char *logs;  /* the kept stderr text (log_len bytes); borrowed */
    size_t log_len;
};

/* ui_frame is one drawn screen: `rows` lines, each at most `cols` columns
 * wide once its escape sequences are left out, never wrapped. */
struct ui_frame {
    int cols;
    int rows;
    char *text[UI_ROWS_MAX]; /* each NUL-terminated, owned by the frame */
    size_t cap;              /* bytes per row */
};

/* ui_frame_init allocates a frame for up to UI_COLS_MAX x UI_ROWS_MAX.
 * Returns 0 or -ENOMEM. ui_frame_free releases it (safe on a zeroed frame). */
int ui_frame_init(struct ui_frame *frame);
void ui_frame_free(struct ui_frame *frame);

/* ui_render draws snap and view into frame at cols x rows (clamped to the
 * maxima; at least 20 x 5 is drawn). Pure: no I/O. When rows leave room for
 * every pane they are all drawn, the selected one marked; otherwise the
 * phase progress and the selected pane alone. Narrow terminals lose table
 * columns from the right. */
void ui_render(const struct api_snapshot *snap, const struct ui_view *view, int cols, int rows,
               struct ui_frame *frame);

/* ui_dashboard is a running dashboard. */
struct ui_dashboard;

/* ui_options configure ui_dashboard_start. */
struct ui_options {
    const char *title; /* copied */
    /* Called on the dashboard's thread the first time `q` is pressed: the
     * caller stops the run as the first Ctrl-C does. ctx is borrowed. */
    void (*on_quit)(void *ctx);
    void *on_quit_ctx;
};

/* ui_dashboard_start opens the controlling terminal (/dev/tty), takes it over
 * as the header says and starts the thread. Returns 0 and the dashboard in
 * *out (stop it with ui_dashboard_stop), -ENOTTY when there is no terminal,
 * -EBUSY when another dashboard runs, or -errno; the terminal is untouched
 * on failure. */
int ui_dashboard_start(const struct ui_options *opts, struct ui_dashboard **out);

/* ui_dashboard_publish copies *snap for the next frame. Call from one thread. */
void ui_dashboard_publish(struct ui_dashboard *ui, const struct api_snapshot *snap);

/* ui_dashboard_cpu_ns returns the CPU time the dashboard's thread has used. */
int64_t ui_dashboard_cpu_ns(const struct ui_dashboard *ui);

/* ui_dashboard_frames returns how many frames it has drawn. */
uint64_t ui_dashboard_frames(const struct ui_dashboard *ui);

/* ui_dashboard_stop ends the thread, restores the terminal and stderr, writes
 * the stderr text the log pane kept to the real stderr, and frees ui.
 * ui_dashboard_stop(NULL) is a no-op. */
void ui_dashboard_stop(struct ui_dashboard *ui);

/* ui_terminal_emergency_restore puts the terminal and stderr back if a
 * dashboard holds them. Async-signal-safe: for signal handlers and for a
 * forced exit (_exit) while the dashboard runs. */
void ui_terminal_emergency_restore(void);

#endif
