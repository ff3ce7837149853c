/*
 * The live page /dashboard end to end: `ringperf profile --api-port 0 --api-token` against the
 * mock server, and headless Chromium loading the page (token in its query) mid-run and after
 * the run. The screenshot has each chart's line drawn in its box, and the DOM holds the request
 * count the API gave around the load; after the run, the final tables. Skipped where Chromium
 * is not installed.
 */
#include <criterion/criterion.h>

#include <arpa/inet.h>
#include <jansson.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "tests/cli/e2e.h"
#include "tests/support/lsan_fontconfig.h"
#include "tests/support/png_pixels.h"

#define TOKEN "t0ken-for-the-page"
#define POLL_DEADLINE_S 60
#define WIDTH 1280
#define HEIGHT 900

/* The chart boxes of api/dashboard.html (fixed there) and the colour of each one's line. */
static const struct {
    uint32_t x, y, w, h;
    uint32_t rgb;
} charts[] = {
    {16, 132, 400, 200, 0x1f77b4},  /* requests per second */
    {440, 132, 400, 200, 0x2ca02c}, /* output tokens per second */
    {864, 132, 400, 200, 0xd62728}, /* TTFT p50 */
};

/* api_get_text fetches one route with the bearer token: the whole response, head and body
 * (owned). */
static char *api_get_text(int port, const char *target)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    cr_assert_eq(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
    char req[512];
    int n = snprintf(req, sizeof(req),
                     "GET %s HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " TOKEN
                     "\r\nConnection: close\r\n\r\n",
                     target);
    cr_assert_eq(send(fd, req, (size_t)n, MSG_NOSIGNAL), n);
    FILE *f = fdopen(fd, "r");
    char *text = test_read_stream(f);
    fclose(f);
    return text;
}

/* api_get fetches one route with the bearer token and parses its JSON (NULL when the route
 * answers anything but 200). */
static json_t *api_get(int port, const char *target)
{
    char *text = api_get_text(port, target);
    char *body = strstr(text, "\r\n\r\n");
    json_t *doc = strncmp(text, "HTTP/1.1 200", 12) == 0 && body != NULL
                      ? json_loads(body + 4, 0, NULL)
                      : NULL;
    free(text);
    return doc;
}

static long completed(int port, const char **out_state)
{
    json_t *doc = api_get(port, "/api/progress");
    cr_assert_not_null(doc);
    json_t *phase = json_object_get(json_object_get(doc, "phases"), "profiling");
    long n = (long)json_integer_value(json_object_get(phase, "requests_completed"));
    if (out_state != NULL) {
        *out_state = strcmp(json_string_value(json_object_get(doc, "state")), "complete") == 0
                         ? "complete"
                         : "running";
    }
    json_decref(doc);
    return n;
}

/* chromium runs headless Chromium on the page with `what` (--dump-dom, --screenshot=...)
 * for budget_ms of the page's virtual time (its polls, one a second, fast-forwarded) and returns
 * its stdout (owned). */
static char *chromium_for(const struct e2e *w, int port, const char *what, int budget_ms)
{
    char cmd[2048];
    snprintf(cmd, sizeof(cmd),
             "chromium --headless --no-sandbox --disable-gpu --hide-scrollbars "
             "--user-data-dir=%s/chromium --window-size=%d,%d --virtual-time-budget=%d %s "
             "'http://127.0.0.1:%d/dashboard?token=" TOKEN "' 2>/dev/null",
             w->dir, WIDTH, HEIGHT, budget_ms, what, port);
    FILE *f = popen(cmd, "r");
    cr_assert_not_null(f);
    char *out = test_read_stream(f);
    cr_assert_eq(pclose(f), 0, "%s", cmd);
    return out;
}

static char *chromium(const struct e2e *w, int port, const char *what)
{
    return chromium_for(w, port, what, 3000);
}

static long dom_number(const char *dom, const char *id)
{
    char key[64];
    snprintf(key, sizeof(key), "id=\"%s\">", id);
    const char *at = strstr(dom, key);
    cr_assert_not_null(at, "no #%s in the DOM", id);
    return strtol(at + strlen(key), NULL, 10);
}

/* check_charts takes a screenshot and finds each chart's line colour in its box. */
static void check_charts(const struct e2e *w, int port, const char *name)
{
    char path[256];
    char what[320];
    snprintf(path, sizeof(path), "%s/%s.png", w->dir, name);
    snprintf(what, sizeof(what), "--screenshot=%s", path);
    free(chromium(w, port, what));
    struct png_pixels shot;
    cr_assert(png_pixels_load(path, &shot), "%s is a PNG", path);
    cr_assert_eq(shot.width, WIDTH);
    for (size_t i = 0; i < sizeof(charts) / sizeof(charts[0]); i++) {
        size_t line =
            png_pixels_count_near(&shot, charts[i].x, charts[i].y, charts[i].x + charts[i].w,
                                  charts[i].y + charts[i].h, charts[i].rgb, 40);
        size_t background =
            png_pixels_count_near(&shot, charts[i].x, charts[i].y, charts[i].x + charts[i].w,
                                  charts[i].y + charts[i].h, 0xffffff, 8);
        cr_assert_gt(line, 100, "%s: chart %zu has its line (%zu pixels)", name, i, line);
        cr_assert_lt(background, (size_t)charts[i].w * charts[i].h, "not blank");
    }
    png_pixels_free(&shot);
}

