/*
 * `ringperf profile --endpoint-type video_generation` against the mock server's asynchronous
 * video API: jobs submitted, polled every AIPERF_HTTP_VIDEO_POLL_INTERVAL and, with
 * --download-video-content, downloaded; jobs that fail; a run whose duration or a Ctrl-C ends
 * it while jobs are running. Each scheduled request ends as exactly one record.
 */
#include <criterion/criterion.h>

#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "e2e.h"

/* mock_counts reads the requests and connections of the mock's stop report
 * ("mock-server stopped: N requests, M connections, ..."). */
static void mock_counts(const char *report, unsigned long *requests, unsigned long *connections)
{
    const char *at = strstr(report, "stopped: ");
    cr_assert_not_null(at, "%s", report);
    char *end = NULL;
    *requests = strtoul(at + strlen("stopped: "), &end, 10);
    cr_assert_not_null(end);
    const char *comma = strstr(end, ", ");
    cr_assert_not_null(comma, "%s", report);
    *connections = strtoul(comma + 2, NULL, 10);
}

/* metric returns the summary JSON's `stat` of metric `tag` (a failing assert when absent). */
static double metric(const json_t *root, const char *tag, const char *stat)
{
    json_t *m = json_object_get(root, tag);
    cr_assert(json_is_object(m), "no %s in the summary", tag);
    json_t *v = json_object_get(m, stat);
    cr_assert(json_is_number(v), "no %s.%s", tag, stat);
    return json_number_value(v);
}

/* run_failing runs `words`, every request of which fails (AIPerf then writes no summary and
 * exits 1), and returns profile_export.jsonl's text after checking it holds `records` error
 * records. */
static char *run_failing(const struct e2e *w, const char *words, size_t records, int want_status)
{
    char *out = NULL;
    int status = run_ringperf(w, words, true, &out);
    cr_assert_eq(status, want_status, "%s\n%s", words, out);
    free(out);
    size_t errors = 0;
    cr_assert_eq(count_export_lines(w, &errors), records, "%s", words);
    cr_assert_eq(errors, records, "%s", words);
    return e2e_read_text(w, "profile_export.jsonl");
}

/* Jobs of 300 ms polled every 50 ms: each record's latency covers the whole job (at least
 * 300 ms), the server's figures are the video tags of the JSON, CSV and console under AIPerf's
 * title, the bodies are AIPerf's, and the polls went on the jobs' own connections. */
Test(video_e2e, jobs_are_polled_to_completion_and_report_the_video_tags, .timeout = 120)
{
    struct e2e w;
    char *const mock_flags[] = {"--video-job-ms", "300", NULL};
    e2e_start(&w, mock_flags);
    setenv("AIPERF_HTTP_VIDEO_POLL_INTERVAL", "0.05", 1);
    char *out = NULL;
    int status = run_ringperf(&w,
                              "profile -m wan -u URL --endpoint-type video_generation "
                              "--concurrency 2 --request-count 4 --isl 8 --no-server-metrics "
                              "--extra-inputs size:832x480 --artifact-dir DIR",
                              true, &out);
    unsetenv("AIPERF_HTTP_VIDEO_POLL_INTERVAL");
    cr_assert_eq(status, 0, "%s", out);
    cr_assert_not_null(strstr(out, "ringperf | Video Generation Metrics"), "%s", out);
    cr_assert_not_null(strstr(out, "Video Inference Time"), "%s", out);
    cr_assert_not_null(strstr(out, "Video Peak Memory"), "%s", out);
    free(out);
    size_t errors = 0;
    cr_assert_eq(count_export_lines(&w, &errors), 4);
    cr_assert_eq(errors, 0);
    json_t *root = e2e_load_json(&w, "profile_export_aiperf.json");
    cr_assert_geq(metric(root, "request_latency", "min"), 300.0, "latency covers the job");
    cr_assert_float_eq(metric(root, "video_inference_time", "avg"), 300.0, 1e-6);
    cr_assert_str_eq(
        json_string_value(json_object_get(json_object_get(root, "video_inference_time"), "unit")),
        "ms");
    cr_assert_float_eq(metric(root, "video_peak_memory", "max"), 2048.5, 1e-6);
    cr_assert_null(json_object_get(root, "output_sequence_length"), "no tokens are produced");
    cr_assert_null(json_object_get(root, "time_to_first_token"));
    json_decref(root);
    char *csv = e2e_read_text(&w, "profile_export_aiperf.csv");
    cr_assert_not_null(strstr(csv, "Video Inference Time (ms)"), "%s", csv);
    cr_assert_not_null(strstr(csv, "Video Peak Memory (MB)"), "%s", csv);
    free(csv);
    json_t *inputs = e2e_load_json(&w, "inputs.json");
    json_t *body = json_array_get(
        json_object_get(json_array_get(json_object_get(inputs, "data"), 0), "payloads"), 0);
    cr_assert(json_is_string(json_object_get(body, "prompt")));
    cr_assert_str_eq(json_string_value(json_object_get(body, "model")), "wan");
    cr_assert_str_eq(json_string_value(json_object_get(body, "size")), "832x480");
    cr_assert_eq(json_object_size(body), 3, "prompt, model and the extra input only");
    json_decref(inputs);
    char *report = e2e_finish_report(&w);
    /* 4 submissions, then at least 300/50 polls each; 2 connections carried all of them. */
    unsigned long requests = 0;
    unsigned long connections = 0;
    mock_counts(report, &requests, &connections);
    cr_assert_geq(requests, 4 + 4 * 5, "%s", report);
    cr_assert_leq(connections, 2, "%s", report);
    free(report);
}

