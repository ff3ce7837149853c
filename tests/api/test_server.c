/*
 * api_server on loopback: every route's status and shape, the probes as the
 * state changes, and the hardening (methods, bodies, oversized heads, path
 * traversal, symbolic links).
 */
#include <criterion/criterion.h>

#include <arpa/inet.h>
#include <jansson.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdbool.h>
#include <time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include "api/api.h"

struct world {
    struct api_server *server;
    char dir[64];
    uint16_t port;
};

static void write_file(const char *dir, const char *name, const char *text)
{
    char path[256];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f, "%s", path);
    fputs(text, f);
    fclose(f);
}

static void world_start(struct world *w)
{
    snprintf(w->dir, sizeof(w->dir), "/tmp/ringperf-api-XXXXXX");
    cr_assert_not_null(mkdtemp(w->dir));
    write_file(w->dir, "profile_export_aiperf.json", "{\"request_count\":{\"avg\":3}}");
    char sub[128];
    snprintf(sub, sizeof(sub), "%s/logs", w->dir);
    cr_assert_eq(mkdir(sub, 0755), 0);
    write_file(w->dir, "logs/aiperf.log", "hello log\n");
    char link[128];
    snprintf(link, sizeof(link), "%s/passwd", w->dir);
    cr_assert_eq(symlink("/etc/passwd", link), 0);
    snprintf(link, sizeof(link), "%s/up", w->dir);
    cr_assert_eq(symlink("/etc", link), 0);
    struct api_options opts = {
        .port = 0,
        .artifact_dir = w->dir,
        .config_json = "{\"endpoint\":{\"model_names\":[\"m\"]}}",
        .run_json = "{\"cli_command\":\"ringperf profile --api-key '<redacted>'\"}",
        .labels = {.benchmark_id = "id1", .model = "m", .endpoint_type = "chat", .version = "v"},
    };
    char err[256];
    cr_assert_eq(api_server_start(&opts, &w->server, err, sizeof(err)), 0, "%s", err);
    w->port = api_server_port(w->server);
    cr_assert_gt(w->port, 0);
}

static void world_stop(struct world *w)
{
    api_server_free(w->server);
    char cmd[128];
    snprintf(cmd, sizeof(cmd), "rm -rf %s", w->dir);
    cr_assert_eq(system(cmd), 0);
}

/* connect_loopback opens a client connection to port. */
static int connect_loopback(uint16_t port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons(port)};
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    cr_assert_eq(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
    return fd;
}

/* exchange_within sends raw bytes and returns the status code, or 0 when
 * no answer came within wait_s; *out_body (owned) is everything after the
 * head. */
static int exchange_within(uint16_t port, const char *raw, size_t raw_len, char **out_body,
                           int wait_s)
{
    int fd = connect_loopback(port);
    struct timeval wait = {.tv_sec = wait_s};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &wait, sizeof(wait));
    size_t off = 0;
    while (off < raw_len) {
        ssize_t n = send(fd, raw + off, raw_len - off, MSG_NOSIGNAL);
        if (n <= 0) {
            break; /* the server may close early on a refused request */
        }
        off += (size_t)n;
    }
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap);
    ssize_t n;
    while ((n = recv(fd, buf + len, cap - len - 1, 0)) > 0) {
        len += (size_t)n;
        if (len + 1 == cap) {
            cap *= 2;
            buf = realloc(buf, cap);
        }
    }
    buf[len] = '\0';
    close(fd);
    int status = 0;
    if (strncmp(buf, "HTTP/1.1 ", 9) == 0) {
        status = (int)strtol(buf + 9, NULL, 10);
    }
    char *body = strstr(buf, "\r\n\r\n");
    *out_body = strdup(body != NULL ? body + 4 : "");
    free(buf);
    return status;
}

static int exchange(uint16_t port, const char *raw, size_t raw_len, char **out_body)
{
    return exchange_within(port, raw, raw_len, out_body, 30);
}

static int get_within(const struct world *w, const char *target, char **out_body, int wait_s)
{
    char req[2048];
    int n = snprintf(req, sizeof(req), "GET %s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
                     target);
    return exchange_within(w->port, req, (size_t)n, out_body, wait_s);
}

