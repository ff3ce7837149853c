/*
 * `ringperf profile --api-port` end to end: a live run against the mock
 * server, every route while it runs and after it ends, /metrics through
 * promtool and the Python Prometheus parser when they are installed, and
 * secrets redacted everywhere.
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
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tests/support/process.h"

#define SECRET "sk-secret-12345"

/* port_after reads lines until one contains marker and returns the number
 * after its last ':'. */
static int port_after(FILE *f, const char *marker)
{
    char line[4096];
    while (fgets(line, sizeof(line), f) != NULL) {
        if (strstr(line, marker) != NULL) {
            const char *colon = strrchr(line, ':');
            return (int)strtol(colon + 1, NULL, 10);
        }
    }
    cr_assert_fail("no line with '%s'", marker);
    return 0;
}

/* http_get_with is http_get with one more request header line ("Name: value"), or NULL. */
static int http_get_with(int port, const char *target, const char *header, char **out_body);

static int http_get(int port, const char *target, char **out_body)
{
    return http_get_with(port, target, NULL, out_body);
}

static int http_get_with(int port, const char *target, const char *header, char **out_body)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    cr_assert_eq(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), 0, "connect %s", target);
    char req[1024];
    int n =
        snprintf(req, sizeof(req), "GET %s HTTP/1.1\r\nHost: x\r\n%s%sConnection: close\r\n\r\n",
                 target, header != NULL ? header : "", header != NULL ? "\r\n" : "");
    cr_assert_eq(send(fd, req, (size_t)n, MSG_NOSIGNAL), n);
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap);
    ssize_t got;
    while ((got = recv(fd, buf + len, cap - len - 1, 0)) > 0) {
        len += (size_t)got;
        if (len + 1 == cap) {
            cap *= 2;
            buf = realloc(buf, cap);
        }
    }
    buf[len] = '\0';
    close(fd);
    int status = strncmp(buf, "HTTP/1.1 ", 9) == 0 ? (int)strtol(buf + 9, NULL, 10) : 0;
    char *body = strstr(buf, "\r\n\r\n");
    *out_body = strdup(body != NULL ? body + 4 : "");
    free(buf);
    return status;
}

static json_t *get_json(int port, const char *target, int want)
{
    char *body = NULL;
    int status = http_get(port, target, &body);
    cr_assert_eq(status, want, "%s: %d %s", target, status, body);
    cr_assert_null(strstr(body, SECRET), "%s leaks the API key", target);
    json_error_t err;
    json_t *doc = json_loads(body, 0, &err);
    cr_assert_not_null(doc, "%s: not JSON: %.200s", target, body);
    free(body);
    return doc;
}

/* wait_status polls target until it answers want (the run's state changes
 * are what we wait for, never a fixed time). */
static void wait_status_with(int port, const char *target, const char *header, int want)
{
    for (int i = 0; i < 600; i++) {
        char *body = NULL;
        int status = http_get_with(port, target, header, &body);
        free(body);
        if (status == want) {
            return;
        }
        struct timespec pause = {0, 100 * 1000 * 1000};
        nanosleep(&pause, NULL);
    }
    cr_assert_fail("%s never answered %d", target, want);
}

static void wait_status(int port, const char *target, int want)
{
    wait_status_with(port, target, NULL, want);
}

/* wait_records polls /api/progress until the published snapshot has
 * records, so that the histograms have data. */
static void wait_records(int port)
{
    for (int i = 0; i < 600; i++) {
        json_t *doc = get_json(port, "/api/progress", 200);
        json_t *phase = json_object_get(json_object_get(doc, "phases"), "profiling");
        json_int_t done = json_integer_value(json_object_get(phase, "requests_success"));
        json_decref(doc);
        if (done > 0) {
            return;
        }
        struct timespec pause = {0, 100 * 1000 * 1000};
        nanosleep(&pause, NULL);
    }
    cr_assert_fail("no records were published");
}

