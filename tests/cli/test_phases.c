/*
 * `ringperf profile` around its measured phase, as a user runs it (real
 * processes on loopback): waiting for the server, the control hooks before
 * and after the phase, the warmup's own load, and the progress lines.
 */
#include <criterion/criterion.h>

#include <arpa/inet.h>
#include <math.h>
#include <signal.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "e2e.h"
#include "engine/engine.h"
#include "tests/support/read_text.h"

/* --wait-for-model-timeout: the models probe asks GET /v1/models, which the
 * mock serves, while a one-token request to an endpoint it does not have
 * fails; so models is ready at once and both never is. */
Test(profile_e2e, wait_for_model_modes_ask_what_they_say, .timeout = 120)
{
    struct e2e w;
    e2e_start(&w, NULL);
    e2e_run_ok(&w, "profile -m m -u URL --request-count 3 --wait-for-model-timeout 10 "
                   "--wait-for-model-mode models --artifact-dir DIR");
    char *out = NULL;
    int status = run_ringperf(&w,
                              "profile -m m -u URL --endpoint /nope --request-count 3 "
                              "--wait-for-model-timeout 0.6 --wait-for-model-interval 0.2 "
                              "--wait-for-model-mode both --artifact-dir DIR",
                              true, &out);
    cr_assert_eq(status, 1, "%s", out);
    cr_assert_not_null(strstr(out, "--wait-for-model-timeout: the server was not ready within "
                                   "0.6 s (3 probes, every 0.2 s); the last, a one-token "
                                   "request, ended with"),
                       "%s", out);
    cr_assert_not_null(strstr(out, "HTTP 404 Not Found"), "the probe's error is named: %s", out);
    free(out);
    e2e_finish(&w);
}

/* A server that comes up after ringperf started: the run waits for it, then
 * runs every request. */
Test(profile_e2e, wait_for_model_waits_for_a_server_that_starts_later, .timeout = 120)
{
    int probe = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sin = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    cr_assert_eq(bind(probe, (struct sockaddr *)&sin, sizeof(sin)), 0);
    socklen_t len = sizeof(sin);
    cr_assert_eq(getsockname(probe, (struct sockaddr *)&sin, &len), 0);
    close(probe); /* the port is free again, for the server to take later */
    char port[16];
    char url[64];
    snprintf(port, sizeof(port), "%u", ntohs(sin.sin_port));
    snprintf(url, sizeof(url), "127.0.0.1:%s", port);
    char dir[] = "/tmp/ringperf-wait-XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char *argv[] = {RINGPERF_BINARY,
                    "profile",
                    "-m",
                    "m",
                    "-u",
                    url,
                    "--streaming",
                    "--request-count",
                    "20",
                    "--concurrency",
                    "4",
                    "--wait-for-model-timeout",
                    "60",
                    "--wait-for-model-interval",
                    "0.1",
                    "--artifact-dir",
                    dir,
                    NULL};
    struct child run = spawn_child(argv, true);
    char line[1024];
    bool waiting = false;
    while (!waiting && fgets(line, sizeof(line), run.out) != NULL) {
        waiting = strstr(line, "Waiting up to 60 s for the server") != NULL;
    }
    cr_assert(waiting, "ringperf says it waits");
    /* Only now does the server start, on the port ringperf is probing. */
    char *mock_argv[] = {RINGPERF_BINARY, "mock-server", "--port", port, NULL};
    struct child mock = spawn_child(mock_argv, false);
    bool ready = false;
    while (fgets(line, sizeof(line), run.out) != NULL) {
        ready |= strstr(line, "Server ready after") != NULL;
    }
    cr_assert_eq(wait_child(&run), 0);
    cr_assert(ready, "ringperf says when the server was ready");
    char records[128];
    snprintf(records, sizeof(records), "%s/profile_export.jsonl", dir);
    size_t errors = 0;
    cr_assert_eq(count_lines(records, &errors), 20);
    cr_assert_eq(errors, 0, "no request ran before the server was up");
    stop_mock(&mock);
    char rm[160];
    snprintf(rm, sizeof(rm), "rm -rf '%s'", dir);
    cr_assert_eq(system(rm), 0);
}

/* --reset-kv-cache and --server-profiler: one POST of each to the server
 * behind two --url spellings, the reset tried again while the server says
 * it is busy (503, twice), the profiler stopped after the run. */
