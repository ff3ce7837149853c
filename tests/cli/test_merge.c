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

static void run_share(const struct e2e *w, const char *flags)
{
    char words[1024];
    snprintf(words, sizeof(words), RUN_FLAGS "--artifact-dir DIR %s", flags);
    char *out = NULL;
    int status = run_ringperf(w, words, true, &out);
    cr_assert_eq(status, 0, "ringperf %s: exit %d\n%s", flags, status, out);
    free(out);
}

/* merge runs `ringperf merge DIR/a [DIR/b] --artifact-dir DIR/out_sub`. */
static int merge(const struct e2e *w, const char *a, const char *b, const char *out_sub, char **out)
{
    char words[1024];
    int n = snprintf(words, sizeof(words), "merge %s/%s", w->dir, a);
    if (b != NULL) {
        n += snprintf(words + n, sizeof(words) - (size_t)n, " %s/%s", w->dir, b);
    }
    snprintf(words + n, sizeof(words) - (size_t)n, " --artifact-dir %s/%s", w->dir, out_sub);
    return run_ringperf(w, words, true, out);
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
    run_share(&w, "--concurrency 4 --request-count 30 --shard-index 0 --shard-count 2");
    run_share(&w, "--concurrency 4 --request-count 30 --shard-index 1 --shard-count 2");
    char *out = NULL;
    int status = run_ringperf(&w, "merge DIR", true, &out);
    cr_assert_eq(status, 0, "merge: exit %d\n%s", status, out);
    cr_assert(strstr(out, "Request Count (requests)") != NULL, "%s", out);
    free(out);
    assert_unique_ordinals(w.dir, 30, 2);
    json_t *summary = load_json(w.dir, "profile_export_aiperf.json");
    json_t *count = json_object_get(json_object_get(summary, "request_count"), "avg");
    cr_assert_eq(json_number_value(count), 30.0);
    json_t *info = json_object_get(summary, "run_info");
    cr_assert_eq(json_array_size(json_object_get(info, "ranks")), 2);
    cr_assert(json_is_false(json_object_get(info, "incomplete")));
    cr_assert_eq(json_array_size(json_object_get(info, "hosts")), 1);
    json_decref(summary);
    assert_percentiles_from_records(w.dir, "request_latency");
    assert_percentiles_from_records(w.dir, "time_to_first_token");
    char path[512];
    snprintf(path, sizeof(path), "%s/inputs.json", w.dir);
    cr_assert_eq(access(path, R_OK), 0, "shard 0 writes the one inputs.json");
    snprintf(path, sizeof(path), "%s/rank_1/inputs.json", w.dir);
    cr_assert_neq(access(path, R_OK), 0, "no other inputs.json");
    stop_mock(&w.mock);
}

Test(merge, merging_one_share_reproduces_its_own_summary_exactly, .timeout = 120)
{
    struct e2e w;
    start(&w);
    run_share(&w, "--concurrency 3 --request-count 25 --shard-count 1 --shard-index 0");
    char *out = NULL;
    int status = merge(&w, "rank_0", NULL, "merged", &out);
    cr_assert_eq(status, 0, "merge: exit %d\n%s", status, out);
    free(out);
    char rank_dir[128];
    char merged_dir[128];
    snprintf(rank_dir, sizeof(rank_dir), "%s/rank_0", w.dir);
    snprintf(merged_dir, sizeof(merged_dir), "%s/merged", w.dir);
    json_t *own = load_json(rank_dir, "profile_export_aiperf.json");
    json_t *merged = load_json(merged_dir, "profile_export_aiperf.json");
    assert_same_metrics(own, merged);
    json_decref(own);
    json_decref(merged);
    stop_mock(&w.mock);
}

Test(merge, a_missing_share_marks_the_result_incomplete, .timeout = 120)
{
    struct e2e w;
    start(&w);
    run_share(&w, "--concurrency 2 --request-count 10 --shard-index 0 --shard-count 2");
    char *out = NULL;
    int status = merge(&w, "rank_0", NULL, ".", &out);
    cr_assert_eq(status, 0, "merge: exit %d\n%s", status, out);
    cr_assert(strstr(out, "share 1 of 2 is missing") != NULL, "%s", out);
    free(out);
    json_t *summary = load_json(w.dir, "profile_export_aiperf.json");
    json_t *info = json_object_get(summary, "run_info");
    cr_assert(json_is_true(json_object_get(info, "incomplete")));
    json_decref(summary);
    stop_mock(&w.mock);
}

Test(merge, shares_must_be_distinct_shares_of_one_split, .timeout = 120)
{
    struct e2e w;
    start(&w);
    run_share(&w, "--concurrency 2 --request-count 10 --shard-index 0 --shard-count 2");
    char *out = NULL;
    int status = merge(&w, "rank_0", "rank_0", ".", &out);
    cr_assert_neq(status, 0, "the same share twice is refused\n%s", out);
    cr_assert(strstr(out, "repeats a share") != NULL, "%s", out);
    free(out);
    status = run_ringperf(&w, "merge DIR --shard-count 3", true, &out);
    cr_assert_neq(status, 0, "a different share count is refused\n%s", out);
    free(out);
    stop_mock(&w.mock);
}