static void check_prometheus(int port, const char *dir)
{
    wait_records(port);
    char *body = NULL;
    cr_assert_eq(http_get(port, "/metrics", &body), 200);
    cr_assert_not_null(strstr(body, "# TYPE aiperf_info gauge\n"));
    cr_assert_not_null(strstr(body, "# TYPE aiperf_time_to_first_token_ms summary\n"));
    cr_assert_not_null(strstr(body, "aiperf_request_latency_ms_sum{"));
    cr_assert_not_null(strstr(body, "aiperf_request_latency_avg_ms{"));
    cr_assert_not_null(strstr(body, ",model=\"m\",endpoint_type=\"chat\",streaming=\"true\","
                                    "concurrency=\"2\""));
    cr_assert_null(strstr(body, "ringperf_"));
    char path[256];
    snprintf(path, sizeof(path), "%s/scrape.txt", dir);
    FILE *f = fopen(path, "w");
    fputs(body, f);
    fclose(f);
    free(body);
    char cmd[1024];
    if (access("/usr/bin/promtool", X_OK) == 0) {
        /* Parsed without error (status 1); AIPerf's names (aiperf_..._ms) draw promtool's one
         * naming lint (status 3), and only that one. */
        snprintf(cmd, sizeof(cmd),
                 "/usr/bin/promtool check metrics < %s > %s.lint 2>&1; rc=$?; [ $rc -eq 0 ] || "
                 "{ [ $rc -eq 3 ] && ! grep -v 'should not contain abbreviated units' %s.lint; }",
                 path, path, path);
        cr_assert_eq(system(cmd), 0, "promtool check metrics");
    }
    snprintf(cmd, sizeof(cmd),
             "/usr/bin/python3 -c 'import prometheus_client' 2>/dev/null || exit 0; "
             "/usr/bin/python3 -c '"
             "import sys; from prometheus_client.parser import text_string_to_metric_families as p;"
             " fams = {f.name: f for f in p(open(sys.argv[1]).read())};"
             " assert fams[\"aiperf_info\"].type == \"gauge\";"
             " assert fams[\"aiperf_time_to_first_token_ms\"].type == \"summary\"' %s",
             path);
    cr_assert_eq(system(cmd), 0, "prometheus_client parses /metrics");
}

static void check_live_routes(int port)
{
    json_t *doc = get_json(port, "/api/config", 200);
    /* input_config's shape; only secret values are redacted, as AIPerf does. */
    const json_t *endpoint = json_object_get(doc, "endpoint");
    cr_assert_str_eq(json_string_value(json_object_get(endpoint, "api_key")), "<redacted>");
    const json_t *headers = json_object_get(endpoint, "headers");
    cr_assert_str_eq(json_string_value(json_object_get(headers, "Authorization")), "<redacted>");
    cr_assert_str_eq(json_string_value(json_object_get(headers, "X-Tenant")), "team-a");
    const json_t *profiling = json_array_get(json_object_get(doc, "phases"), 0);
    cr_assert_eq(json_integer_value(json_object_get(profiling, "concurrency")), 2);
    char *text = json_dumps(doc, JSON_COMPACT);
    cr_assert_null(strstr(text, SECRET));
    free(text);
    json_decref(doc);
    doc = get_json(port, "/api/run", 200);
    const char *cmd = json_string_value(json_object_get(doc, "cli_command"));
    cr_assert_not_null(strstr(cmd, "--api-key '<redacted>'"), "%s", cmd);
    cr_assert_not_null(strstr(cmd, "-H 'Authorization: <redacted>'"), "%s", cmd);
    cr_assert(json_is_string(json_object_get(doc, "benchmark_id")));
    json_decref(doc);
    wait_status(port, "/readyz", 200);
    doc = get_json(port, "/api/progress", 200);
    cr_assert(json_is_object(json_object_get(json_object_get(doc, "phases"), "profiling")));
    json_decref(doc);
    doc = get_json(port, "/api/workers", 200);
    cr_assert(json_is_object(json_object_get(doc, "workers")));
    json_decref(doc);
    doc = get_json(port, "/api/metrics", 200);
    cr_assert_str_eq(json_string_value(json_object_get(doc, "state")), "running");
    json_decref(doc);
    doc = get_json(port, "/api/results", 404);
    json_decref(doc);
    doc = get_json(port, "/openapi.json", 200);
    json_decref(doc);
    char *body = NULL;
    cr_assert_eq(http_get(port, "/docs", &body), 200);
    cr_assert_not_null(strstr(body, "/api/results/files/{filename}"));
    free(body);
    cr_assert_eq(http_get(port, "/healthz", &body), 200);
    free(body);
}