Test(profile_e2e, control_hooks_reach_each_server_once_and_retry_a_busy_reset, .timeout = 120)
{
    char *const mock_flags[] = {"--control-busy", "2", NULL};
    struct e2e w;
    e2e_start(&w, mock_flags);
    char *out = NULL;
    char words[512];
    snprintf(words, sizeof(words),
             "profile -m m -u URL -u http://%s --request-count 4 --reset-kv-cache "
             "--server-profiler --artifact-dir DIR",
             w.url);
    int status = run_ringperf(&w, words, true, &out);
    cr_assert_eq(status, 0, "%s", out);
    cr_assert_not_null(strstr(out, "--reset-kv-cache: POST /reset_prefix_cache to 1 server: done"),
                       "%s", out);
    cr_assert_not_null(strstr(out, "--server-profiler: POST /stop_profile to 1 server: done"), "%s",
                       out);
    free(out);
    char *report = e2e_finish_report(&w);
    cr_assert_not_null(strstr(report, "1 cache resets, 1 profiler starts, 1 profiler stops, 2 "
                                      "control requests answered busy"),
                       "%s", report);
    free(report);
}

/* A server without the reset endpoint stops the run before it measures
 * anything, naming the flag and the server's answer. */
Test(profile_e2e, a_refused_cache_reset_stops_the_run, .timeout = 120)
{
    struct e2e w;
    e2e_start(&w, NULL);
    char *out = NULL;
    int status = run_ringperf(&w,
                              "profile -m m -u URL --request-count 4 --reset-kv-cache-path "
                              "/flush_cache --no-server-metrics --artifact-dir DIR",
                              true, &out);
    cr_assert_eq(status, 1, "%s", out);
    cr_assert_not_null(strstr(out, "--reset-kv-cache: POST /flush_cache to "), "%s", out);
    cr_assert_not_null(strstr(out, "HTTP 404"), "%s", out);
    free(out);
    char *report = e2e_finish_report(&w);
    cr_assert_not_null(strstr(report, "mock-server stopped: 1 requests"),
                       "nothing but the reset reached the server: %s", report);
    free(report);
}

/* The --warmup-* load flags shape the warmup alone: one connection for the
 * warmup beside the profiling phase's three (the mock counts them), and a
 * warmup paced at 4 requests/s whatever the profiling phase does. */
Test(profile_e2e, warmup_load_flags_shape_the_warmup_only, .timeout = 120)
{
    struct e2e w;
    e2e_start(&w, NULL);
    /* Without server metrics: the mock counts only the benchmark's requests. */
    e2e_run_ok(&w, "profile -m m -u URL --concurrency 3 --request-count 6 --workers-max 1 "
                   "--warmup-request-count 12 --warmup-concurrency 1 --no-server-metrics "
                   "--artifact-dir DIR");
    size_t errors = 0;
    cr_assert_eq(count_export_lines(&w, &errors), 6, "warmup requests are not exported");
    char *report = e2e_finish_report(&w);
    cr_assert_not_null(strstr(report, "18 requests, 4 connections"), "%s", report);
    free(report);

    e2e_start(&w, NULL);
    int64_t start = engine_now_ns();
    e2e_run_ok(&w,
               "profile -m m -u URL --concurrency 3 --request-count 6 --warmup-request-count "
               "3 --warmup-request-rate 4 --warmup-arrival-pattern constant --artifact-dir DIR");
    /* Due at 0, 0.25 and 0.5 s: a closed-loop warmup would take milliseconds. */
    cr_assert_geq(engine_now_ns() - start, 500LL * 1000 * 1000);
    e2e_finish(&w);
}

/* AIPerf's JSON keeps the warmup's numbers apart, in warmup_metrics (spec §1.2 key 37), with the
 * top-level blocks' shapes; a run without a warmup has no such key. */
Test(profile_e2e, warmup_numbers_are_in_warmup_metrics, .timeout = 120)
{
    struct e2e w;
    e2e_start(&w, NULL);
    e2e_run_ok(&w, "profile -m m -u URL --request-count 4 --warmup-request-count 3 --streaming "
                   "--artifact-dir DIR");
    json_t *doc = e2e_load_json(&w, "profile_export_aiperf.json");
    json_t *warm = json_object_get(doc, "warmup_metrics");
    cr_assert(json_is_object(warm), "no warmup_metrics");
    json_t *count = json_object_get(json_object_get(warm, "request_count"), "avg");
    cr_assert_float_eq(json_number_value(count), 3.0, 1e-9);
    json_t *ttft = json_object_get(warm, "time_to_first_token");
    cr_assert_eq(json_integer_value(json_object_get(ttft, "count")), 3);
    cr_assert_str_eq(json_string_value(json_object_get(ttft, "unit")), "ms");
    count = json_object_get(json_object_get(doc, "request_count"), "avg");
    cr_assert_float_eq(json_number_value(count), 4.0, 1e-9, "the top level is profiling only");
    const char *previous = NULL;
    const char *after_end = NULL;
    const char *key;
    json_t *value;
    json_object_foreach(doc, key, value)
    {
        if (previous != NULL && strcmp(previous, "end_time") == 0) {
            after_end = key;
        }
        previous = key;
    }
    cr_assert(after_end != NULL && strcmp(after_end, "warmup_metrics") == 0,
              "warmup_metrics follows end_time");
    json_decref(doc);
    e2e_finish(&w);

    e2e_start(&w, NULL);
    e2e_run_ok(&w, "profile -m m -u URL --request-count 2 --artifact-dir DIR");
    doc = e2e_load_json(&w, "profile_export_aiperf.json");
    cr_assert_null(json_object_get(doc, "warmup_metrics"));
    json_decref(doc);
    e2e_finish(&w);
}

