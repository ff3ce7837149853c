/*
 * test_dataset_extras.c - dataset extras end to end against the mock server:
 * prompt batches for embeddings, synthetic rankings passages, prefix prompts
 * (token-exact with Qwen3's tokenizer), per-session user context messages and
 * --public-dataset sharegpt from a local file; each checked in inputs.json.
 */
#include <criterion/criterion.h>

#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "e2e.h"
#include "tokenizer/tokenizer.h"

#define PROFILE "profile --model m --url URL --artifact-dir DIR --ui-type none "

/* run_words runs ringperf with printf-style words (IN/name: a file of the
 * world's dir). Returns the exit status and the merged output in *out. */
__attribute__((format(printf, 3, 4))) static int run_words(const struct e2e *w, char **out,
                                                           const char *fmt, ...)
{
    char words[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(words, sizeof(words), fmt, ap);
    va_end(ap);
    return run_ringperf(w, words, true, out);
}

/* payload returns payload 0 of session i of inputs.json. */
static json_t *payload(json_t *root, size_t i)
{
    json_t *session = json_array_get(json_object_get(root, "data"), i);
    json_t *p = json_array_get(json_object_get(session, "payloads"), 0);
    cr_assert_not_null(p, "session %zu", i);
    return p;
}

static size_t word_count(const char *text)
{
    size_t words = text[0] != '\0';
    for (const char *p = text; *p != '\0'; p++) {
        words += *p == ' ';
    }
    return words;
}

Test(dataset_extras_e2e, prompt_batch_sends_that_many_texts, .timeout = 120)
{
    struct e2e w;
    size_t errors = 0;
    e2e_start(&w, NULL);
    char *out = NULL;
    int status =
        run_words(&w, &out, PROFILE "--endpoint-type embeddings -b 3 --isl 5 --request-count 4");
    cr_assert_eq(status, 0, "%s", out);
    free(out);
    json_t *root = e2e_load_json(&w, "inputs.json");
    for (size_t i = 0; i < 4; i++) {
        json_t *input = json_object_get(payload(root, i), "input");
        cr_assert_eq(json_array_size(input), 3);
        for (size_t t = 0; t < 3; t++) {
            cr_assert_eq(word_count(json_string_value(json_array_get(input, t))), 5);
        }
    }
    json_decref(root);
    cr_assert_eq(count_export_lines(&w, &errors), 4);
    cr_assert_eq(errors, 0);
    e2e_finish(&w);
}

Test(dataset_extras_e2e, rankings_passages_and_query_lengths, .timeout = 120)
{
    struct e2e w;
    size_t errors = 0;
    e2e_start(&w, NULL);
    char *out = NULL;
    int status = run_words(&w, &out,
                           PROFILE "--endpoint-type cohere_rankings --rankings-passages-mean 4 "
                                   "--rankings-passages-prompt-token-mean 6 "
                                   "--rankings-query-prompt-token-mean 2 --request-count 3");
    cr_assert_eq(status, 0, "%s", out);
    free(out);
    json_t *root = e2e_load_json(&w, "inputs.json");
    for (size_t i = 0; i < 3; i++) {
        json_t *p = payload(root, i);
        cr_assert_eq(word_count(json_string_value(json_object_get(p, "query"))), 2);
        json_t *documents = json_object_get(p, "documents");
        cr_assert_eq(json_array_size(documents), 4);
        cr_assert_eq(word_count(json_string_value(json_array_get(documents, 3))), 6);
    }
    json_decref(root);
    cr_assert_eq(count_export_lines(&w, &errors), 3);
    cr_assert_eq(errors, 0);
    e2e_finish(&w);
}

/* qwen3_or_skip loads the Qwen3 tokenizer the fixture fetched, or skips the test without it. */
static struct tokenizer *qwen3_or_skip(void)
{
    if (access(RINGPERF_TOKENIZER_QWEN3, R_OK) != 0) {
        cr_skip_test("no Qwen3 tokenizer at %s", RINGPERF_TOKENIZER_QWEN3);
    }
    struct tokenizer *tok = NULL;
    char err[TOKENIZER_ERR_CAP];
    cr_assert_eq(tokenizer_load(RINGPERF_TOKENIZER_QWEN3, &tok, err, sizeof(err)), 0, "%s", err);
    return tok;
}

Test(dataset_extras_e2e, prefix_prompts_are_token_exact, .timeout = 300)
{
    struct tokenizer *tok = qwen3_or_skip();
    struct e2e w;
    size_t errors = 0;
    e2e_start(&w, NULL);
    char *out = NULL;
    int status = run_words(&w, &out,
                           PROFILE "--tokenizer %s --num-prefix-prompts 2 --prefix-prompt-length "
                                   "37 --isl 23 --isl-stddev 9 --request-count 12",
                           RINGPERF_TOKENIZER_QWEN3);
    cr_assert_eq(status, 0, "%s", out);
    free(out);
    json_t *root = e2e_load_json(&w, "inputs.json");
    struct tokenizer_scratch s = {0};
    char first_prefixes[2][64] = {"", ""};
    size_t distinct = 0;
    size_t total_tokens = 0;
    for (size_t i = 0; i < 12; i++) {
        json_t *messages = json_object_get(payload(root, i), "messages");
        const char *text =
            json_string_value(json_object_get(json_array_get(messages, 0), "content"));
        size_t n = 0;
        cr_assert_eq(tokenizer_count(tok, &s, text, strlen(text), &n), TOKENIZER_OK);
        cr_assert_geq(n, 38, "37 prefix tokens and a body: %s", text);
        total_tokens += n;
        bool seen = false;
        for (size_t k = 0; k < distinct; k++) {
            seen = seen || strncmp(first_prefixes[k], text, 40) == 0;
        }
        if (!seen) {
            cr_assert_lt(distinct, 2, "at most two prefixes");
            snprintf(first_prefixes[distinct++], 41, "%s", text);
        }
    }
    json_decref(root);
    /* The ISL the run reports is the prompts' exact token count. */
    char path[512];
    snprintf(path, sizeof(path), "%s/profile_export_aiperf.json", w.dir);
    json_error_t jerr;
    json_t *summary = json_load_file(path, 0, &jerr);
    cr_assert_not_null(summary, "%s", jerr.text);
    double total = json_number_value(json_object_get(json_object_get(summary, "total_isl"), "avg"));
    cr_assert_eq((size_t)total, total_tokens, "total_isl %.0f, prompts %zu", total, total_tokens);
    json_decref(summary);
    cr_assert_eq(count_export_lines(&w, &errors), 12);
    cr_assert_eq(errors, 0);
    tokenizer_scratch_free(&s);
    tokenizer_free(tok);
    e2e_finish(&w);
}

Test(dataset_extras_e2e, user_context_is_a_message_per_session, .timeout = 120)
{
    struct e2e w;
    size_t errors = 0;
    e2e_start(&w, NULL);
    char *out = NULL;
    int status = run_words(&w, &out,
                           PROFILE "--user-context-prompt-length 6 --num-dataset-entries 3 "
                                   "--shared-system-prompt-length 4 --isl 5 --request-count 3");
    cr_assert_eq(status, 0, "%s", out);
    free(out);
    json_t *root = e2e_load_json(&w, "inputs.json");
    const char *contexts[3];
    for (size_t i = 0; i < 3; i++) {
        json_t *messages = json_object_get(payload(root, i), "messages");
        cr_assert_eq(json_array_size(messages), 3);
        static const char *const roles[] = {"system", "user", "user"};
        for (size_t m = 0; m < 3; m++) {
            json_t *msg = json_array_get(messages, m);
            cr_assert_str_eq(json_string_value(json_object_get(msg, "role")), roles[m]);
        }
        contexts[i] = json_string_value(json_object_get(json_array_get(messages, 1), "content"));
        cr_assert_eq(word_count(contexts[i]), 6, "%s", contexts[i]);
        const char *prompt =
            json_string_value(json_object_get(json_array_get(messages, 2), "content"));
        cr_assert_eq(word_count(prompt), 5);
    }
    cr_assert(strcmp(contexts[0], contexts[1]) != 0, "%s", contexts[0]);
    cr_assert(strcmp(contexts[1], contexts[2]) != 0, "%s", contexts[1]);
    json_decref(root);
    cr_assert_eq(count_export_lines(&w, &errors), 3);
    cr_assert_eq(errors, 0);
    e2e_finish(&w);
}

static void write_sharegpt(const struct e2e *w)
{
    char path[512];
    snprintf(path, sizeof(path), "%s/sg.json", w->dir);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fputs("[\n"
          " {\"id\": \"a\", \"conversations\": [{\"from\": \"human\", \"value\": \"tell me a "
          "story please\"}, {\"from\": \"gpt\", \"value\": \"once upon a time there\"}]},\n"
          " {\"id\": \"b\", \"conversations\": [{\"from\": \"human\", \"value\": \"hi\"}, "
          "{\"from\": \"gpt\", \"value\": \"hello there how are you\"}]},\n"
          " {\"id\": \"c\", \"conversations\": []},\n"
          " {\"id\": \"d\", \"conversations\": [{\"from\": \"human\", \"value\": \"what is the "
          "time now\"}, {\"from\": \"gpt\", \"value\": \"it is late in the evening\"}]}\n"
          "]\n",
          f);
    fclose(f);
}

Test(dataset_extras_e2e, sharegpt_from_a_local_file, .timeout = 120)
{
    struct e2e w;
    size_t errors = 0;
    e2e_start(&w, NULL);
    write_sharegpt(&w);
    char *out = NULL;
    int status = run_words(&w, &out,
                           PROFILE "--public-dataset sharegpt --input-file IN/sg.json "
                                   "--request-count 4");
    cr_assert_eq(status, 0, "%s", out);
    cr_assert_not_null(strstr(out, "word counts"), "%s", out);
    free(out);
    json_t *root = e2e_load_json(&w, "inputs.json");
    json_t *first = payload(root, 0);
    json_t *msg = json_array_get(json_object_get(first, "messages"), 0);
    cr_assert_str_eq(json_string_value(json_object_get(msg, "content")), "tell me a story please");
    cr_assert_eq(json_integer_value(json_object_get(first, "max_completion_tokens")), 5);
    json_t *second = payload(root, 1);
    msg = json_array_get(json_object_get(second, "messages"), 0);
    cr_assert_str_eq(json_string_value(json_object_get(msg, "content")), "what is the time now");
    cr_assert_eq(json_integer_value(json_object_get(second, "max_completion_tokens")), 6);
    cr_assert_eq(json_array_size(json_object_get(root, "data")), 2, "two pass the filter");
    json_decref(root);
    cr_assert_eq(count_export_lines(&w, &errors), 4);
    cr_assert_eq(errors, 0);

    /* No file and nothing in the cache: say where to put it. */
    setenv("HF_HOME", w.dir, 1);
    unsetenv("HF_HUB_CACHE");
    status = run_words(&w, &out, PROFILE "--public-dataset sharegpt --request-count 1");
    cr_assert_neq(status, 0);
    cr_assert_not_null(strstr(out, "ShareGPT_V3_unfiltered_cleaned_split.json"), "%s", out);
    cr_assert_not_null(strstr(out, "--input-file"), "%s", out);
    free(out);
    /* A broken file: file, line and column. */
    char path[512];
    snprintf(path, sizeof(path), "%s/bad.json", w.dir);
    FILE *f = fopen(path, "w");
    fputs("[\n {\"conversations\": [}\n]", f);
    fclose(f);
    status = run_words(&w, &out, PROFILE "--public-dataset sharegpt --input-file IN/bad.json");
    cr_assert_neq(status, 0);
    cr_assert_not_null(strstr(out, "bad.json:2:"), "%s", out);
    free(out);
    e2e_finish(&w);
}

Test(dataset_extras_e2e, a_short_run_over_a_long_file_builds_what_it_sends, .timeout = 120)
{
    struct e2e w;
    size_t errors = 0;
    e2e_start(&w, NULL);
    char path[512];
    snprintf(path, sizeof(path), "%s/long.jsonl", w.dir);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    for (int i = 0; i < 200; i++) {
        fprintf(f, "{\"text\": \"line %d\"}\n", i);
    }
    fclose(f);
    static const char *const strategies[] = {"sequential", "shuffle", "random"};
    for (size_t s = 0; s < 3; s++) {
        char *out = NULL;
        int status = run_words(&w, &out,
                               PROFILE "--input-file IN/long.jsonl --custom-dataset-type "
                                       "single_turn --dataset-sampling-strategy %s "
                                       "--request-count 5",
                               strategies[s]);
        cr_assert_eq(status, 0, "%s", out);
        free(out);
        cr_assert_eq(count_export_lines(&w, &errors), 5);
        cr_assert_eq(errors, 0);
        json_t *root = e2e_load_json(&w, "inputs.json");
        size_t sessions = json_array_size(json_object_get(root, "data"));
        cr_assert(sessions >= 1 && sessions <= 5, "%s: %zu entries written", strategies[s],
                  sessions);
        if (s == 0) {
            json_t *msg = json_array_get(json_object_get(payload(root, 4), "messages"), 0);
            cr_assert_str_eq(json_string_value(json_object_get(msg, "content")), "line 4");
        } else {
            /* Drawn from the whole file, though only what was drawn was loaded. */
            int highest = -1;
            for (size_t k = 0; k < sessions; k++) {
                json_t *msg = json_array_get(json_object_get(payload(root, k), "messages"), 0);
                int line =
                    (int)strtol(json_string_value(json_object_get(msg, "content")) + 5, NULL, 10);
                highest = line > highest ? line : highest;
            }
            cr_assert_gt(highest, 4, "%s drew past the first five lines", strategies[s]);
        }
        json_decref(root);
    }
    e2e_finish(&w);
}

/* record_isl returns record i's input_sequence_length, -1 when it has none. */
static int64_t record_isl(const struct e2e *w, size_t i)
{
    char *text = e2e_read_text(w, "profile_export.jsonl");
    char *cursor = text;
    char *line = test_next_line(&cursor);
    for (size_t k = 0; k < i && line != NULL; k++) {
        line = test_next_line(&cursor);
    }
    cr_assert_not_null(line, "record %zu", i);
    json_t *rec = json_loads(line, 0, NULL);
    json_t *isl = json_object_get(
        json_object_get(json_object_get(rec, "metrics"), "input_sequence_length"), "value");
    int64_t value = json_is_number(isl) ? (int64_t)json_number_value(isl) : -1;
    json_decref(rec);
    free(text);
    return value;
}

/* A body sent verbatim (raw_payload, inputs_json) is tokenized as sent, as AIPerf does: its
 * input length is the tokens of its messages' text, the same as the texts' own run, with
 * total_isl and input_token_throughput in the summary. */
Test(dataset_extras_e2e, replayed_bodies_report_their_input_length, .timeout = 300)
{
    struct tokenizer *tok = qwen3_or_skip();
    static const char text[] = "Rivers carve canyons over millions of years.";
    struct tokenizer_scratch s = {0};
    size_t want = 0;
    cr_assert_eq(tokenizer_count(tok, &s, text, strlen(text), &want), TOKENIZER_OK);
    struct e2e w;
    e2e_start(&w, NULL);
    e2e_write(&w, "raw.jsonl",
              "{\"model\": \"m\", \"messages\": [{\"role\": \"user\", \"content\": \"Rivers carve "
              "canyons over millions of years.\"}], \"max_tokens\": 4}\n");
    char *out = NULL;
    int status = run_words(&w, &out,
                           PROFILE "--tokenizer %s --input-file IN/raw.jsonl --custom-dataset-type "
                                   "raw_payload --request-count 1",
                           RINGPERF_TOKENIZER_QWEN3);
    cr_assert_eq(status, 0, "%s", out);
    free(out);
    cr_assert_eq(record_isl(&w, 0), (int64_t)want, "the raw body's text, tokenized");
    json_t *summary = e2e_load_json(&w, "profile_export_aiperf.json");
    cr_assert_not_null(json_object_get(summary, "total_isl"));
    cr_assert_not_null(json_object_get(summary, "input_token_throughput"));
    json_decref(summary);
    char src[512];
    char dst[512];
    snprintf(src, sizeof(src), "%s/inputs.json", w.dir);
    snprintf(dst, sizeof(dst), "%s/first.json", w.dir);
    cr_assert_eq(rename(src, dst), 0);
    status = run_words(&w, &out,
                       PROFILE "--tokenizer %s --input-file IN/first.json --custom-dataset-type "
                               "inputs_json",
                       RINGPERF_TOKENIZER_QWEN3);
    cr_assert_eq(status, 0, "%s", out);
    free(out);
    cr_assert_eq(record_isl(&w, 0), (int64_t)want, "the replay of inputs.json, as its run");
    e2e_finish(&w);
    tokenizer_scratch_free(&s);
    tokenizer_free(tok);
}