static void check_after_run(int port)
{
    wait_status(port, "/api/results", 200);
    json_t *doc = get_json(port, "/api/results", 200);
    json_t *run_info = json_object_get(doc, "run_info");
    cr_assert_not_null(
        strstr(json_string_value(json_object_get(run_info, "cli_command")), "<redacted>"));
    json_decref(doc);
    char *body = NULL;
    cr_assert_eq(http_get(port, "/readyz", &body), 503, "not ready once the run ended");
    free(body);
    doc = get_json(port, "/api/results/list", 200);
    cr_assert_gt(json_array_size(json_object_get(doc, "files")), 2);
    json_decref(doc);
    cr_assert_eq(http_get(port, "/api/results/files/profile_export_aiperf.csv", &body), 200);
    cr_assert_null(strstr(body, SECRET));
    free(body);
    cr_assert_eq(http_get(port, "/api/results/files/logs/aiperf.log", &body), 200);
    cr_assert_null(strstr(body, SECRET), "the log is redacted");
    free(body);
    int status = http_get(port, "/api/results/files/../../../../etc/passwd", &body);
    cr_assert(status == 400 || status == 404, "traversal refused: %d", status);
    free(body);
    status = http_get(port, "/api/results/files/%2e%2e/%2e%2e/etc/passwd", &body);
    cr_assert(status == 400 || status == 404, "encoded traversal refused: %d", status);
    free(body);
}

/* api_run is a mock server and a `ringperf profile --api-port 0` run against it. */
struct api_run {
    struct child mock;
    struct child run;
    char dir[64];
    int port; /* the API's */
};

/* api_run_start_with starts the mock server (reporting mock_rate percent of each prompt as
 * cached) and the run: `-m m --url <mock>`, then `args`
 * (NULL-terminated), then the API, the artifact directory and plain progress lines; the API
 * stays up for AIPERF_API_SERVER_POST_COMPLETE_GRACE=grace_s seconds after the run. */
static void api_run_start_with(struct api_run *r, const char *mock_rate, const char *grace_s,
                               const char *const args[])
{
    char *mock_argv[] = {
        RINGPERF_BINARY,    "mock-server",     "--port", "0", "--ttft-ms", "2", "--itl-ms", "1",
        "--cache-hit-rate", (char *)mock_rate, NULL};
    r->mock = spawn_child_env(mock_argv, NULL, CHILD_STDOUT);
    int mock_port = port_after(r->mock.out, "listening");
    snprintf(r->dir, sizeof(r->dir), "/tmp/ringperf-api-e2e-XXXXXX");
    cr_assert_not_null(mkdtemp(r->dir));
    char url[64];
    snprintf(url, sizeof(url), "127.0.0.1:%d", mock_port);
    char *argv[48] = {RINGPERF_BINARY, "profile", "-m", "m", "--url", url};
    size_t n = 6;
    char dcgm[96];
    snprintf(dcgm, sizeof(dcgm), "%s/dcgm", url);
    for (size_t i = 0; args[i] != NULL && n < 40; i++) {
        /* "MOCK_DCGM" stands for the mock's GPU exporter, whose port is known only now. */
        argv[n++] = strcmp(args[i], "MOCK_DCGM") == 0 ? dcgm : (char *)args[i];
    }
    char *tail[] = {"--api-port", "0", "--artifact-dir", r->dir, "--ui-type", "simple", NULL};
    memcpy(argv + n, tail, sizeof(tail));
    /* --auto-plot draws with fontconfig, whose cache lives until exit by design: not ours for
     * LeakSanitizer. */
    /* TSAN_OPTIONS travels too: .ci/run's suppressions (fontconfig's own races) must reach a
     * ThreadSanitizer build of ringperf. */
    char tsan[1024];
    const char *tsan_options = getenv("TSAN_OPTIONS");
    snprintf(tsan, sizeof(tsan), "TSAN_OPTIONS=%s", tsan_options != NULL ? tsan_options : "");
    char grace[64];
    snprintf(grace, sizeof(grace), "AIPERF_API_SERVER_POST_COMPLETE_GRACE=%s", grace_s);
    char *envp[] = {grace, "PATH=/usr/bin:/bin", "LSAN_OPTIONS=suppressions=" RINGPERF_LSAN_SUPP,
                    tsan, NULL};
    r->run = spawn_child_env(argv, envp, CHILD_STDERR);
    r->port = port_after(r->run.out, "API server listening");
    cr_assert_gt(r->port, 0);
}