/* --request-rate-ramp-duration: 40 req/s ramped over 1 s, constant, for 1.91 s sends the
 * integral of the ramped rate, 4 req/s climbing to 40: 59 requests, due at 0, 0.149 s, ...,
 * 1.9 s. (A ramp that took each gap from the rate at its start sent one request, then waited
 * 2.5 s.) */
/* ramp_offset_s restates AIPerf's ramp (workload/arrivals.c has the derivation): the rate starts
 * at 0.1 s / ramp of the target and climbs linearly to it, so request k of a constant stream at
 * rate r is due where f0 t + (1 - f0) t^2 / (2 T) reaches k / r. */
static double ramp_offset_s(double k, double rate, double ramp)
{
    double f0 = 0.1 / ramp;
    double target = k / rate;
    double area = ramp * (1.0 + f0) / 2.0;
    if (target >= area) {
        return ramp + (target - area);
    }
    double c = (1.0 - f0) / (2.0 * ramp);
    return (-f0 + sqrt(f0 * f0 + 4.0 * c * target)) / (2.0 * c);
}

static int compare_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a;
    int64_t y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* The schedule, not the count that a loaded machine manages in a wall-clock window: every
 * request is due where the integral of the ramped rate says, relative to the first. */
Test(profile_e2e, a_request_rate_ramp_sends_the_integral_of_the_ramped_rate, .timeout = 120)
{
    struct e2e w;
    e2e_start(&w, NULL);
    e2e_run_ok(&w, "profile -m m -u URL --request-rate 40 --arrival-pattern constant "
                   "--request-rate-ramp-duration 1 --benchmark-duration 1.91 --osl 4 "
                   "--artifact-dir DIR");
    char path[512];
    snprintf(path, sizeof(path), "%s/profile_export.jsonl", w.dir);
    char *text = test_read_path(path);
    cr_assert_not_null(text);
    int64_t due[256];
    size_t n = 0;
    char *cursor = text;
    for (char *line = test_next_line(&cursor); line != NULL && n < 256;
         line = test_next_line(&cursor)) {
        const char *at = strstr(line, "\"request_scheduled_ns\":");
        cr_assert_not_null(at, "%s", line);
        due[n++] = strtoll(at + strlen("\"request_scheduled_ns\":"), NULL, 10);
    }
    free(text);
    /* Before the fix the second request was due 100 / rate s after the first: 2.5 s, past the
     * run's end. The ramp's first second alone holds about 20. */
    cr_assert_geq(n, 20, "%zu requests", n);
    cr_assert_leq(n, 61, "%zu requests, at most the integral over 1.91 s", n);
    qsort(due, n, sizeof(due[0]), compare_i64);
    for (size_t k = 1; k < n; k++) {
        double want = ramp_offset_s((double)k, 40.0, 1.0) - ramp_offset_s(0, 40.0, 1.0);
        double got = (double)(due[k] - due[0]) / 1e9;
        cr_assert(fabs(got - want) < 1e-5, "request %zu due at %.6f s, want %.6f s", k, got, want);
    }
    e2e_finish(&w);
}

/* A client that reaches its schedule late still sends every request that fell due inside the
 * run: here the whole process is frozen (SIGSTOP) from its first progress line until past the
 * run's end, so the shards reach the requests due meanwhile only after the end. They go out
 * late (their send lag says by how much) instead of vanishing from the exports. The freeze's
 * length is the fault injected, not a wait for anything. */
