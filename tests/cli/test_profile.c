/*
 * `ringperf profile` as a user runs it: real processes (the mock server and
 * ringperf itself) on loopback, and the files the run leaves behind.
 */
#include <criterion/criterion.h>

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "e2e.h"

/* profile_case is one `ringperf profile` run and what it must show: its exit status, phrases of
 * its output and, when lines is not 0, the records it exports. */
struct profile_case {
    char *mock_flags[5]; /* the mock server's extra flags, NULL-terminated; none: defaults */
    const char *words;   /* as run_ringperf takes them */
    bool merge_stderr;
    int status;
    const char *says[4]; /* phrases the output contains, NULL-terminated */
    const char *hides;   /* a phrase the output must not contain, or NULL */
    size_t lines;        /* records in profile_export.jsonl; 0: the test checks them itself */
    size_t errors;       /* how many of those records are errors */
};

/* run_case runs k in the world w (NULL: no server, no exports) and checks what k says; returns
 * the output, which the caller frees. */
static char *run_case(const struct e2e *w, const struct profile_case *k)
{
    char *out = NULL;
    int status = run_ringperf(w, k->words, k->merge_stderr, &out);
    cr_assert_eq(status, k->status, "%s\nexit %d, want %d:\n%s", k->words, status, k->status, out);
    for (size_t i = 0; i < sizeof(k->says) / sizeof(k->says[0]) && k->says[i] != NULL; i++) {
        cr_assert(strstr(out, k->says[i]) != NULL, "%s\noutput lacks [%s]:\n%s", k->words,
                  k->says[i], out);
    }
    if (k->hides != NULL) {
        cr_assert(strstr(out, k->hides) == NULL, "%s\noutput shows [%s]", k->words, k->hides);
    }
    if (w != NULL && k->lines != 0) {
        size_t errors = 0;
        size_t lines = count_export_lines(w, &errors);
        cr_assert_eq(lines, k->lines, "%s\n%zu records exported, want %zu", k->words, lines,
                     k->lines);
        cr_assert_eq(errors, k->errors, "%s\n%zu error records, want %zu", k->words, errors,
                     k->errors);
    }
    return out;
}

/* start_case starts a world for k in *w (its mock server with k's flags) and runs k there as
 * run_case does. The caller frees the output and finishes w. */
static char *start_case(struct e2e *w, const struct profile_case *k)
{
    e2e_start(w, k->mock_flags);
    return run_case(w, k);
}

/* check_case runs k in a world of its own, then finishes the world. */
static void check_case(const struct profile_case *k)
{
    struct e2e w;
    free(start_case(&w, k));
    e2e_finish(&w);
}

/* check_range checks the min and max of the metric `name` of profile_export_aiperf.json. */
static void check_range(const json_t *root, const char *name, double min, double max)
{
    json_t *metric = json_object_get(root, name);
    json_t *lo = json_object_get(metric, "min");
    json_t *hi = json_object_get(metric, "max");
    cr_assert(json_is_real(lo) && json_is_real(hi), "%s has a min and a max", name);
    cr_assert_float_eq(json_real_value(lo), min, 1e-9, "%s min", name);
    cr_assert_float_eq(json_real_value(hi), max, 1e-9, "%s max", name);
}

Test(profile_e2e, streaming_chat_run_reports_and_exports_every_request, .timeout = 120)
{
    static const struct profile_case k = {
        .mock_flags = {"--ttft-ms", "2", "--itl-ms", "0.5"},
        .words = "profile --model Qwen/Qwen3-0.6B --url URL --endpoint-type chat "
                 "--endpoint /v1/chat/completions --streaming --concurrency 8 "
                 "--request-count 200 --osl 20 --artifact-dir DIR --api-key sk-secret-value",
        .says = {"Time to First Token (ms)", "Inter Token Latency (ms)",
                 "Request Count (requests)"},
        .hides = "sk-secret-value", /* the API key never reaches the output */
        .lines = 200,
        .errors = 0,
    };
    struct e2e w;
    free(start_case(&w, &k));
    json_decref(e2e_load_json(&w, "inputs.json"));
    e2e_finish(&w);
}

