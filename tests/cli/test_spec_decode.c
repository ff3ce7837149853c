/*
 * test_spec_decode.c - AIPerf's speculative-decoding metrics end to end: the mock server reports
 * vLLM's per-request statistics of a fixed acceptance pattern (--spec-decode-tokens), and every
 * number ringperf exports (the records' spec_decode_acceptance and spec_decode_* metrics, the
 * summary's totals, ratios and pooled histogram, the CSV rows and the console's Spec Decode table
 * and histogram line) is what the mock served; without statistics nothing spec-decode appears.
 */
#include <criterion/criterion.h>

#include <dirent.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "e2e.h"

#define K 3 /* the mock's drafts per verify step */

/* served is what the mock reports for an answer of n tokens (mock.h, --spec-decode-tokens): the
 * first token from the prefill, then verify step s accepts min(s mod (K + 1), left - 1) drafts
 * and emits one token more. Worked out step by step here, apart from the mock's shortcut. */
struct served {
    int64_t steps, accepted, histogram[K + 1];
};

static struct served serve(int64_t n)
{
    struct served out = {0};
    for (int64_t left = n - 1, s = 0; left > 0; s++) {
        int64_t a = s % (K + 1) < left - 1 ? s % (K + 1) : left - 1;
        out.steps++;
        out.accepted += a;
        out.histogram[a]++;
        left -= a + 1;
    }
    return out;
}

static double num(const json_t *o, const char *key)
{
    const json_t *v = json_object_get(o, key);
    cr_assert(json_is_number(v), "%s is a number", key);
    return json_number_value(v);
}

static double metric_value(const json_t *rec, const char *tag)
{
    return num(json_object_get(json_object_get(rec, "metrics"), tag), "value");
}

/* totals are the sums over the records, for the summary's. */
struct totals {
    size_t records, with_stats, zero_steps;
    int64_t steps, accepted, drafted, histogram[K + 1];
    double length_sum;
};

/* check_record holds one line's spec_decode_acceptance and spec_decode_* metrics to what the mock
 * served for its output length, and adds them up. */
static void check_record(const json_t *rec, struct totals *t)
{
    t->records++;
    const json_t *sd = json_object_get(rec, "spec_decode_acceptance");
    int64_t n = (int64_t)metric_value(rec, "output_sequence_length");
    struct served want = serve(n);
    if (want.steps == 0) {
        cr_assert_null(sd, "a zero-step request has no acceptance record");
        cr_assert_null(json_object_get(json_object_get(rec, "metrics"), "spec_decode_steps"));
        t->zero_steps++;
        return;
    }
    cr_assert_not_null(sd, "an answer of %lld tokens carries statistics", (long long)n);
    t->with_stats++;
    cr_assert_str_eq(json_string_value(json_object_get(sd, "engine")), "vllm");
    double mean = 1.0 + (double)want.accepted / (double)want.steps;
    double rate = (double)want.accepted / (double)(K * want.steps);
    cr_assert_float_eq(num(sd, "mean_acceptance_length"), mean, 1e-12);
    cr_assert_float_eq(num(sd, "draft_acceptance_rate"), rate, 1e-12);
    cr_assert_eq((int64_t)num(sd, "num_accepted_draft_tokens"), want.accepted);
    cr_assert_eq((int64_t)num(sd, "num_draft_tokens"), K * want.steps);
    cr_assert_eq((int64_t)num(sd, "num_spec_steps"), want.steps);
    cr_assert_eq((int64_t)num(sd, "num_spec_tokens"), K);
    cr_assert_eq((int64_t)num(sd, "completion_tokens"), n);
    const json_t *h = json_object_get(sd, "acceptance_histogram");
    size_t nonzero = 0;
    for (int j = 0; j <= K; j++) {
        char key[8];
        snprintf(key, sizeof(key), "%d", j);
        const json_t *c = json_object_get(h, key);
        cr_assert_eq(c != NULL ? json_integer_value(c) : 0, want.histogram[j], "bucket %d", j);
        nonzero += want.histogram[j] > 0;
        t->histogram[j] += want.histogram[j];
    }
    cr_assert_eq(json_object_size(h), nonzero, "zero buckets are left out");
    cr_assert_float_eq(metric_value(rec, "spec_decode_acceptance_length"), mean, 1e-12);
    cr_assert_float_eq(metric_value(rec, "spec_decode_draft_acceptance_rate"), rate * 100, 1e-9);
    cr_assert_float_eq(metric_value(rec, "spec_decode_accepted_per_verified"),
                       (double)(want.accepted + want.steps) / (double)(K * want.steps + want.steps),
                       1e-12);
    cr_assert_eq((int64_t)metric_value(rec, "spec_decode_steps"), want.steps);
    cr_assert_eq((int64_t)metric_value(rec, "spec_decode_accepted_draft_tokens"), want.accepted);
    cr_assert_eq((int64_t)metric_value(rec, "spec_decode_draft_tokens"), K * want.steps);
    t->steps += want.steps;
    t->accepted += want.accepted;
    t->drafted += K * want.steps;
    t->length_sum += mean;
}

