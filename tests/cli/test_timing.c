/*
 * test_timing.c - the timing provenance of a run end to end: each record's
 * planned and actual send time, the events that shared a read, the receive
 * clock in run_info (and the user-space fallback when asked), and the
 * replay_sched_lag_* metrics of a fixed-schedule replay; the precision mode
 * (--realtime-priority) with and without the privilege.
 */
#include <criterion/criterion.h>

#include <jansson.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "e2e.h"
#include "tests/support/read_text.h"

/* records_shared_reads checks every record's send times and returns the sum
 * of their shared_read_events. */
static int64_t records_shared_reads(const struct e2e *w, size_t expect_records)
{
    char path[512];
    snprintf(path, sizeof(path), "%s/profile_export.jsonl", w->dir);
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f);
    char line[65536];
    size_t count = 0;
    int64_t shared = 0;
    while (fgets(line, sizeof(line), f) != NULL) {
        json_t *root = json_loads(line, 0, NULL);
        json_t *meta = json_object_get(root, "metadata");
        cr_assert_not_null(meta, "%s", line);
        int64_t due = json_integer_value(json_object_get(meta, "request_scheduled_ns"));
        int64_t start = json_integer_value(json_object_get(meta, "request_start_ns"));
        int64_t lag = json_integer_value(json_object_get(meta, "send_lag_ns"));
        cr_assert_gt(due, 0);
        cr_assert_geq(lag, 0, "nothing leaves before it is due");
        cr_assert_eq(start - due, lag, "send_lag_ns = request_start_ns - request_scheduled_ns");
        /* Open loop: the scheduler releases a request's credit when it is due. */
        cr_assert_eq(json_integer_value(json_object_get(meta, "credit_issued_ns")), due, "%s",
                     line);
        cr_assert_lt(strstr(line, "\"credit_issued_ns\""), strstr(line, "\"request_start_ns\""),
                     "AIPerf's key order");
        shared += json_integer_value(json_object_get(meta, "shared_read_events"));
        json_decref(root);
        count++;
    }
    fclose(f);
    cr_assert_eq(count, expect_records);
    return shared;
}

Test(timing_e2e, records_and_run_info_say_when_and_how_bytes_were_timed, .timeout = 120)
{
    char *const mock_flags[] = {"--ttft-ms", "1", "--itl-ms", "0", NULL};
    struct e2e w;
    e2e_start(&w, mock_flags);
    e2e_run_ok(&w,
               "profile --model m --url URL --artifact-dir DIR --endpoint-type chat --streaming "
               "--request-rate 200 --request-count 20 --osl 16");
    int64_t shared = records_shared_reads(&w, 20);
    /* With no gap between tokens the server writes a whole stream at once:
     * its events reach the client in one read and must say so. */
    cr_assert_geq(shared, 20, "every stream had events sharing a read");
    json_t *root = e2e_load_json(&w, "profile_export_aiperf.json");
    json_t *timing = json_object_get(json_object_get(root, "run_info"), "ringperf_timing");
    cr_assert_not_null(timing, "run_info.ringperf_timing");
    const char *clock = json_string_value(json_object_get(timing, "receive_clock"));
    cr_assert(clock != NULL && (strcmp(clock, "kernel_so_timestamping") == 0 ||
                                strcmp(clock, "user_space") == 0 || strcmp(clock, "mixed") == 0),
              "%s", clock);
    cr_assert_eq(json_integer_value(json_object_get(timing, "shared_read_events")), shared,
                 "run_info counts what the records flag");
    double busy = json_number_value(json_object_get(timing, "busiest_shard_cpu_fraction"));
    cr_assert(busy >= 0.0 && busy <= 1.5, "a share of one CPU: %f", busy);
    cr_assert(json_is_integer(json_object_get(timing, "record_waits")), "run_info counts waits");
    double share = json_number_value(json_object_get(timing, "coordinator_cpu_share"));
    cr_assert(share > 0.0 && share < 1.0, "the coordinator's share of the client's CPU: %f", share);
    json_t *lag = json_object_get(timing, "send_lag_ns");
    cr_assert_leq(json_integer_value(json_object_get(lag, "p50")),
                  json_integer_value(json_object_get(lag, "max")));
    json_decref(root);

    /* Asked for user-space stamps, the run says so. */
    setenv("RINGPERF_USER_TIMESTAMPS", "1", 1);
    char *out = NULL;
    int status = run_ringperf(&w,
                              "profile --model m --url URL --artifact-dir DIR --endpoint-type chat "
                              "--streaming --request-count 5",
                              true, &out);
    unsetenv("RINGPERF_USER_TIMESTAMPS");
    cr_assert_eq(status, 0, "%s", out);
    cr_assert_not_null(strstr(out, "timed in user space"), "the run says so: %s", out);
    free(out);
    root = e2e_load_json(&w, "profile_export_aiperf.json");
    timing = json_object_get(json_object_get(root, "run_info"), "ringperf_timing");
    cr_assert_str_eq(json_string_value(json_object_get(timing, "receive_clock")), "user_space");
    cr_assert_eq(json_integer_value(json_object_get(timing, "kernel_timestamp_reads")), 0);
    json_decref(root);
    e2e_finish(&w);
}

