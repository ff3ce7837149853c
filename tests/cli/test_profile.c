/*
 * `ringperf profile` as a user runs it: real processes (the mock server and
 * ringperf itself) on loopback, and the files the run leaves behind.
 */
#include <criterion/criterion.h>

#include <errno.h>
#include <jansson.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "e2e.h"

Test(profile_e2e, streaming_chat_run_reports_and_exports_every_request, .timeout = 120)
{
    struct e2e w;
    char *const mock_flags[] = {"--ttft-ms", "2", "--itl-ms", "0.5", NULL};
    e2e_start(&w, mock_flags);
    char *out = NULL;
    int status = run_ringperf(&w,
                              "profile --model Qwen/Qwen3-0.6B --url URL --endpoint-type chat "
                              "--endpoint /v1/chat/completions --streaming --concurrency 8 "
                              "--request-count 200 --osl 20 --artifact-dir DIR "
                              "--api-key sk-secret-value",
                              false, &out);
    cr_assert_eq(status, 0, "ringperf profile exit %d; output:\n%s", status, out);
    cr_assert(strstr(out, "Time to First Token (ms)") != NULL, "%s", out);
    cr_assert(strstr(out, "Inter Token Latency (ms)") != NULL, "%s", out);
    cr_assert(strstr(out, "Request Count (requests)") != NULL, "%s", out);
    cr_assert(strstr(out, "sk-secret-value") == NULL, "the API key never reaches the output");
    size_t errors = 0;
    cr_assert_eq(count_export_lines(&w, &errors), 200, "one record per request");
    cr_assert_eq(errors, 0);
    char path[512];
    snprintf(path, sizeof(path), "%s/inputs.json", w.dir);
    struct stat st;
    cr_assert_eq(stat(path, &st), 0, "inputs.json written");
    free(out);
    stop_mock(&w.mock);
}

Test(profile_e2e, server_errors_are_counted_and_summarised, .timeout = 120)
{
    struct e2e w;
    char *const mock_flags[] = {"--error-500-rate", "100", NULL};
    e2e_start(&w, mock_flags);
    char *out = NULL;
    int status = run_ringperf(
        &w, "profile -m m -u URL --streaming --concurrency 2 --request-count 10 --artifact-dir DIR",
        false, &out);
    cr_assert_eq(status, 1, "a run where every request failed exits 1; output:\n%s", out);
    cr_assert(strstr(out, "Error Summary") != NULL, "%s", out);
    cr_assert(strstr(out, "500") != NULL, "%s", out);
    size_t errors = 0;
    cr_assert_eq(count_export_lines(&w, &errors), 10);
    cr_assert_eq(errors, 10);
    free(out);
    stop_mock(&w.mock);
}

Test(profile_e2e, request_timeout_ends_stalled_requests_as_errors, .timeout = 120)
{
    struct e2e w;
    char *const mock_flags[] = {"--stall-rate", "100", NULL};
    e2e_start(&w, mock_flags);
    char *out = NULL;
    int status = run_ringperf(&w,
                              "profile -m m -u URL --streaming --concurrency 3 --request-count 6 "
                              "--request-timeout-seconds 0.5 --artifact-dir DIR",
                              false, &out);
    cr_assert_eq(status, 1, "%s", out);
    cr_assert(strstr(out, "TimeoutError") != NULL, "%s", out);
    size_t errors = 0;
    cr_assert_eq(count_export_lines(&w, &errors), 6);
    cr_assert_eq(errors, 6);
    free(out);
    stop_mock(&w.mock);
}

Test(profile_e2e, open_loop_rate_with_warmup_exports_only_profiling_requests, .timeout = 120)
{
    struct e2e w;
    e2e_start(&w, NULL);
    char *out = NULL;
    int status = run_ringperf(&w,
                              "profile -m m -u URL --streaming --request-rate 400 "
                              "--arrival-pattern constant --request-count 120 "
                              "--warmup-request-count 15 --osl 4 --artifact-dir DIR",
                              true, &out);
    cr_assert_eq(status, 0, "%s", out);
    cr_assert(strstr(out, "Warmup: 15 requests") != NULL, "%s", out);
    size_t errors = 0;
    cr_assert_eq(count_export_lines(&w, &errors), 120, "warmup requests are not exported");
    cr_assert_eq(errors, 0);
    free(out);
    stop_mock(&w.mock);
}