static struct totals check_records(const struct e2e *w)
{
    struct totals t = {0};
    char *text = e2e_read_text(w, "profile_export.jsonl");
    char *cursor = text;
    for (char *line = test_next_line(&cursor); line != NULL; line = test_next_line(&cursor)) {
        json_error_t err;
        json_t *rec = json_loads(line, 0, &err);
        cr_assert_not_null(rec, "%s", err.text);
        check_record(rec, &t);
        json_decref(rec);
    }
    free(text);
    return t;
}

static double avg(const json_t *root, const char *tag)
{
    const json_t *m = json_object_get(root, tag);
    cr_assert_not_null(m, "%s is in the summary", tag);
    return num(m, "avg");
}

static void check_summary(const struct e2e *w, const struct totals *t)
{
    json_t *root = e2e_load_json(w, "profile_export_aiperf.json");
    cr_assert_float_eq(avg(root, "total_spec_decode_steps"), (double)t->steps, 1e-9);
    cr_assert_float_eq(avg(root, "total_accepted_draft_tokens"), (double)t->accepted, 1e-9);
    cr_assert_float_eq(avg(root, "total_draft_tokens"), (double)t->drafted, 1e-9);
    cr_assert_float_eq(avg(root, "spec_decode_token_weighted_acceptance_length"),
                       1.0 + (double)t->accepted / (double)t->steps, 1e-12);
    cr_assert_float_eq(avg(root, "spec_decode_overall_draft_acceptance_rate"),
                       100.0 * (double)t->accepted / (double)t->drafted, 1e-9);
    cr_assert_float_eq(avg(root, "spec_decode_acceptance_length"),
                       t->length_sum / (double)t->with_stats, 1e-9);
    const json_t *length = json_object_get(root, "spec_decode_acceptance_length");
    cr_assert_eq(json_integer_value(json_object_get(length, "count")), (json_int_t)t->with_stats);
    cr_assert_str_eq(json_string_value(json_object_get(length, "unit")), "ratio");
    cr_assert_str_eq(json_string_value(json_object_get(
                         json_object_get(root, "spec_decode_draft_acceptance_rate"), "unit")),
                     "%");
    if (t->zero_steps > 0) {
        cr_assert_float_eq(avg(root, "spec_decode_zero_step_requests"), (double)t->zero_steps,
                           1e-9);
    } else {
        cr_assert_null(json_object_get(root, "spec_decode_zero_step_requests"));
    }
    /* The pooled histogram: the records' buckets added, keys ascending, zero buckets out, right
     * after warmup_metrics' slot and before the extra metric keys. */
    const json_t *pooled = json_object_get(root, "pooled_spec_decode_acceptance_histogram");
    cr_assert(json_is_object(pooled));
    const char *prev = NULL;
    const char *key;
    const json_t *value;
    json_object_foreach((json_t *)pooled, key, value)
    {
        int j = (int)strtol(key, NULL, 10);
        cr_assert(j >= 0 && j <= K, "%s", key);
        cr_assert_eq(json_integer_value(value), t->histogram[j], "pooled bucket %d", j);
        cr_assert(prev == NULL || strtol(prev, NULL, 10) < j, "keys ascending");
        prev = key;
    }
    json_decref(root);
    char *text = e2e_read_text(w, "profile_export_aiperf.json");
    const char *hist_at = strstr(text, "\"pooled_spec_decode_acceptance_histogram\"");
    cr_assert(hist_at > strstr(text, "\"end_time\""), "after the provenance");
    cr_assert(hist_at < strstr(text, "\"spec_decode_acceptance_length\""), "before the extras");
    free(text);
}

