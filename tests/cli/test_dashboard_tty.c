/*
 * `ringperf profile --ui-type dashboard` end to end: a real run against the mock server inside
 * tmux (a private server, at 200x50 and at 80x24). Captures of the pane mid-run show the panes'
 * titles and request counts that move; Tab switches the pane a small terminal shows; `q` ends
 * the run as a first Ctrl-C does (exit 130) with complete exports, and gives the terminal back.
 * Skipped where tmux is not installed.
 */
#include <criterion/criterion.h>

#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tests/cli/e2e.h"

#define POLL_DEADLINE_S 30

struct tmux {
    char socket[64];
    char session[16];
};

static void tmux_cmd(const struct tmux *t, const char *args)
{
    char cmd[4096];
    snprintf(cmd, sizeof(cmd), "tmux -L %s -f /dev/null %s", t->socket, args);
    cr_assert_eq(system(cmd), 0, "%s", cmd);
}

/* capture returns the pane's screen, or with history its scrollback as well. */
static char *capture_with(const struct tmux *t, bool history)
{
    char cmd[256];
    snprintf(cmd, sizeof(cmd), "tmux -L %s capture-pane -p %s -t %s 2>/dev/null", t->socket,
             history ? "-S -" : "", t->session);
    FILE *f = popen(cmd, "r");
    cr_assert_not_null(f);
    char *text = test_read_stream(f);
    pclose(f);
    return text;
}

static char *capture(const struct tmux *t)
{
    return capture_with(t, false);
}

/* requests_shown reads the profiling row's request count ("profiling [###...]  45%  123
 * requests"), or -1 when the row is not on screen. */
static long requests_shown(const char *screen)
{
    const char *row = strstr(screen, "  profiling  [");
    const char *pct = row != NULL ? strchr(row, '%') : NULL;
    return pct != NULL ? strtol(pct + 1, NULL, 10) : -1;
}

/* await_screen captures until the screen holds every one of want[] and, when more_than >= 0,
 * a request count above it; returns that screen (owned). */
static char *await_screen(const struct tmux *t, const char *const *want, size_t n, long more_than)
{
    int64_t deadline = e2e_now_ms() + POLL_DEADLINE_S * 1000;
    char *screen = NULL;
    for (;;) {
        free(screen);
        screen = capture(t);
        bool ok = more_than < 0 || requests_shown(screen) > more_than;
        for (size_t i = 0; ok && i < n; i++) {
            ok = strstr(screen, want[i]) != NULL;
        }
        if (ok) {
            return screen;
        }
        cr_assert_lt(e2e_now_ms(), deadline, "the screen never showed what was awaited:\n%s",
                     screen);
        e2e_pause_ms(50);
    }
}

/* await_exit waits for the run's exit status, which the session's shell writes to a file. */
static int await_exit(const struct e2e *w)
{
    char path[256];
    snprintf(path, sizeof(path), "%s/exit.code", w->dir);
    int64_t deadline = e2e_now_ms() + POLL_DEADLINE_S * 1000;
    for (;;) {
        FILE *f = fopen(path, "r");
        int code = -1;
        if (f != NULL) {
            char line[32] = "";
            if (fgets(line, sizeof(line), f) != NULL && strchr(line, '\n') != NULL) {
                code = (int)strtol(line, NULL, 10);
            }
            fclose(f);
        }
        if (code >= 0) {
            return code;
        }
        cr_assert_lt(e2e_now_ms(), deadline, "the run did not end after q");
        e2e_pause_ms(50);
    }
}

static void start_run(const struct tmux *t, const struct e2e *w, int cols, int rows)
{
    char args[3072];
    snprintf(args, sizeof(args),
             "new-session -d -s %s -x %d -y %d \"stty -g > %s/stty.before; LANG=C.UTF-8 %s "
             "profile -m m -u %s --streaming --concurrency 4 --benchmark-duration 120 "
             "--warmup-request-count 8 --ui-type dashboard --workers-max 2 --artifact-dir %s "
             "--gpu-telemetry %s/dcgm; "
             "echo \\$? > %s/exit.code.tmp; stty -g > %s/stty.after; "
             "mv %s/exit.code.tmp %s/exit.code; sleep 60\"",
             t->session, cols, rows, w->dir, RINGPERF_BINARY, w->url, w->dir, w->url, w->dir,
             w->dir, w->dir, w->dir);
    tmux_cmd(t, args);
}