/* One connection per request: every request still ends as exactly one record. */
Test(profile_e2e, connection_reuse_never_runs_every_request_on_its_own_connection, .timeout = 120)
{
    static const struct profile_case k = {
        .mock_flags = {"--ttft-ms", "1", "--itl-ms", "0.2"},
        .words = "profile -m m -u URL --streaming --concurrency 4 --request-count 60 --osl 5 "
                 "--connection-reuse-strategy never --artifact-dir DIR",
        .says = {"Request Count (requests)"},
        .lines = 60,
        .errors = 0,
    };
    check_case(&k);
}

/* check_itl_divisor requires every record's ITL to be (latency - TTFT) /
 * (OSL - first), as the export's own values give them. */
static void check_itl_divisor(const struct e2e *w, double first)
{
    char *text = e2e_read_text(w, "profile_export.jsonl");
    size_t checked = 0;
    char *cursor = text;
    for (char *line = test_next_line(&cursor); line != NULL; line = test_next_line(&cursor)) {
        json_t *rec = json_loads(line, 0, NULL);
        cr_assert_not_null(rec);
        json_t *m = json_object_get(rec, "metrics");
        double value[4];
        const char *tags[] = {"request_latency", "time_to_first_token", "output_sequence_length",
                              "inter_token_latency"};
        for (int k = 0; k < 4; k++) {
            json_t *v = json_object_get(json_object_get(m, tags[k]), "value");
            cr_assert(json_is_number(v), "%s in %s", tags[k], line);
            value[k] = json_number_value(v);
        }
        double want = (value[0] - value[1]) / (value[2] - first);
        cr_assert(fabs(value[3] - want) <= 1e-6 * want + 1e-6, "ITL %.9g, want %.9g: %s", value[3],
                  want, line);
        checked++;
        json_decref(rec);
    }
    cr_assert_eq(checked, 12);
    free(text);
}

/* --per-chunk-usage against a server that sends 4 tokens a chunk and usage
 * with every chunk: ITL divides by the 12 tokens after the first chunk, not
 * by 15; without the flag, by 15. */
Test(profile_e2e, per_chunk_usage_takes_the_first_chunk_tokens_from_the_server, .timeout = 120)
{
    char *const mock_flags[] = {"--tokens-per-chunk", "4", "--ttft-ms", "2", "--itl-ms", "1", NULL};
    struct e2e w;
    e2e_start(&w, mock_flags);
    e2e_run_ok(&w, "profile -m m -u URL --streaming --use-server-token-count --per-chunk-usage "
                   "--concurrency 3 --request-count 12 --osl 16 --artifact-dir DIR");
    check_itl_divisor(&w, 4);
    e2e_run_ok(&w, "profile -m m -u URL --streaming --use-server-token-count --concurrency 3 "
                   "--request-count 12 --osl 16 --artifact-dir DIR");
    check_itl_divisor(&w, 1);
    e2e_finish(&w);
}

/* user_text returns the content of the last user message of a chat body. */
static const char *user_text(json_t *body)
{
    json_t *messages = json_object_get(body, "messages");
    return json_string_value(
        json_object_get(json_array_get(messages, json_array_size(messages) - 1), "content"));
}

/* --cache-bust first_turn_prefix: every conversation's first turn starts
 * with its own marker; a conversation's later turns add none of their own. */
Test(profile_e2e, cache_bust_marks_each_conversation_first_turn, .timeout = 120)
{
    static const char *const runs[] = {
        "profile -m m -u URL --request-count 5 --num-dataset-entries 5 --cache-bust "
        "first_turn_prefix --artifact-dir DIR",
        "profile -m m -u URL --request-count 6 --conversation-num 3 --conversation-turn-mean 2 "
        "--cache-bust first_turn_prefix --artifact-dir DIR"};
    for (size_t r = 0; r < 2; r++) {
        struct e2e w;
        e2e_start(&w, NULL);
        e2e_run_ok(&w, runs[r]);
        json_t *root = e2e_load_json(&w, "inputs.json");
        json_t *data = json_object_get(root, "data");
        cr_assert_geq(json_array_size(data), 3);
        char seen[8][20] = {{0}};
        for (size_t i = 0; i < json_array_size(data) && i < 8; i++) {
            json_t *payloads = json_object_get(json_array_get(data, i), "payloads");
            const char *first = user_text(json_array_get(payloads, 0));
            cr_assert(first != NULL && strncmp(first, "[rid:", 5) == 0 && strlen(first) > 20 &&
                          first[17] == ']' && first[18] == '\n' && first[19] == '\n',
                      "%s", first);
            memcpy(seen[i], first, 18);
            for (size_t j = 0; j < i; j++) {
                cr_assert_str_neq(seen[j], seen[i], "conversations %zu and %zu share a marker", j,
                                  i);
            }
            for (size_t t = 1; t < json_array_size(payloads); t++) {
                const char *later = user_text(json_array_get(payloads, t));
                cr_assert(strstr(later, "[rid:") == NULL, "turn %zu: %s", t, later);
            }
        }
        json_decref(root);
        e2e_finish(&w);
    }
}