/* With --download-video-content each job ends with the video's download (its bytes counted in
 * the record's received bytes), from the job's url or from /content when it names none; a url
 * on another server is an error named VideoDownloadError. */
Test(video_e2e, download_on_and_off, .timeout = 120)
{
    struct e2e w;
    char *const mock_flags[] = {"--video-job-ms", "100", NULL};
    e2e_start(&w, mock_flags);
    static const char *const runs[][2] = {
        {"", "0"},
        {"--download-video-content", "1"},
        {"--download-video-content --extra-inputs mock_url:relative", "1"},
    };
    uint64_t received[3] = {0};
    for (size_t i = 0; i < 3; i++) {
        char words[512];
        snprintf(words, sizeof(words),
                 "profile -m wan -u URL --endpoint-type video_generation --request-count 2 %s "
                 "--export-level raw --artifact-dir DIR",
                 runs[i][0]);
        e2e_run_ok(&w, words);
        size_t errors = 0;
        cr_assert_eq(count_export_lines(&w, &errors), 2, "%s", words);
        cr_assert_eq(errors, 0, "%s", words);
        json_t *root = e2e_load_json(&w, "profile_export_aiperf.json");
        received[i] = (uint64_t)metric(root, "http_req_data_received", "avg");
        /* input_config's endpoint names the flag only when it was given, as AIPerf's does. */
        json_t *download =
            json_object_get(json_object_get(json_object_get(root, "input_config"), "endpoint"),
                            "download_video_content");
        cr_assert(runs[i][1][0] == '1' ? json_is_true(download) : download == NULL, "%s", words);
        json_decref(root);
    }
    /* http_req_data_received is in KB: the 4 KiB video shows. */
    cr_assert_lt(received[0] + 3, received[1], "%lu vs %lu", (unsigned long)received[0],
                 (unsigned long)received[1]);
    cr_assert_lt(received[0] + 3, received[2]);
    char *records = run_failing(&w,
                                "profile -m wan -u URL --endpoint-type video_generation "
                                "--request-count 2 --download-video-content "
                                "--extra-inputs mock_url:foreign --artifact-dir DIR",
                                2, 1);
    cr_assert_not_null(strstr(records, "VideoDownloadError"), "a video elsewhere is not fetched");
    free(records);
    e2e_finish(&w);
}

/* Jobs the server fails end as error records with AIPerf's VideoGenerationError, code 500 and
 * the server's message, and no video figures. */
Test(video_e2e, failed_jobs_are_errors_with_the_servers_message, .timeout = 120)
{
    struct e2e w;
    char *const mock_flags[] = {"--video-job-ms", "50", "--video-fail-rate", "100", NULL};
    e2e_start(&w, mock_flags);
    char *records = run_failing(&w,
                                "profile -m wan -u URL --endpoint-type video_generation "
                                "--concurrency 2 --request-count 3 --artifact-dir DIR",
                                3, 1);
    cr_assert_not_null(
        strstr(records, "\"error\":{\"code\":500,\"type\":\"VideoGenerationError\",\"message\":"
                        "\"Video generation failed: mock-server: injected video generation "
                        "failure\"}"),
        "%s", records);
    cr_assert_null(strstr(records, "video_inference_time"), "%s", records);
    free(records);
    e2e_finish(&w);
}

/* A run whose duration ends while jobs run: the grace period over, each job in flight ends as
 * one cancelled record (none lost, none twice); the same with a request timeout shorter than
 * the job, as AIPerf's 504. */