Test(profile_e2e, duration_run_without_count_runs_for_the_duration, .timeout = 120)
{
    struct e2e w;
    char *const mock_flags[] = {"--ttft-ms", "5", NULL};
    e2e_start(&w, mock_flags);
    char *out = NULL;
    int status = run_ringperf(&w,
                              "profile -m m -u URL --streaming --concurrency 2 "
                              "--benchmark-duration 0.5 --benchmark-grace-period 5 --osl 2 "
                              "--artifact-dir DIR",
                              false, &out);
    cr_assert_eq(status, 0, "%s", out);
    size_t errors = 0;
    size_t lines = count_export_lines(&w, &errors);
    cr_assert_gt(lines, 10, "more than AIPerf's default count of 10: the duration rules");
    cr_assert_eq(errors, 0);
    free(out);
    stop_mock(&w.mock);
}

Test(profile_e2e, cancelled_requests_are_exported_as_499, .timeout = 120)
{
    struct e2e w;
    char *const mock_flags[] = {"--ttft-ms", "50", NULL};
    e2e_start(&w, mock_flags);
    char *out = NULL;
    int status = run_ringperf(&w,
                              "profile -m m -u URL --streaming --concurrency 4 --request-count 40 "
                              "--request-cancellation-rate 100 --request-cancellation-delay 0.01 "
                              "--artifact-dir DIR",
                              false, &out);
    cr_assert_eq(status, 1, "every request was cancelled: %s", out);
    cr_assert(strstr(out, "RequestCancellationError") != NULL, "%s", out);
    size_t errors = 0;
    cr_assert_eq(count_export_lines(&w, &errors), 40);
    cr_assert_eq(errors, 40);
    free(out);
    stop_mock(&w.mock);
}

Test(profile_e2e, requests_spread_over_every_url, .timeout = 120)
{
    /* The second server fails every request, so the exports show which server
     * each request reached. */
    struct e2e w;
    e2e_start(&w, NULL);
    int bad_port = 0;
    char *const bad_flags[] = {"--error-500-rate", "100", NULL};
    struct child bad = start_mock(&bad_port, bad_flags);
    char words[256];
    snprintf(words, sizeof(words),
             "profile -m m -u URL -u 127.0.0.1:%d --streaming --concurrency 4 --request-count 40 "
             "--osl 2 --artifact-dir DIR",
             bad_port);
    char *out = NULL;
    int status = run_ringperf(&w, words, false, &out);
    cr_assert_eq(status, 0, "%s", out);
    size_t errors = 0;
    cr_assert_eq(count_export_lines(&w, &errors), 40);
    cr_assert_gt(errors, 0, "some requests went to the failing server");
    cr_assert_lt(errors, 40, "some requests went to the healthy server");
    free(out);
    stop_mock(&bad);
    stop_mock(&w.mock);
}

Test(profile_e2e, failed_request_threshold_stops_the_run_early, .timeout = 120)
{
    struct e2e w;
    char *const mock_flags[] = {"--error-500-rate", "100", NULL};
    e2e_start(&w, mock_flags);
    char *out = NULL;
    int status = run_ringperf(&w,
                              "profile -m m -u URL --concurrency 2 --request-count 100000 "
                              "--failed-request-threshold 0.5 --artifact-dir DIR",
                              true, &out);
    cr_assert_eq(status, 1, "%s", out);
    cr_assert(strstr(out, "--failed-request-threshold") != NULL, "%s", out);
    size_t errors = 0;
    size_t lines = count_export_lines(&w, &errors);
    cr_assert_lt(lines, 100000, "the run stopped early");
    cr_assert_eq(errors, lines, "every exported request is accounted for as an error");
    free(out);
    stop_mock(&w.mock);
}

/* Every endpoint type ringperf runs, against the mock server's matching route:
 * streaming where the API streams, and every request answered without error. */