/* tmux_query returns a format's value for the pane ("#{alternate_on}"), newline included. */
static char *tmux_query(const struct tmux *t, const char *format)
{
    char cmd[256];
    snprintf(cmd, sizeof(cmd), "tmux -L %s display-message -p -t %s '%s'", t->socket, t->session,
             format);
    FILE *f = popen(cmd, "r");
    cr_assert_not_null(f);
    char *value = test_read_stream(f);
    pclose(f);
    return value;
}

/* terminal_given_back checks that the pane left the alternate screen and that the terminal's
 * modes are what they were before the run. */
static void terminal_given_back(const struct tmux *t, const struct e2e *w)
{
    char *alternate = tmux_query(t, "#{alternate_on}");
    cr_assert_str_eq(alternate, "0\n", "the alternate screen was left");
    free(alternate);
    char *before = e2e_read_text(w, "stty.before");
    char *after = e2e_read_text(w, "stty.after");
    cr_assert_str_eq(after, before, "the terminal's modes are restored");
    free(before);
    free(after);
}

/* run_pid returns the pid of the pane's shell's child: the ringperf run. */
static pid_t run_pid(const struct tmux *t)
{
    char *text = tmux_query(t, "#{pane_pid}");
    long shell = strtol(text, NULL, 10);
    free(text);
    char path[128];
    snprintf(path, sizeof(path), "/proc/%ld/task/%ld/children", shell, shell);
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f, "%s", path);
    text = test_read_stream(f);
    fclose(f);
    long child = strtol(text, NULL, 10);
    free(text);
    cr_assert_gt(child, 0, "the shell runs ringperf");
    return (pid_t)child;
}

/* exports_complete checks that the records file and the summary agree after the stop. */
static void exports_complete(const struct e2e *w)
{
    size_t errors = 0;
    size_t lines = count_export_lines(w, &errors);
    json_t *root = e2e_load_json(w, "profile_export_aiperf.json");
    json_t *count = json_object_get(json_object_get(root, "request_count"), "avg");
    cr_assert_not_null(count, "a request_count in the summary");
    cr_assert_eq((size_t)json_number_value(count), lines - errors,
                 "every successful record in the summary");
    cr_assert(json_is_true(json_object_get(root, "was_cancelled")), "stopped early");
    cr_assert_gt(lines, 0);
    json_decref(root);
}