static int get(const struct world *w, const char *target, char **out_body)
{
    char req[2048];
    int n = snprintf(req, sizeof(req), "GET %s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
                     target);
    return exchange(w->port, req, (size_t)n, out_body);
}

static json_t *get_json(const struct world *w, const char *target, int want_status)
{
    char *body = NULL;
    int status = get(w, target, &body);
    cr_assert_eq(status, want_status, "%s: %d %s", target, status, body);
    json_error_t err;
    json_t *doc = json_loads(body, 0, &err);
    cr_assert_not_null(doc, "%s: not JSON: %s", target, body);
    free(body);
    return doc;
}

Test(api_server, static_routes_and_docs, .timeout = 30)
{
    struct world w;
    world_start(&w);
    json_t *doc = get_json(&w, "/api/config", 200);
    cr_assert(json_is_object(json_object_get(doc, "endpoint")));
    json_decref(doc);
    doc = get_json(&w, "/api/run", 200);
    cr_assert_not_null(
        strstr(json_string_value(json_object_get(doc, "cli_command")), "<redacted>"));
    json_decref(doc);
    doc = get_json(&w, "/openapi.json", 200);
    cr_assert(json_is_object(json_object_get(json_object_get(doc, "paths"), "/metrics")));
    json_decref(doc);
    char *body = NULL;
    cr_assert_eq(get(&w, "/docs", &body), 200);
    cr_assert_not_null(strstr(body, "<h1>ringperf live API</h1>"));
    free(body);
    doc = get_json(&w, "/nope", 404);
    cr_assert_str_eq(json_string_value(json_object_get(doc, "detail")), "Not Found");
    json_decref(doc);
    world_stop(&w);
}

Test(api_server, probes_follow_the_state, .timeout = 30)
{
    struct world w;
    world_start(&w);
    char *body = NULL;
    cr_assert_eq(get(&w, "/healthz", &body), 200);
    cr_assert_str_eq(body, "ok");
    free(body);
    cr_assert_eq(get(&w, "/readyz", &body), 503, "not ready before the run");
    free(body);
    struct api_snapshot *snap = calloc(1, sizeof(*snap));
    snap->state = API_STATE_RUNNING;
    snap->phase = "profiling";
    api_server_publish(w.server, snap);
    cr_assert_eq(get(&w, "/readyz", &body), 200);
    cr_assert_str_eq(body, "ok");
    free(body);
    json_t *doc = get_json(&w, "/api/results", 404);
    json_decref(doc);
    char path[128];
    snprintf(path, sizeof(path), "%s/profile_export_aiperf.json", w.dir);
    cr_assert_eq(api_server_set_results(w.server, API_STATE_COMPLETE, path), 0);
    cr_assert_eq(get(&w, "/readyz", &body), 503, "not ready once complete");
    free(body);
    doc = get_json(&w, "/api/results", 200);
    cr_assert_eq(json_integer_value(json_object_get(json_object_get(doc, "request_count"), "avg")),
                 3);
    json_decref(doc);
    api_server_set_results(w.server, API_STATE_FAILED, NULL);
    cr_assert_eq(get(&w, "/healthz", &body), 503);
    cr_assert_str_eq(body, "unhealthy");
    free(body);
    free(snap);
    world_stop(&w);
}