Test(profile_e2e, every_endpoint_type_runs_end_to_end, .timeout = 300)
{
    static const char *const types[][2] = {
        {"chat", "--streaming"},
        {"completions", "--streaming"},
        {"responses", "--streaming"},
        {"messages", "--streaming"},
        {"huggingface_generate", "--streaming"},
        {"chat", ""},
        {"completions", ""},
        {"responses", ""},
        {"messages", ""},
        {"huggingface_generate", ""},
        {"embeddings", ""},
        {"chat_embeddings", ""},
        {"nim_embeddings", ""},
        {"nim_rankings", ""},
        {"cohere_rankings", ""},
        {"hf_tei_rankings", ""},
    };
    struct e2e w;
    e2e_start(&w, NULL);
    for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
        char words[256];
        snprintf(words, sizeof(words),
                 "profile -m m -u URL --endpoint-type %s %s --concurrency 2 --request-count 12 "
                 "--osl 6 --isl 20 --api-key k --artifact-dir DIR",
                 types[i][0], types[i][1]);
        char *out = NULL;
        int status = run_ringperf(&w, words, true, &out);
        cr_assert_eq(status, 0, "%s %s: exit %d\n%s", types[i][0], types[i][1], status, out);
        size_t errors = 0;
        cr_assert_eq(count_export_lines(&w, &errors), 12, "%s %s", types[i][0], types[i][1]);
        cr_assert_eq(errors, 0, "%s %s: %s", types[i][0], types[i][1], out);
        bool streamed = types[i][1][0] != '\0';
        cr_assert_eq(strstr(out, "Time to First Token") != NULL, streamed,
                     "%s %s: streaming metrics only when streaming", types[i][0], types[i][1]);
        free(out);
    }
    stop_mock(&w.mock);
}

/* With a tokenizer, prompts are exactly --isl tokens and token metrics are
 * counted on the client, as AIPerf does by default. */
Test(profile_e2e, tokenizer_gives_exact_input_lengths_and_client_token_counts, .timeout = 120)
{
    struct e2e w;
    e2e_start(&w, NULL);
    char words[512];
    snprintf(words, sizeof(words),
             "profile -m Qwen/Qwen3-0.6B --tokenizer %s -u URL --streaming --concurrency 2 "
             "--request-count 20 --isl 37 --isl-stddev 0 --osl 12 --artifact-dir DIR",
             RINGPERF_TOKENIZER_QWEN3);
    char *out = NULL;
    int status = run_ringperf(&w, words, true, &out);
    cr_assert_eq(status, 0, "%s", out);
    cr_assert(strstr(out, "no tokenizer") == NULL, "%s", out);
    char path[512];
    snprintf(path, sizeof(path), "%s/profile_export_aiperf.json", w.dir);
    json_error_t err;
    json_t *root = json_load_file(path, 0, &err);
    cr_assert_not_null(root, "%s: %s", path, err.text);
    json_t *isl = json_object_get(root, "input_sequence_length");
    cr_assert_float_eq(json_real_value(json_object_get(isl, "min")), 37.0, 1e-9);
    cr_assert_float_eq(json_real_value(json_object_get(isl, "max")), 37.0, 1e-9);
    json_t *osl = json_object_get(root, "output_sequence_length");
    cr_assert_gt(json_number_value(json_object_get(osl, "min")), 0.0, "OSL counted on the client");
    json_decref(root);
    free(out);
    stop_mock(&w.mock);
}

/* A shared system prompt is one prompt in every request, and AIPerf counts it
 * in the input length. */
Test(profile_e2e, shared_system_prompt_is_in_every_request_and_the_input_length, .timeout = 120)
{
    struct e2e w;
    e2e_start(&w, NULL);
    char words[512];
    snprintf(words, sizeof(words),
             "profile -m Qwen/Qwen3-0.6B --tokenizer %s -u URL --endpoint-type responses "
             "--streaming --concurrency 2 --request-count 10 --isl 40 --osl 4 "
             "--shared-system-prompt-length 25 --artifact-dir DIR",
             RINGPERF_TOKENIZER_QWEN3);
    char *out = NULL;
    int status = run_ringperf(&w, words, true, &out);
    cr_assert_eq(status, 0, "%s", out);
    char path[512];
    snprintf(path, sizeof(path), "%s/profile_export_aiperf.json", w.dir);
    json_error_t err;
    json_t *root = json_load_file(path, 0, &err);
    cr_assert_not_null(root, "%s", err.text);
    json_t *isl = json_object_get(root, "input_sequence_length");
    cr_assert_float_eq(json_real_value(json_object_get(isl, "min")), 65.0, 1e-9);
    cr_assert_float_eq(json_real_value(json_object_get(isl, "max")), 65.0, 1e-9);
    json_decref(root);
    snprintf(path, sizeof(path), "%s/inputs.json", w.dir);
    root = json_load_file(path, 0, &err);
    cr_assert_not_null(root, "%s", err.text);
    json_t *data = json_object_get(root, "data");
    const char *first = NULL;
    for (size_t i = 0; i < json_array_size(data); i++) {
        json_t *payload = json_array_get(json_object_get(json_array_get(data, i), "payloads"), 0);
        const char *instructions = json_string_value(json_object_get(payload, "instructions"));
        cr_assert_not_null(instructions, "responses carry the system prompt as instructions");
        first = first != NULL ? first : instructions;
        cr_assert_str_eq(instructions, first, "one prompt shared by every request");
    }
    json_decref(root);
    free(out);
    stop_mock(&w.mock);
}