/* start_run starts the profile run with a long grace after it, and reads the API's port. */
static struct child start_run(const struct e2e *w, int *out_port)
{
    char url[96];
    snprintf(url, sizeof(url), "%s", w->url);
    char dcgm[128];
    snprintf(dcgm, sizeof(dcgm), "%s/dcgm", w->url);
    char *argv[] = {RINGPERF_BINARY,
                    "profile",
                    "-m",
                    "m",
                    "-u",
                    url,
                    "--streaming",
                    "--concurrency",
                    "4",
                    "--benchmark-duration",
                    "12",
                    "--api-port",
                    "0",
                    "--api-token",
                    TOKEN,
                    "--ui-type",
                    "none",
                    "--gpu-telemetry",
                    dcgm,
                    "--auto-plot",
                    "--artifact-dir",
                    (char *)w->dir,
                    NULL};
    setenv("AIPERF_API_SERVER_POST_COMPLETE_GRACE", "120", 1);
    struct child run = spawn_child(argv, true);
    unsetenv("AIPERF_API_SERVER_POST_COMPLETE_GRACE");
    char line[1024];
    *out_port = 0;
    while (*out_port == 0 && fgets(line, sizeof(line), run.out) != NULL) {
        const char *at = strstr(line, "API server listening on http://127.0.0.1:");
        *out_port = at != NULL ? (int)strtol(strrchr(at, ':') + 1, NULL, 10) : 0;
    }
    cr_assert_gt(*out_port, 0, "the API's address was printed");
    return run;
}

/* await_points waits until the API's timeline has n points: lines to draw. */
static void await_points(int port, size_t n)
{
    int64_t deadline = e2e_now_ms() + POLL_DEADLINE_S * 1000;
    for (;;) {
        json_t *live = api_get(port, "/api/live");
        size_t have = json_array_size(json_object_get(live, "timeline"));
        json_decref(live);
        if (have >= n) {
            return;
        }
        cr_assert_lt(e2e_now_ms(), deadline, "the timeline stayed at %zu points", have);
        e2e_pause_ms(100);
    }
}

static void await_complete(int port)
{
    int64_t deadline = e2e_now_ms() + POLL_DEADLINE_S * 1000;
    const char *state = NULL;
    while (completed(port, &state), strcmp(state, "complete") != 0) {
        cr_assert_lt(e2e_now_ms(), deadline, "the run never completed");
        e2e_pause_ms(100);
    }
}

Test(dashboard_web, the_page_draws_the_run_live_and_its_final_tables, .timeout = 240)
{
    if (system("command -v chromium >/dev/null 2>&1") != 0) {
        cr_skip_test("chromium is not installed (scripts/install-deps.sh installs it)");
    }
    struct e2e w;
    char *const mock_flags[] = {"--ttft-ms", "20", "--itl-ms", "5", "--error-500-rate", "5", NULL};
    test_suppress_fontconfig_leaks(RINGPERF_LSAN_SUPP); /* --auto-plot draws report.html */
    e2e_start(&w, mock_flags);
    int port = 0;
    struct child run = start_run(&w, &port);
    await_points(port, 3);
    long before = completed(port, NULL);
    char *dom = chromium(&w, port, "--dump-dom");
    long after = completed(port, NULL);
    long shown = dom_number(dom, "requests");
    cr_assert(shown > 0 && shown >= before && shown <= after,
              "the DOM's count %ld is the API's between %ld and %ld", shown, before, after);
    cr_assert_not_null(strstr(dom, "Internal Server Error"), "errors by type");
    cr_assert_not_null(strstr(dom, "<polyline"), "the charts' lines");
    cr_assert_not_null(strstr(dom, "<th>connections open</th>"), "the shards' sockets");
    cr_assert_not_null(strstr(dom, "<td>num_running</td>"), "the server's figures");
    cr_assert_not_null(strstr(dom, "<td>input_token_throughput_srv</td>"), "from its counters");
    cr_assert_not_null(strstr(dom, "<td>GPU-mock-1</td><td>150</td>"), "GPU 1's power: %s",
                       strstr(dom, "id=\"gpus\""));
    cr_assert_not_null(strstr(dom, "id=\"report\" href=\"#\" style=\"display:none\""),
                       "no report while the run goes");
    free(dom);
    check_charts(&w, port, "mid-run");
    await_complete(port);
    long final_count = completed(port, NULL);
    /* Polls enough for the results document too, however slowly a sanitized build serves it. */
    dom = chromium_for(&w, port, "--dump-dom", 10000);
    cr_assert_eq(dom_number(dom, "requests"), final_count);
    const char *state = strstr(dom, "id=\"state\"");
    cr_assert_not_null(strstr(dom, "id=\"state\">complete<"), "the state: %.60s",
                       state != NULL ? state : dom);
    cr_assert_not_null(strstr(dom, "<td>request_throughput</td>"), "the final tables");
    /* --auto-plot drew report.html before the API's grace period: the page links it, and the API
     * serves it as a page of its own, with the GPU plot. */
    cr_assert_not_null(strstr(dom, "id=\"report\" href=\"/report.html\" style=\"\""), "%s",
                       strstr(dom, "id=\"report\""));
    free(dom);
    char *report = api_get_text(port, "/report.html");
    cr_assert(strncmp(report, "HTTP/1.1 200", 12) == 0, "%.200s", report);
    cr_assert_not_null(strstr(report, "Content-Type: text/html; charset=utf-8\r\n"), "%.400s",
                       report);
    cr_assert_not_null(strstr(report, "<figure id=\"gpu_utilization_and_throughput_over_time\">"));
    free(report);
    check_charts(&w, port, "after");
    kill(run.pid, SIGINT); /* ends the grace period */
    char *rest = test_read_stream(run.out);
    cr_assert_eq(wait_child(&run), 0, "%s", rest);
    free(rest);
    e2e_finish(&w);
}
