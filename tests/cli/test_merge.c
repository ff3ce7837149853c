/*
 * `ringperf merge` without MPI: independent processes each run one share of
 * a run (--shard-index/--shard-count, as the pods of a Kubernetes Indexed
 * Job would) and the merge makes one result of them.
 */
#include <criterion/criterion.h>

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "e2e.h"
#include "merge_check.h"

#define RUN_FLAGS                                                                                  \
    "profile --model m --url URL --endpoint-type chat --streaming --osl 8 --random-seed 7 "

/* run_share runs one share of a run (FLAGS name it) to exit status 0. */
static void run_share(const struct e2e *w, const char *flags)
{
    char words[1024];
    snprintf(words, sizeof(words), RUN_FLAGS "--artifact-dir DIR %s", flags);
    e2e_run_ok(w, words);
}

/* run_shares runs every share of `--shard-count count` with the same flags. */
static void run_shares(const struct e2e *w, int count, const char *flags)
{
    for (int share = 0; share < count; share++) {
        char share_flags[512];
        snprintf(share_flags, sizeof(share_flags), "%s --shard-index %d --shard-count %d", flags,
                 share, count);
        run_share(w, share_flags);
    }
}

/* has_file tells whether the world's directory holds the file `name`. */
static bool has_file(const struct e2e *w, const char *name)
{
    char path[512];
    snprintf(path, sizeof(path), "%s/%s", w->dir, name);
    return access(path, R_OK) == 0;
}

/* request_count is the `request_count` average of the summary `name`. */
static double request_count(const struct e2e *w, const char *name)
{
    json_t *summary = e2e_load_json(w, name);
    double count =
        json_number_value(json_object_get(json_object_get(summary, "request_count"), "avg"));
    json_decref(summary);
    return count;
}

/* assert_run runs `ringperf WORDS` and requires exit status `status` and,
 * when says is not NULL, `says` in its output. */
static void assert_run(const struct e2e *w, const char *words, int status, const char *says)
{
    char *out = NULL;
    int got = run_ringperf(w, words, true, &out);
    cr_assert_eq(got, status, "%s\nexit %d:\n%s", words, got, out);
    cr_assert(says == NULL || strstr(out, says) != NULL, "%s", out);
    free(out);
}

static void start(struct e2e *w)
{
    char *const mock_flags[] = {"--ttft-ms", "1", "--itl-ms", "0.2", NULL};
    e2e_start(w, mock_flags);
}

Test(merge, two_shards_merge_into_the_requested_run, .timeout = 120)
{
    struct e2e w;
    start(&w);
    run_shares(&w, 2, "--concurrency 4 --request-count 30");
    assert_run(&w, "merge DIR", 0, "Request Count (requests)");
    assert_unique_ordinals(w.dir, 30, 2);
    cr_assert_eq(request_count(&w, "profile_export_aiperf.json"), 30.0);
    json_t *summary = e2e_load_json(&w, "profile_export_aiperf.json");
    json_t *info = json_object_get(summary, "run_info");
    cr_assert_eq(json_array_size(json_object_get(info, "ranks")), 2);
    cr_assert(json_is_false(json_object_get(info, "incomplete")));
    cr_assert_eq(json_array_size(json_object_get(info, "hosts")), 1);
    json_decref(summary);
    assert_percentiles_from_records(w.dir, "request_latency");
    assert_percentiles_from_records(w.dir, "time_to_first_token");
    cr_assert(has_file(&w, "inputs.json"), "shard 0 writes the one inputs.json");
    cr_assert_not(has_file(&w, "rank_1/inputs.json"), "no other inputs.json");
    e2e_finish(&w);
}