/* models_in_inputs counts the payloads of inputs.json naming model a and b. */
static void models_in_inputs(const struct e2e *w, size_t *out_a, size_t *out_b, bool *out_alternate)
{
    char path[512];
    snprintf(path, sizeof(path), "%s/inputs.json", w->dir);
    json_error_t err;
    json_t *root = json_load_file(path, 0, &err);
    cr_assert_not_null(root, "%s", err.text);
    json_t *data = json_object_get(root, "data");
    *out_a = *out_b = 0;
    *out_alternate = true;
    for (size_t i = 0; i < json_array_size(data); i++) {
        json_t *payload = json_array_get(json_object_get(json_array_get(data, i), "payloads"), 0);
        const char *model = json_string_value(json_object_get(payload, "model"));
        bool is_a = strcmp(model, "model-a") == 0;
        *out_a += is_a;
        *out_b += !is_a;
        *out_alternate &= is_a == (i % 2 == 0);
    }
    json_decref(root);
}

Test(profile_e2e, model_selection_round_robin_and_random, .timeout = 120)
{
    struct e2e w;
    e2e_start(&w, NULL);
    char *out = NULL;
    int status =
        run_ringperf(&w,
                     "profile -m model-a,model-b -u URL --concurrency 2 --request-count 40 "
                     "--artifact-dir DIR",
                     true, &out);
    cr_assert_eq(status, 0, "%s", out);
    free(out);
    size_t a = 0;
    size_t b = 0;
    bool alternate = false;
    models_in_inputs(&w, &a, &b, &alternate);
    cr_assert(alternate && a == 20 && b == 20, "round robin by default: %zu/%zu", a, b);
    status = run_ringperf(&w,
                          "profile -m model-a,model-b -u URL --concurrency 2 --request-count 40 "
                          "--model-selection-strategy random --random-seed 3 --artifact-dir DIR",
                          true, &out);
    cr_assert_eq(status, 0, "%s", out);
    free(out);
    models_in_inputs(&w, &a, &b, &alternate);
    cr_assert(a > 0 && b > 0 && !alternate, "random picks both, not in turn: %zu/%zu", a, b);
    stop_mock(&w.mock);
}

Test(profile_e2e, seq_dist_draws_input_and_output_lengths_in_pairs, .timeout = 120)
{
    struct e2e w;
    e2e_start(&w, NULL);
    char words[512];
    snprintf(words, sizeof(words),
             "profile -m Qwen/Qwen3-0.6B --tokenizer %s -u URL --streaming --concurrency 2 "
             "--request-count 40 --seq-dist 30,5:50;60,9:50 --random-seed 11 --artifact-dir DIR",
             RINGPERF_TOKENIZER_QWEN3);
    char *out = NULL;
    int status = run_ringperf(&w, words, true, &out);
    cr_assert_eq(status, 0, "%s", out);
    free(out);
    char path[512];
    snprintf(path, sizeof(path), "%s/profile_export_aiperf.json", w.dir);
    json_error_t err;
    json_t *root = json_load_file(path, 0, &err);
    cr_assert_not_null(root, "%s", err.text);
    json_t *isl = json_object_get(root, "input_sequence_length");
    cr_assert_float_eq(json_number_value(json_object_get(isl, "min")), 30.0, 1e-9);
    cr_assert_float_eq(json_number_value(json_object_get(isl, "max")), 60.0, 1e-9);
    json_t *usage = json_object_get(root, "usage_completion_tokens");
    cr_assert_float_eq(json_number_value(json_object_get(usage, "min")), 5.0, 1e-9);
    cr_assert_float_eq(json_number_value(json_object_get(usage, "max")), 9.0, 1e-9);
    json_decref(root);
    cr_assert_eq(
        run_ringperf(&w, "profile -m m -u URL --seq-dist 30,5:50 --artifact-dir DIR", true, &out),
        2);
    cr_assert(strstr(out, "--seq-dist") != NULL && strstr(out, "100") != NULL, "%s", out);
    free(out);
    stop_mock(&w.mock);
}