/* A run where every request failed exits 1. */
Test(profile_e2e, server_errors_are_counted_and_summarised, .timeout = 120)
{
    static const struct profile_case k = {
        .mock_flags = {"--error-500-rate", "100"},
        .words = "profile -m m -u URL --streaming --concurrency 2 --request-count 10 "
                 "--artifact-dir DIR",
        .merge_stderr = true,
        .status = 1,
        .says = {"All 10 inference request(s) failed", "500"},
        .lines = 10,
        .errors = 10,
    };
    check_case(&k);
}

Test(profile_e2e, request_timeout_ends_stalled_requests_as_errors, .timeout = 120)
{
    static const struct profile_case k = {
        .mock_flags = {"--stall-rate", "100"},
        .words = "profile -m m -u URL --streaming --concurrency 3 --request-count 6 "
                 "--request-timeout-seconds 0.5 --artifact-dir DIR",
        .merge_stderr = true,
        .status = 1,
        .says = {"TimeoutError"},
        .lines = 6,
        .errors = 6,
    };
    check_case(&k);
}

/* Warmup requests are not exported. */
Test(profile_e2e, open_loop_rate_with_warmup_exports_only_profiling_requests, .timeout = 120)
{
    static const struct profile_case k = {
        .words = "profile -m m -u URL --streaming --request-rate 400 --arrival-pattern constant "
                 "--request-count 120 --warmup-request-count 15 --osl 4 --artifact-dir DIR",
        .merge_stderr = true,
        .says = {"Warmup: 15 requests"},
        .lines = 120,
        .errors = 0,
    };
    check_case(&k);
}

Test(profile_e2e, duration_run_without_count_runs_for_the_duration, .timeout = 120)
{
    static const struct profile_case k = {
        .mock_flags = {"--ttft-ms", "5"},
        .words = "profile -m m -u URL --streaming --concurrency 2 --benchmark-duration 0.5 "
                 "--benchmark-grace-period 5 --osl 2 --artifact-dir DIR",
    };
    struct e2e w;
    free(start_case(&w, &k));
    size_t errors = 0;
    size_t lines = count_export_lines(&w, &errors);
    cr_assert_gt(lines, 10, "more than AIPerf's default count of 10: the duration rules");
    cr_assert_eq(errors, 0);
    e2e_finish(&w);
}

/* Every request is cancelled, so the run exits 1. The first token would come after 2 s, far
 * past the 10 ms cancellation even on a loaded machine or under ThreadSanitizer (50 ms let a
 * slow shard see two replies first); cancelled requests end at once, so the run stays short. */
Test(profile_e2e, cancelled_requests_are_exported_as_499, .timeout = 120)
{
    static const struct profile_case k = {
        .mock_flags = {"--ttft-ms", "2000"},
        .words = "profile -m m -u URL --streaming --concurrency 4 --request-count 40 "
                 "--request-cancellation-rate 100 --request-cancellation-delay 0.01 "
                 "--artifact-dir DIR",
        .merge_stderr = true,
        .status = 1,
        .says = {"RequestCancellationError", "All 40 inference request(s) failed"},
        .lines = 40,
        .errors = 40,
    };
    check_case(&k);
}

/* When every request fails AIPerf skips its summaries: no JSON, no CSV, no console tables; the
 * per-request records and the log stay, the errors go to stderr and the run exits 1. */