Test(video_e2e, duration_end_and_timeout_mid_job, .timeout = 120)
{
    struct e2e w;
    char *const mock_flags[] = {"--video-job-ms", "60000", NULL};
    e2e_start(&w, mock_flags);
    /* One record per job started: three connections, each with one job that never ends. */
    char *records = run_failing(&w,
                                "profile -m wan -u URL --endpoint-type video_generation "
                                "--concurrency 3 --benchmark-duration 0.5 "
                                "--benchmark-grace-period 0.3 --artifact-dir DIR",
                                3, 1);
    cr_assert_not_null(strstr(records, "\"code\":499,\"type\":\"RequestCancellationError\""), "%s",
                       records);
    free(records);
    records = run_failing(&w,
                          "profile -m wan -u URL --endpoint-type video_generation --concurrency 2 "
                          "--request-count 2 --request-timeout-seconds 0.4 --artifact-dir DIR",
                          2, 1);
    cr_assert_not_null(strstr(records, "\"code\":504,\"type\":\"TimeoutError\",\"message\":"
                                       "\"Video generation timed out after 0.400 s"),
                       "%s", records);
    free(records);
    e2e_finish(&w);
}

/* run_interrupted starts a mock whose jobs take job_ms and a run of `count` jobs, two at a
 * time, then stops it with Ctrl-C once jobs are finishing (twice: again once it is stopping),
 * and requires exit status 130. */
static void run_interrupted(struct e2e *w, char *job_ms, const char *count, bool twice)
{
    char *const mock_flags[] = {"--video-job-ms", job_ms, NULL};
    e2e_start(w, mock_flags);
    char words[256];
    snprintf(words, sizeof(words),
             "profile -m wan -u URL --endpoint-type video_generation --concurrency 2 "
             "--request-count %s --artifact-dir DIR",
             count);
    struct child run = e2e_spawn_running(w, words);
    kill(run.pid, SIGINT);
    if (twice) {
        e2e_read_until(&run, "ringperf: stopping");
        kill(run.pid, SIGINT);
    }
    char *rest = test_read_stream(run.out);
    cr_assert_eq(wait_child(&run), 130, "%s", rest);
    free(rest);
}

/* One Ctrl-C while jobs run lets the jobs in flight finish: their polls go on while the run
 * drains (were they stopped, the jobs would be cancelled when the stop's grace ran out). */
Test(video_e2e, interrupt_mid_job, .timeout = 120)
{
    struct e2e w;
    run_interrupted(&w, "200", "1000000", false);
    size_t errors = 0;
    cr_assert_gt(count_export_lines(&w, &errors), 0);
    cr_assert_eq(errors, 0, "the jobs in flight finished");
    e2e_finish(&w);
}

/* A second Ctrl-C cancels the jobs still running (here jobs of a minute): each ends as one
 * cancelled record, and the run exits at once rather than after the jobs. */
Test(video_e2e, second_interrupt_cancels_running_jobs, .timeout = 60)
{
    struct e2e w;
    run_interrupted(&w, "60000", "10", true);
    size_t errors = 0;
    cr_assert_eq(count_export_lines(&w, &errors), 2, "the two jobs in flight, once each");
    cr_assert_eq(errors, 2);
    char *records = e2e_read_text(&w, "profile_export.jsonl");
    cr_assert_not_null(strstr(records, "\"was_cancelled\":true"), "%s", records);
    free(records);
    e2e_finish(&w);
}

/* A share's records file carries each job's server figures: `ringperf merge` of a video run's
 * share gives the share's own video tags. */
Test(video_e2e, merge_keeps_the_video_tags, .timeout = 120)
{
    struct e2e w;
    char *const mock_flags[] = {"--video-job-ms", "120", NULL};
    e2e_start(&w, mock_flags);
    e2e_run_ok(&w, "profile -m wan -u URL --endpoint-type video_generation --request-count 3 "
                   "--random-seed 1 --shard-count 1 --shard-index 0 --artifact-dir DIR");
    e2e_run_ok(&w, "merge IN/rank_0 --artifact-dir IN/merged");
    json_t *own = e2e_load_json(&w, "rank_0/profile_export_aiperf.json");
    json_t *merged = e2e_load_json(&w, "merged/profile_export_aiperf.json");
    cr_assert_float_eq(metric(merged, "video_inference_time", "avg"), 120.0, 1e-6);
    cr_assert_float_eq(metric(merged, "video_peak_memory", "p50"),
                       metric(own, "video_peak_memory", "p50"), 1e-9);
    json_decref(own);
    json_decref(merged);
    e2e_finish(&w);
}