Test(profile_e2e, missing_tokenizer_is_an_error_only_when_asked_for, .timeout = 60)
{
    char *out = NULL;
    cr_assert_eq(run_ringperf(NULL, "profile -m m --tokenizer /nonexistent/tok.json", true, &out),
                 2);
    cr_assert(strstr(out, "--tokenizer") != NULL, "%s", out);
    free(out);
}

/* Ctrl-C: the run stops sending, lets requests in flight finish, and still
 * writes every export, marked as cancelled early. */
Test(profile_e2e, interrupt_stops_the_run_and_still_writes_the_exports, .timeout = 120)
{
    struct e2e w;
    char *const mock_flags[] = {"--ttft-ms", "5", "--itl-ms", "5", NULL};
    e2e_start(&w, mock_flags);
    char *argv[] = {RINGPERF_BINARY,
                    "profile",
                    "-m",
                    "m",
                    "-u",
                    w.url,
                    "--streaming",
                    "--concurrency",
                    "4",
                    "--request-count",
                    "1000000",
                    "--osl",
                    "10",
                    "--artifact-dir",
                    w.dir,
                    NULL};
    struct child run = spawn_child(argv, true);
    /* Progress lines appear once requests are finishing: interrupt then. */
    char line[512];
    bool running = false;
    while (!running && fgets(line, sizeof(line), run.out) != NULL) {
        running = strstr(line, "Profiling:") != NULL;
    }
    cr_assert(running, "the run reported progress");
    kill(run.pid, SIGINT);
    char *rest = read_all(run.out);
    int status = wait_child(&run);
    cr_assert_eq(status, 0, "a stopped run with successes exits 0:\n%s", rest);
    cr_assert(strstr(rest, "cancelled early") != NULL, "%s", rest);
    char path[512];
    snprintf(path, sizeof(path), "%s/profile_export_aiperf.json", w.dir);
    json_error_t err;
    json_t *root = json_load_file(path, 0, &err);
    cr_assert_not_null(root, "%s", err.text);
    cr_assert(json_is_true(json_object_get(root, "was_cancelled")));
    json_decref(root);
    size_t errors = 0;
    size_t lines = count_export_lines(&w, &errors);
    cr_assert_gt(lines, 0);
    cr_assert_lt(lines, 1000000);
    cr_assert_eq(errors, 0, "requests in flight were allowed to finish");
    free(rest);
    stop_mock(&w.mock);
}

Test(profile_e2e, invalid_flags_name_the_flag_and_exit_2, .timeout = 60)
{
    char *out = NULL;
    cr_assert_eq(run_ringperf(NULL, "profile -m m --concurency 4", true, &out), 2);
    cr_assert(strstr(out, "--concurency") != NULL, "%s", out);
    cr_assert(strstr(out, "--concurrency") != NULL, "suggests the right flag: %s", out);
    free(out);
    cr_assert_eq(run_ringperf(NULL, "profile -m m --concurrency zero", true, &out), 2);
    cr_assert(strstr(out, "--concurrency") != NULL, "%s", out);
    free(out);
    cr_assert_eq(run_ringperf(NULL, "profile -m m --url ftp://127.0.0.1:1", true, &out), 2);
    cr_assert(strstr(out, "ftp") != NULL, "%s", out);
    free(out);
    cr_assert_eq(run_ringperf(NULL, "frobnicate", true, &out), 2);
    cr_assert(strstr(out, "frobnicate") != NULL, "%s", out);
    free(out);
}

Test(profile_e2e, help_lists_flags_in_groups, .timeout = 60)
{
    char *out = NULL;
    cr_assert_eq(run_ringperf(NULL, "profile --help", false, &out), 0);
    cr_assert(strstr(out, "--concurrency") != NULL);
    cr_assert(strstr(out, "--request-timeout-seconds") != NULL);
    cr_assert(strstr(out, "--workers-max") != NULL);
    free(out);
    cr_assert_eq(run_ringperf(NULL, "--help", false, &out), 0);
    cr_assert(strstr(out, "mock-server") != NULL);
    free(out);
}