/* A merge of shares (the same path an MPI run's rank 0 takes) keeps each
 * record's shared_read_events: the merged records carry no events to count
 * again, so the count travels in the shares' rank files. */
Test(timing_e2e, a_merge_keeps_every_records_shared_reads, .timeout = 120)
{
    char *const mock_flags[] = {"--ttft-ms", "1", "--itl-ms", "0", NULL};
    struct e2e w;
    e2e_start(&w, mock_flags);
    for (int share = 0; share < 2; share++) {
        char words[512];
        snprintf(words, sizeof(words),
                 "profile --model m --url URL --artifact-dir DIR --endpoint-type chat --streaming "
                 "--request-rate 200 --request-count 20 --osl 16 --random-seed 3 --shard-count 2 "
                 "--shard-index %d",
                 share);
        e2e_run_ok(&w, words);
    }
    /* What each share counted in its own run_info. */
    int64_t counted = 0;
    for (int share = 0; share < 2; share++) {
        char name[64];
        snprintf(name, sizeof(name), "rank_%d/profile_export_aiperf.json", share);
        json_t *root = e2e_load_json(&w, name);
        json_t *timing = json_object_get(json_object_get(root, "run_info"), "ringperf_timing");
        counted += json_integer_value(json_object_get(timing, "shared_read_events"));
        json_decref(root);
    }
    e2e_run_ok(&w, "merge DIR");
    int64_t shared = records_shared_reads(&w, 20);
    cr_assert_geq(shared, 20, "every merged stream had events sharing a read");
    cr_assert_eq(shared, counted, "the merged records flag what the shares counted");
    e2e_finish(&w);
}

Test(timing_e2e, fixed_schedule_replay_reports_its_schedule_lag, .timeout = 120)
{
    struct e2e w;
    e2e_start(&w, NULL);
    e2e_write(&w, "trace.jsonl",
              "{\"timestamp\": 0, \"input_length\": 20, \"output_length\": 4}\n"
              "{\"timestamp\": 20, \"input_length\": 20, \"output_length\": 4}\n"
              "{\"timestamp\": 40, \"input_length\": 20, \"output_length\": 4}\n");
    char words[512];
    snprintf(words, sizeof(words),
             "profile --model m --url URL --artifact-dir DIR --endpoint-type chat --streaming "
             "--input-file %s/trace.jsonl",
             w.dir);
    e2e_run_ok(&w, words);
    json_t *root = e2e_load_json(&w, "profile_export_aiperf.json");
    static const char *const keys[] = {"replay_sched_lag_p50", "replay_sched_lag_p90",
                                       "replay_sched_lag_p99", "replay_sched_degraded"};
    double previous = 0;
    for (size_t i = 0; i < 4; i++) {
        json_t *avg = json_object_get(json_object_get(root, keys[i]), "avg");
        cr_assert(json_is_number(avg), "%s present", keys[i]);
        if (i < 3) {
            cr_assert_geq(json_number_value(avg), previous, "%s does not fall", keys[i]);
            previous = json_number_value(avg);
        }
    }
    json_decref(root);
    e2e_finish(&w);
}

/* precision returns run_info.ringperf_timing.precision of the world's last
 * run (a new reference). */
static json_t *precision(const struct e2e *w)
{
    json_t *root = e2e_load_json(w, "profile_export_aiperf.json");
    json_t *timing = json_object_get(json_object_get(root, "run_info"), "ringperf_timing");
    json_t *mode = json_incref(json_object_get(timing, "precision"));
    json_decref(root);
    cr_assert_not_null(mode, "run_info.ringperf_timing.precision");
    return mode;
}