Test(profile_e2e, requests_due_inside_the_run_are_sent_by_a_late_client, .timeout = 120)
{
    struct e2e w;
    e2e_start(&w, NULL);
    struct child run = e2e_spawn_running(&w, "profile -m m -u URL --request-rate 20 "
                                             "--arrival-pattern constant --benchmark-duration 1.99 "
                                             "--osl 4 --artifact-dir DIR");
    cr_assert_eq(kill(run.pid, SIGSTOP), 0);
    struct timespec frozen = {.tv_sec = 2, .tv_nsec = 500 * 1000 * 1000};
    nanosleep(&frozen, NULL);
    cr_assert_eq(kill(run.pid, SIGCONT), 0);
    char *rest = test_read_stream(run.out);
    int status = wait_child(&run);
    cr_assert_eq(status, 0, "%s", rest);
    free(rest);
    size_t errors = 0;
    size_t lines = count_export_lines(&w, &errors);
    /* Due at k / 20 s for k = 0..39: every one before 1.99 s. */
    cr_assert_eq(lines, 40, "%zu of the 40 requests due inside the run were recorded", lines);
    cr_assert_eq(errors, 0);
    e2e_finish(&w);
}

/* AIPerf CI scripts turn off the exporters they lack; ringperf collects neither yet, so the
 * run is an ordinary one. */
Test(profile_e2e, the_switches_that_turn_off_server_metrics_and_gpu_telemetry_run, .timeout = 60)
{
    struct e2e w;
    e2e_start(&w, NULL);
    e2e_run_ok(&w, "profile -m m -u URL --request-count 3 --no-server-metrics --no-gpu-telemetry "
                   "--artifact-dir DIR");
    size_t errors = 0;
    cr_assert_eq(count_export_lines(&w, &errors), 3);
    cr_assert_eq(errors, 0);
    e2e_finish(&w);
}

/* count_lines_with counts the lines of text that contain needle. */
static size_t count_lines_with(const char *text, const char *needle)
{
    size_t n = 0;
    for (const char *line = text; line != NULL && *line != '\0';) {
        const char *end = strchr(line, '\n');
        size_t len = end != NULL ? (size_t)(end - line) : strlen(line);
        const char *hit = strstr(line, needle);
        n += hit != NULL && (size_t)(hit - line) < len;
        line = end != NULL ? end + 1 : NULL;
    }
    return n;
}

/* Stopping an open loop (here --failed-request-threshold; Ctrl-C and SIGTERM take the same path)
 * sends nothing more and lets the requests in flight finish: the failures come back at once, the
 * successes after 400 ms, well inside the 3 s grace, so none is cancelled. (A shard whose next
 * request was already due stopped waiting for completions, so their replies sat unread until the
 * grace ran out and every one was cancelled.) */
Test(profile_e2e, a_stopped_open_loop_reads_the_replies_in_flight, .timeout = 120)
{
    char *const mock_flags[] = {"--error-500-rate", "50", "--ttft-ms", "400", "--itl-ms", "1",
                                "--ttft-jitter-ms", "0",  NULL};
    struct e2e w;
    e2e_start(&w, mock_flags);
    char *out = NULL;
    int status = run_ringperf(&w,
                              "profile -m m -u URL --streaming --request-rate 50 --concurrency 10 "
                              "--request-count 500 --osl 4 --failed-request-threshold 0.3 "
                              "--artifact-dir DIR",
                              true, &out);
    cr_assert_neq(status, 0, "%s", out);
    cr_assert_not_null(strstr(out, "--failed-request-threshold"), "%s", out);
    free(out);
    size_t errors = 0;
    size_t lines = count_export_lines(&w, &errors);
    cr_assert_lt(lines, 500, "the run stopped early");
    cr_assert_lt(errors, lines, "the requests in flight at the stop succeeded");
    char *records = e2e_read_text(&w, "profile_export.jsonl");
    cr_assert_eq(count_lines_with(records, "RequestCancellationError"), 0,
                 "no request was cancelled");
    free(records);
    e2e_finish(&w);
}

/* --stats-interval spaces the progress log lines: a 2 s run with a 30 s
 * interval logs its first update and no other. */
Test(profile_e2e, stats_interval_spaces_the_progress_lines, .timeout = 120)
{
    struct e2e w;
    e2e_start(&w, NULL);
    char *out = NULL;
    int status = run_ringperf(&w,
                              "profile -m m -u URL --ui-type simple --benchmark-duration 2 "
                              "--concurrency 2 --stats-interval 30 --artifact-dir DIR",
                              true, &out);
    cr_assert_eq(status, 0, "%s", out);
    cr_assert_eq(count_lines_with(out, "% done,"), 1, "%s", out);
    free(out);
    e2e_finish(&w);
}