Test(merge, shard_flags_are_checked_before_the_run, .timeout = 60)
{
    struct e2e w;
    start(&w);
    char *out = NULL;
    int status = run_ringperf(&w,
                              "profile --model m --url URL --endpoint-type chat --concurrency 1 "
                              "--request-count 4 --random-seed 1 --shard-index 0 --shard-count 2 "
                              "--artifact-dir DIR",
                              true, &out);
    cr_assert_eq(status, 2, "%s", out);
    cr_assert(strstr(out, "--concurrency 1 is less than the 2") != NULL, "%s", out);
    free(out);
    status = run_ringperf(&w,
                          "profile --model m --url URL --endpoint-type chat --concurrency 2 "
                          "--request-count 4 --shard-index 0 --shard-count 2 --artifact-dir DIR",
                          true, &out);
    cr_assert_eq(status, 2, "%s", out);
    cr_assert(strstr(out, "--random-seed") != NULL, "%s", out);
    free(out);
    status = run_ringperf(&w,
                          "profile --model m --url URL --endpoint-type chat --concurrency 2 "
                          "--request-count 4 --random-seed 1 --shard-index 2 --shard-count 2 "
                          "--artifact-dir DIR",
                          true, &out);
    cr_assert_eq(status, 2, "%s", out);
    free(out);
    stop_mock(&w.mock);
}

Test(merge, a_trace_is_split_by_ordinal, .timeout = 120)
{
    struct e2e w;
    start(&w);
    char path[512];
    snprintf(path, sizeof(path), "%s/trace.jsonl", w.dir);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    for (int i = 0; i < 6; i++) {
        fprintf(f, "{\"timestamp\": %d, \"input_length\": 20, \"output_length\": 4}\n", i * 60);
    }
    fclose(f);
    for (int share = 0; share < 2; share++) {
        char words[1024];
        snprintf(words, sizeof(words),
                 RUN_FLAGS "--artifact-dir DIR --input-file %s --concurrency 2 --shard-index %d "
                           "--shard-count 2",
                 path, share);
        char *out = NULL;
        int status = run_ringperf(&w, words, true, &out);
        cr_assert_eq(status, 0, "share %d: exit %d\n%s", share, status, out);
        free(out);
    }
    char *out = NULL;
    int status = run_ringperf(&w, "merge DIR", true, &out);
    cr_assert_eq(status, 0, "merge: exit %d\n%s", status, out);
    free(out);
    assert_unique_ordinals(w.dir, 6, 2);
    stop_mock(&w.mock);
}

Test(merge, a_closed_loop_without_concurrency_cannot_be_split, .timeout = 60)
{
    struct e2e w;
    start(&w);
    char *out = NULL;
    int status = run_ringperf(&w,
                              "profile --model m --url URL --endpoint-type chat --request-count 4 "
                              "--random-seed 1 --shard-index 0 --shard-count 2 --artifact-dir DIR",
                              true, &out);
    cr_assert_eq(status, 2, "%s", out);
    cr_assert(strstr(out, "concurrency 1 (the default) is less than the 2 shares") != NULL, "%s",
              out);
    free(out);
    stop_mock(&w.mock);
}

Test(merge, without_shard_index_the_job_completion_index_is_used, .timeout = 120)
{
    struct e2e w;
    start(&w);
    setenv("JOB_COMPLETION_INDEX", "1", 1);
    run_share(&w, "--concurrency 2 --request-count 10 --shard-count 2");
    unsetenv("JOB_COMPLETION_INDEX");
    char path[512];
    snprintf(path, sizeof(path), "%s/rank_1/ringperf_records.jsonl", w.dir);
    cr_assert_eq(access(path, R_OK), 0, "share 1 wrote its records");
    stop_mock(&w.mock);
}

Test(merge, raw_shares_are_refused_unless_merged_as_records, .timeout = 120)
{
    struct e2e w;
    start(&w);
    for (int share = 0; share < 2; share++) {
        char flags[256];
        snprintf(flags, sizeof(flags),
                 "--concurrency 2 --request-count 8 --export-level raw --shard-index %d "
                 "--shard-count 2",
                 share);
        run_share(&w, flags);
    }
    char *out = NULL;
    int status = run_ringperf(&w, "merge DIR", true, &out);
    cr_assert_eq(status, 2, "raw cannot be merged: exit %d\n%s", status, out);
    cr_assert(strstr(out, "profile_export_raw.jsonl cannot be merged") != NULL, "%s", out);
    free(out);
    char path[512];
    snprintf(path, sizeof(path), "%s/profile_export_aiperf.json", w.dir);
    cr_assert_neq(access(path, R_OK), 0, "nothing merged");
    status = run_ringperf(&w, "merge DIR --export-level records", true, &out);
    cr_assert_eq(status, 0, "merge as records: exit %d\n%s", status, out);
    free(out);
    assert_unique_ordinals(w.dir, 8, 2);
    stop_mock(&w.mock);
}

Test(merge, the_export_prefix_carries_into_the_merged_file_names, .timeout = 120)
{
    struct e2e w;
    start(&w);
    run_share(&w, "--concurrency 2 --request-count 6 --profile-export-prefix my_run --shard-index "
                  "0 --shard-count 2");
    run_share(&w, "--concurrency 2 --request-count 6 --profile-export-prefix my_run --shard-index "
                  "1 --shard-count 2");
    char *out = NULL;
    int status = run_ringperf(&w, "merge DIR", true, &out);
    cr_assert_eq(status, 0, "merge: exit %d\n%s", status, out);
    free(out);
    json_t *summary = load_json(w.dir, "my_run.json");
    json_t *count = json_object_get(json_object_get(summary, "request_count"), "avg");
    cr_assert_eq(json_number_value(count), 6.0);
    json_decref(summary);
    char path[512];
    snprintf(path, sizeof(path), "%s/my_run.jsonl", w.dir);
    cr_assert_eq(access(path, R_OK), 0, "the records export has the prefix");
    snprintf(path, sizeof(path), "%s/profile_export_aiperf.json", w.dir);
    cr_assert_neq(access(path, R_OK), 0, "no file under the default name");
    stop_mock(&w.mock);
}