Test(profile_e2e, a_run_without_a_success_leaves_records_and_log_but_no_summary, .timeout = 120)
{
    char *const flags[] = {"--error-500-rate", "100", NULL};
    struct e2e w;
    e2e_start(&w, flags);
    char *out = NULL;
    int status =
        run_ringperf(&w, "profile -m m -u URL --request-count 4 --artifact-dir DIR", true, &out);
    cr_assert_eq(status, 1, "%s", out);
    cr_assert_not_null(strstr(out, "All 4 inference request(s) failed"), "%s", out);
    cr_assert_null(strstr(out, "Request Count (requests)"), "no console table:\n%s", out);
    free(out);
    size_t errors = 0;
    cr_assert_eq(count_export_lines(&w, &errors), 4);
    cr_assert_eq(errors, 4);
    static const char *const absent[] = {"profile_export_aiperf.json", "profile_export_aiperf.csv",
                                         "profile_export_console.txt"};
    char path[256];
    for (size_t i = 0; i < sizeof(absent) / sizeof(absent[0]); i++) {
        snprintf(path, sizeof(path), "%s/%s", w.dir, absent[i]);
        cr_assert_neq(access(path, F_OK), 0, "%s is not written", absent[i]);
    }
    snprintf(path, sizeof(path), "%s/logs/aiperf.log", w.dir);
    cr_assert_eq(access(path, F_OK), 0, "the log is written");
    e2e_finish(&w);
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
    /* Some requests succeed, so the console has its error summary below the tables. */
    const struct profile_case k = {.words = words, .says = {"Error Summary", "500"}};
    free(run_case(&w, &k));
    size_t errors = 0;
    cr_assert_eq(count_export_lines(&w, &errors), 40);
    cr_assert_gt(errors, 0, "some requests went to the failing server");
    cr_assert_lt(errors, 40, "some requests went to the healthy server");
    stop_mock(&bad);
    e2e_finish(&w);
}

Test(profile_e2e, failed_request_threshold_stops_the_run_early, .timeout = 120)
{
    static const struct profile_case k = {
        .mock_flags = {"--error-500-rate", "100"},
        .words = "profile -m m -u URL --concurrency 2 --request-count 100000 "
                 "--failed-request-threshold 0.5 --artifact-dir DIR",
        .merge_stderr = true,
        .status = 1,
        .says = {"--failed-request-threshold"},
    };
    struct e2e w;
    free(start_case(&w, &k));
    size_t errors = 0;
    size_t lines = count_export_lines(&w, &errors);
    cr_assert_lt(lines, 100000, "the run stopped early");
    cr_assert_eq(errors, lines, "every exported request is accounted for as an error");
    e2e_finish(&w);
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
        /* Streaming metrics only when streaming. */
        bool streamed = types[i][1][0] != '\0';
        const struct profile_case k = {
            .words = words,
            .merge_stderr = true,
            .says = {streamed ? "Time to First Token" : NULL},
            .hides = streamed ? NULL : "Time to First Token",
            .lines = 12,
            .errors = 0,
        };
        free(run_case(&w, &k));
    }
    e2e_finish(&w);
}

/* With a tokenizer, prompts are exactly --isl tokens and token metrics are
 * counted on the client, as AIPerf does by default. */
Test(profile_e2e, tokenizer_gives_exact_input_lengths_and_client_token_counts, .timeout = 120)
{
    static const struct profile_case k = {
        .words = "profile -m Qwen/Qwen3-0.6B --tokenizer " RINGPERF_TOKENIZER_QWEN3
                 " -u URL --streaming --concurrency 2 --request-count 20 --isl 37 --isl-stddev 0 "
                 "--osl 12 --artifact-dir DIR",
        .merge_stderr = true,
        .hides = "no tokenizer",
    };
    struct e2e w;
    free(start_case(&w, &k));
    json_t *root = e2e_load_json(&w, "profile_export_aiperf.json");
    check_range(root, "input_sequence_length", 37.0, 37.0);
    json_t *osl = json_object_get(root, "output_sequence_length");
    cr_assert_gt(json_number_value(json_object_get(osl, "min")), 0.0, "OSL counted on the client");
    json_decref(root);
    e2e_finish(&w);
}

/* A shared system prompt is one prompt in every request, and AIPerf counts it
 * in the input length. */