static void api_run_start(struct api_run *r, const char *const args[])
{
    api_run_start_with(r, "0", "600", args);
}

/* api_run_finish ends the API's grace period, requires the run's exit status (0, or 143
 * when a SIGTERM stopped it) and the mock's clean exit, and removes the directory. */
static void api_run_finish(struct api_run *r, int status)
{
    kill(r->run.pid, SIGTERM);
    cr_assert_eq(wait_child(&r->run), status);
    kill(r->mock.pid, SIGTERM);
    cr_assert_eq(wait_child(&r->mock), 0);
    char cmd[128];
    snprintf(cmd, sizeof(cmd), "rm -rf %s", r->dir);
    cr_assert_eq(system(cmd), 0);
}

Test(cli_api, every_route_against_a_live_run, .timeout = 240)
{
    static const char *const args[] = {"--streaming",
                                       "--benchmark-duration",
                                       "600",
                                       "--concurrency",
                                       "2",
                                       "--api-key",
                                       SECRET,
                                       "-H",
                                       "Authorization: Bearer " SECRET,
                                       "-H",
                                       "X-Tenant: team-a",
                                       NULL};
    struct api_run r;
    api_run_start(&r, args);
    check_live_routes(r.port);
    check_prometheus(r.port, r.dir);
    kill(r.run.pid, SIGTERM); /* cancels the run; the API stays for the grace period */
    check_after_run(r.port);
    api_run_finish(&r, 128 + SIGTERM); /* the SIGTERM above stopped it */
}

/* wait_body polls target until its body holds `needle` (the scrapers publish on their own
 * schedule), and returns that body (owned). */
static char *wait_body(int port, const char *target, const char *needle)
{
    for (int i = 0; i < 600; i++) {
        char *body = NULL;
        int status = http_get(port, target, &body);
        if (status == 200 && strstr(body, needle) != NULL) {
            return body;
        }
        free(body);
        struct timespec pause = {0, 100 * 1000 * 1000};
        nanosleep(&pause, NULL);
    }
    cr_assert_fail("%s never showed %s", target, needle);
    return NULL;
}

/* While the run goes, /metrics and /api/metrics show the server's figures (the mock's vLLM
 * gauges) and each GPU's latest fields (the mock's DCGM exporter: 250 W and 150 W). */