Test(api_server, live_views_show_the_published_snapshot, .timeout = 30)
{
    struct world w;
    world_start(&w);
    struct api_snapshot *snap = calloc(1, sizeof(*snap));
    snap->state = API_STATE_RUNNING;
    snap->phase = "profiling";
    snap->total = 100;
    snap->finished = 40;
    snap->success = 38;
    snap->errors = 2;
    snap->shard_count = 2;
    snap->shards[0] = (struct api_shard_view){.requests = 25, .errors = 2};
    snap->shards[1] = (struct api_shard_view){.requests = 15};
    snap->hist[API_M_TTFT] = (struct api_hist_view){.present = true, .count = 38, .p50 = 12.0};
    api_server_publish(w.server, snap);
    json_t *doc = get_json(&w, "/api/progress", 200);
    json_t *phase = json_object_get(json_object_get(doc, "phases"), "profiling");
    cr_assert_eq(json_integer_value(json_object_get(phase, "requests_completed")), 40);
    cr_assert_float_eq(json_real_value(json_object_get(phase, "percent_complete")), 40.0, 1e-9);
    json_decref(doc);
    doc = get_json(&w, "/api/workers", 200);
    json_t *w1 = json_object_get(json_object_get(doc, "workers"), "worker_1");
    cr_assert_eq(json_integer_value(json_object_get(w1, "requests_completed")), 15);
    cr_assert_str_eq(json_string_value(json_object_get(w1, "state")), "running");
    json_decref(doc);
    doc = get_json(&w, "/api/metrics", 200);
    json_t *ttft = json_object_get(json_object_get(doc, "metrics"), "time_to_first_token");
    cr_assert_float_eq(json_real_value(json_object_get(ttft, "p50")), 12.0, 1e-9, "in ms");
    json_decref(doc);
    char *body = NULL;
    cr_assert_eq(get(&w, "/metrics", &body), 200);
    cr_assert_not_null(strstr(body,
                              "aiperf_time_to_first_token_ms{benchmark_id=\"id1\",model=\"m\","
                              "endpoint_type=\"chat\",streaming=\"false\",quantile=\"0.5\"} "
                              "12.0\n"),
                       "%s", body);
    free(body);
    free(snap);
    world_stop(&w);
}

Test(api_server, artifact_files_without_traversal, .timeout = 30)
{
    struct world w;
    world_start(&w);
    json_t *doc = get_json(&w, "/api/results/list", 200);
    json_t *files = json_object_get(doc, "files");
    cr_assert_eq(json_array_size(files), 2, "two regular files; links are not listed");
    json_decref(doc);
    char *body = NULL;
    cr_assert_eq(get(&w, "/api/results/files/logs/aiperf.log", &body), 200);
    cr_assert_str_eq(body, "hello log\n");
    free(body);
    static const char *const refused[] = {
        "/api/results/files/../../../etc/passwd",
        "/api/results/files/%2e%2e/%2e%2e/etc/passwd",
        "/api/results/files/passwd",
        "/api/results/files/up/passwd",
        "/api/results/files//etc/passwd",
        "/api/results/files/logs",
        "/api/results/files/logs/..%2f..%2fx",
        "/api/results/files/missing.json",
    };
    for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
        int status = get(&w, refused[i], &body);
        cr_assert(status == 400 || status == 403 || status == 404, "%s: %d", refused[i], status);
        cr_assert_null(strstr(body, "root:"), "%s leaked /etc/passwd", refused[i]);
        free(body);
    }
    world_stop(&w);
}

Test(api_server, bad_methods_bodies_and_oversized_heads_get_4xx, .timeout = 30)
{
    struct world w;
    world_start(&w);
    char *body = NULL;
    const char post[] = "POST /api/config HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
                        "Content-Length: 2\r\n\r\n{}";
    cr_assert_eq(exchange(w.port, post, strlen(post), &body), 405);
    free(body);
    const char with_body[] = "GET /api/config HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
                             "Content-Length: 5\r\n\r\nhello";
    cr_assert_eq(exchange(w.port, with_body, strlen(with_body), &body), 413);
    free(body);
    size_t big = API_REQUEST_BYTES_MAX * 4;
    char *huge = malloc(big + 128);
    int n = snprintf(huge, 128, "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ");
    memset(huge + n, 'a', big);
    memcpy(huge + n + big, "\r\n\r\n", 5);
    int status = exchange(w.port, huge, (size_t)n + big + 4, &body);
    cr_assert(status == 431 || status == 413 || status == 400 || status == 0,
              "oversized head refused, got %d", status);
    free(body);
    char *long_url = malloc(big + 128);
    n = snprintf(long_url, 128, "GET /");
    memset(long_url + n, 'b', big);
    n += (int)big;
    n += snprintf(long_url + n, 64, " HTTP/1.1\r\nHost: x\r\n\r\n");
    status = exchange(w.port, long_url, (size_t)n, &body);
    cr_assert(status == 414 || status == 431 || status == 400 || status == 0,
              "oversized target refused, got %d", status);
    free(body);
    free(long_url);
    free(huge);
    const char garbage[] = "\x01\x02 nonsense\r\n\r\n";
    status = exchange(w.port, garbage, strlen(garbage), &body);
    cr_assert(status == 400 || status == 0, "garbage refused, got %d", status);
    free(body);
    cr_assert_eq(get(&w, "/healthz", &body), 200, "still serving after all that");
    free(body);
    world_stop(&w);
}