/* run_realtime runs 20 streamed requests with --realtime-priority 10, the
 * binary started through prefix (a NULL-ended argv put before it), requires
 * that all of them succeed, and returns the run's precision (a new
 * reference) and its output, stdout and stderr, in *out (malloc'd). */
static json_t *run_realtime(const struct e2e *w, char *const prefix[], char **out)
{
    char *argv[48];
    size_t n = 0;
    for (; prefix[n] != NULL; n++) {
        argv[n] = prefix[n];
    }
    char *const words[] = {RINGPERF_BINARY,
                           "profile",
                           "-m",
                           "m",
                           "--url",
                           (char *)w->url,
                           "--endpoint-type",
                           "chat",
                           "--streaming",
                           "--concurrency",
                           "4",
                           "--request-count",
                           "20",
                           "--osl",
                           "8",
                           "--ui-type",
                           "none",
                           "--artifact-dir",
                           (char *)w->dir,
                           "--realtime-priority",
                           "10",
                           NULL};
    for (size_t i = 0; words[i] != NULL; i++) {
        argv[n++] = words[i];
    }
    argv[n] = NULL;
    struct child run = spawn_child(argv, true);
    *out = test_read_stream(run.out);
    cr_assert_eq(wait_child(&run), 0, "the run goes ahead:\n%s", *out);
    size_t errors = 0;
    cr_assert_eq(count_export_lines(w, &errors), 20, "%s", *out);
    cr_assert_eq(errors, 0, "%s", *out);
    return precision(w);
}

/* Without CAP_SYS_NICE and with RLIMIT_RTPRIO 0, --realtime-priority cannot
 * have SCHED_FIFO: the run says so once, with the fix, and goes ahead. Root
 * keeps SCHED_FIFO whatever RLIMIT_RTPRIO says, so as root the capabilities
 * are dropped from the bounding set first. */
Test(timing_e2e, realtime_priority_without_the_privilege_warns_and_runs, .timeout = 120)
{
    if (access("/usr/bin/prlimit", X_OK) != 0 ||
        (geteuid() == 0 && access("/usr/bin/setpriv", X_OK) != 0)) {
        cr_skip_test("needs prlimit and, as root, setpriv (util-linux)");
    }
    char *const as_user[] = {"/usr/bin/prlimit", "--rtprio=0:0", NULL};
    char *const as_root[] = {"/usr/bin/prlimit", "--rtprio=0:0", "/usr/bin/setpriv",
                             "--bounding-set=-sys_nice,-ipc_lock", NULL};
    struct e2e w;
    e2e_start(&w, NULL);
    char *out = NULL;
    json_t *mode = run_realtime(&w, geteuid() == 0 ? as_root : as_user, &out);
    const char *warning = strstr(out, "warning: --realtime-priority 10: SCHED_FIFO priority 10 "
                                      "was refused");
    cr_assert_not_null(warning, "%s", out);
    cr_assert_null(strstr(warning + 1, "warning: --realtime-priority"), "one warning:\n%s", out);
    cr_assert_not_null(strstr(out, "CAP_SYS_NICE"), "%s", out);
    cr_assert_not_null(strstr(out, "ulimit -r 10"), "%s", out);
    cr_assert_not_null(strstr(out, "at normal priority"), "%s", out);
    cr_assert_str_eq(json_string_value(json_object_get(mode, "mode")), "normal");
    cr_assert_eq(json_integer_value(json_object_get(mode, "realtime_priority")), 10);
    cr_assert_eq(json_integer_value(json_object_get(mode, "sched_fifo_shards")), 0);
    cr_assert(json_is_false(json_object_get(mode, "memory_locked")));
    json_decref(mode);
    free(out);
    e2e_finish(&w);
}

/* With the privilege (root here), every shard runs at SCHED_FIFO, memory is
 * locked and, with a CPU to spare, the other threads run apart. */