Test(profile_e2e, shared_system_prompt_is_in_every_request_and_the_input_length, .timeout = 120)
{
    struct e2e w;
    e2e_start(&w, NULL);
    e2e_run_ok(&w, "profile -m Qwen/Qwen3-0.6B --tokenizer " RINGPERF_TOKENIZER_QWEN3
                   " -u URL --endpoint-type responses --streaming --concurrency 2 "
                   "--request-count 10 --isl 40 --osl 4 --shared-system-prompt-length 25 "
                   "--artifact-dir DIR");
    json_t *root = e2e_load_json(&w, "profile_export_aiperf.json");
    check_range(root, "input_sequence_length", 65.0, 65.0);
    json_decref(root);
    root = e2e_load_json(&w, "inputs.json");
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
    e2e_finish(&w);
}

/* --system-prompt-file: the file's text, line ends and quotes as they are,
 * leads every chat request as its system message. */
Test(profile_e2e, system_prompt_file_is_sent_verbatim, .timeout = 120)
{
    static const char prompt[] = "You are \"terse\".\n\tAnswer in one line.\n";
    struct e2e w;
    e2e_start(&w, NULL);
    e2e_write(&w, "system.txt", prompt);
    e2e_run_ok(&w, "profile -m m -u URL --concurrency 2 --request-count 6 "
                   "--system-prompt-file IN/system.txt --artifact-dir DIR");
    json_t *root = e2e_load_json(&w, "inputs.json");
    json_t *data = json_object_get(root, "data");
    cr_assert_gt(json_array_size(data), 0);
    for (size_t i = 0; i < json_array_size(data); i++) {
        json_t *payload = json_array_get(json_object_get(json_array_get(data, i), "payloads"), 0);
        json_t *first = json_array_get(json_object_get(payload, "messages"), 0);
        cr_assert_str_eq(json_string_value(json_object_get(first, "role")), "system");
        cr_assert_str_eq(json_string_value(json_object_get(first, "content")), prompt);
    }
    json_decref(root);
    char *out = NULL;
    e2e_write(&w, "empty.txt", "");
    int status = run_ringperf(&w,
                              "profile -m m -u URL --request-count 2 --system-prompt-file "
                              "IN/missing.txt --artifact-dir DIR",
                              true, &out);
    cr_assert_eq(status, 1, "%s", out);
    cr_assert_not_null(strstr(out, "--system-prompt-file: cannot open"), "%s", out);
    free(out);
    status = run_ringperf(&w,
                          "profile -m m -u URL --request-count 2 --system-prompt-file IN/empty.txt "
                          "--artifact-dir DIR",
                          true, &out);
    cr_assert_eq(status, 1, "%s", out);
    cr_assert_not_null(strstr(out, "empty.txt' is empty"), "%s", out);
    free(out);
    /* One byte past the 4 MiB a prompt may have. */
    char *large = malloc((4u << 20) + 2);
    cr_assert_not_null(large);
    memset(large, 'a', (4u << 20) + 1);
    large[(4u << 20) + 1] = '\0';
    e2e_write(&w, "large.txt", large);
    free(large);
    status = run_ringperf(&w,
                          "profile -m m -u URL --request-count 2 --system-prompt-file IN/large.txt "
                          "--artifact-dir DIR",
                          true, &out);
    cr_assert_eq(status, 1, "%s", out);
    cr_assert_not_null(strstr(out, "large.txt' is larger than a prompt may be (at most 4 MiB)"),
                       "%s", out);
    free(out);
    e2e_finish(&w);
}

/* models_in_inputs counts the payloads of inputs.json naming model a and b. */
static void models_in_inputs(const struct e2e *w, size_t *out_a, size_t *out_b, bool *out_alternate)
{
    json_t *root = e2e_load_json(w, "inputs.json");
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
    e2e_run_ok(&w, "profile -m model-a,model-b -u URL --concurrency 2 --request-count 40 "
                   "--artifact-dir DIR");
    size_t a = 0;
    size_t b = 0;
    bool alternate = false;
    models_in_inputs(&w, &a, &b, &alternate);
    cr_assert(alternate && a == 20 && b == 20, "round robin by default: %zu/%zu", a, b);
    e2e_run_ok(&w, "profile -m model-a,model-b -u URL --concurrency 2 --request-count 40 "
                   "--model-selection-strategy random --random-seed 3 --artifact-dir DIR");
    models_in_inputs(&w, &a, &b, &alternate);
    cr_assert(a > 0 && b > 0 && !alternate, "random picks both, not in turn: %zu/%zu", a, b);
    e2e_finish(&w);
}