static int get_with(const struct world *w, const char *target, const char *header, char **out_body)
{
    char req[2048];
    int n =
        snprintf(req, sizeof(req), "GET %s HTTP/1.1\r\nHost: x\r\n%s\r\nConnection: close\r\n\r\n",
                 target, header);
    return exchange(w->port, req, (size_t)n, out_body);
}

Test(api_server, live_route_and_dashboard_page, .timeout = 30)
{
    struct world w;
    world_start(&w);
    struct api_snapshot *snap = calloc(1, sizeof(*snap));
    snap->state = API_STATE_RUNNING;
    snap->phase = "profiling";
    snap->finished = 40;
    snap->shard_count = 1;
    snap->shards[0] = (struct api_shard_view){.requests = 40,
                                              .cpu_fraction = 0.25,
                                              .outstanding = 3,
                                              .records_waiting = 2,
                                              .shared_reads = 5,
                                              .send_lag_p99_us = -1};
    snap->interval[API_M_TTFT] = (struct api_hist_view){.present = true, .count = 4, .p99 = 9};
    snap->timeline_count = 2;
    snap->timeline[1] = (struct api_point){.elapsed_s = 2, .request_throughput = 20};
    snap->error_row_count = 1;
    snap->error_rows[0] = (struct api_error_row){.code = 500, .type = "Internal", .count = 3};
    snap->phase_count = 1;
    snap->phases[0] = (struct api_phase_row){.name = "warmup", .finished = 10, .complete = true};
    api_server_publish(w.server, snap);
    json_t *doc = get_json(&w, "/api/live", 200);
    json_t *points = json_object_get(doc, "timeline");
    cr_assert_eq(json_array_size(points), 2);
    cr_assert_float_eq(
        json_real_value(json_object_get(json_array_get(points, 1), "request_throughput")), 20,
        1e-9);
    json_t *shard = json_array_get(json_object_get(doc, "shards"), 0);
    cr_assert_float_eq(json_real_value(json_object_get(shard, "cpu_fraction")), 0.25, 1e-9);
    cr_assert_eq(json_integer_value(json_object_get(shard, "outstanding")), 3);
    cr_assert_eq(json_integer_value(json_object_get(shard, "shared_reads")), 5);
    json_t *ttft = json_array_get(json_object_get(doc, "metrics"), API_M_TTFT);
    cr_assert_str_eq(json_string_value(json_object_get(ttft, "tag")), "time_to_first_token");
    cr_assert_float_eq(json_real_value(json_object_get(json_object_get(ttft, "interval"), "p99")),
                       9, 1e-9);
    cr_assert(json_is_null(json_object_get(ttft, "run")), "no run values yet");
    json_t *err = json_array_get(json_object_get(doc, "errors"), 0);
    cr_assert_eq(json_integer_value(json_object_get(err, "count")), 3);
    json_decref(doc);
    doc = get_json(&w, "/api/progress", 200);
    json_t *warm = json_object_get(json_object_get(doc, "phases"), "warmup");
    cr_assert(json_is_true(json_object_get(warm, "is_complete")), "the ended phase is listed");
    cr_assert_eq(json_integer_value(json_object_get(warm, "requests_completed")), 10);
    json_decref(doc);
    char *body = NULL;
    cr_assert_eq(get(&w, "/dashboard", &body), 200);
    cr_assert_not_null(strstr(body, "<svg id=\"s0\""), "the page with its charts");
    cr_assert_not_null(strstr(body, "/api/live"), "it polls the API's own JSON");
    /* Nothing loaded from elsewhere: no links, sources, imports or URLs but SVG's namespace. */
    static const char *const fetches[] = {"<link", " src=", "@import", "url(", "https:"};
    for (size_t i = 0; i < sizeof(fetches) / sizeof(fetches[0]); i++) {
        cr_assert_null(strstr(body, fetches[i]), "%s", fetches[i]);
    }
    for (const char *p = strstr(body, "http:"); p != NULL; p = strstr(p + 1, "http:")) {
        cr_assert_eq(strncmp(p, "http://www.w3.org/2000/svg\"", 27), 0, "%.40s", p);
    }
    free(body);
    free(snap);
    world_stop(&w);
}