Test(timing_e2e, realtime_priority_with_the_privilege_runs_sched_fifo, .timeout = 120)
{
    if (geteuid() != 0) {
        cr_skip_test("needs root (or CAP_SYS_NICE and CAP_IPC_LOCK)");
    }
    struct e2e w;
    e2e_start(&w, NULL);
    char *out = NULL;
    char *const none[] = {NULL};
    json_t *mode = run_realtime(&w, none, &out);
    cr_assert_null(strstr(out, "warning: --realtime-priority"), "%s", out);
    cr_assert_not_null(strstr(out, "realtime: 1 shard at SCHED_FIFO priority 10"), "%s", out);
    cr_assert_str_eq(json_string_value(json_object_get(mode, "mode")), "realtime", "%s", out);
    cr_assert_eq(json_integer_value(json_object_get(mode, "realtime_priority")), 10);
    json_int_t shards = json_integer_value(json_object_get(mode, "shards"));
    cr_assert_geq(shards, 1);
    cr_assert_eq(json_integer_value(json_object_get(mode, "sched_fifo_shards")), shards);
    cr_assert(json_is_true(json_object_get(mode, "memory_locked")), "%s", out);
    cpu_set_t allowed;
    bool spare = sysconf(_SC_NPROCESSORS_ONLN) > shards &&
                 sched_getaffinity(0, sizeof(allowed), &allowed) == 0 && CPU_COUNT(&allowed) > 1;
    cr_assert_eq(json_is_true(json_object_get(mode, "threads_apart")), spare, "%s", out);
    json_decref(mode);
    free(out);
    e2e_finish(&w);
}

/* metric_value returns a record line's metric `tag`, or -1 when it has none. */
static double metric_value(json_t *line, const char *tag)
{
    json_t *v = json_object_get(json_object_get(json_object_get(line, "metrics"), tag), "value");
    return json_is_number(v) ? json_number_value(v) : -1.0;
}

/* AIPerf's HTTP trace from the engine's own timestamps: every record has the 14 http_req_*
 * metrics; one connection carries the four requests, so only the first connects and the rest
 * reuse it; a streamed reply comes in several reads; --export-http-trace adds trace_data and
 * --show-trace-timing the table. */
Test(timing_e2e, http_trace_metrics_trace_data_and_table, .timeout = 120)
{
    static const char *const tags[] = {"http_req_blocked",           "http_req_dns_lookup",
                                       "http_req_connecting",        "http_req_sending",
                                       "http_req_waiting",           "http_req_receiving",
                                       "http_req_connection_reused", "http_req_data_sent",
                                       "http_req_chunks_sent",       "http_req_data_received",
                                       "http_req_chunks_received",   "http_req_connection_overhead",
                                       "http_req_duration",          "http_req_total"};
    char *const mock_flags[] = {"--ttft-ms", "5", "--itl-ms", "5", "--tokens-per-chunk", "1", NULL};
    struct e2e w;
    e2e_start(&w, mock_flags);
    char *out = NULL;
    int status = run_ringperf(&w,
                              "profile -m m -u URL --streaming --concurrency 1 --request-count 4 "
                              "--osl 6 --export-http-trace --show-trace-timing --artifact-dir DIR",
                              false, &out);
    cr_assert_eq(status, 0, "%s", out);
    cr_assert_not_null(strstr(out, "ringperf | HTTP Trace Timing"), "%s", out);
    cr_assert_not_null(strstr(out, "HTTP Waiting (TTFB) (ms)"), "%s", out);
    free(out);
    char *text = e2e_read_text(&w, "profile_export.jsonl");
    size_t n = 0;
    char *cursor = text;
    for (char *line = test_next_line(&cursor); line != NULL; line = test_next_line(&cursor), n++) {
        json_t *rec = json_loads(line, 0, NULL);
        cr_assert_not_null(rec);
        for (size_t i = 0; i < sizeof(tags) / sizeof(tags[0]); i++) {
            cr_assert_geq(metric_value(rec, tags[i]), 0.0, "record %zu: %s", n, tags[i]);
        }
        cr_assert_eq(metric_value(rec, "http_req_connection_reused"), n == 0 ? 0.0 : 1.0);
        cr_assert(n == 0 ? metric_value(rec, "http_req_connecting") > 0
                         : metric_value(rec, "http_req_connecting") == 0,
                  "record %zu connects only on a new connection", n);
        cr_assert_geq(metric_value(rec, "http_req_chunks_received"), 2, "a streamed reply");
        cr_assert_gt(metric_value(rec, "http_req_data_sent"), 1.0, "KB of a 550-word prompt");
        cr_assert_geq(metric_value(rec, "http_req_duration"),
                      metric_value(rec, "http_req_waiting") +
                          metric_value(rec, "http_req_receiving") - 1e-6);
        json_t *trace = json_object_get(rec, "trace_data");
        cr_assert(json_is_object(trace), "--export-http-trace");
        cr_assert_gt(json_integer_value(json_object_get(trace, "request_send_start_ns")), 0);
        cr_assert_eq(json_integer_value(json_object_get(trace, "response_status_code")), 200);
        cr_assert_geq(json_integer_value(json_object_get(trace, "response_receive_end_ns")),
                      json_integer_value(json_object_get(trace, "response_receive_start_ns")));
        cr_assert_eq(json_object_get(trace, "tcp_connect_start_ns") != NULL, n == 0);
        json_decref(rec);
    }
    free(text);
    cr_assert_eq(n, 4);
    json_t *summary = e2e_load_json(&w, "profile_export_aiperf.json");
    for (size_t i = 0; i < sizeof(tags) / sizeof(tags[0]); i++) {
        cr_assert(json_is_object(json_object_get(summary, tags[i])), "summary %s", tags[i]);
    }
    cr_assert_float_eq(json_number_value(json_object_get(
                           json_object_get(summary, "http_req_connection_reused"), "avg")),
                       0.75, 1e-9, "three of four requests reused the connection");
    json_decref(summary);
    /* Without the switches: the metrics stay, the trace data and the table do not. */
    status =
        run_ringperf(&w, "profile -m m -u URL --request-count 2 --artifact-dir DIR", false, &out);
    cr_assert_eq(status, 0, "%s", out);
    cr_assert_null(strstr(out, "HTTP Trace Timing"), "%s", out);
    free(out);
    text = e2e_read_text(&w, "profile_export.jsonl");
    cr_assert_null(strstr(text, "trace_data"));
    cr_assert_not_null(strstr(text, "http_req_total"));
    free(text);
    e2e_finish(&w);
}