Test(merge, merging_one_share_reproduces_its_own_summary_exactly, .timeout = 120)
{
    struct e2e w;
    start(&w);
    run_share(&w, "--concurrency 3 --request-count 25 --shard-count 1 --shard-index 0");
    e2e_run_ok(&w, "merge IN/rank_0 --artifact-dir IN/merged");
    json_t *own = e2e_load_json(&w, "rank_0/profile_export_aiperf.json");
    json_t *merged = e2e_load_json(&w, "merged/profile_export_aiperf.json");
    assert_same_metrics(own, merged);
    json_decref(own);
    json_decref(merged);
    /* The records join the same inputs.json: conversation ids as the share wrote them. */
    char *own_lines = e2e_read_text(&w, "rank_0/profile_export.jsonl");
    char *merged_lines = e2e_read_text(&w, "merged/profile_export.jsonl");
    char *own_cursor = own_lines;
    char *merged_cursor = merged_lines;
    size_t lines = 0;
    for (char *a = test_next_line(&own_cursor), *b = test_next_line(&merged_cursor);
         a != NULL && b != NULL;
         a = test_next_line(&own_cursor), b = test_next_line(&merged_cursor)) {
        json_t *ja = json_loads(a, 0, NULL);
        json_t *jb = json_loads(b, 0, NULL);
        const char *ca =
            json_string_value(json_object_get(json_object_get(ja, "metadata"), "conversation_id"));
        const char *cb =
            json_string_value(json_object_get(json_object_get(jb, "metadata"), "conversation_id"));
        cr_assert(ca != NULL && strncmp(ca, "session_", 8) == 0, "%s", a);
        cr_assert(cb != NULL && strcmp(ca, cb) == 0, "merged %s, share %s", cb, ca);
        json_decref(ja);
        json_decref(jb);
        lines++;
    }
    cr_assert_eq(lines, 25);
    free(own_lines);
    free(merged_lines);
    e2e_finish(&w);
}

Test(merge, a_missing_share_marks_the_result_incomplete, .timeout = 120)
{
    struct e2e w;
    start(&w);
    run_share(&w, "--concurrency 2 --request-count 10 --shard-index 0 --shard-count 2");
    assert_run(&w, "merge IN/rank_0 --artifact-dir DIR", 0, "share 1 of 2 is missing");
    json_t *summary = e2e_load_json(&w, "profile_export_aiperf.json");
    json_t *info = json_object_get(summary, "run_info");
    cr_assert(json_is_true(json_object_get(info, "incomplete")));
    json_decref(summary);
    e2e_finish(&w);
}

Test(merge, shares_must_be_distinct_shares_of_one_split, .timeout = 120)
{
    struct e2e w;
    start(&w);
    run_share(&w, "--concurrency 2 --request-count 10 --shard-index 0 --shard-count 2");
    char *out = NULL;
    int status = run_ringperf(&w, "merge IN/rank_0 IN/rank_0 --artifact-dir DIR", true, &out);
    cr_assert_neq(status, 0, "the same share twice is refused\n%s", out);
    cr_assert(strstr(out, "repeats a share") != NULL, "%s", out);
    free(out);
    status = run_ringperf(&w, "merge DIR --shard-count 3", true, &out);
    cr_assert_neq(status, 0, "a different share count is refused\n%s", out);
    free(out);
    e2e_finish(&w);
}

Test(merge, shard_flags_are_checked_before_the_run, .timeout = 60)
{
    static const struct {
        const char *flags;
        const char *says; /* NULL: any message */
    } refused[] = {
        {"--concurrency 1 --request-count 4 --random-seed 1 --shard-index 0 --shard-count 2",
         "--concurrency 1 is less than the 2"},
        {"--concurrency 2 --request-count 4 --shard-index 0 --shard-count 2", "--random-seed"},
        {"--concurrency 2 --request-count 4 --random-seed 1 --shard-index 2 --shard-count 2", NULL},
    };
    struct e2e w;
    start(&w);
    for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
        char words[512];
        snprintf(words, sizeof(words),
                 "profile --model m --url URL --endpoint-type chat %s --artifact-dir DIR",
                 refused[i].flags);
        assert_run(&w, words, 1, refused[i].says);
    }
    e2e_finish(&w);
}