Test(cli_api, live_server_and_gpu_figures_while_the_run_goes, .timeout = 120)
{
    static const char *const args[] = {
        "--streaming", "--benchmark-duration", "600",       "--concurrency",
        "2",           "--gpu-telemetry",      "MOCK_DCGM", NULL};
    struct api_run r;
    api_run_start(&r, args);
    wait_records(r.port);
    char *body = wait_body(r.port, "/metrics", "aiperf_nvidia_power_usage_current_w{");
    cr_assert_not_null(strstr(body, "gpu_index=\"0\",gpu_uuid=\"GPU-mock-0\"} 250.0\n"), "%s",
                       body);
    cr_assert_not_null(strstr(body, "gpu_index=\"1\",gpu_uuid=\"GPU-mock-1\"} 150.0\n"), "%s",
                       body);
    cr_assert_not_null(strstr(body, "# TYPE aiperf_num_running_current_req gauge\n"), "%s", body);
    cr_assert_not_null(strstr(body, "# TYPE aiperf_kv_cache_usage_pct_avg_percent gauge\n"), "%s",
                       body);
    cr_assert_not_null(strstr(body, "aiperf_num_waiting_current_req{"), "%s", body);
    free(body);
    json_t *doc = get_json(r.port, "/api/metrics", 200);
    cr_assert_str_eq(json_string_value(json_object_get(doc, "state")), "running");
    json_t *gpus = json_object_get(doc, "gpu_telemetry");
    cr_assert_eq(json_array_size(gpus), 2);
    json_t *power = json_object_get(
        json_object_get(json_object_get(json_array_get(gpus, 1), "metrics"), "nvidia_power_usage"),
        "current");
    cr_assert_eq(json_number_value(power), 150.0);
    json_t *waiting = json_object_get(json_object_get(doc, "metrics"), "num_waiting");
    cr_assert_str_eq(json_string_value(json_object_get(waiting, "unit")), "req");
    cr_assert_eq(json_number_value(json_object_get(waiting, "current")), 0.0,
                 "the mock queues none");
    json_decref(doc);
    kill(r.run.pid, SIGTERM); /* cancels the run; the API stays for the grace period */
    wait_status(r.port, "/readyz", 503);
    api_run_finish(&r, 128 + SIGTERM);
}

/* total_of is a server metric family's profiling-window increase in server_metrics_export.json
 * (its one series). */
static double total_of(json_t *export_doc, const char *family)
{
    json_t *f = json_object_get(json_object_get(export_doc, "metrics"), family);
    json_t *stats = json_object_get(json_array_get(json_object_get(f, "series"), 0), "stats");
    cr_assert_not_null(stats, "%s is in the export", family);
    return json_number_value(json_object_get(stats, "total"));
}

static double figure(json_t *metrics, const char *tag, const char *unit)
{
    json_t *m = json_object_get(metrics, tag);
    cr_assert_not_null(m, "%s is live", tag);
    cr_assert_str_eq(json_string_value(json_object_get(m, "unit")), unit);
    cr_assert_eq(json_number_value(json_object_get(m, "avg")),
                 json_number_value(json_object_get(m, "current")), "over the phase: avg = current");
    return json_number_value(json_object_get(m, "current"));
}

/* AIPerf's server rows from the servers' counters (prefix-cache hit rate, uncached tokens, token
 * rates): after the run they cover the profiling window, warmup apart, so they agree with the
 * export's totals over that window. The mock reports half of each prompt cached. */
Test(cli_api, live_server_rows_from_counters_agree_with_the_export, .timeout = 120)
{
    static const char *const args[] = {
        "--streaming", "--request-count",        "40", "--concurrency",
        "2",           "--warmup-request-count", "6",  NULL};
    struct api_run r;
    api_run_start_with(&r, "50", "600", args);
    wait_status(r.port, "/api/results", 200);
    json_t *doc = get_json(r.port, "/api/metrics", 200);
    json_t *metrics = json_object_get(doc, "metrics");
    char path[128];
    snprintf(path, sizeof(path), "%s/server_metrics_export.json", r.dir);
    json_t *exp = json_load_file(path, 0, NULL);
    cr_assert_not_null(exp);
    double hits = total_of(exp, "vllm:prefix_cache_hits");
    double queries = total_of(exp, "vllm:prefix_cache_queries");
    cr_assert_eq(queries, total_of(exp, "vllm:prompt_tokens"), "every prompt token a query");
    cr_assert_gt(hits, 0);
    cr_assert_lt(hits, queries);
    cr_assert_float_eq(figure(metrics, "prefix_cache_hit_rate", "%"), 100.0 * hits / queries, 1e-9);
    cr_assert_eq(figure(metrics, "unique_input_tokens_srv", "tokens"), queries - hits);
    cr_assert_gt(figure(metrics, "input_token_throughput_srv", "tokens/s"), 0);
    cr_assert_gt(figure(metrics, "output_token_throughput_srv", "tokens/s"), 0);
    cr_assert_null(json_object_get(metrics, "num_preemptions"), "the mock has no such counter");
    json_decref(exp);
    json_decref(doc);
    char *body = NULL;
    cr_assert_eq(http_get(r.port, "/metrics", &body), 200);
    cr_assert_not_null(strstr(body, "\naiperf_prefix_cache_hit_rate_current_percent{"), "%s", body);
    cr_assert_not_null(strstr(body, "\naiperf_input_token_throughput_srv_avg_tokens_per_s{"), "%s",
                       body);
    cr_assert_not_null(strstr(body, "\naiperf_unique_input_tokens_srv_current_tokens{"), "%s",
                       body);
    free(body);
    api_run_finish(&r, 0);
}