Test(profile_e2e, seq_dist_draws_input_and_output_lengths_in_pairs, .timeout = 120)
{
    struct e2e w;
    e2e_start(&w, NULL);
    e2e_run_ok(&w, "profile -m Qwen/Qwen3-0.6B --tokenizer " RINGPERF_TOKENIZER_QWEN3
                   " -u URL --streaming --concurrency 2 --request-count 40 "
                   "--seq-dist 30,5:50;60,9:50 --random-seed 11 --artifact-dir DIR");
    json_t *root = e2e_load_json(&w, "profile_export_aiperf.json");
    check_range(root, "input_sequence_length", 30.0, 60.0);
    check_range(root, "usage_completion_tokens", 5.0, 9.0);
    json_decref(root);
    /* The weights of a distribution must add up to 100. */
    static const struct profile_case bad_weights = {
        .words = "profile -m m -u URL --seq-dist 30,5:50 --artifact-dir DIR",
        .merge_stderr = true,
        .status = 1,
        .says = {"--seq-dist", "100"},
    };
    free(run_case(&w, &bad_weights));
    e2e_finish(&w);
}

Test(profile_e2e, missing_tokenizer_is_an_error_only_when_asked_for, .timeout = 60)
{
    static const struct profile_case k = {
        .words = "profile -m m --tokenizer /nonexistent/tok.json",
        .merge_stderr = true,
        .status = 1,
        .says = {"--tokenizer"},
    };
    free(run_case(NULL, &k));
}

/* check_stop_signal sends `sig` to a running profile: the run stops sending,
 * lets requests in flight finish, still writes every export, marked as
 * cancelled early, and exits 128 + sig, as shells expect. */
static void check_stop_signal(int sig)
{
    struct e2e w;
    char *const mock_flags[] = {"--ttft-ms", "5", "--itl-ms", "5", NULL};
    e2e_start(&w, mock_flags);
    struct child run = e2e_spawn_running(&w, "profile -m m -u URL --streaming --concurrency 4 "
                                             "--request-count 1000000 --osl 10 --artifact-dir DIR");
    kill(run.pid, sig);
    char *rest = test_read_stream(run.out);
    int status = wait_child(&run);
    cr_assert_eq(status, 128 + sig, "a run signal %d stopped exits 128 + it:\n%s", sig, rest);
    cr_assert(strstr(rest, "cancelled early") != NULL, "%s", rest);
    json_t *root = e2e_load_json(&w, "profile_export_aiperf.json");
    cr_assert(json_is_true(json_object_get(root, "was_cancelled")));
    json_decref(root);
    free(e2e_read_text(&w, "profile_export_aiperf.csv"));
    size_t errors = 0;
    size_t lines = count_export_lines(&w, &errors);
    cr_assert_gt(lines, 0);
    cr_assert_lt(lines, 1000000);
    cr_assert_eq(errors, 0, "requests in flight were allowed to finish");
    free(rest);
    e2e_finish(&w);
}

/* Ctrl-C (SIGINT) exits 130. */
Test(profile_e2e, interrupt_stops_the_run_and_still_writes_the_exports, .timeout = 120)
{
    check_stop_signal(SIGINT);
}

/* SIGTERM (a scheduler, `timeout`, `kill`) exits 143 the same way. */
Test(profile_e2e, sigterm_stops_the_run_exits_143_and_still_writes_the_exports, .timeout = 120)
{
    check_stop_signal(SIGTERM);
}

/* run_under_nofile runs a 300-connection run of 300 requests under
 * `prlimit --nofile=LIMITS` and returns its exit status and output. */
static int run_under_nofile(const struct e2e *w, const char *limits, char **out)
{
    if (access("/usr/bin/prlimit", X_OK) != 0) {
        cr_skip_test("needs prlimit (util-linux)");
    }
    char nofile[64];
    snprintf(nofile, sizeof(nofile), "--nofile=%s", limits);
    char *argv[] = {"/usr/bin/prlimit",
                    nofile,
                    RINGPERF_BINARY,
                    "profile",
                    "-m",
                    "m",
                    "--url",
                    (char *)w->url,
                    "--concurrency",
                    "300",
                    "--request-count",
                    "300",
                    "--ui-type",
                    "none",
                    "--artifact-dir",
                    (char *)w->dir,
                    NULL};
    struct child run = spawn_child(argv, true);
    *out = test_read_stream(run.out);
    return wait_child(&run);
}

