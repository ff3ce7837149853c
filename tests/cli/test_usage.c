/*
 * test_usage.c - AIPerf's usage metrics end to end: the mock server reports a
 * share of every prompt as cached (--cache-hit-rate), and ringperf's JSON,
 * CSV, JSONL and console report carry the usage_* metrics, their totals, the
 * token-weighted cache-read share and, with a tokenizer, the diffs between
 * the server's usage and the client's counts.
 */
#include <criterion/criterion.h>

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "e2e.h"

/* avg returns the "avg" of metric `tag` in the summary JSON; the metric must
 * be there. */
static double avg(const json_t *root, const char *tag)
{
    json_t *m = json_object_get(root, tag);
    cr_assert_not_null(m, "%s is in profile_export_aiperf.json", tag);
    return json_number_value(json_object_get(m, "avg"));
}

/* record_value returns the value of metric `tag` in one JSONL record, or -1. */
static double record_value(const json_t *record, const char *tag)
{
    json_t *m = json_object_get(json_object_get(record, "metrics"), tag);
    return m != NULL ? json_number_value(json_object_get(m, "value")) : -1;
}

/* jsonl_sums walks profile_export.jsonl: every record with usage must report
 * floor(prompt * rate / 100) cached tokens; returns the sums of prompt and
 * cached tokens and how many records have a diff over 10 %. */
static size_t jsonl_sums(const struct e2e *w, double rate, double *out_prompt, double *out_cached,
                         double *out_over)
{
    char path[512];
    snprintf(path, sizeof(path), "%s/profile_export.jsonl", w->dir);
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f, "%s", path);
    char line[1 << 16];
    size_t n = 0;
    *out_prompt = *out_cached = *out_over = 0;
    while (fgets(line, sizeof(line), f) != NULL) {
        json_error_t err;
        json_t *rec = json_loads(line, 0, &err);
        cr_assert_not_null(rec, "%s", err.text);
        double prompt = record_value(rec, "usage_prompt_tokens");
        double cached = record_value(rec, "usage_prompt_cache_read_tokens");
        cr_assert_geq(prompt, 0, "record %zu has usage_prompt_tokens", n);
        cr_assert_float_eq(cached, floor(prompt * rate / 100.0), 1e-9, "record %zu", n);
        *out_prompt += prompt;
        *out_cached += cached;
        static const char *const diffs[] = {"usage_prompt_tokens_diff_pct",
                                            "usage_completion_tokens_diff_pct",
                                            "usage_reasoning_tokens_diff_pct"};
        bool over = false;
        for (size_t i = 0; i < 3; i++) {
            over |= record_value(rec, diffs[i]) > 10.0;
        }
        *out_over += over;
        json_decref(rec);
        n++;
    }
    fclose(f);
    return n;
}

static void check_cache_exports(const struct e2e *w, const char *what, double rate, size_t count)
{
    double prompt = 0, cached = 0, over = 0;
    cr_assert_eq(jsonl_sums(w, rate, &prompt, &cached, &over), count, "%s", what);
    cr_assert_gt(cached, 0, "%s: the server reported cached tokens", what);
    json_t *root = e2e_load_json(w, "profile_export_aiperf.json");
    cr_assert_float_eq(avg(root, "total_usage_prompt_tokens"), prompt, 1e-6, "%s", what);
    cr_assert_float_eq(avg(root, "total_usage_prompt_cache_read_tokens"), cached, 1e-6, "%s", what);
    cr_assert_float_eq(avg(root, "overall_usage_prompt_cache_read_pct"), cached / prompt * 100.0,
                       1e-9, "%s", what);
    json_t *rec = json_object_get(root, "usage_prompt_cache_read_tokens");
    cr_assert_float_eq(json_number_value(json_object_get(rec, "sum")), cached, 1e-6, "%s", what);
    cr_assert_eq(json_integer_value(json_object_get(rec, "count")), (json_int_t)count, "%s", what);
    json_decref(root);
}