Test(api_server, dashboard_is_behind_the_token_which_the_page_alone_takes_in_its_query,
     .timeout = 30)
{
    struct world w = {0};
    snprintf(w.dir, sizeof(w.dir), "/tmp/ringperf-api-XXXXXX");
    cr_assert_not_null(mkdtemp(w.dir));
    struct api_options opts = {.artifact_dir = w.dir, .token = "tok3n"};
    char err[256];
    cr_assert_eq(api_server_start(&opts, &w.server, err, sizeof(err)), 0, "%s", err);
    w.port = api_server_port(w.server);
    char *body = NULL;
    cr_assert_eq(get(&w, "/dashboard", &body), 401);
    free(body);
    cr_assert_eq(get(&w, "/dashboard?token=wrong", &body), 401);
    free(body);
    cr_assert_eq(get(&w, "/dashboard?token=tok3n", &body), 200);
    free(body);
    cr_assert_eq(get_with(&w, "/dashboard", "Authorization: Bearer tok3n", &body), 200);
    free(body);
    cr_assert_eq(get(&w, "/api/live?token=tok3n", &body), 401, "data routes want the header");
    free(body);
    cr_assert_eq(get_with(&w, "/api/live", "Authorization: Bearer tok3n", &body), 200);
    free(body);
    world_stop(&w);
}

/* closed_by_server says whether the server has ended fd's stream, waiting
 * up to wait_ms for it. */
static bool closed_by_server(int fd, int wait_ms)
{
    struct pollfd p = {.fd = fd, .events = POLLIN};
    if (poll(&p, 1, wait_ms) <= 0) {
        return false;
    }
    char byte;
    return recv(fd, &byte, 1, MSG_DONTWAIT) <= 0;
}

static int64_t monotonic_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

Test(api_server, slow_clients_cannot_lock_out_health_checks, .timeout = 60)
{
    struct world w;
    world_start(&w);
    /* Every slot taken by a client that never finishes its request head. */
    int slow[API_CONNECTIONS_MAX];
    const char partial[] = "GET /healthz HTTP/1.1\r\nHost: x\r\n";
    for (int i = 0; i < API_CONNECTIONS_MAX; i++) {
        slow[i] = connect_loopback(w.port);
        cr_assert_eq(send(slow[i], partial, strlen(partial), MSG_NOSIGNAL),
                     (ssize_t)strlen(partial));
    }
    for (int round = 0; round < 8; round++) {
        char *body = NULL;
        /* Well inside the idle timeout, which would free slots by itself. */
        cr_assert_eq(get_within(&w, "/healthz", &body, 2), 200, "round %d: a health check got in",
                     round);
        free(body);
    }
    int dropped = 0;
    for (int i = 0; i < API_CONNECTIONS_MAX; i++) {
        dropped += closed_by_server(slow[i], 0);
        close(slow[i]);
    }
    cr_assert_gt(dropped, 0, "the oldest slow readers made room");
    world_stop(&w);
}

Test(api_server, a_trickling_request_head_is_cut_off, .timeout = 60)
{
    struct world w;
    world_start(&w);
    int fd = connect_loopback(w.port);
    const char line[] = "GET /healthz HTTP/1.1\r\n";
    cr_assert_eq(send(fd, line, strlen(line), MSG_NOSIGNAL), (ssize_t)strlen(line));
    int64_t start = monotonic_ms();
    bool closed = false;
    /* One header line every 300 ms: never idle long enough for the idle timeout. */
    while (!closed && monotonic_ms() - start < (API_REQUEST_READ_S + 5) * 1000) {
        closed = closed_by_server(fd, 300);
        if (!closed) {
            send(fd, "X-Slow: 1\r\n", 11, MSG_NOSIGNAL);
        }
    }
    int64_t elapsed = monotonic_ms() - start;
    close(fd);
    cr_assert(closed, "still open after %lld ms", (long long)elapsed);
    cr_assert_geq(elapsed, API_REQUEST_READ_S * 1000 - 500, "cut off early: %lld ms",
                  (long long)elapsed);
    char *body = NULL;
    cr_assert_eq(get(&w, "/healthz", &body), 200);
    free(body);
    world_stop(&w);
}