Test(merge, a_trace_is_split_by_ordinal, .timeout = 120)
{
    struct e2e w;
    start(&w);
    char trace[512] = "";
    for (int i = 0; i < 6; i++) {
        size_t len = strlen(trace);
        snprintf(trace + len, sizeof(trace) - len,
                 "{\"timestamp\": %d, \"input_length\": 20, \"output_length\": 4}\n", i * 60);
    }
    e2e_write(&w, "trace.jsonl", trace);
    run_shares(&w, 2, "--input-file IN/trace.jsonl --concurrency 2");
    e2e_run_ok(&w, "merge DIR");
    assert_unique_ordinals(w.dir, 6, 2);
    e2e_finish(&w);
}

Test(merge, a_closed_loop_without_concurrency_cannot_be_split, .timeout = 60)
{
    struct e2e w;
    start(&w);
    assert_run(&w,
               "profile --model m --url URL --endpoint-type chat --request-count 4 "
               "--random-seed 1 --shard-index 0 --shard-count 2 --artifact-dir DIR",
               1, "concurrency 1 (the default) is less than the 2 shares");
    e2e_finish(&w);
}

Test(merge, without_shard_index_the_job_completion_index_is_used, .timeout = 120)
{
    struct e2e w;
    start(&w);
    setenv("JOB_COMPLETION_INDEX", "1", 1);
    run_share(&w, "--concurrency 2 --request-count 10 --shard-count 2");
    unsetenv("JOB_COMPLETION_INDEX");
    cr_assert(has_file(&w, "rank_1/ringperf_records.jsonl"), "share 1 wrote its records");
    e2e_finish(&w);
}

Test(merge, raw_shares_are_refused_unless_merged_as_records, .timeout = 120)
{
    struct e2e w;
    start(&w);
    run_shares(&w, 2, "--concurrency 2 --request-count 8 --export-level raw");
    assert_run(&w, "merge DIR", 1, "profile_export_raw.jsonl cannot be merged");
    cr_assert_not(has_file(&w, "profile_export_aiperf.json"), "nothing merged");
    e2e_run_ok(&w, "merge DIR --export-level records");
    assert_unique_ordinals(w.dir, 8, 2);
    e2e_finish(&w);
}

Test(merge, the_export_prefix_carries_into_the_merged_file_names, .timeout = 120)
{
    struct e2e w;
    start(&w);
    run_shares(&w, 2, "--concurrency 2 --request-count 6 --profile-export-prefix my_run");
    e2e_run_ok(&w, "merge DIR");
    cr_assert_eq(request_count(&w, "my_run.json"), 6.0);
    cr_assert(has_file(&w, "my_run.jsonl"), "the records export has the prefix");
    cr_assert_not(has_file(&w, "profile_export_aiperf.json"), "no file under the default name");
    e2e_finish(&w);
}

/* A share's records carry each request's input images, so a merge reproduces the image metrics
 * (num_images, image_throughput, image_latency) too. */
Test(merge, merging_keeps_the_image_metrics, .timeout = 120)
{
    struct e2e w;
    start(&w);
    e2e_run_ok(&w, "profile --model m --url URL --endpoint-type image_retrieval "
                   "--image-width-mean 8 --image-height-mean 8 --image-batch-size 2 "
                   "--concurrency 2 --request-count 8 --random-seed 7 --shard-count 1 "
                   "--shard-index 0 --artifact-dir DIR");
    e2e_run_ok(&w, "merge IN/rank_0 --artifact-dir IN/merged");
    json_t *own = e2e_load_json(&w, "rank_0/profile_export_aiperf.json");
    json_t *merged = e2e_load_json(&w, "merged/profile_export_aiperf.json");
    cr_assert_not_null(json_object_get(own, "image_latency"));
    cr_assert_float_eq(
        json_number_value(json_object_get(json_object_get(merged, "num_images"), "avg")), 2.0,
        1e-9);
    assert_same_metrics(own, merged);
    json_decref(own);
    json_decref(merged);
    e2e_finish(&w);
}