/* A soft limit below the hard one is raised, as servers do; a run whose
 * connections cannot fit under the hard limit is refused before it sends or
 * writes anything, instead of failing requests with EMFILE. */
Test(profile_e2e, the_open_file_limit_is_raised_or_the_run_refused, .timeout = 120)
{
    struct e2e w;
    e2e_start(&w, (char *const[]){"--max-connections", "1024", NULL});
    char *out = NULL;
    cr_assert_eq(run_under_nofile(&w, "256:256", &out), 1, "%s", out);
    cr_assert(strstr(out, "open-file limit is 256") != NULL, "%s", out);
    cr_assert(strstr(out, "--concurrency") != NULL, "%s", out);
    char path[128];
    snprintf(path, sizeof(path), "%s/profile_export.jsonl", w.dir);
    cr_assert_neq(access(path, F_OK), 0, "nothing was written");
    free(out);
    cr_assert_eq(run_under_nofile(&w, "256:4096", &out), 0, "%s", out);
    size_t errors = 0;
    cr_assert_eq(count_export_lines(&w, &errors), 300);
    cr_assert_eq(errors, 0, "no request failed for want of a descriptor:\n%s", out);
    free(out);
    e2e_finish(&w);
}

Test(profile_e2e, invalid_flags_name_the_flag_and_exit_1, .timeout = 60)
{
    static const struct {
        const char *words;
        const char *says[2];
    } refused[] = {
        {"profile -m m --concurency 4", {"--concurency", "--concurrency"}}, /* suggests the fix */
        {"profile -m m --concurrency zero", {"--concurrency"}},
        {"profile -m m --url ftp://127.0.0.1:1", {"ftp"}},
        {"frobnicate", {"frobnicate"}},
    };
    for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
        const struct profile_case k = {
            .words = refused[i].words,
            .merge_stderr = true,
            .status = 1,
            .says = {refused[i].says[0], refused[i].says[1]},
        };
        free(run_case(NULL, &k));
    }
}

Test(profile_e2e, help_lists_flags_in_groups, .timeout = 60)
{
    static const struct profile_case help[] = {
        {.words = "profile --help",
         .says = {"--concurrency", "--request-timeout-seconds", "--workers-max"}},
        {.words = "--help", .says = {"mock-server"}},
    };
    for (size_t i = 0; i < sizeof(help) / sizeof(help[0]); i++) {
        free(run_case(NULL, &help[i]));
    }
}

/* Request and response bodies of about a megabyte, both ways: the server counts every word of
 * each 1 MiB prompt (its usage), and whole answers and streamed events far past the client's
 * first 128 KiB body buffer are read whole. */
Test(profile_e2e, megabyte_bodies_go_and_come_back_whole, .timeout = 180)
{
    static const struct profile_case k = {
        .mock_flags = {"--tokens-per-chunk", "40000", "--max-connections", "16"},
        .words = "profile -m m -u URL --endpoint-type chat --isl 200000 --osl 200000 "
                 "--concurrency 2 --request-count 4 --artifact-dir DIR",
        .says = {"Request Count (requests)"},
        .lines = 4,
        .errors = 0,
    };
    struct e2e w;
    free(start_case(&w, &k));
    json_t *root = e2e_load_json(&w, "profile_export_aiperf.json");
    check_range(root, "usage_prompt_tokens", 200000, 200000);
    check_range(root, "usage_completion_tokens", 200000, 200000);
    json_t *sent = json_object_get(root, "http_req_data_sent");
    cr_assert_gt(json_real_value(json_object_get(sent, "min")), 1024.0, "KB sent per request");
    json_decref(root);
    e2e_run_ok(&w, "profile -m m -u URL --endpoint-type chat --streaming --isl 10 --osl 120000 "
                   "--concurrency 2 --request-count 4 --artifact-dir DIR");
    root = e2e_load_json(&w, "profile_export_aiperf.json");
    check_range(root, "usage_completion_tokens", 120000, 120000);
    json_decref(root);
    size_t errors = 0;
    cr_assert_eq(count_export_lines(&w, &errors), 4);
    cr_assert_eq(errors, 0);
    e2e_finish(&w);
}