/* A run shorter than one progress interval still ends with its counts published: /api/progress
 * says 4 of 4, complete, not 0 of 0. */
Test(cli_api, a_short_finished_run_shows_its_progress, .timeout = 120)
{
    static const char *const args[] = {"--osl", "4", "--request-count", "4", NULL};
    struct api_run r;
    api_run_start(&r, args);
    wait_status(r.port, "/api/results", 200);
    json_t *doc = get_json(r.port, "/api/progress", 200);
    json_t *phase = json_object_get(json_object_get(doc, "phases"), "profiling");
    cr_assert_eq(json_integer_value(json_object_get(phase, "requests_total")), 4);
    cr_assert_eq(json_integer_value(json_object_get(phase, "requests_completed")), 4);
    cr_assert_eq(json_integer_value(json_object_get(phase, "requests_success")), 4);
    cr_assert_float_eq(json_number_value(json_object_get(phase, "percent_complete")), 100.0, 1e-9);
    cr_assert(json_is_true(json_object_get(phase, "is_complete")));
    json_decref(doc);
    /* Once the run is over its sweep-line metrics join the others (spec §4.2, §4.4). */
    char *body = NULL;
    cr_assert_eq(http_get(r.port, "/metrics", &body), 200);
    cr_expect_not_null(strstr(body, "# TYPE aiperf_effective_concurrency_requests summary"));
    cr_expect_not_null(strstr(body, "quantile=\"0.95\"} "));
    cr_expect_null(strstr(body, "aiperf_effective_concurrency_requests_count"));
    cr_expect_not_null(strstr(body, "aiperf_effective_concurrency_avg_requests{"));
    cr_expect_not_null(strstr(body, "aiperf_tokens_in_flight_std_tokens{"));
    free(body);
    doc = get_json(r.port, "/api/metrics", 200);
    json_t *conc = json_object_get(json_object_get(doc, "metrics"), "effective_concurrency");
    cr_assert(json_is_object(conc));
    cr_expect_str_eq(json_string_value(json_object_get(conc, "unit")), "requests");
    cr_expect_gt(json_number_value(json_object_get(conc, "max")), 0);
    json_decref(doc);
    api_run_finish(&r, 0);
}

/* --auto-plot draws a lone run's plots before the API's grace period, so /report.html serves
 * the page; without a report it says why. */
Test(cli_api, the_report_page_is_served_after_an_auto_plotted_run, .timeout = 180)
{
    static const char *const args[] = {"--streaming", "--request-count", "8", "--auto-plot", NULL};
    struct api_run r;
    api_run_start(&r, args);
    wait_status(r.port, "/api/results", 200); /* published once the plots are drawn */
    char *body = NULL;
    cr_assert_eq(http_get(r.port, "/report.html", &body), 200);
    cr_assert(strncmp(body, "<!DOCTYPE html>", 15) == 0, "%.100s", body);
    cr_assert_not_null(strstr(body, "<svg"), "the plots are inline");
    cr_assert_not_null(strstr(body, "ttft_timeline"), "the timeline is one of them");
    free(body);
    char *file = NULL;
    cr_assert_eq(http_get(r.port, "/api/results/files/plots/report.html", &file), 200);
    free(file);
    api_run_finish(&r, 0);
    static const char *const plain[] = {"--request-count", "2", NULL};
    api_run_start(&r, plain);
    wait_status(r.port, "/api/results", 200);
    cr_assert_eq(http_get(r.port, "/report.html", &body), 404);
    cr_assert_not_null(strstr(body, "no report yet: --auto-plot draws plots/report.html"), "%s",
                       body);
    free(body);
    api_run_finish(&r, 0);
}