Test(usage_e2e, cache_hit_rate_reaches_every_export_and_the_console, .timeout = 120)
{
    struct e2e w;
    char *const mock_flags[] = {"--cache-hit-rate", "50", NULL};
    e2e_start(&w, mock_flags);
    char *out = NULL;
    int status = run_ringperf(&w,
                              "profile -m m -u URL --endpoint-type chat --streaming "
                              "--concurrency 4 --request-count 40 --isl 60 --osl 8 "
                              "--artifact-dir DIR",
                              false, &out);
    cr_assert_eq(status, 0, "exit %d\n%s", status, out);
    check_cache_exports(&w, "chat --streaming", 50, 40);
    cr_assert(strstr(out, "LLM Metrics: Usage") != NULL, "%s", out);
    cr_assert(strstr(out, "Usage Prompt Cache Read Tokens") != NULL, "%s", out);
    cr_assert(strstr(out, "Overall Usage Prompt Cache Read %") != NULL, "%s", out);
    char path[512];
    snprintf(path, sizeof(path), "%s/profile_export_aiperf.csv", w.dir);
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f);
    char *csv = test_read_stream(f);
    fclose(f);
    cr_assert(strstr(csv, "\nUsage Prompt Cache Read Tokens (tokens),") != NULL, "%s", csv);
    cr_assert(strstr(csv, "\nTotal Usage Prompt Cache Read Tokens (tokens),") != NULL, "%s", csv);
    cr_assert(strstr(csv, "\nOverall Usage Prompt Cache Read % (%),") != NULL, "%s", csv);
    free(csv);
    free(out);
    e2e_finish(&w);
}

Test(usage_e2e, every_vendor_shape_of_cached_tokens_is_read, .timeout = 240)
{
    static const char *const types[][2] = {
        {"chat", ""},      {"completions", "--streaming"}, {"responses", "--streaming"},
        {"responses", ""}, {"messages", "--streaming"},    {"messages", ""},
    };
    struct e2e w;
    char *const mock_flags[] = {"--cache-hit-rate", "25", NULL};
    e2e_start(&w, mock_flags);
    for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
        char words[256];
        snprintf(words, sizeof(words),
                 "profile -m m -u URL --endpoint-type %s %s --concurrency 2 --request-count 10 "
                 "--isl 40 --osl 4 --artifact-dir DIR",
                 types[i][0], types[i][1]);
        char *out = NULL;
        int status = run_ringperf(&w, words, true, &out);
        char what[64];
        snprintf(what, sizeof(what), "%s %s", types[i][0], types[i][1]);
        cr_assert_eq(status, 0, "%s: exit %d\n%s", what, status, out);
        check_cache_exports(&w, what, 25, 10);
        free(out);
    }
    e2e_finish(&w);
}

Test(usage_e2e, no_cache_fields_without_a_cache_hit_rate, .timeout = 120)
{
    struct e2e w;
    e2e_start(&w, NULL);
    char *out = NULL;
    int status = run_ringperf(&w,
                              "profile -m m -u URL --endpoint-type chat --streaming "
                              "--concurrency 2 --request-count 10 --osl 4 --artifact-dir DIR",
                              false, &out);
    cr_assert_eq(status, 0, "%s", out);
    json_t *root = e2e_load_json(&w, "profile_export_aiperf.json");
    cr_assert_not_null(json_object_get(root, "total_usage_prompt_tokens"));
    cr_assert_null(json_object_get(root, "total_usage_prompt_cache_read_tokens"));
    cr_assert_null(json_object_get(root, "overall_usage_prompt_cache_read_pct"));
    cr_assert_null(json_object_get(root, "usage_discrepancy_count"),
                   "no client counts without a tokenizer: no diffs");
    json_decref(root);
    free(out);
    e2e_finish(&w);
}

/* The mock counts prompt words, the tokenizer BPE tokens: the diffs are real,
 * and the discrepancy count must agree with the per-record diffs. */
Test(usage_e2e, tokenizer_counts_are_compared_with_usage, .timeout = 120)
{
    struct e2e w;
    char *const mock_flags[] = {"--cache-hit-rate", "10", NULL};
    e2e_start(&w, mock_flags);
    char words[512];
    snprintf(words, sizeof(words),
             "profile -m Qwen/Qwen3-0.6B --tokenizer %s -u URL --streaming --concurrency 2 "
             "--request-count 20 --isl 50 --osl 10 --artifact-dir DIR",
             RINGPERF_TOKENIZER_QWEN3);
    char *out = NULL;
    int status = run_ringperf(&w, words, true, &out);
    cr_assert_eq(status, 0, "%s", out);
    double prompt = 0, cached = 0, over = 0;
    cr_assert_eq(jsonl_sums(&w, 10, &prompt, &cached, &over), 20);
    json_t *root = e2e_load_json(&w, "profile_export_aiperf.json");
    cr_assert_not_null(json_object_get(root, "usage_prompt_tokens_diff_pct"));
    cr_assert_not_null(json_object_get(root, "usage_completion_tokens_diff_pct"));
    cr_assert_float_eq(avg(root, "usage_discrepancy_count"), over, 1e-9);
    json_decref(root);
    free(out);
    e2e_finish(&w);
}