static void run_at(int cols, int rows)
{
    if (system("command -v tmux >/dev/null 2>&1") != 0) {
        cr_skip_test("tmux is not installed (scripts/install-deps.sh installs it)");
    }
    struct e2e w;
    char *const mock_flags[] = {"--ttft-ms", "20", "--itl-ms", "5", "--error-500-rate", "5", NULL};
    e2e_start(&w, mock_flags);
    struct tmux t;
    snprintf(t.socket, sizeof(t.socket), "ringperf-test-%d-%d", (int)getpid(), cols);
    snprintf(t.session, sizeof(t.session), "run");
    start_run(&t, &w, cols, rows);
    const char *const panes[] = {"-- Metrics ",
                                 "-- Throughput ",
                                 "-- Errors ",
                                 "-- Shards ",
                                 "-- Log ",
                                 "Progress",
                                 "warmup     done: 8 requests",
                                 "-- Server & GPU ",
                                 "Mock GPU",
                                 "queue="};
    size_t all = sizeof(panes) / sizeof(panes[0]);
    size_t n = cols >= 120 && rows >= 40 ? all : 1;
    char *first = await_screen(&t, panes, n, 0);
    long count = requests_shown(first);
    char *later = await_screen(&t, panes, n, count);
    cr_assert_gt(requests_shown(later), count, "the counts move between captures");
    if (n == all) {
        cr_assert_not_null(strstr(later, "Time to first token (ms)"), "%s", later);
        cr_assert_not_null(strstr(later, "shard 1"), "%s", later);
        /* The shards' open sockets: with --concurrency 4 over two shards, two each. */
        cr_assert_not_null(strstr(later, "  conns"), "%s", later);
        /* The servers' figures and the mock's GPUs, from the scrapers' live picture. */
        cr_assert_not_null(strstr(later, " tput_in_srv="), "%s", later);
        const char *gpu = strstr(later, "  1 Mock GPU");
        cr_assert_not_null(gpu, "%s", later);
        const char *power = strstr(gpu, " 150.0");
        cr_assert(power != NULL && power < strchr(gpu, '\n'), "GPU 1's 150 W: %s", later);
        cr_assert_not_null(strstr(later, "Internal Server Error"), "errors by type: %s", later);
        /* SIGWINCH: a smaller window gets the one-pane layout, and no line wraps. */
        tmux_cmd(&t, "resize-window -t run -x 70 -y 20");
        const char *const one[] = {"-- Metrics ", "last p50"};
        char *small = await_screen(&t, one, 2, -1);
        cr_assert_null(strstr(small, "-- Shards "), "%s", small);
        cr_assert_null(strstr(small, "run avg"), "columns dropped at 70: %s", small);
        free(small);
    } else {
        cr_assert_null(strstr(later, "-- Shards "), "one pane at a time at %dx%d", cols, rows);
        tmux_cmd(&t, "send-keys -t run Tab");
        const char *const next[] = {"-- Throughput ", "req/s"};
        free(await_screen(&t, next, 2, -1));
    }
    free(first);
    free(later);
    tmux_cmd(&t, "send-keys -t run q");
    int code = await_exit(&w);
    cr_assert_eq(code, 130, "q ends the run as the first Ctrl-C does");
    char *after = capture_with(&t, true);
    cr_assert_null(strstr(after, "-- Metrics "), "the dashboard left the screen:\n%s", after);
    cr_assert_not_null(strstr(after, "ringperf: stopping"), "its messages replayed:\n%s", after);
    free(after);
    terminal_given_back(&t, &w);
    exports_complete(&w);
    tmux_cmd(&t, "kill-server");
    e2e_finish(&w);
}

Test(dashboard_tty, at_200x50_every_pane_live_and_q_stops_with_exports, .timeout = 180)
{
    run_at(200, 50);
}

Test(dashboard_tty, at_80x24_one_pane_tab_switches_and_q_stops_with_exports, .timeout = 180)
{
    run_at(80, 24);
}

/* A crash signal while the dashboard holds the terminal: the terminal comes back before the
 * process dies of it. */
Test(dashboard_tty, a_crash_signal_gives_the_terminal_back, .timeout = 180)
{
    if (system("command -v tmux >/dev/null 2>&1") != 0) {
        cr_skip_test("tmux is not installed (scripts/install-deps.sh installs it)");
    }
    struct e2e w;
    e2e_start(&w, NULL);
    struct tmux t;
    snprintf(t.socket, sizeof(t.socket), "ringperf-test-%d-crash", (int)getpid());
    snprintf(t.session, sizeof(t.session), "run");
    start_run(&t, &w, 100, 30);
    const char *const shown[] = {"-- Metrics "};
    free(await_screen(&t, shown, 1, 0));
    cr_assert_eq(kill(run_pid(&t), SIGABRT), 0); /* what a failed assertion raises */
    /* 139 as a rule; a sanitizer's own SIGSEGV handler, which ours hands the signal on to, ends
     * the process its way (an abort, or its exit code). Never the graceful stop's 130 or 0. */
    int code = await_exit(&w);
    cr_assert(code != 0 && code != 130, "it died of the signal: %d", code);
    terminal_given_back(&t, &w);
    char *after = capture(&t);
    cr_assert_null(strstr(after, "-- Metrics "), "%s", after);
    free(after);
    tmux_cmd(&t, "kill-server");
    e2e_finish(&w);
}