/* get_report polls /report.html until it answers 200 (--auto-plot is drawing it), for up to
 * three minutes: a session's plots take longer than a run's. Returns the page (owned). */
static char *get_report(int port)
{
    for (int i = 0; i < 1800; i++) {
        char *body = NULL;
        if (http_get(port, "/report.html", &body) == 200) {
            return body;
        }
        cr_assert_not_null(strstr(body, "no report yet"), "%s", body);
        free(body);
        struct timespec pause = {0, 100 * 1000 * 1000};
        nanosleep(&pause, NULL);
    }
    cr_assert_fail("/report.html never answered 200");
    return NULL;
}

/* A session's runs hand their APIs on: the last one serves through the session's plots, and
 * /report.html is the session's report (its Pareto view), for the grace period after them.
 * The first run's API said there was none yet. */
Test(cli_api, a_sweep_serves_its_report_after_its_last_run, .timeout = 300)
{
    static const char *const args[] = {
        "--concurrency", "1,2", "--request-count", "4", "--streaming", "--auto-plot", NULL};
    struct api_run r;
    api_run_start_with(&r, "0", "4", args);
    char *body = NULL;
    cr_assert_eq(http_get(r.port, "/report.html", &body), 404, "%s", body);
    cr_assert_not_null(strstr(body, "a session: its last run"), "%s", body);
    free(body);
    int last = port_after(r.run.out, "API server listening"); /* the second run's */
    json_t *doc = get_json(last, "/api/run", 200);
    cr_assert_str_eq(json_string_value(json_object_get(doc, "variation_label")), "concurrency_2");
    json_decref(doc);
    body = get_report(last);
    cr_assert(strncmp(body, "<!DOCTYPE html>", 15) == 0, "%.100s", body);
    cr_assert_not_null(strstr(body, "pareto_curve_throughput_vs_latency"), "the session's plots");
    free(body);
    char path[128];
    snprintf(path, sizeof(path), "%s/plots/report.html", r.dir);
    cr_assert_eq(access(path, R_OK), 0, "drawn in the session's directory");
    api_run_finish(&r, 0);
}

/* A run of a sweep says which one it is on /api/run, as its run_info will: the session's
 * sweep_id, its trial, label and cell. */
Test(cli_api, a_sweep_run_names_its_cell_on_api_run, .timeout = 180)
{
    static const char *const args[] = {"--concurrency", "1,2", "--benchmark-duration", "600", NULL};
    struct api_run r;
    api_run_start(&r, args);
    wait_status(r.port, "/readyz", 200); /* sending: a stop now ends this run, not its start */
    json_t *doc = get_json(r.port, "/api/run", 200);
    const char *sweep_id = json_string_value(json_object_get(doc, "sweep_id"));
    cr_assert(sweep_id != NULL && strlen(sweep_id) == 36, "%s", sweep_id);
    cr_assert_str_eq(json_string_value(json_object_get(doc, "run_label")), "trial_0001");
    cr_assert_str_eq(json_string_value(json_object_get(doc, "variation_label")), "concurrency_1");
    cr_assert_eq(json_integer_value(json_object_get(doc, "variation_index")), 0);
    cr_assert_eq(json_integer_value(
                     json_object_get(json_object_get(doc, "variation_values"), "concurrency")),
                 1);
    char *id = strdup(sweep_id);
    json_decref(doc);
    kill(r.run.pid, SIGTERM); /* ends the session after this run; its API stays for the grace */
    wait_status(r.port, "/api/results", 200);
    doc = get_json(r.port, "/api/results", 200);
    json_t *info = json_object_get(doc, "run_info");
    cr_assert_str_eq(json_string_value(json_object_get(info, "sweep_id")), id, "the same id");
    json_decref(doc);
    free(id);
    api_run_finish(&r, 128 + SIGTERM);
}