/* --network-latency-automatic: the probe file holds a successful handshake to the mock per
 * line, at least AIPerf's floor of five; network_rtt is their mean, and the network-adjusted
 * request latency is the request latency less it. */
Test(timing_e2e, network_latency_automatic_probes_the_server, .timeout = 120)
{
    struct e2e w;
    e2e_start(&w, NULL);
    e2e_run_ok(&w, "profile --model m --url URL --artifact-dir DIR --streaming --concurrency 2 "
                   "--request-count 20 --network-latency-automatic "
                   "--network-latency-ping-interval 0.05");
    char path[512];
    snprintf(path, sizeof(path), "%s/profile_export_network_latency.jsonl", w.dir);
    char *text = test_read_path(path);
    cr_assert_not_null(text, "%s", path);
    const char *port = strrchr(w.url, ':') + 1;
    double rtt_sum = 0;
    int samples = 0;
    char *cursor = text;
    for (char *line = test_next_line(&cursor); line != NULL; line = test_next_line(&cursor)) {
        json_t *s = json_loads(line, 0, NULL);
        cr_assert_not_null(s, "%s", line);
        cr_assert_str_eq(json_string_value(json_object_get(s, "probe_type")), "tcp_connect");
        cr_assert_eq(json_integer_value(json_object_get(s, "target_port")), strtol(port, NULL, 10));
        cr_assert(json_is_true(json_object_get(s, "success")), "%s", line);
        json_int_t rtt = json_integer_value(json_object_get(s, "rtt_ns"));
        cr_assert_gt(rtt, 0, "%s", line);
        rtt_sum += (double)rtt;
        samples++;
        json_decref(s);
    }
    free(text);
    cr_assert_geq(samples, 5, "topped up to AIPerf's floor");
    json_t *root = e2e_load_json(&w, "profile_export_aiperf.json");
    double rtt_ms = json_number_value(json_object_get(json_object_get(root, "network_rtt"), "avg"));
    cr_assert_float_eq(rtt_ms, rtt_sum / samples / 1e6, 1e-5, "network_rtt %f", rtt_ms);
    double latency =
        json_number_value(json_object_get(json_object_get(root, "request_latency"), "avg"));
    double adjusted = json_number_value(
        json_object_get(json_object_get(root, "network_adjusted_request_latency"), "avg"));
    /* At least 0: on a loaded machine the prober's thread may see its handshake late, and a
     * round trip longer than the mock's latency. */
    double want = latency > rtt_ms ? latency - rtt_ms : 0.0;
    cr_assert_float_eq(adjusted, want, 1e-3, "%f vs %f - %f", adjusted, latency, rtt_ms);
    json_t *cfg = json_object_get(json_object_get(root, "input_config"), "network_latency");
    cr_assert(json_is_true(json_object_get(cfg, "enabled")));
    cr_assert_float_eq(json_number_value(json_object_get(cfg, "ping_interval")), 0.05, 1e-9);
    json_decref(root);
    e2e_finish(&w);
}