/* check_console finds the Spec Decode table and the histogram line, its shares the pooled ones. */
static void check_console(const char *out, const struct totals *t)
{
    cr_assert(strstr(out, "LLM Metrics: Spec Decode") != NULL, "%s", out);
    cr_assert(strstr(out, "Acceptance Length (ratio)") != NULL, "%s", out);
    cr_assert(strstr(out, "Token-Weighted Acceptance Length") != NULL, "%s", out);
    cr_assert(strstr(out, "Draft Acceptance Rate (%)") != NULL, "%s", out);
    cr_assert(strstr(out, "Accepted per Verified (ratio)") != NULL, "%s", out);
    cr_assert(strstr(out, "Spec Decode Steps (count)") != NULL, "%s", out);
    char line[256] = "  Accepted-draft histogram (% steps):  ";
    for (int j = 0; j <= K; j++) {
        if (t->histogram[K] == 0 && j == K) {
            break; /* the line stops at the highest bucket with steps */
        }
        char part[32];
        snprintf(part, sizeof(part), "%s%d: %.0f%%", j > 0 ? "   " : "", j,
                 100.0 * (double)t->histogram[j] / (double)t->steps);
        strncat(line, part, sizeof(line) - strlen(line) - 1);
    }
    strncat(line, "\n", sizeof(line) - strlen(line) - 1);
    cr_assert(strstr(out, line) != NULL, "want %s in\n%s", line, out);
}

Test(spec_decode_e2e, streamed_chat_reports_what_the_mock_served, .timeout = 120)
{
    struct e2e w;
    char *const mock_flags[] = {"--spec-decode-tokens", "3", NULL};
    e2e_start(&w, mock_flags);
    char *out = NULL;
    int status = run_ringperf(&w,
                              "profile -m m -u URL --endpoint-type chat --streaming "
                              "--concurrency 4 --request-count 40 --isl 20 --osl 12 "
                              "--osl-stddev 5 --random-seed 7 --artifact-dir DIR",
                              false, &out);
    cr_assert_eq(status, 0, "exit %d\n%s", status, out);
    struct totals t = check_records(&w);
    cr_assert_eq(t.records, 40);
    cr_assert_gt(t.with_stats, 0);
    check_summary(&w, &t);
    check_console(out, &t);
    char *csv = e2e_read_text(&w, "profile_export_aiperf.csv");
    cr_assert(strstr(csv, "\nAcceptance Length (ratio),") != NULL, "%s", csv);
    cr_assert(strstr(csv, "\nDraft Acceptance Rate (%),") != NULL, "%s", csv);
    cr_assert(strstr(csv, "\nSpec Decode Steps,") != NULL, "%s", csv);
    cr_assert(strstr(csv, "\nTotal Draft Tokens (tokens),") != NULL, "%s", csv);
    cr_assert(strstr(csv, "\nToken-Weighted Acceptance Length (ratio),") != NULL, "%s", csv);
    free(csv);
    free(out);
    e2e_finish(&w);
}