/* --api-token: every route but the probes wants "Authorization: Bearer <token>"; the token is
 * a secret, so it is not in the run's cli_command. */
Test(cli_api, a_token_guards_every_route_but_the_probes, .timeout = 120)
{
    static const char *const args[] = {"--osl",        "4", "--request-count", "4", "--api-token",
                                       "s3cret-token", NULL};
    struct api_run r;
    api_run_start(&r, args);
    char *body = NULL;
    cr_assert_eq(http_get(r.port, "/api/progress", &body), 401, "%s", body);
    free(body);
    cr_assert_eq(http_get_with(r.port, "/api/progress", "Authorization: Bearer wrong", &body), 401);
    free(body);
    cr_assert_eq(http_get(r.port, "/healthz", &body), 200, "%s", body);
    free(body);
    cr_assert_eq(http_get_with(r.port, "/api/run", "Authorization: Bearer s3cret-token", &body),
                 200);
    cr_assert_null(strstr(body, "s3cret-token"), "the token is redacted: %s", body);
    free(body);
    wait_status_with(r.port, "/api/results", "Authorization: Bearer s3cret-token", 200);
    api_run_finish(&r, 0);
}

/* An API bound beyond loopback without a token says what it exposes. */
Test(cli_api, an_exposed_api_without_a_token_warns, .timeout = 120)
{
    static const char *const args[] = {"--osl",   "4", "--request-count", "4", "--api-host",
                                       "0.0.0.0", NULL};
    struct api_run r;
    api_run_start(&r, args);
    char line[1024] = "";
    cr_assert_not_null(fgets(line, sizeof(line), r.run.out));
    cr_assert_not_null(strstr(line, "warning: --api-host 0.0.0.0"), "%s", line);
    cr_assert_not_null(strstr(line, "--api-token"), "%s", line);
    wait_status(r.port, "/api/results", 200);
    api_run_finish(&r, 0);
}

Test(cli_api, port_from_the_environment_and_a_taken_port_fails, .timeout = 120)
{
    char *mock_argv[] = {RINGPERF_BINARY, "mock-server", "--port", "0", NULL};
    struct child mock = spawn_child_env(mock_argv, NULL, CHILD_STDOUT);
    int mock_port = port_after(mock.out, "listening");
    char dir[64] = "/tmp/ringperf-api-e2e-XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char url[64];
    snprintf(url, sizeof(url), "127.0.0.1:%d", mock_port);
    char *argv[] = {RINGPERF_BINARY,  "profile", "-m", "m", "--url", url, "--request-count", "5",
                    "--artifact-dir", dir,       NULL};
    char *envp[] = {"AIPERF_API_SERVER_PORT=0", "AIPERF_API_SERVER_POST_COMPLETE_GRACE=0",
                    "PATH=/usr/bin:/bin", NULL};
    struct child run = spawn_child_env(argv, envp, CHILD_STDERR);
    cr_assert_gt(port_after(run.out, "API server listening"), 0);
    cr_assert_eq(wait_child(&run), 0);
    /* The mock's own port is taken: the run refuses to start. */
    char port_text[16];
    snprintf(port_text, sizeof(port_text), "%d", mock_port);
    char *taken[] = {
        RINGPERF_BINARY,  "profile", "-m",         "m",       "--url", url, "--request-count", "5",
        "--artifact-dir", dir,       "--api-port", port_text, NULL};
    run = spawn_child_env(taken, envp, CHILD_STDERR);
    port_after(run.out, "--api-port: cannot listen");
    cr_assert_neq(wait_child(&run), 0);
    kill(mock.pid, SIGTERM);
    cr_assert_eq(wait_child(&mock), 0);
    char cmd[128];
    snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
    cr_assert_eq(system(cmd), 0);
}
