/*
 * test_inputs.c - --input-file end to end against the mock server: every
 * format, the seed documents' input-file examples, fixed-schedule replay, and
 * the errors of bad files. (Process helpers follow test_profile.c.)
 */
#include <criterion/criterion.h>

#include <errno.h>
#include <jansson.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "e2e.h"

/* run_ok runs ringperf with printf-style words (IN/name: a file of the
 * world's dir, where the input files live) and expects success. */
__attribute__((format(printf, 2, 3))) static void run_ok(const struct e2e *w, const char *fmt, ...)
{
    char words[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(words, sizeof(words), fmt, ap);
    va_end(ap);
    e2e_run_ok(w, words);
}

#define PROFILE "profile --model Qwen/Qwen3-0.6B --url URL --artifact-dir DIR "

Test(inputs_e2e, seed_single_turn_examples_chat_and_completions, .timeout = 120)
{
    struct e2e w;
    e2e_start(&w, NULL);
    e2e_write(&w, "inputs.jsonl",
              "{\"texts\": [\"Hello!\"]}\n{\"texts\": [\"Tell me a joke.\"]}\n");
    run_ok(&w,
           PROFILE "--endpoint-type chat --endpoint /v1/chat/completions --streaming "
                   "--input-file IN/inputs.jsonl --custom-dataset-type single_turn "
                   "--request-count 10%s",
           "");
    size_t errors = 0;
    cr_assert_eq(count_export_lines(&w, &errors), 10);
    cr_assert_eq(errors, 0);
    json_t *root = e2e_load_json(&w, "inputs.json");
    json_t *data = json_object_get(root, "data");
    cr_assert_eq(json_array_size(data), 2);
    json_t *body = json_array_get(json_object_get(json_array_get(data, 1), "payloads"), 0);
    json_t *msg = json_array_get(json_object_get(body, "messages"), 0);
    cr_assert_str_eq(json_string_value(json_object_get(msg, "content")), "Tell me a joke.");
    cr_assert(json_is_true(json_object_get(body, "stream")));
    json_decref(root);
    e2e_write(&w, "inputs.jsonl",
              "{\"texts\": [\"How are you?\"]}\n{\"texts\": [\"Give me a poem.\"]}\n");
    run_ok(&w,
           PROFILE "--endpoint-type completions --endpoint /v1/completions --input-file "
                   "IN/inputs.jsonl --custom-dataset-type single_turn --request-count 10%s",
           "");
    cr_assert_eq(count_export_lines(&w, &errors), 10);
    cr_assert_eq(errors, 0);
    root = e2e_load_json(&w, "inputs.json");
    body = json_array_get(
        json_object_get(json_array_get(json_object_get(root, "data"), 0), "payloads"), 0);
    cr_assert_str_eq(json_string_value(json_object_get(body, "prompt")), "How are you?");
    json_decref(root);
    e2e_finish(&w);
}

static const char RAW_LINES[] =
    "{\"messages\": [{\"role\": \"user\", \"content\": \"What is machine learning?\"}], \"model\": "
    "\"Qwen/Qwen3-0.6B\", \"max_tokens\": 100}\n"
    "{\"messages\": [{\"role\": \"user\", \"content\": \"Explain neural networks.\"}], \"model\": "
    "\"Qwen/Qwen3-0.6B\", \"max_tokens\": 200}\n"
    "{\"messages\": [{\"role\": \"user\", \"content\": \"How does backpropagation work?\"}], "
    "\"model\": \"Qwen/Qwen3-0.6B\", \"temperature\": 0.7}\n";

Test(inputs_e2e, seed_raw_payload_file_explicit_and_detected, .timeout = 120)
{
    struct e2e w;
    e2e_start(&w, NULL);
    e2e_write(&w, "payloads.jsonl", RAW_LINES);
    const char *variants[] = {"--custom-dataset-type raw_payload ", ""};
    for (size_t v = 0; v < 2; v++) {
        run_ok(&w, PROFILE "--input-file IN/payloads.jsonl %s--streaming --concurrency 2",
               variants[v]);
        size_t errors = 0;
        cr_assert_eq(count_export_lines(&w, &errors), 3, "each line once");
        cr_assert_eq(errors, 0);
        json_t *root = e2e_load_json(&w, "inputs.json");
        json_t *third = json_array_get(
            json_object_get(json_array_get(json_object_get(root, "data"), 2), "payloads"), 0);
        cr_assert_eq(json_real_value(json_object_get(third, "temperature")), 0.7);
        cr_assert_null(json_object_get(third, "stream"), "sent verbatim: no stream added");
        json_decref(root);
    }
    e2e_finish(&w);
}

Test(inputs_e2e, seed_raw_payload_directory_keeps_sessions, .timeout = 120)
{
    struct e2e w;
    e2e_start(&w, NULL);
    char sub[512];
    snprintf(sub, sizeof(sub), "%s/conversations", w.dir);
    cr_assert_eq(mkdir(sub, 0755), 0);
    e2e_write(&w, "conversations/session_002.jsonl",
              "{\"messages\": [{\"role\": \"user\", \"content\": \"Explain REST APIs.\"}], "
              "\"model\": \"Qwen/Qwen3-0.6B\", \"max_tokens\": 300}\n"
              "{\"messages\": [{\"role\": \"user\", \"content\": \"Explain REST APIs.\"}, "
              "{\"role\": \"assistant\", \"content\": \"REST is...\"}, {\"role\": \"user\", "
              "\"content\": \"What about GraphQL?\"}], \"model\": \"Qwen/Qwen3-0.6B\"}\n");
    e2e_write(&w, "conversations/session_001.jsonl",
              "{\"messages\": [{\"role\": \"user\", \"content\": \"What is Python?\"}], "
              "\"model\": \"Qwen/Qwen3-0.6B\", \"max_tokens\": 200}\n");
    run_ok(&w,
           PROFILE "--input-file IN/conversations/ --custom-dataset-type raw_payload "
                   "--streaming --concurrency 2%s",
           "");
    size_t errors = 0;
    cr_assert_eq(count_export_lines(&w, &errors), 3);
    cr_assert_eq(errors, 0);
    json_t *root = e2e_load_json(&w, "inputs.json");
    json_t *data = json_object_get(root, "data");
    cr_assert_eq(json_array_size(data), 2);
    cr_assert_str_eq(json_string_value(json_object_get(json_array_get(data, 0), "session_id")),
                     "session_001");
    cr_assert_eq(json_array_size(json_object_get(json_array_get(data, 1), "payloads")), 2);
    json_decref(root);
    e2e_finish(&w);
}

Test(inputs_e2e, seed_inputs_json_replay_sends_the_same_payloads, .timeout = 120)
{
    struct e2e w;
    e2e_start(&w, NULL);
    run_ok(&w, PROFILE "--endpoint-type chat --concurrency 4 --request-count 4 --isl 12%s", "");
    char src[512];
    char dst[512];
    snprintf(src, sizeof(src), "%s/inputs.json", w.dir);
    snprintf(dst, sizeof(dst), "%s/first.json", w.dir);
    cr_assert_eq(rename(src, dst), 0);
    run_ok(&w,
           PROFILE "--input-file IN/first.json --custom-dataset-type inputs_json --streaming "
                   "--concurrency 4%s",
           "");
    size_t errors = 0;
    cr_assert_eq(count_export_lines(&w, &errors), 4, "every payload once");
    cr_assert_eq(errors, 0);
    json_t *before = json_load_file(dst, 0, NULL);
    json_t *after = e2e_load_json(&w, "inputs.json");
    cr_assert(json_equal(before, after), "replayed verbatim, session ids kept");
    json_decref(before);
    json_decref(after);
    /* Auto-detected too, though pretty-printed. */
    run_ok(&w, PROFILE "--input-file IN/first.json --concurrency 4%s", "");
    cr_assert_eq(count_export_lines(&w, &errors), 4);
    e2e_finish(&w);
}

/* find_session returns inputs.json's entry named `id`, or NULL. */
static json_t *find_session(json_t *inputs, const char *id)
{
    size_t i;
    json_t *entry;
    json_array_foreach(json_object_get(inputs, "data"), i, entry)
    {
        if (strcmp(json_string_value(json_object_get(entry, "session_id")), id) == 0) {
            return entry;
        }
    }
    return NULL;
}

/* Records join inputs.json as AIPerf's do: conversation_id is the session_id of what was sent
 * and turn_index indexes its payloads. The entries have 1, 3 and 5 words and the mock counts
 * words as prompt tokens, so each record's usage says which payload it really sent. Every
 * record has a correlation id of its own. */
Test(inputs_e2e, records_join_inputs_json_on_conversation_and_turn, .timeout = 120)
{
    struct e2e w;
    e2e_start(&w, NULL);
    e2e_write(&w, "three.jsonl",
              "{\"text\": \"one\"}\n{\"text\": \"one two three\"}\n"
              "{\"text\": \"one two three four five\"}\n");
    run_ok(&w,
           PROFILE "--input-file IN/three.jsonl --custom-dataset-type single_turn "
                   "--dataset-sampling-strategy random --random-seed 5 --request-count 12%s",
           "");
    json_t *inputs = e2e_load_json(&w, "inputs.json");
    char *text = e2e_read_text(&w, "profile_export.jsonl");
    size_t records = 0;
    char previous[64] = "";
    char *cursor = text;
    for (char *line = test_next_line(&cursor); line != NULL; line = test_next_line(&cursor)) {
        json_t *rec = json_loads(line, 0, NULL);
        cr_assert_not_null(rec);
        json_t *meta = json_object_get(rec, "metadata");
        const char *conv = json_string_value(json_object_get(meta, "conversation_id"));
        cr_assert_not_null(conv);
        json_t *entry = find_session(inputs, conv);
        cr_assert_not_null(entry, "%s is a session of inputs.json", conv);
        json_t *payload = json_array_get(json_object_get(entry, "payloads"),
                                         json_integer_value(json_object_get(meta, "turn_index")));
        cr_assert_not_null(payload);
        const char *content = json_string_value(
            json_object_get(json_array_get(json_object_get(payload, "messages"), 0), "content"));
        cr_assert_not_null(content);
        size_t words = 1;
        for (const char *c = content; *c != '\0'; c++) {
            words += *c == ' ';
        }
        json_t *prompt = json_object_get(json_object_get(rec, "metrics"), "usage_prompt_tokens");
        cr_assert_eq(json_integer_value(json_object_get(prompt, "value")), (json_int_t)words,
                     "%s: the server saw the payload inputs.json names", conv);
        const char *correlation = json_string_value(json_object_get(meta, "x_correlation_id"));
        cr_assert_not_null(correlation);
        cr_assert_str_neq(correlation, json_string_value(json_object_get(meta, "x_request_id")));
        cr_assert_str_neq(correlation, previous, "one correlation id per request");
        snprintf(previous, sizeof(previous), "%s", correlation);
        json_decref(rec);
        records++;
    }
    cr_assert_eq(records, 12);
    free(text);
    json_decref(inputs);
    e2e_finish(&w);
}

static int64_t start_ns(const char *line)
{
    const char *p = strstr(line, "\"request_start_ns\":");
    cr_assert_not_null(p);
    return strtoll(p + strlen("\"request_start_ns\":"), NULL, 10);
}

Test(inputs_e2e, mooncake_trace_replays_on_its_fixed_schedule, .timeout = 120)
{
    struct e2e w;
    e2e_start(&w, NULL);
    e2e_write(&w, "trace.jsonl",
              "{\"timestamp\": 1000, \"input_length\": 40, \"hash_ids\": [1, 2], "
              "\"output_length\": 4}\n"
              "{\"timestamp\": 1400, \"text_input\": \"hello\", \"output_length\": 4}\n"
              "{\"timestamp\": 1200, \"input_length\": 10, \"hash_ids\": [1]}\n");
    run_ok(&w, PROFILE "--input-file IN/trace.jsonl --isl-block-size 16 %s",
           "--fixed-schedule-auto-offset");
    size_t errors = 0;
    cr_assert_eq(count_export_lines(&w, &errors), 3, "one request per row");
    cr_assert_eq(errors, 0);
    char path[512];
    snprintf(path, sizeof(path), "%s/profile_export.jsonl", w.dir);
    FILE *f = fopen(path, "r");
    char *text = test_read_stream(f);
    fclose(f);
    int64_t first = INT64_MAX;
    int64_t last = 0;
    for (char *line = text; line != NULL && *line != '\0';) {
        int64_t t = start_ns(line);
        cr_assert_null(strstr(line, "\"credit_issued_ns\""), "a fixed schedule issues no credit");
        first = t < first ? t : first;
        last = t > last ? t : last;
        char *nl = strchr(line, '\n');
        line = nl != NULL ? nl + 1 : NULL;
    }
    free(text);
    cr_assert_geq(last - first, 350LL * 1000 * 1000, "the last row waits ~400 ms");
    run_ok(&w,
           PROFILE "--input-file IN/trace.jsonl --isl-block-size 16 --fixed-schedule "
                   "--fixed-schedule-start-offset 1100 %s",
           "--fixed-schedule-end-offset 1400");
    cr_assert_eq(count_export_lines(&w, &errors), 2, "the window is inclusive");
    e2e_finish(&w);
}

Test(inputs_e2e, raw_endpoint_sends_payloads_to_the_full_url, .timeout = 120)
{
    struct e2e w;
    e2e_start(&w, NULL);
    e2e_write(&w, "payloads.jsonl", RAW_LINES);
    char words[1024];
    snprintf(words, sizeof(words),
             "profile --model m --url http://%s/v1/chat/completions --artifact-dir DIR "
             "--endpoint-type raw --input-file %s/payloads.jsonl",
             w.url, w.dir);
    char *out = NULL;
    cr_assert_eq(run_ringperf(&w, words, true, &out), 0, "%s", out);
    free(out);
    size_t errors = 0;
    cr_assert_eq(count_export_lines(&w, &errors), 3);
    cr_assert_eq(errors, 0);
    e2e_finish(&w);
}

Test(inputs_e2e, bad_files_fail_with_file_line_and_expectation, .timeout = 120)
{
    struct e2e w;
    e2e_start(&w, NULL);
    static const struct {
        const char *text;
        const char *expect;
    } cases[] = {
        {"{\"text\": \"a\"}\n{\"text\": [}\n", "bad.jsonl:2: column"},
        {"{\"session_id\": \"s\", \"turns\": [{\"text\": 5}]}\n", "bad.jsonl:1: \"text\""},
        {"{\"input_length\": 10, \"hash_ids\": [1, 2, 3]}\n", "bad.jsonl:1:"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        e2e_write(&w, "bad.jsonl", cases[i].text);
        char words[512];
        snprintf(words, sizeof(words), PROFILE "--input-file %s/bad.jsonl", w.dir);
        char *out = NULL;
        cr_assert_eq(run_ringperf(&w, words, true, &out), 1, "%s", out);
        cr_assert_not_null(strstr(out, cases[i].expect), "case %zu: %s", i, out);
        free(out);
    }
    char *out = NULL;
    cr_assert_eq(run_ringperf(&w, PROFILE "--endpoint-type raw", true, &out), 1);
    cr_assert_not_null(strstr(out, "--input-file"), "%s", out);
    free(out);
    e2e_finish(&w);
}