/* Bodies carry the statistics at their top level; an answer of one token ran no verify step. */
Test(spec_decode_e2e, completions_bodies_and_zero_step_answers, .timeout = 120)
{
    struct e2e w;
    char *const mock_flags[] = {"--spec-decode-tokens", "3", NULL};
    e2e_start(&w, mock_flags);
    e2e_run_ok(&w, "profile -m m -u URL --endpoint-type completions --concurrency 2 "
                   "--request-count 12 --isl 20 --osl 9 --artifact-dir DIR");
    struct totals t = check_records(&w);
    cr_assert_eq(t.with_stats, 12);
    check_summary(&w, &t);

    char *out = NULL;
    int status = run_ringperf(&w,
                              "profile -m m -u URL --endpoint-type completions --streaming "
                              "--concurrency 2 --request-count 6 --isl 20 --osl 1 "
                              "--artifact-dir DIR",
                              false, &out);
    cr_assert_eq(status, 0, "%s", out);
    t = check_records(&w);
    cr_assert_eq(t.zero_steps, 6);
    json_t *root = e2e_load_json(&w, "profile_export_aiperf.json");
    cr_assert_float_eq(avg(root, "spec_decode_zero_step_requests"), 6, 1e-9);
    cr_assert_null(json_object_get(root, "spec_decode_acceptance_length"));
    cr_assert_null(json_object_get(root, "total_spec_decode_steps"));
    cr_assert_null(json_object_get(root, "pooled_spec_decode_acceptance_histogram"));
    json_decref(root);
    cr_assert(strstr(out, "Zero-Step Requests") != NULL, "%s", out);
    cr_assert(strstr(out, "Accepted-draft histogram") == NULL, "%s", out);
    free(out);
    e2e_finish(&w);
}

Test(spec_decode_e2e, without_statistics_nothing_spec_decode_appears, .timeout = 120)
{
    struct e2e w;
    e2e_start(&w, NULL);
    char *out = NULL;
    int status = run_ringperf(&w,
                              "profile -m m -u URL --endpoint-type chat --streaming "
                              "--concurrency 2 --request-count 10 --osl 6 --slice-duration 1 "
                              "--artifact-dir DIR",
                              false, &out);
    cr_assert_eq(status, 0, "%s", out);
    /* Every file the run left, the summaries, records, console copy, logs and timeslices. */
    DIR *dir = opendir(w.dir);
    cr_assert_not_null(dir);
    size_t files = 0;
    for (struct dirent *e = readdir(dir); e != NULL; e = readdir(dir)) {
        if (e->d_type != DT_REG) {
            continue;
        }
        char *text = e2e_read_text(&w, e->d_name);
        cr_assert(strstr(text, "spec_decode") == NULL, "%s", e->d_name);
        cr_assert(strstr(text, "draft") == NULL && strstr(text, "Draft") == NULL, "%s", e->d_name);
        cr_assert(strstr(text, "Acceptance") == NULL && strstr(text, "Spec Decode") == NULL, "%s",
                  e->d_name);
        free(text);
        files++;
    }
    closedir(dir);
    cr_assert_geq(files, 4, "the summaries, the records and the console copy");
    cr_assert(strstr(out, "Spec Decode") == NULL, "%s", out);
    cr_assert(strstr(out, "Accepted-draft") == NULL, "%s", out);
    free(out);
    e2e_finish(&w);
}

/* Shares write each request's statistics into their records files: the merged run has them. */
Test(spec_decode_e2e, a_merge_of_shares_keeps_them, .timeout = 120)
{
    struct e2e w;
    char *const mock_flags[] = {"--spec-decode-tokens", "3", NULL};
    e2e_start(&w, mock_flags);
    for (int share = 0; share < 2; share++) {
        char words[512];
        snprintf(words, sizeof(words),
                 "profile -m m -u URL --endpoint-type chat --streaming --concurrency 2 "
                 "--request-count 20 --isl 20 --osl 10 --osl-stddev 4 --random-seed 3 "
                 "--artifact-dir DIR --shard-index %d --shard-count 2",
                 share);
        e2e_run_ok(&w, words);
    }
    e2e_run_ok(&w, "merge DIR");
    struct totals t = check_records(&w);
    cr_assert_eq(t.records, 20);
    cr_assert_gt(t.with_stats, 0);
    check_summary(&w, &t);
    e2e_finish(&w);
}
